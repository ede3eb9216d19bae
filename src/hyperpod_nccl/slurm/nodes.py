"""Slurm node records from `sinfo --json` (22.05 and the later data_parser layouts) or from
`scontrol show node` text (one line per node with `-o`, or the multi-line form)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from hyperpod_nccl.slurm.values import epoch_from_slurm_time, number, text, words


class SlurmParseError(ValueError):
    """Slurm's output could not be read; the message says what was wrong, in one line."""


@dataclass(frozen=True)
class SlurmNode:
    name: str
    state: tuple[str, ...]  # base state first, then flags: ("IDLE", "DRAIN")
    reason: str = ""
    reason_user: str = ""
    reason_time: int | None = None  # Unix time the reason was set
    address: str = ""
    hostname: str = ""
    partitions: tuple[str, ...] = ()

    @property
    def base(self) -> str:
        return self.state[0] if self.state else "UNKNOWN"

    @property
    def flags(self) -> frozenset[str]:
        return frozenset(self.state[1:])

    @property
    def state_text(self) -> str:
        return "+".join(self.state) or "UNKNOWN"


BASE_STATES = {"UNKNOWN", "DOWN", "IDLE", "ALLOCATED", "ERROR", "MIXED", "FUTURE"}


def _ordered_state(raw: list[str]) -> tuple[str, ...]:
    """Base state first, flags after in the order Slurm gave them, duplicates dropped."""
    base = next((w for w in raw if w in BASE_STATES), "UNKNOWN")
    flags = [w for w in dict.fromkeys(raw) if w != base]
    return (base, *flags)


# --------------------------------------------------------------------------- sinfo --json


def parse_sinfo_json(document: str | dict[str, Any]) -> list[SlurmNode]:
    """Nodes from `sinfo --json`: a `nodes` list (22.05) or a `sinfo` list (23.02 and later)."""
    data = _load(document, "sinfo --json")
    errors = data.get("errors") or []
    if errors:
        first = errors[0] if isinstance(errors[0], dict) else {"error": str(errors[0])}
        message = first.get("description") or first.get("error") or "unspecified error"
        raise SlurmParseError(f"sinfo reported an error: {message}")
    if isinstance(data.get("nodes"), list):
        return _dedupe(_node_from_v38(item) for item in data["nodes"])
    if isinstance(data.get("sinfo"), list):
        return _dedupe(n for entry in data["sinfo"] for n in _nodes_from_sinfo_entry(entry))
    raise SlurmParseError("sinfo --json output has neither 'nodes' nor 'sinfo'")


def _load(document: str | dict[str, Any], what: str) -> dict[str, Any]:
    if isinstance(document, dict):
        return document
    try:
        data = json.loads(document)
    except ValueError as exc:
        raise SlurmParseError(f"{what} output is not JSON ({exc})") from exc
    if not isinstance(data, dict):
        raise SlurmParseError(f"{what} output is not a JSON object")
    return data


def _node_from_v38(item: dict[str, Any]) -> SlurmNode:
    state = _ordered_state(words(item.get("state")) + words(item.get("state_flags")))
    return SlurmNode(
        name=text(item.get("name")),
        state=state,
        reason=text(item.get("reason")),
        reason_user=text(item.get("reason_set_by_user")),
        reason_time=number(item.get("reason_changed_at")) or None,
        address=text(item.get("address")),
        hostname=text(item.get("hostname")),
        partitions=tuple(p for p in item.get("partitions") or [] if isinstance(p, str)),
    )


def _nodes_from_sinfo_entry(entry: dict[str, Any]) -> list[SlurmNode]:
    """One `sinfo` group (23.02+): a set of nodes sharing state, reason and partition."""
    node = entry.get("node") or {}
    nodes = entry.get("nodes") or {}
    reason = entry.get("reason") or {}
    partition = text((entry.get("partition") or {}).get("name"))
    names = [n for n in nodes.get("nodes") or [] if isinstance(n, str)]
    hostnames = nodes.get("hostnames") or []
    addresses = nodes.get("addresses") or []
    state = _ordered_state(words(node.get("state")))
    result = []
    for index, name in enumerate(names):
        result.append(
            SlurmNode(
                name=name,
                state=state,
                reason=text(reason.get("description")),
                reason_user=text(reason.get("user")),
                reason_time=number(reason.get("time")) or None,
                address=text(addresses[index]) if index < len(addresses) else "",
                hostname=text(hostnames[index]) if index < len(hostnames) else "",
                partitions=(partition,) if partition else (),
            )
        )
    return result


def _dedupe(nodes: Any) -> list[SlurmNode]:
    """One record per node name; a node listed once per partition keeps all its partitions."""
    merged: dict[str, SlurmNode] = {}
    for node in nodes:
        if not node.name:
            continue
        seen = merged.get(node.name)
        if seen is None:
            merged[node.name] = node
        else:
            parts = tuple(dict.fromkeys(seen.partitions + node.partitions))
            merged[node.name] = SlurmNode(**{**seen.__dict__, "partitions": parts})
    return sorted(merged.values(), key=lambda n: n.name)


# --------------------------------------------------------------------------- scontrol text

_KEY = re.compile(r"(?:^|\s)([A-Za-z][A-Za-z0-9_:/]*)=")
# "GPU ECC errors [root@2026-11-29T23:28:09]": the reason, then who set it and when.
_REASON_SUFFIX = re.compile(r"^(?P<text>.*?)\s*\[(?P<user>[^@\]]*)@(?P<time>[0-9T:-]+)\]\s*")


def parse_scontrol_nodes(output: str) -> list[SlurmNode]:
    """Nodes from `scontrol show node` (with or without -o). Records start at `NodeName=`."""
    records: list[str] = []
    for line in output.splitlines():
        stripped = line.strip()
        if stripped.startswith("NodeName="):
            records.append(stripped)
        elif records and stripped:
            records[-1] += " " + stripped
    if not records and output.strip():
        raise SlurmParseError("no NodeName= records in scontrol show node output")
    return _dedupe(_node_from_fields(_fields(record)) for record in records)


def _fields(record: str) -> dict[str, str]:
    """Key=value pairs of one record; values may hold spaces (OS=, Reason=)."""
    fields: dict[str, str] = {}
    reason_at = record.find(" Reason=")
    tail = ""
    if reason_at >= 0:
        record, tail = record[:reason_at], record[reason_at + len(" Reason=") :]
    keys = list(_KEY.finditer(record))
    for index, match in enumerate(keys):
        end = keys[index + 1].start() if index + 1 < len(keys) else len(record)
        fields[match.group(1)] = record[match.end() : end].strip()
    if tail:
        suffix = _REASON_SUFFIX.match(tail)
        if suffix:
            fields["Reason"] = suffix.group("text").strip()
            fields["ReasonUser"] = suffix.group("user")
            fields["ReasonTime"] = suffix.group("time")
            rest = tail[suffix.end() :]
            # Anything after the bracket is more Key=value pairs (newer releases).
            fields.update({k: v for k, v in _fields(" " + rest).items() if k not in fields})
        else:
            fields["Reason"] = tail.strip()
    return fields


def _node_from_fields(fields: dict[str, str]) -> SlurmNode:
    partitions = fields.get("Partitions", "")
    return SlurmNode(
        name=fields.get("NodeName", "").split()[0] if fields.get("NodeName") else "",
        state=_ordered_state(words(fields.get("State", "UNKNOWN"))),
        reason=fields.get("Reason", ""),
        reason_user=fields.get("ReasonUser", ""),
        reason_time=epoch_from_slurm_time(fields.get("ReasonTime", "")),
        address=fields.get("NodeAddr", ""),
        hostname=fields.get("NodeHostName", ""),
        partitions=tuple(p for p in partitions.split(",") if p and p != "(null)"),
    )
