"""What a check's unit test says: run one registered check on a small Snapshot built from a
JSON fixture (tests/fixtures/snapshots/, read by hyperpod_nccl.snapshot.inline) and compare its
findings with the ones wanted. No moto, no Kubernetes API server, no Slurm."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hyperpod_nccl.checks import load_checks
from hyperpod_nccl.model import Finding, Priority, Status
from hyperpod_nccl.snapshot.inline import snapshot_from_dict

SNAPSHOTS = Path(__file__).resolve().parents[2] / "fixtures" / "snapshots"
# A fixture stays small: an excerpt of real captured data, not a whole bundle.
MAX_FIXTURE_BYTES = 12 * 1024
BAD = (Status.FAIL, Status.WARN)
# Short names for the case tables.
PASS, FAIL, WARN, SKIP = Status.PASS, Status.FAIL, Status.WARN, Status.SKIPPED
INFO, INCOMPLETE = Status.INFO, Status.INCOMPLETE


@dataclass(frozen=True)
class Want:
    """One finding the check must return; unset fields are not compared."""

    code: str
    status: Status
    priority: Priority | None = None
    hosts: list[str] | None = None
    title: str | None = None  # a part of the title
    evidence: str | None = None  # a part of one evidence line
    details: dict[str, Any] = field(default_factory=dict)  # a subset of the details

    def problem(self, found: Finding) -> str | None:
        """Why `found` is not this finding, or None when it is."""
        if (found.code, found.status) != (self.code, self.status):
            return "another code or status"
        if self.priority is not None and found.priority is not self.priority:
            return f"priority {found.priority.value}, wanted {self.priority.value}"
        if self.hosts is not None and found.hosts != self.hosts:
            return f"hosts {found.hosts}, wanted {self.hosts}"
        if self.title is not None and self.title not in found.title:
            return f"title {found.title!r} lacks {self.title!r}"
        if self.evidence is not None and not any(self.evidence in e.text for e in found.evidence):
            return f"no evidence line holds {self.evidence!r}: {[e.text for e in found.evidence]}"
        for key, value in self.details.items():
            if found.details.get(key) != value:
                return f"details[{key!r}] is {found.details.get(key)!r}, wanted {value!r}"
        return None


@dataclass(frozen=True)
class Case:
    check: str  # a registered check id
    fixture: str  # tests/fixtures/snapshots/<fixture>.json
    wants: list[Want]
    why: str = ""  # what the case shows, for the test id

    @property
    def failing(self) -> bool:
        return any(w.status in BAD for w in self.wants)

    def __str__(self) -> str:
        return f"{self.check}:{self.fixture}" + (f":{self.why}" if self.why else "")


def fixture_document(name: str) -> Any:
    path = SNAPSHOTS / f"{name}.json"
    size = path.stat().st_size
    assert size <= MAX_FIXTURE_BYTES, f"{path.name} is {size} bytes; keep fixtures small"
    return json.loads(path.read_text("utf-8"))


def run_case(case: Case) -> list[Finding]:
    """Run the case's check and assert its findings are exactly the wanted ones: each wanted
    finding is there, and nothing else (by code and status) came out."""
    spec = load_checks()[case.check]
    snapshot = snapshot_from_dict(fixture_document(case.fixture), case.fixture)
    try:
        findings = spec.function(snapshot)
    finally:
        snapshot.close()
    shown = [(f.code, f.status.value, f.priority.value, f.hosts, f.title) for f in findings]
    for want in case.wants:
        problems = [want.problem(f) for f in findings]
        assert None in problems, f"{want} not found: {problems}; got {shown}"
    allowed = {(w.code, w.status) for w in case.wants}
    extra = [s for s, f in zip(shown, findings, strict=True) if (f.code, f.status) not in allowed]
    assert not extra, f"findings not wanted: {extra}"
    assert {f.code for f in findings} <= set(spec.codes), "a code the check does not declare"
    assert all(f.details.get("check") in (None, case.check) for f in findings)
    return findings
