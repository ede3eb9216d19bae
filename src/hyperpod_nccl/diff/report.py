"""The result of a diff. Its JSON form is the contract's `hyperpod-nccl/diff/v1`
(docs/contract.md): the findings have the shape of every report's findings."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hyperpod_nccl import __version__
from hyperpod_nccl.model import Finding, NotChecked, Priority, Status

DIFF_SCHEMA = "hyperpod-nccl/diff/v1"


@dataclass
class SideInfo:
    path: str
    kind: str
    failure: dict[str, Any]
    facts: dict[str, int]

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "kind": self.kind, "failure": self.failure, "facts": self.facts}


@dataclass
class DiffReport:
    good: SideInfo
    bad: SideInfo
    findings: list[Finding] = field(default_factory=list)  # ranked: most likely cause first
    not_checked: list[NotChecked] = field(default_factory=list)
    summary: dict[str, Any] = field(default_factory=dict)
    command: str = "diff"

    @property
    def root_cause(self) -> Finding | None:
        return next((f for f in self.findings if f.root_cause), None)

    @property
    def differences(self) -> list[Finding]:
        return [f for f in self.findings if f.code != "DIFF_FAILURE"]

    def worst_failure_priority(self) -> Priority | None:
        ranks = [f.priority for f in self.findings if f.status is Status.FAIL]
        return min(ranks, key=lambda p: p.rank) if ranks else None

    def to_dict(self) -> dict[str, Any]:
        root = self.root_cause
        return {
            "schema": DIFF_SCHEMA,
            "tool_version": __version__,
            "command": self.command,
            "good": self.good.to_dict(),
            "bad": self.bad.to_dict(),
            "root_cause": root.code if root else None,
            "differences_found": len(self.differences),
            "issues_found": sum(1 for f in self.findings if f.status is Status.FAIL),
            "findings": [f.to_dict() for f in self.findings],
            "not_checked": [n.to_dict() for n in self.not_checked],
            "summary": self.summary,
        }
