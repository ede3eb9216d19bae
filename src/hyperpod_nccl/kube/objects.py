"""Small accessors over Kubernetes objects as plain JSON dicts."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

Obj = dict[str, Any]

GPU_RESOURCE = "nvidia.com/gpu"
EFA_RESOURCE = "vpc.amazonaws.com/efa"
_QUANTITY = re.compile(r"^([0-9.]+)([a-zA-Z]*)$")
_SUFFIX = {
    "": 1,
    "k": 10**3,
    "M": 10**6,
    "G": 10**9,
    "T": 10**12,
    "P": 10**15,
    "Ki": 2**10,
    "Mi": 2**20,
    "Gi": 2**30,
    "Ti": 2**40,
    "Pi": 2**50,
    "m": 10**-3,
}


def meta(obj: Obj) -> Obj:
    value = obj.get("metadata")
    return value if isinstance(value, dict) else {}


def name(obj: Obj) -> str:
    return str(meta(obj).get("name", ""))


def namespace(obj: Obj) -> str:
    return str(meta(obj).get("namespace") or "default")


def labels(obj: Obj) -> dict[str, str]:
    value = meta(obj).get("labels")
    return value if isinstance(value, dict) else {}


def spec(obj: Obj) -> Obj:
    value = obj.get("spec")
    return value if isinstance(value, dict) else {}


def status(obj: Obj) -> Obj:
    value = obj.get("status")
    return value if isinstance(value, dict) else {}


def items(listing: Any) -> list[Obj]:
    """The items of a stored list (`{"items": [...]}`), or [] for anything else."""
    if isinstance(listing, dict):
        found = listing.get("items")
        return [i for i in found if isinstance(i, dict)] if isinstance(found, list) else []
    return []


def quantity(value: Any) -> float | None:
    """A Kubernetes quantity (`8`, `64Gi`, `500m`) as a number, or None if unreadable."""
    if value is None:
        return None
    match = _QUANTITY.match(str(value).strip())
    if not match or match.group(2) not in _SUFFIX:
        return None
    try:
        return float(match.group(1)) * _SUFFIX[match.group(2)]
    except ValueError:
        return None


def containers(pod: Obj, init: bool = False) -> list[Obj]:
    key = "initContainers" if init else "containers"
    found = spec(pod).get(key)
    return [c for c in found if isinstance(c, dict)] if isinstance(found, list) else []


def container_statuses(pod: Obj, init: bool = False) -> list[Obj]:
    key = "initContainerStatuses" if init else "containerStatuses"
    found = status(pod).get(key)
    return [c for c in found if isinstance(c, dict)] if isinstance(found, list) else []


def requested(container: Obj, resource: str) -> float:
    """What a container asks for of an extended resource (limits win, as for devices)."""
    resources = container.get("resources") or {}
    for key in ("limits", "requests"):
        value = quantity((resources.get(key) or {}).get(resource))
        if value is not None:
            return value
    return 0.0


def pod_request(pod: Obj, resource: str) -> float:
    return sum(requested(c, resource) for c in containers(pod))


def env_vars(container: Obj) -> Iterator[tuple[str, str | None]]:
    """(name, literal value) per env entry; None when it comes from a valueFrom reference."""
    for entry in container.get("env") or []:
        if isinstance(entry, dict) and entry.get("name"):
            value = entry.get("value")
            yield str(entry["name"]), (str(value) if "value" in entry else None)


def condition(obj: Obj, kind: str) -> Obj | None:
    for cond in status(obj).get("conditions") or []:
        if isinstance(cond, dict) and cond.get("type") == kind:
            return cond
    return None
