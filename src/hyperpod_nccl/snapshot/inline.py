"""A Snapshot written as one small JSON document, and back: a few items and the run's meta,
for a check's unit test, a reproduction pasted into an issue, or an excerpt of a bundle.

    {
      "source": "where the data comes from (free text, kept for people)",
      "meta": {"command": "diagnose", "orchestrator": "eks", ...},
      "items": {
        "aws/sagemaker/describe_cluster.json": {...the document...},
        "nodes/gpu-1/gpu_ecc.txt": ["line 1", "line 2"]
      },
      "missing": {"aws/ec2/describe_subnets.json": "AccessDenied: ..."}
    }

An item whose name ends in `.json` holds a JSON document; any other item is text, given as a
string or as a list of lines (easier to read and to diff in a fixture). Meta is checked by the
bundle manifest's schema and item names by the Snapshot's, so a bad document is one line.
"""

from __future__ import annotations

from typing import Any

from hyperpod_nccl.snapshot import BundleError, Snapshot
from hyperpod_nccl.snapshot import meta as meta_format
from hyperpod_nccl.snapshot.manifest import manifest_problem

SCHEMA_KEYS = frozenset({"source", "meta", "items", "missing"})


def snapshot_from_dict(document: Any, where: str = "snapshot") -> Snapshot:
    """A Snapshot holding what `document` lists; BundleError (one line) if it is malformed."""
    if not isinstance(document, dict):
        raise BundleError(f"{where}: expected a JSON object")
    unknown = sorted(set(document) - SCHEMA_KEYS)
    if unknown:
        raise BundleError(f"{where}: unknown field {unknown[0]!r}")
    meta = document.get("meta") or {}
    items = document.get("items") or {}
    missing = document.get("missing") or {}
    for field, value in (("meta", meta), ("items", items), ("missing", missing)):
        if not isinstance(value, dict):
            raise BundleError(f"{where}: field {field}: expected an object")
    problem = manifest_problem({**meta, "items": []})
    if problem is not None:
        raise BundleError(f"{where}: meta {problem}")
    snapshot = Snapshot(meta=meta_format.from_manifest(meta))
    try:
        for name, value in items.items():
            if name.endswith(".json"):
                snapshot.put_json(name, value, source=where)
            else:
                snapshot.put_text(name, _text(where, name, value), source=where)
        for name, reason in missing.items():
            if not isinstance(reason, str):
                raise BundleError(f"{where}: missing[{name!r}]: expected a reason (a string)")
            snapshot.missing(name, reason)
    except BaseException:
        snapshot.close()
        raise
    return snapshot


def _text(where: str, name: str, value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(line, str) for line in value):
        return "".join(line + "\n" for line in value)
    raise BundleError(f"{where}: items[{name!r}]: expected text (a string or a list of lines)")


def snapshot_to_dict(snapshot: Snapshot, names: list[str] | None = None) -> dict[str, Any]:
    """The document `snapshot_from_dict` reads back: the given items (default: all), text as
    lines, and every missing item with its reason."""
    chosen = names if names is not None else snapshot.names()
    items: dict[str, Any] = {}
    missing: dict[str, str] = {}
    for name in chosen:
        if snapshot.has(name):
            if name.endswith(".json"):
                items[name] = snapshot.get_json(name)
            else:
                items[name] = (snapshot.get_text(name) or "").splitlines()
        else:
            missing[name] = snapshot.why_missing(name) or "not collected"
    return {"meta": meta_format.to_manifest(snapshot.meta), "items": items, "missing": missing}
