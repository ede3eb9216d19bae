"""Helpers the diagnose checks share: findings that point at the guide, and the SKIPPED or
INCOMPLETE finding a check returns when the data it needs was not collected."""

from __future__ import annotations

import functools
from typing import Any

from hyperpod_nccl.model import Evidence, Finding, Priority, Status, SuggestedCommand
from hyperpod_nccl.snapshot import Snapshot, missing_kind

# Kinds of missing data that mean "looked, but only partly" rather than "could not look".
_INCOMPLETE_KINDS = frozenset({"throttled", "truncated"})


@functools.cache
def reference(code: str) -> str | None:
    """The guide section of a finding code, or None when the guide has none."""
    from hyperpod_nccl.kb import reference_for_code

    try:
        return reference_for_code(code)
    except KeyError:
        return None


def finding(
    code: str,
    status: Status,
    priority: Priority,
    title: str,
    *,
    check: str,
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
        details={"check": check, **(details or {})},
    )


def unavailable(
    snapshot: Snapshot,
    needed: list[str],
    code: str,
    priority: Priority,
    what: str,
    *,
    check: str,
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
