"""The helpers every state check builds its findings with: the running check's context (its id
and area, filled into each finding), findings that point at the guide, evidence, and the
SKIPPED or INCOMPLETE finding a check returns when the data it needs was not collected.

The node checks collect per-node verdicts with `checks.node_results.NodeResults` and the Slurm
checks read their items with `checks.slurm_data`; both build on these helpers."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from hyperpod_nccl.codes import reference as reference  # the one guide reference of a code
from hyperpod_nccl.model import Evidence, Finding, Priority, Status, SuggestedCommand
from hyperpod_nccl.snapshot import Snapshot, missing_kind

# Kinds of missing data that mean "looked, but only partly" rather than "could not look".
_INCOMPLETE_KINDS = frozenset({"throttled", "truncated"})


@dataclass(frozen=True)
class CheckContext:
    """The check that is running: `@check` enters it around each call, so the findings a check
    builds carry its id without every call site spelling it out."""

    id: str
    area: str


_RUNNING: ContextVar[CheckContext | None] = ContextVar("running_check", default=None)


@contextmanager
def running(context: CheckContext) -> Iterator[CheckContext]:
    token = _RUNNING.set(context)
    try:
        yield context
    finally:
        _RUNNING.reset(token)


def _check_id(check: str | None) -> str:
    if check is not None:
        return check
    context = _RUNNING.get()
    if context is None:
        raise RuntimeError("finding() outside a running check needs check=")
    return context.id


def finding(
    code: str,
    status: Status,
    priority: Priority,
    title: str,
    *,
    check: str | None = None,
    hosts: list[str] | None = None,
    evidence: list[Evidence] | None = None,
    commands: list[SuggestedCommand] | None = None,
    details: dict[str, Any] | None = None,
    first_seen: str | None = None,
) -> Finding:
    return Finding(
        code=code,
        status=status,
        priority=priority,
        title=title,
        reference=reference(code),
        hosts=sorted(set(hosts or [])),
        evidence=list(evidence or []),
        suggested_commands=list(commands or []),
        first_seen=first_seen,
        details={"check": _check_id(check), **(details or {})},
    )


def unavailable(
    snapshot: Snapshot,
    needed: list[str],
    code: str,
    priority: Priority,
    what: str,
    *,
    check: str | None = None,
) -> Finding | None:
    """SKIPPED (could not look) or INCOMPLETE (throttled, truncated) when an item is missing;
    None when everything needed was collected."""
    missing = [name for name in needed if not snapshot.has(name)]
    if not missing:
        return None
    reasons = {name: snapshot.why_missing(name) or "not collected" for name in missing}
    kinds = {missing_kind(r) for r in reasons.values()}
    status = Status.INCOMPLETE if kinds & _INCOMPLETE_KINDS else Status.SKIPPED
    first = reasons[missing[0]]
    return finding(
        code,
        status,
        priority,
        f"{what} not checked: {first}",
        check=check,
        details={"missing": missing, "reasons": reasons},
    )


def evidence(source: str, text: str) -> Evidence:
    return Evidence(source=source, text=text[:400])


def plural(count: int, word: str, many: str | None = None) -> str:
    return f"{count} {word if count == 1 else (many or word + 's')}"


def listed(values: list[str], limit: int = 8) -> str:
    shown = ", ".join(values[:limit])
    return shown + (f" and {len(values) - limit} more" if len(values) > limit else "")


def cached(snapshot: Snapshot, name: str) -> Any:
    """A collected JSON item, parsed once per Snapshot: a dozen checks read the pod list, which
    runs to megabytes on big clusters. Checks only read what they get."""
    memo: dict[str, Any] = vars(snapshot).setdefault("_parsed_items", {})
    if name not in memo:
        memo[name] = snapshot.get_json(name)
    return memo[name]


def doc(snapshot: Snapshot, name: str) -> dict[str, Any]:
    """A collected JSON object, or {} when it is absent or not an object."""
    value = cached(snapshot, name)
    return value if isinstance(value, dict) else {}


def read_only(purpose: str, command: str) -> SuggestedCommand:
    """A suggested command that only reads."""
    return SuggestedCommand(purpose=purpose, command=command)
