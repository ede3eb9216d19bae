"""NetworkPolicy evaluation with Kubernetes semantics, for traffic between a job's pods.

Rules implemented (networking.k8s.io/v1):
- A policy selects the pods of its own namespace that match `spec.podSelector` (`{}`: all).
- `policyTypes` defaults to `["Ingress"]`, plus `"Egress"` when the policy has egress rules.
  So a policy with no `policyTypes` and no ingress rules isolates its pods for ingress and
  allows nothing in: it is deny-all ingress, not allow-all.
- A pod isolated in a direction accepts only what some rule of some policy selecting it
  allows (rules add up; nothing subtracts). A pod no policy selects is not isolated.
- A rule with no `from`/`to` matches every peer; with peers, any peer may match. A peer's
  `podSelector` alone means pods of the policy's namespace; `namespaceSelector` alone means
  every pod of the matching namespaces; both together mean matching pods in matching
  namespaces; `ipBlock` matches addresses in `cidr` but not in `except`.
- A rule with no `ports` allows every port; a port entry without `port` allows every port of
  its protocol (TCP by default); `endPort` makes a range; a named port is looked up in the
  destination pod's container ports.
Traffic between two pods passes only if the sender's egress and the receiver's ingress both
allow it.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from hyperpod_nccl.kube.objects import Obj, containers, labels, name, namespace, spec, status
from hyperpod_nccl.kube.selectors import matches

NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name"
ALL_PORTS = (1, 65535)


@dataclass(frozen=True)
class Endpoint:
    """A pod as NetworkPolicy sees it: namespace, labels, address, named ports."""

    namespace: str
    labels: tuple[tuple[str, str], ...]
    ip: str | None = None
    named_ports: tuple[tuple[str, int, str], ...] = ()  # (name, number, protocol)
    name: str = ""

    @property
    def label_map(self) -> dict[str, str]:
        return dict(self.labels)


def endpoint(pod: Obj) -> Endpoint:
    ports = []
    for container in containers(pod):
        for port in container.get("ports") or []:
            if port.get("name") and port.get("containerPort"):
                ports.append(
                    (
                        str(port["name"]),
                        int(port["containerPort"]),
                        str(port.get("protocol", "TCP")),
                    )
                )
    return Endpoint(
        namespace(pod),
        tuple(sorted(labels(pod).items())),
        status(pod).get("podIP"),
        tuple(ports),
        name(pod),
    )


@dataclass
class Allowance:
    """What one direction allows for one (pod, peer) pair."""

    isolated: bool = False
    policies: list[str] = field(default_factory=list)  # policies that isolate the pod
    ranges: dict[str, list[tuple[int, int]]] = field(default_factory=dict)  # protocol -> ranges
    uncertain: list[str] = field(default_factory=list)  # why the answer may be wrong

    def allows_all(self, protocol: str) -> bool:
        if not self.isolated:
            return True
        return _covers(self.ranges.get(protocol, []), ALL_PORTS)

    def allows_port(self, protocol: str, port: int) -> bool:
        if not self.isolated:
            return True
        return _covers(self.ranges.get(protocol, []), (port, port))

    def describe(self, protocol: str = "TCP") -> str:
        if not self.isolated:
            return "all"
        ranges = sorted(self.ranges.get(protocol, []))
        if not ranges:
            return "none"
        return ",".join(str(a) if a == b else f"{a}-{b}" for a, b in ranges)


def _covers(ranges: list[tuple[int, int]], wanted: tuple[int, int]) -> bool:
    """Whether the union of `ranges` covers every port of `wanted`."""
    low, high = wanted
    for start, end in sorted(ranges):
        if start > low:
            return False
        if end >= low:
            low = end + 1
        if low > high:
            return True
    return low > high


def policy_types(policy: Obj) -> set[str]:
    declared = spec(policy).get("policyTypes")
    if declared:
        return {str(t) for t in declared}
    types = {"Ingress"}
    if spec(policy).get("egress"):
        types.add("Egress")
    return types


def _peer_matches(
    peer: dict[str, Any],
    policy_namespace: str,
    other: Endpoint,
    namespace_labels: dict[str, dict[str, str]] | None,
    uncertain: list[str],
) -> bool:
    block = peer.get("ipBlock")
    if block:
        if not other.ip:
            uncertain.append("an ipBlock peer cannot be matched: the pod has no IP yet")
            return False
        try:
            address = ipaddress.ip_address(other.ip)
            if address not in ipaddress.ip_network(str(block.get("cidr")), strict=False):
                return False
            return not any(
                address in ipaddress.ip_network(str(e), strict=False)
                for e in block.get("except") or []
            )
        except ValueError:
            uncertain.append(f"unreadable ipBlock {block.get('cidr')!r}")
            return False
    ns_selector = peer.get("namespaceSelector")
    if ns_selector is None:
        if other.namespace != policy_namespace:
            return False
    elif ns_selector:  # {} selects every namespace
        if namespace_labels is None:
            known = {NAMESPACE_NAME_LABEL: other.namespace}  # set on every namespace since 1.22
            if not matches(ns_selector, known):
                uncertain.append(
                    "a namespaceSelector could not be evaluated: namespaces were not collected"
                )
                return False
        elif not matches(ns_selector, namespace_labels.get(other.namespace, {})):
            return False
    pod_selector = peer.get("podSelector")
    return pod_selector is None or matches(pod_selector, other.label_map)


def _port_ranges(
    rule_ports: list[dict[str, Any]] | None, destination: Endpoint
) -> dict[str, list[tuple[int, int]]]:
    if not rule_ports:
        return {p: [ALL_PORTS] for p in ("TCP", "UDP", "SCTP")}
    ranges: dict[str, list[tuple[int, int]]] = {}
    for entry in rule_ports:
        protocol = str(entry.get("protocol") or "TCP")
        port = entry.get("port")
        if port is None:
            ranges.setdefault(protocol, []).append(ALL_PORTS)
            continue
        if isinstance(port, str) and not port.isdigit():
            for port_name, number, proto in destination.named_ports:
                if port_name == port and proto == protocol:
                    ranges.setdefault(protocol, []).append((number, number))
            continue
        start = int(port)
        end = int(entry.get("endPort") or start)
        ranges.setdefault(protocol, []).append((start, end))
    return ranges


def allowance(
    direction: str,
    subject: Endpoint,
    peer: Endpoint,
    policies: Iterable[Obj],
    namespace_labels: dict[str, dict[str, str]] | None,
) -> Allowance:
    """What `subject`'s policies allow in `direction` ("Ingress": from `peer`; "Egress": to
    `peer`)."""
    result = Allowance()
    rules_key, peers_key = ("ingress", "from") if direction == "Ingress" else ("egress", "to")
    destination = subject if direction == "Ingress" else peer
    for policy in policies:
        if namespace(policy) != subject.namespace or direction not in policy_types(policy):
            continue
        if not matches(spec(policy).get("podSelector") or {}, subject.label_map):
            continue
        result.isolated = True
        result.policies.append(name(policy))
        for rule in spec(policy).get(rules_key) or []:
            peers = (rule or {}).get(peers_key)
            if peers and not any(
                _peer_matches(p or {}, namespace(policy), peer, namespace_labels, result.uncertain)
                for p in peers
            ):
                continue
            for protocol, ranges in _port_ranges((rule or {}).get("ports"), destination).items():
                result.ranges.setdefault(protocol, []).extend(ranges)
    return result


@dataclass(frozen=True)
class Blocked:
    """A direction of traffic between two pods that the policies do not fully allow."""

    source: Endpoint
    destination: Endpoint
    direction: str  # Ingress (at destination) | Egress (at source)
    policies: tuple[str, ...]
    allowed_tcp: str


def relevant_keys(policies: Iterable[Obj]) -> set[str]:
    """Label keys any selector in these policies looks at; other labels cannot matter."""
    keys: set[str] = set()

    def add(selector: Any) -> None:
        if isinstance(selector, dict):
            keys.update((selector.get("matchLabels") or {}).keys())
            keys.update(str(e.get("key")) for e in selector.get("matchExpressions") or [])

    for policy in policies:
        add(spec(policy).get("podSelector"))
        for key, peers_key in (("ingress", "from"), ("egress", "to")):
            for rule in spec(policy).get(key) or []:
                for peer in (rule or {}).get(peers_key) or []:
                    add((peer or {}).get("podSelector"))
    return keys


def uses_ip_blocks(policies: Iterable[Obj]) -> bool:
    return any(
        (peer or {}).get("ipBlock")
        for policy in policies
        for key, peers_key in (("ingress", "from"), ("egress", "to"))
        for rule in spec(policy).get(key) or []
        for peer in (rule or {}).get(peers_key) or []
    )


def classes(endpoints: list[Endpoint], policies: list[Obj]) -> list[tuple[Endpoint, int]]:
    """One endpoint per class of pods the policies cannot tell apart, with the class size,
    so checking a job of thousands of pods costs as much as checking a handful."""
    keys = relevant_keys(policies)
    by_ip = uses_ip_blocks(policies)
    seen: dict[tuple[Any, ...], list[Any]] = {}
    for ep in endpoints:
        projected = tuple((k, v) for k, v in ep.labels if k in keys)
        signature = (ep.namespace, projected, ep.named_ports, ep.ip if by_ip else None)
        if signature in seen:
            seen[signature][1] += 1
        else:
            seen[signature] = [ep, 1]
    return [(ep, count) for ep, count in seen.values()]


def blocked_between(
    endpoints: list[Endpoint],
    policies: list[Obj],
    namespace_labels: dict[str, dict[str, str]] | None,
) -> tuple[list[Blocked], list[str]]:
    """Directions in which pods of one job cannot reach each other on every TCP port (NCCL's
    bootstrap and socket transport use ephemeral ports, so any narrower allowance breaks it),
    and the reasons the answer may be uncertain."""
    reps = classes(endpoints, policies)
    problems: list[Blocked] = []
    uncertain: list[str] = []
    for src, size in reps:
        for dst, _ in reps:
            if src is dst and size < 2:
                continue  # a pod alone in its class has no peer like itself
            egress = allowance("Egress", src, dst, policies, namespace_labels)
            ingress = allowance("Ingress", dst, src, policies, namespace_labels)
            uncertain.extend(egress.uncertain + ingress.uncertain)
            if not egress.allows_all("TCP"):
                problems.append(
                    Blocked(src, dst, "Egress", tuple(egress.policies), egress.describe())
                )
            if not ingress.allows_all("TCP"):
                problems.append(
                    Blocked(src, dst, "Ingress", tuple(ingress.policies), ingress.describe())
                )
    return problems, sorted(set(uncertain))


def dns_blocked(
    endpoints: list[Endpoint],
    policies: list[Obj],
    namespace_labels: dict[str, dict[str, str]] | None,
) -> list[tuple[Endpoint, tuple[str, ...]]]:
    """Job pods whose egress policies do not allow DNS (UDP 53) to CoreDNS in kube-system,
    so MASTER_ADDR and peer names cannot resolve."""
    dns = Endpoint(
        "kube-system", (("k8s-app", "kube-dns"),), None, (("dns", 53, "UDP"),), "coredns"
    )
    found = []
    for src, _ in classes(endpoints, policies):
        egress = allowance("Egress", src, dns, policies, namespace_labels)
        if not egress.allows_port("UDP", 53):
            found.append((src, tuple(egress.policies)))
    return found
