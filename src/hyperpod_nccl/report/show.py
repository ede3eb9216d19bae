"""Which findings the text and Markdown reports list: `--show fail|warn|all`. By default the
problems (FAIL, WARN) and what was not checked (SKIPPED, INCOMPLETE); PASS and INFO findings
are counted in one line. JSON and HTML always hold every finding.

Every report a person reads lists a code once (`one_per_code`); JSON keeps each finding as
its check made it, for programs that count them."""

from __future__ import annotations

import dataclasses
from collections import Counter
from typing import Any

from hyperpod_nccl.model import Finding, Status

SHOW = ("fail", "warn", "all")
DEFAULT_SHOW = "warn"
_LISTED = {
    "fail": {Status.FAIL, Status.SKIPPED, Status.INCOMPLETE},
    "warn": {Status.FAIL, Status.WARN, Status.SKIPPED, Status.INCOMPLETE},
}


def one_per_code(findings: list[Finding]) -> list[Finding]:
    """One finding per code, in the order given (reports pass them sorted, most severe first).

    Two checks may report one code (NODE_NOT_READY from the Kubernetes node list and from
    HyperPod's): the reader sees the code once, with the first finding's status, priority and
    root-cause mark, and the others' titles, evidence, hosts and ranks added to it. A title
    of another status says which (`; PASS: ...`), so nothing a check said is lost."""
    groups: dict[str, list[Finding]] = {}
    for finding in findings:
        groups.setdefault(finding.code, []).append(finding)
    return [group[0] if len(group) == 1 else _merge(group) for group in groups.values()]


def _merge(group: list[Finding]) -> Finding:
    first, others = group[0], group[1:]
    titles = [first.title]
    for other in others:
        title = (
            other.title if other.status is first.status else f"{other.status.value}: {other.title}"
        )
        if title not in titles:
            titles.append(title)

    def union(values: list[list[Any]]) -> list[Any]:
        return list(dict.fromkeys(v for vs in values for v in vs))

    return dataclasses.replace(
        first,
        title="; ".join(titles),
        evidence=union([f.evidence for f in group]),
        hosts=union([f.hosts for f in group]),
        ranks=union([f.ranks for f in group]),
        suggested_commands=union([f.suggested_commands for f in group]),
        explains=union([f.explains for f in group]),
        explained_by=union([f.explained_by for f in group]),
        first_seen=min((f.first_seen for f in group if f.first_seen), default=None),
    )


def split(findings: list[Finding], show: str) -> tuple[list[Finding], Counter[Status]]:
    """The findings to list, one per code (the root cause always among them), and a count of
    the others."""
    findings = one_per_code(findings)
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
