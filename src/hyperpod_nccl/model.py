"""The findings model shared by every command: what was found, how bad, where, and what to do.

The JSON form of these types is a public contract (see docs/contract.md): fields may be
added, never removed or renamed.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from hyperpod_nccl import __version__

REPORT_SCHEMA = "hyperpod-nccl/report/v1"


class Status(str, enum.Enum):
    PASS = "PASS"
    FAIL = "FAIL"
    WARN = "WARN"
    INFO = "INFO"
    SKIPPED = "SKIPPED"
    INCOMPLETE = "INCOMPLETE"


class Priority(str, enum.Enum):
    P0 = "P0"  # blocks training
    P1 = "P1"  # degrades training
    P2 = "P2"  # advisory

    @property
    def rank(self) -> int:
        """Smaller is more severe, so sorting ascending puts P0 first."""
        return int(self.value[1])


# Display and sort order of statuses: problems first, then gaps in coverage, then good news.
STATUS_ORDER = {
    Status.FAIL: 0,
    Status.WARN: 1,
    Status.INCOMPLETE: 2,
    Status.SKIPPED: 3,
    Status.INFO: 4,
    Status.PASS: 5,
}


@dataclass(frozen=True)
class Evidence:
    """One line of input that supports a finding, addressed as `file:line`."""

    source: str
    text: str

    def to_dict(self) -> dict[str, Any]:
        return {"source": self.source, "text": self.text}


@dataclass(frozen=True)
class SuggestedCommand:
    """A command the user may run. The tool prints it and never runs it."""

    purpose: str
    command: str  # one bash command line, runnable as printed
    preconditions: str = ""
    blast_radius: str = ""  # what a state-changing command affects; "" for read-only ones
    # Declared by whoever writes the command, never guessed from its text: a test checks the
    # declarations against the write verbs each command uses.
    changes_state: bool = False
    runs_on: str = ""  # where to run it: "", a node, a pod, "the Slurm controller"...
    # Of use only while the ranks still run; dropped from reports whose logs show they ended.
    while_hanging: bool = field(default=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "purpose": self.purpose,
            "command": self.command,
            "preconditions": self.preconditions,
            "blast_radius": self.blast_radius,
            "changes_state": self.changes_state,
            "runs_on": self.runs_on,
        }


@dataclass(frozen=True)
class Basis:
    """How a finding's evidence bears on the root cause. The ranker reads it; it is not part
    of the JSON. The defaults fit a finding about observed state (a pod's OOMKilled status, a
    security group without its rule): a cause, unconditional, with no position in any log."""

    # roles of the evidence: "cause" (a line or state that shows a cause), "weak" (derived
    # from context lines only, such as NCCL versions differing between banners), "symptom"
    roles: frozenset[str] = frozenset({"cause"})
    # per contributing rule, the codes that explain its evidence when present (a rule's own
    # `explained_by`); a finding all of whose rules are explained this way is inactive
    rule_explainers: tuple[frozenset[str], ...] = (frozenset(),)
    # codes whose failure this finding followed by more than a second, when the order of
    # events is what makes it a symptom (a watchdog stuck after a collective timed out)
    follows: frozenset[str] = frozenset()
    order: int = 0  # position of its first evidence in the input
    time: datetime | None = None  # its first timestamp, naive UTC

    def merged(self, other: Basis) -> Basis:
        """The basis of one finding made of both (the same code from two sources)."""
        times = [t for t in (self.time, other.time) if t is not None]
        return Basis(
            roles=self.roles | other.roles,
            rule_explainers=self.rule_explainers + other.rule_explainers,
            follows=self.follows & other.follows,
            order=min(self.order, other.order),
            time=min(times) if times else None,
        )

    @property
    def strength(self) -> int:
        """0 cause, 1 weak, 2 symptom: smaller is stronger evidence of a root cause."""
        return min((_ROLE_STRENGTH.get(r, 2) for r in self.roles), default=2)


_ROLE_STRENGTH = {"cause": 0, "weak": 1, "symptom": 2}


@dataclass
class Finding:
    code: str
    status: Status
    priority: Priority
    title: str
    reference: str | None = None
    ranks: list[int] = field(default_factory=list)
    hosts: list[str] = field(default_factory=list)
    first_seen: str | None = None
    evidence: list[Evidence] = field(default_factory=list)
    suggested_commands: list[SuggestedCommand] = field(default_factory=list)
    root_cause: bool = False
    explains: list[str] = field(default_factory=list)
    count: int = 1
    details: dict[str, Any] = field(default_factory=dict)
    # the present failing codes that explain this finding (it is their symptom)
    explained_by: list[str] = field(default_factory=list)
    basis: Basis = field(default_factory=Basis, compare=False, repr=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "status": self.status.value,
            "priority": self.priority.value,
            "title": self.title,
            "root_cause": self.root_cause,
            "explains": list(self.explains),
            "explained_by": list(self.explained_by),
            "ranks": sorted(self.ranks),
            "hosts": sorted(self.hosts),
            "first_seen": self.first_seen,
            "evidence": [e.to_dict() for e in self.evidence],
            "reference": self.reference,
            "suggested_commands": [c.to_dict() for c in self.suggested_commands],
            "count": self.count,
            "details": self.details,
        }


@dataclass(frozen=True)
class NotChecked:
    """Something the tool could not look at, and why. Never silently a PASS."""

    check: str
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"check": self.check, "reason": self.reason}


@dataclass
class Report:
    """The result of one operation (logs, diagnose, perf, probe)."""

    command: str
    findings: list[Finding] = field(default_factory=list)
    not_checked: list[NotChecked] = field(default_factory=list)
    summary: dict[str, Any] = field(default_factory=dict)

    @property
    def root_cause(self) -> Finding | None:
        return next((f for f in self.findings if f.root_cause), None)

    @property
    def failures(self) -> list[Finding]:
        return [f for f in self.findings if f.status is Status.FAIL]

    def sorted_findings(self) -> list[Finding]:
        """Root cause first, then by status, priority and code, so reports read top-down."""
        return sorted(
            self.findings,
            key=lambda f: (not f.root_cause, STATUS_ORDER[f.status], f.priority.rank, f.code),
        )

    def worst_failure_priority(self) -> Priority | None:
        ranks = [f.priority for f in self.failures]
        return min(ranks, key=lambda p: p.rank) if ranks else None

    def to_dict(self) -> dict[str, Any]:
        root = self.root_cause
        findings = self.sorted_findings()
        return {
            "schema": REPORT_SCHEMA,
            "tool_version": __version__,
            "command": self.command,
            "root_cause": root.code if root else None,
            "issues_found": sum(1 for f in findings if f.status is Status.FAIL),
            "findings": [f.to_dict() for f in findings],
            "not_checked": [n.to_dict() for n in self.not_checked],
            "summary": self.summary,
        }
