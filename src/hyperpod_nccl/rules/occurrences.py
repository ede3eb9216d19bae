"""Matched lines and the per-code accumulators that turn them into findings, in bounded memory."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from hyperpod_nccl.codes import CodeInfo
from hyperpod_nccl.model import Evidence, Status

MAX_EVIDENCE = 6
MAX_EVIDENCE_CHARS = 500
MAX_CAPTURE_VALUES = 20
_STATUS_SEVERITY = {Status.FAIL: 0, Status.WARN: 1, Status.INFO: 2}


@dataclass(slots=True)
class Occurrence:
    """One line a rule matched, with where it came from."""

    source: str
    line_no: int
    text: str
    order: int  # global position across all inputs, for stable "first seen" without clocks
    rank: int | None = None
    host: str | None = None
    pid: int | None = None
    device: int | None = None
    timestamp: datetime | None = None

    @property
    def process(self) -> tuple[str, int, int] | None:
        """NCCL's (host, pid, device) triple, when the line carried NCCL's prefix."""
        if self.host is not None and self.pid is not None and self.device is not None:
            return (self.host, self.pid, self.device)
        return None

    @property
    def identity(self) -> str:
        """Who printed the line: a rank if known, else the process, else the file."""
        if self.rank is not None:
            return f"rank {self.rank}"
        if self.host is not None and self.pid is not None:
            return f"{self.host}:{self.pid}"
        return self.source

    def evidence(self) -> Evidence:
        text = self.text.strip()
        if len(text) > MAX_EVIDENCE_CHARS:
            text = text[: MAX_EVIDENCE_CHARS - 3] + "..."
        return Evidence(source=f"{self.source}:{self.line_no}", text=text)


def time_key(stamp: datetime | None) -> datetime | None:
    """Comparable form of a timestamp: zoned ones in naive UTC."""
    if stamp is None or stamp.tzinfo is None:
        return stamp
    return stamp.astimezone(timezone.utc).replace(tzinfo=None)


@dataclass
class FindingBuilder:
    """Everything seen for one finding code, kept small however many lines match."""

    info: CodeInfo
    status: Status = Status.INFO
    count: int = 0
    ranks: set[int] = field(default_factory=set)
    hosts: set[str] = field(default_factory=set)
    processes: set[tuple[str, int, int]] = field(default_factory=set)
    first: Occurrence | None = None
    earliest: Occurrence | None = None
    evidence: list[Occurrence] = field(default_factory=list)
    contributions: Counter[str] = field(default_factory=Counter)
    roles: set[str] = field(default_factory=set)
    captures: dict[str, list[str]] = field(default_factory=dict)
    details: dict[str, Any] = field(default_factory=dict)
    title: str | None = None

    @property
    def code(self) -> str:
        return self.info.code

    def add(
        self,
        occurrence: Occurrence,
        rule_id: str,
        role: str,
        status: Status,
        captures: dict[str, str],
    ) -> None:
        self.count += 1
        self.contributions[rule_id] += 1
        self.roles.add(role)
        if _STATUS_SEVERITY.get(status, 3) < _STATUS_SEVERITY.get(self.status, 3):
            self.status = status
        if occurrence.rank is not None:
            self.ranks.add(occurrence.rank)
        if occurrence.host is not None:
            self.hosts.add(occurrence.host)
        if occurrence.process is not None and len(self.processes) < 4096:
            self.processes.add(occurrence.process)
        for key, value in captures.items():
            values = self.captures.setdefault(key, [])
            if value not in values and len(values) < MAX_CAPTURE_VALUES:
                values.append(value)
        if self.first is None:
            self.first = occurrence
        stamp = time_key(occurrence.timestamp)
        if stamp is not None:
            earliest = time_key(self.earliest.timestamp) if self.earliest else None
            if earliest is None or stamp < earliest:
                self.earliest = occurrence
        self._keep_evidence(occurrence)

    def _keep_evidence(self, occurrence: Occurrence) -> None:
        if len(self.evidence) < MAX_EVIDENCE:
            new_rank = occurrence.rank is not None and all(
                e.rank != occurrence.rank for e in self.evidence
            )
            new_host = occurrence.host is not None and all(
                e.host != occurrence.host for e in self.evidence
            )
            if not self.evidence or new_rank or new_host or len(self.evidence) < 3:
                self.evidence.append(occurrence)
        elif occurrence is self.earliest and occurrence not in self.evidence:
            self.evidence[-1] = occurrence

    def first_occurrence(self) -> Occurrence | None:
        return self.earliest or self.first

    def merge(self, later: FindingBuilder) -> None:
        """Fold in what another scan of later input saw for the same code."""
        self.count += later.count
        self.contributions.update(later.contributions)
        self.roles |= later.roles
        if _STATUS_SEVERITY.get(later.status, 3) < _STATUS_SEVERITY.get(self.status, 3):
            self.status = later.status
        self.ranks |= later.ranks
        self.hosts |= later.hosts
        for process in later.processes:
            if len(self.processes) >= 4096:
                break
            self.processes.add(process)
        for key, values in later.captures.items():
            mine = self.captures.setdefault(key, [])
            for value in values:
                if value not in mine and len(mine) < MAX_CAPTURE_VALUES:
                    mine.append(value)
        for key, value in later.details.items():
            if isinstance(value, list) and isinstance(self.details.get(key), list):
                self.details[key] += [v for v in value if v not in self.details[key]][:50]
            else:
                self.details.setdefault(key, value)
        self.first = self.first or later.first
        stamp = time_key(later.earliest.timestamp) if later.earliest else None
        mine_stamp = time_key(self.earliest.timestamp) if self.earliest else None
        if stamp is not None and (mine_stamp is None or stamp < mine_stamp):
            self.earliest = later.earliest
        for occurrence in later.evidence:
            self._keep_evidence(occurrence)
        self.title = self.title or later.title

    def occurrences(self) -> list[Occurrence]:
        found = [o for o in (self.first, self.earliest) if o is not None]
        return found + self.evidence
