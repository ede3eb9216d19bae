"""Pure logic over Kubernetes objects (as the API returns them, plain JSON): job selection,
label selectors, NetworkPolicy semantics, resource quantities. No I/O here."""
