"""What the Slurm checks share: reading `slurm/` items from a snapshot and the SKIPPED or
INCOMPLETE finding for data that is missing. The parsing itself lives in the `slurm` package;
guide references come from `checks.findings.reference` (the code registry)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from hyperpod_nccl.checks.findings import reference
from hyperpod_nccl.model import Finding, Priority, Status
from hyperpod_nccl.slurm.jobs import (
    SlurmJob,
    parse_squeue_json,
    parse_squeue_text,
)
from hyperpod_nccl.slurm.nodes import (
    SlurmNode,
    SlurmParseError,
    parse_scontrol_nodes,
    parse_sinfo_json,
)
from hyperpod_nccl.snapshot import Snapshot, missing_kind
from hyperpod_nccl.snapshot.items import (
    SLURM_CONTEXT,
    SLURM_SHOW_NODE,
    SLURM_SINFO,
    SLURM_SQUEUE,
    SLURM_SQUEUE_TEXT,
)

AREA = "slurm"
# A job waiting its turn longer than this is reported (its reason may still be ordinary).
PENDING_LONG_S = 3600
MAX_EVIDENCE = 50


def guide_section(anchor: str) -> str:
    """A guide section other than the code's own: SLURM_NODE_STATE points at the Slurm
    procedures, an unread job output at INPUT_UNREADABLE's section."""
    return f"debugging-guide.md#{anchor}"


def json_item(snapshot: Snapshot, name: str) -> dict[str, Any] | None:
    data = snapshot.get_json(name)
    return data if isinstance(data, dict) else None


def incomplete(
    code: str,
    what: str,
    why: str,
    item: str,
    priority: Priority = Priority.P2,
    *,
    section: str | None = None,
) -> Finding:
    # Slurm never reached (no way to the controller): SKIPPED; asked and no answer: INCOMPLETE.
    status = Status.SKIPPED if missing_kind(why) == "unreachable" else Status.INCOMPLETE
    return Finding(
        code=code,
        status=status,
        priority=priority,
        title=f"{what} not checked: {why}",
        reference=section or reference(code),
        details={"item": item},
    )


def missing(code: str, what: str, snapshot: Snapshot, name: str) -> Finding:
    return incomplete(code, what, snapshot.why_missing(name) or "not collected", name)


def _host(snapshot: Snapshot) -> str:
    context = json_item(snapshot, SLURM_CONTEXT) or {}
    return str(context.get("host") or "")


T = TypeVar("T")


def load_first(
    snapshot: Snapshot, candidates: Sequence[tuple[str, Callable[[str], T]]]
) -> tuple[T | None, str, str]:
    """Parse the first candidate item collected: (parsed, item name, why it is missing)."""
    for name, parse in candidates:
        text = snapshot.get_text(name)
        if text is not None:
            try:
                return parse(text), name, ""
            except SlurmParseError as exc:
                return None, name, str(exc)
    # The fallback's reason says more when it was tried; else the preferred form's reason.
    why = snapshot.why_missing(candidates[-1][0])
    if why == "not collected":
        why = snapshot.why_missing(candidates[0][0]) or why
    return None, candidates[0][0], why or "not collected"


def load_nodes(snapshot: Snapshot) -> tuple[list[SlurmNode] | None, str, str]:
    """(nodes, item they came from, why they are missing)."""
    return load_first(
        snapshot,
        [
            (SLURM_SINFO, parse_sinfo_json),
            (SLURM_SHOW_NODE, parse_scontrol_nodes),
        ],
    )


def load_jobs(snapshot: Snapshot) -> tuple[list[SlurmJob] | None, str, str]:
    return load_first(
        snapshot,
        [(SLURM_SQUEUE, parse_squeue_json), (SLURM_SQUEUE_TEXT, parse_squeue_text)],
    )
