"""Which findings the text and Markdown reports list: `--show fail|warn|all`. By default the
problems (FAIL, WARN) and what was not checked (SKIPPED, INCOMPLETE); PASS and INFO findings
are counted in one line. JSON and HTML always hold every finding."""

from __future__ import annotations

from collections import Counter

from hyperpod_nccl.model import Finding, Status

SHOW = ("fail", "warn", "all")
DEFAULT_SHOW = "warn"
_LISTED = {
    "fail": {Status.FAIL, Status.SKIPPED, Status.INCOMPLETE},
    "warn": {Status.FAIL, Status.WARN, Status.SKIPPED, Status.INCOMPLETE},
}


def split(findings: list[Finding], show: str) -> tuple[list[Finding], Counter[Status]]:
    """The findings to list (the root cause always among them) and a count of the others."""
    if show == "all":
        return findings, Counter()
    listed = _LISTED[show]
    kept = [f for f in findings if f.status in listed or f.root_cause]
    hidden = Counter(f.status for f in findings if not (f.status in listed or f.root_cause))
    return kept, hidden


def hidden_line(hidden: Counter[Status]) -> str | None:
    """`14 PASS and 3 INFO findings not listed (--show all lists them)`, or None."""
    if not hidden:
        return None
    parts = [f"{hidden[s]} {s.value}" for s in Status if hidden.get(s)]
    listed = ", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else parts[0]
    return f"{listed} findings not listed (--show all lists them)"
