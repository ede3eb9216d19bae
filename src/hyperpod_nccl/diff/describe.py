"""One line per change, in words: what, from what to what, and where."""

from __future__ import annotations

from hyperpod_nccl.diff.compare import Change
from hyperpod_nccl.diff.facts import UNSET

_WHERE = {
    "env": "container",
    "env.log": "log",
    "image": "pod",
    "efa_request": "pod",
    "version": "source",
    "nccl_topology": "log",
    "nccl_transport": "log",
}
_LABEL = {
    "env": "{item}",
    "env.log": "{item} (as the logs print it)",
    "version": "{item} version",
    "image": "image of container {item}",
    "efa_request": "{item} requested",
    "instance_type": "instance type of {item}",
    "node_health": "{item}",
    "network_policy": "NetworkPolicy {item}",
    "slurm_config": "{item}",
    "slurm_partition": "partition {item}",
    "slurm_partition_limits": "partition {item}",
    "nccl_topology": "NCCL {item}",
    "nccl_transport": "NCCL {item}",
    "busbw": "busbw {item}",
    "busbw_node": "busbw of node {item}",
}
MAX_SCOPES = 4


def _scopes(scopes: list[str], word: str) -> str:
    if not scopes:
        return ""
    names = ", ".join(scopes[:MAX_SCOPES]) + (" ..." if len(scopes) > MAX_SCOPES else "")
    return f"{len(scopes)} {word}{'s' if len(scopes) != 1 else ''}: {names}"


def _values(spread: dict[str, list[str]], word: str, alone: bool) -> str:
    if not spread or set(spread) == {UNSET}:
        return "unset"
    parts = []
    for value, scopes in spread.items():
        shown = "unset" if value == UNSET else value
        if alone:
            parts.append(shown)
        elif len(spread) == 1:  # one value everywhere: how many is enough
            parts.append(f"{shown} on {len(scopes)} {word}{'s' if len(scopes) != 1 else ''}")
        else:
            parts.append(f"{shown} ({_scopes(scopes, word)})")
    return "; ".join(parts)


def describe(change: Change) -> str:
    aspect, kind = change.aspect, change.kind
    if aspect == "security_group":
        return f"{change.item}: rule {'only in BAD' if kind == 'added' else 'gone in BAD' if kind == 'removed' else 'changed'}"
    if aspect == "nodes":
        added, removed = change.bad.get("added", []), change.good.get("removed", [])
        parts = []
        if added:
            parts.append(
                f"{len(added)} new in BAD ({', '.join(added[:MAX_SCOPES])}{' ...' if len(added) > MAX_SCOPES else ''})"
            )
        if removed:
            parts.append(
                f"{len(removed)} gone ({', '.join(removed[:MAX_SCOPES])}{' ...' if len(removed) > MAX_SCOPES else ''})"
            )
        what = "replaced" if kind == "replaced" else kind
        return f"instance group {change.item}: nodes {what}: " + ", ".join(parts)
    if aspect == "node_health":
        ((before, scopes),) = change.good.items()
        (after,) = change.bad
        return f"{change.item} {before} -> {after} on {_scopes(scopes, 'node')}"
    if aspect in ("busbw", "busbw_node"):
        (before,) = change.good
        (after,) = change.bad
        drop = 100 * (1 - float(after) / float(before))
        return f"{_LABEL[aspect].format(item=change.item)}: {before} -> {after} GB/s ({drop:.0f}% lower)"
    label = _LABEL.get(aspect, "{item}").format(item=change.item)
    if aspect == "network_policy":
        return f"{label}: {'only in BAD' if kind == 'added' else 'gone in BAD' if kind == 'removed' else 'spec changed'}"
    word = _WHERE.get(aspect, "scope")
    alone = aspect in ("instance_type", "slurm_config", "slurm_partition", "slurm_partition_limits")
    good = _values(change.good, word, alone)
    bad = _values(change.bad, word, alone)
    if kind == "removed":
        return f"{label} removed (GOOD: {good})"
    if kind == "added":
        return f"{label} added (BAD: {bad})"
    return f"{label}: {good} -> {bad}" if alone else f"{label}: GOOD {good}; BAD {bad}"


def scopes_of(change: Change) -> list[str]:
    """The pods, logs or nodes of BAD where the change shows (for the finding's hosts)."""
    if change.aspect == "nodes":
        return change.bad.get("added", [])
    if change.aspect in ("node_health",):
        return [s for scopes in change.bad.values() for s in scopes]
    if change.aspect in ("security_group", "network_policy", "instance_type", "busbw"):
        return []
    if change.aspect == "busbw_node":
        return [change.item]
    good_values = set(change.good)
    return [s for v, scopes in change.bad.items() if v not in good_values for s in scopes]
