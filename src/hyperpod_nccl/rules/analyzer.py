"""Run the rule catalog over log streams and collect findings and cross-rank facts."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import BinaryIO

from hyperpod_nccl.rules.attribution import attribute, file_defaults
from hyperpod_nccl.rules.catalog import Catalog, Rule
from hyperpod_nccl.rules.classifiers import CLASSIFIERS
from hyperpod_nccl.rules.engine import LineHit, Prefilter, ScanStats, make_prefilter, scan_stream
from hyperpod_nccl.rules.facts import Facts
from hyperpod_nccl.rules.occurrences import FindingBuilder, Occurrence

PROGRESS_RULES = ("torch-watchdog-timeout", "torch-timeout-progress")


@dataclass
class SourceStats:
    name: str
    bytes: int = 0
    lines: int = 0
    matched_lines: int = 0
    long_lines: int = 0


@dataclass
class LogAnalysis:
    """The raw result of scanning: per-code builders, facts and per-source counts."""

    builders: dict[str, FindingBuilder] = field(default_factory=dict)
    facts: Facts = field(default_factory=Facts)
    sources: list[SourceStats] = field(default_factory=list)
    stalled_nvls: list[Occurrence] = field(default_factory=list)


class LogAnalyzer:
    def __init__(self, catalog: Catalog, backend: str = "auto") -> None:
        self.catalog = catalog
        self._rules = catalog.rules
        self.prefilter: Prefilter = make_prefilter(catalog.rules, backend)
        self.result = LogAnalysis()
        self._order = 0

    def scan(self, name: str, stream: BinaryIO) -> SourceStats:
        """Scan one input; findings accumulate across calls."""
        default_rank, default_host = file_defaults(name)
        stats = ScanStats()
        source = SourceStats(name)
        self.result.sources.append(source)
        try:
            for hit in scan_stream(stream, self.prefilter, stats):
                if self._process(name, hit, default_rank, default_host):
                    source.matched_lines += 1
        finally:
            source.bytes, source.lines, source.long_lines = (
                stats.bytes,
                stats.lines,
                stats.long_lines,
            )
            self._check_nvls_stall(name)
        return source

    def _process(
        self, source: str, hit: LineHit, default_rank: int | None, default_host: str | None
    ) -> bool:
        matched: list[tuple[Rule, re.Match[str]]] = []
        for index in hit.rule_indexes:
            rule = self._rules[index]
            match = rule.regex.search(hit.text)
            if match is not None:
                if rule.role == "benign":
                    return False
                matched.append((rule, match))
        if not matched:
            return False
        ctx = attribute(hit.text, default_rank, default_host)
        self._order += 1
        occurrence = Occurrence(
            source=source,
            line_no=hit.line_no,
            text=hit.text,
            order=self._order,
            rank=ctx.rank,
            host=ctx.host,
            pid=ctx.pid,
            device=ctx.device,
            timestamp=ctx.timestamp,
        )
        primary: tuple[Rule, re.Match[str]] | None = None
        for rule, match in matched:
            if rule.role == "context" and rule.emits:
                captures = {k: v for k, v in match.groupdict().items() if v is not None}
                self.result.facts.record(rule.emits, captures, occurrence)
            elif primary is None and rule.makes_findings:
                primary = (rule, match)
        if primary is not None:
            self._add_finding(primary[0], primary[1], occurrence)
        return True

    def _add_finding(self, rule: Rule, match: re.Match[str], occurrence: Occurrence) -> None:
        captures = {k: v.strip() for k, v in match.groupdict().items() if v is not None}
        if rule.classify:
            code, status = CLASSIFIERS[rule.classify](captures)
        else:
            assert rule.code is not None
            code, status = rule.code, rule.status
        if occurrence.rank is None and captures.get("rank", "").isdigit():
            occurrence = _with_rank(occurrence, int(captures["rank"]))
        builder = self.result.builders.get(code)
        if builder is None:
            builder = FindingBuilder(self.catalog.codes[code])
            self.result.builders[code] = builder
        builder.add(occurrence, rule.id, rule.role, status, captures)
        if rule.id in PROGRESS_RULES and occurrence.rank is not None:
            self.result.facts.record_progress(occurrence.rank, captures, occurrence)
        if rule.classify == "xid":
            xids = builder.details.setdefault("xids", [])
            xid = int(captures.get("xid") or 0)
            if xid not in xids and len(xids) < 50:
                xids.append(xid)

    def _check_nvls_stall(self, source: str) -> None:
        """A process whose NCCL init reached NVLS setup and never printed Init COMPLETE after
        it hung there (the line is the last NCCL prints before the hang)."""
        facts = self.result.facts
        for key, occ in list(facts.nvls.items()):
            if key[0] != source:
                continue
            if facts.init_complete.get(key, 0) <= occ.line_no:
                self.result.stalled_nvls.append(occ)
            del facts.nvls[key]


def _with_rank(occ: Occurrence, rank: int) -> Occurrence:
    return Occurrence(
        source=occ.source,
        line_no=occ.line_no,
        text=occ.text,
        order=occ.order,
        rank=rank,
        host=occ.host,
        pid=occ.pid,
        device=occ.device,
        timestamp=occ.timestamp,
    )
