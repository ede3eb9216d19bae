"""One-line titles for log findings: what happened, and on which ranks or hosts."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from hyperpod_nccl.rules.facts import Facts
from hyperpod_nccl.rules.occurrences import FindingBuilder
from hyperpod_nccl.rules.xid import xid_info

MAX_LISTED = 8


def format_ranks(ranks: Sequence[int]) -> str:
    """`rank 3`, `ranks 0-3, 7`; long lists are cut with a count of the rest."""
    values = sorted(set(ranks))
    if not values:
        return "no rank"
    spans: list[str] = []
    start = prev = values[0]
    for value in [*values[1:], None]:
        if value is not None and value == prev + 1:
            prev = value
            continue
        spans.append(str(start) if start == prev else f"{start}-{prev}")
        if value is not None:
            start = prev = value
    shown = spans[:MAX_LISTED]
    more = f" (+{len(spans) - MAX_LISTED} more)" if len(spans) > MAX_LISTED else ""
    noun = "rank" if len(values) == 1 else "ranks"
    return f"{noun} {', '.join(shown)}{more}"


def format_hosts(hosts: Sequence[str]) -> str:
    values = sorted(set(hosts))
    shown = ", ".join(values[:MAX_LISTED])
    more = f" (+{len(values) - MAX_LISTED} more)" if len(values) > MAX_LISTED else ""
    return shown + more


def where(builder: FindingBuilder) -> str:
    parts = []
    if builder.ranks:
        parts.append(format_ranks(sorted(builder.ranks)))
    if builder.hosts:
        parts.append(
            ("on " if not parts else "(")
            + format_hosts(sorted(builder.hosts))
            + (")" if parts else "")
        )
    if not parts:
        return ""
    text = " ".join(parts)
    return text if text.startswith("on ") else "on " + text


def _first(builder: FindingBuilder, key: str) -> str | None:
    values = builder.captures.get(key)
    return values[0] if values else None


def _timeout(builder: FindingBuilder) -> str:
    op = _first(builder, "op")
    seq = _first(builder, "seq")
    timeout_ms = _first(builder, "timeout_ms")
    what = "a collective"
    if op:
        what = f"collective {op}" + (f" (SeqNum {seq})" if seq else "")
    after = f" after {int(timeout_ms) // 1000} s" if timeout_ms and timeout_ms.isdigit() else ""
    return f"{what} timed out{after} {where(builder)}".strip()


def _xid(builder: FindingBuilder) -> str:
    xids = builder.details.get("xids") or []
    if not xids:
        return f"{builder.info.title} {where(builder)}".strip()
    described = "; ".join(f"Xid {x}: {xid_info(x).meaning.split(';')[0]}" for x in xids[:3])
    more = f" (+{len(xids) - 3} more Xids)" if len(xids) > 3 else ""
    return f"{described}{more} {where(builder)}".strip()


def _oom(builder: FindingBuilder) -> str:
    process = _first(builder, "process")
    pid = _first(builder, "pid")
    what = f"{process} (pid {pid})" if process and pid else "a process"
    place = where(builder)
    return f"{what} {place + ' ' if place else ''}was killed for lack of host or container memory (OOM kill)"


def _crash(builder: FindingBuilder) -> str:
    if set(builder.contributions) == {"abort-signal"}:
        place = where(builder)  # empty when no line named a rank or host
        return (
            f"the process aborted (SIGABRT){' ' + place if place else ''}, as PyTorch does "
            "after a failed or timed-out collective"
        )
    return f"{builder.info.title} {where(builder)}".strip()


def _cuda_oom(builder: FindingBuilder) -> str:
    size = _first(builder, "size")
    extra = f" (failed to allocate {size})" if size else ""
    return f"GPU memory exhausted{extra} {where(builder)}".strip()


def _signal(builder: FindingBuilder) -> str:
    why = _first(builder, "why")
    signal = _first(builder, "signal") or _first(builder, "signal2")
    detail = f" (signal {signal})" if signal else (f" ({why.strip().lower()})" if why else "")
    return f"the job was stopped from outside{detail} {where(builder)}".strip()


_SPECIFIC: dict[str, Callable[[FindingBuilder], str]] = {
    "NCCL_TIMEOUT": _timeout,
    "GPU_XID": _xid,
    "GPU_ECC": _xid,
    "NVLINK_ERROR": _xid,
    "CONTAINER_OOM": _oom,
    "RANK_CRASH": _crash,
    "CUDA_OOM": _cuda_oom,
    "EXTERNAL_SIGNAL": _signal,
}


def compose_title(builder: FindingBuilder, facts: Facts) -> str:
    specific = _SPECIFIC.get(builder.code)
    if specific is not None:
        return specific(builder)
    return f"{builder.info.title} {where(builder)}".strip()
