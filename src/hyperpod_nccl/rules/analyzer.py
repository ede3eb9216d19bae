"""Run the rule catalog over log streams and collect findings and cross-rank facts."""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, BinaryIO, cast

from hyperpod_nccl.model import Status
from hyperpod_nccl.rules.attribution import LineContext, attribute, file_defaults
from hyperpod_nccl.rules.catalog import Catalog, Rule
from hyperpod_nccl.rules.classifiers import CLASSIFIERS
from hyperpod_nccl.rules.engine import Prefilter, ScanStats, make_prefilter, scan_stream
from hyperpod_nccl.rules.facts import Facts
from hyperpod_nccl.rules.firsts import FirstErrors
from hyperpod_nccl.rules.lines import KNOWN_LAST, KNOWN_MATCH, KNOWN_NO_MATCH, LineHit, decode
from hyperpod_nccl.rules.occurrences import FindingBuilder, Occurrence
from hyperpod_nccl.rules.paste import UNWRAP_MAX_BYTES, normalize

PROGRESS_RULES = (
    "torch-watchdog-timeout",
    "torch-timeout-progress",
    "torch-watchdog-failure-detected",
    "torch-watchdog-exception-progress",
    "torch-blocking-wait-timeout",
)
MEMO_ENTRIES = 100_000


@dataclass(frozen=True)
class LineVerdict:
    skip: bool  # benign, or no rule confirmed the prefilter's guess
    text: str
    contexts: tuple[tuple[Rule, dict[str, str]], ...]
    primary: tuple[Rule, dict[str, str]] | None
    context: LineContext | None  # attribution from the line's own prefixes
    fact_keys: tuple[object, ...] = ()  # one per context, for the "already known" check


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
    firsts: FirstErrors = field(default_factory=FirstErrors)  # for the cross-rank timeline

    def merge(self, later: LogAnalysis) -> None:
        """Fold in the result of scanning later input (another file, or the next byte range
        of the same file)."""
        for code, builder in later.builders.items():
            if code in self.builders:
                self.builders[code].merge(builder)
            else:
                self.builders[code] = builder
        self.facts.merge(later.facts)
        self.firsts.merge(later.firsts)
        by_name = {s.name: s for s in self.sources}
        for stats in later.sources:
            mine = by_name.get(stats.name)
            if mine is None:
                self.sources.append(stats)
                by_name[stats.name] = stats
            else:
                mine.bytes += stats.bytes
                mine.lines += stats.lines
                mine.matched_lines += stats.matched_lines
                mine.long_lines += stats.long_lines

    def occurrences(self) -> list[Occurrence]:
        found = self.facts.occurrences() + self.firsts.occurrences()
        for builder in self.builders.values():
            found += builder.occurrences()
        return found

    def stalled_nvls(self) -> list[Occurrence]:
        """Processes whose NCCL init reached NVLS setup and printed no Init COMPLETE after
        it: they hung there (that line is the last NCCL prints before the hang)."""
        facts = self.facts
        return [
            occ for key, occ in facts.nvls.items() if facts.init_complete.get(key, 0) <= occ.line_no
        ]


# CPython's unraisable-exception report: its header, and how far below it (a traceback's
# frames) its exception line may stand.
UNRAISABLE_RULE = "python-exception-ignored"
UNRAISABLE_LINES = 200


class LogAnalyzer:
    def __init__(
        self, catalog: Catalog, backend: str = "auto", prefilter: Prefilter | None = None
    ) -> None:
        self.catalog = catalog
        self._rules = catalog.rules
        # Benign rules only ever cancel other rules on the same line, so the one-pass scan
        # leaves them out (a line only they match needs no look); lines another rule flags are
        # checked against all of them at once here.
        scanned = [r for r in catalog.rules if r.role != "benign"]
        self.prefilter: Prefilter = prefilter or make_prefilter(scanned, backend)
        benign = [r.pattern for r in catalog.rules if r.role == "benign"]
        self._benign_re = re.compile("|".join(f"(?:{p})" for p in benign)) if benign else None
        self.result = LogAnalysis()
        self._order = 0
        # source -> line of CPython's 'Exception ignored in:' whose exception line is to come
        self._unraisable: dict[str, int] = {}
        self._memo: dict[bytes, LineVerdict] = {}
        self._seen_facts: set[tuple[object, ...]] = set()
        # Lines of the current source already settled, by their bytes (engine.KNOWN_*):
        # context-only lines that added nothing new (the same bytes again, as NCCL repeats
        # its init lines for every communicator, add nothing either: counted as matched
        # without a look), those that only move a process's init completion to a later line,
        # and lines no rule confirmed. The scanner passes over them (scan_stream).
        self._known: dict[bytes, int] = {}
        self._known_of: tuple[str, int | None, str | None] | None = None

    def scan(self, name: str, stream: BinaryIO, lines_before: int = 0) -> ScanStats:
        """Scan one input (or, with `lines_before`, the rest of one after that many lines);
        findings accumulate across calls."""
        default_rank, default_host = file_defaults(name)
        stats = ScanStats()
        sources = self.result.sources
        if not (sources and sources[-1].name == name):  # a later range of the same file
            sources.append(SourceStats(name))
        source = sources[-1]
        if lines_before == 0:
            stream = _pasted(stream, self.reading)
        if self._known_of != (name, default_rank, default_host):
            self._known.clear()  # attribution differs per source: what is known, too
            self._known_of = (name, default_rank, default_host)
        try:
            hits = scan_stream(
                stream, self.prefilter, stats, line_base=lines_before, known=self._known
            )
            for hit in hits:
                if self._process(name, hit, default_rank, default_host):
                    source.matched_lines += 1
        finally:
            source.bytes += stats.bytes
            source.lines += stats.lines
            source.long_lines += stats.long_lines
            source.matched_lines += stats.known_lines
        return stats

    def line_verdicts(self, stream: BinaryIO) -> dict[int, tuple[str | None, tuple[str, ...]]]:
        """Per line a rule had a say on: the finding rule that counts and the context rules,
        as the scan would use them (benign lines left out). For comparing engines and for
        asking why a line matched; it records nothing."""
        verdicts: dict[int, tuple[str | None, tuple[str, ...]]] = {}
        for hit in scan_stream(_pasted(stream, self.reading), self.prefilter):
            verdict = self._verdict(hit)
            if verdict.skip:
                continue
            primary = verdict.primary[0].id if verdict.primary else None
            verdicts[hit.line_no] = (primary, tuple(sorted(r.id for r, _ in verdict.contexts)))
        return verdicts

    def reading(self, line: bytes) -> tuple[str, str | None] | None:
        """What the rules make of one line on its own: ('benign', None), the finding rule that
        counts with the code it gives, or None. For joining word-wrapped pastes
        (rules/paste.py)."""
        text = decode(line)
        if self._benign_re is not None and self._benign_re.search(text):
            return ("benign", None)
        found: set[int] = set()
        self.prefilter.scan(memoryview(line), lambda index, _s, _e, _f, _c: found.add(index))
        indexes = sorted(found)
        primary = self._verdict(LineHit(0, line, tuple(indexes))).primary
        if primary is None:
            return None
        rule, captures = primary
        if not rule.classify:
            return (rule.id, rule.code)
        classified = CLASSIFIERS[rule.classify]({k: v.strip() for k, v in captures.items()}, text)
        return (rule.id, classified[0]) if classified else None

    def _verdict(self, hit: LineHit) -> LineVerdict:
        """What the rules say about this line's text, computed once per distinct text: logs
        repeat the same lines (every communicator init, every retry) many times."""
        verdict = self._memo.get(hit.raw)
        if verdict is not None:
            return verdict
        text = hit.text
        matched: list[tuple[Rule, dict[str, str]]] = []
        benign = self._benign_re is not None and self._benign_re.search(text) is not None
        for index in () if benign else hit.rule_indexes:
            rule = self._rules[index]
            match = rule.regex.search(text)
            if match is None:
                continue
            matched.append((rule, {k: v for k, v in match.groupdict().items() if v is not None}))
        contexts = tuple((r, c) for r, c in matched if r.role == "context" and r.emits)
        exclusive = any(r.exclusive for r, _ in contexts)
        primary = (
            None if exclusive else next(((r, c) for r, c in matched if r.makes_findings), None)
        )
        context = attribute(text) if (matched and not benign) else None
        keys = tuple((r.id, tuple(sorted(c.items()))) for r, c in contexts)
        verdict = LineVerdict(benign or not matched, text, contexts, primary, context, keys)
        if len(self._memo) >= MEMO_ENTRIES:
            self._memo.clear()
        self._memo[hit.raw] = verdict
        return verdict

    def _process(
        self, source: str, hit: LineHit, default_rank: int | None, default_host: str | None
    ) -> bool:
        known = self._known
        settled = known.get(hit.raw)
        if settled is not None and settled != KNOWN_LAST:  # settled earlier in this chunk
            return settled == KNOWN_MATCH
        verdict = self._verdict(hit)
        if verdict.skip or verdict.context is None:
            if len(known) < MEMO_ENTRIES:
                known[hit.raw] = KNOWN_NO_MATCH
            return False
        ctx = verdict.context
        rank = ctx.rank if ctx.rank is not None else default_rank
        host = ctx.host or default_host
        if verdict.primary is None and self._known_facts(verdict, rank, host, ctx, source, hit):
            # Init completion keeps its last line number: those lines must be looked at.
            completes = any(r.emits == "nccl_init_complete" for r, _ in verdict.contexts)
            if len(known) < MEMO_ENTRIES:
                known[hit.raw] = KNOWN_LAST if completes else KNOWN_MATCH
            return True
        self._order += 1
        occurrence = Occurrence(
            source=source,
            line_no=hit.line_no,
            text=verdict.text,
            order=self._order,
            rank=rank,
            host=host,
            pid=ctx.pid,
            device=ctx.device,
            timestamp=ctx.timestamp,
        )
        for rule, captures in verdict.contexts:
            self.result.facts.record(rule.emits or "", captures, occurrence)
        if verdict.primary is not None:
            self._add_finding(verdict.primary[0], verdict.primary[1], occurrence)
        return True

    def _known_facts(
        self,
        verdict: LineVerdict,
        rank: int | None,
        host: str | None,
        ctx: LineContext,
        source: str,
        hit: LineHit,
    ) -> bool:
        """True when every fact on this context-only line was already recorded for the same
        process, so the line adds nothing. Logs repeat NCCL's init lines for every
        communicator; only the first per process matters (the last, for init completion,
        which is updated here without building an Occurrence)."""
        facts = self.result.facts
        known = True
        seen = self._seen_facts
        identity = (rank, host, ctx.pid, ctx.device)
        for (rule, _), key in zip(verdict.contexts, verdict.fact_keys, strict=True):
            process = ctx.process_of(host)
            if rule.emits == "nccl_init_complete" and process is not None:
                # max: the scanner hands a repeated completion over after the lines that
                # followed it (engine.scan_stream), possibly after a later completion.
                key = (source, process[0], process[1], process[2])
                facts.init_complete[key] = max(hit.line_no, facts.init_complete.get(key, 0))
                continue
            full = (key, identity)
            if full not in seen:
                if len(seen) < MEMO_ENTRIES:
                    seen.add(full)
                known = False
        return known

    def _add_finding(self, rule: Rule, raw: dict[str, str], occurrence: Occurrence) -> None:
        captures = {k: v.strip() for k, v in raw.items()}
        if rule.classify:
            classified = CLASSIFIERS[rule.classify](captures, occurrence.text)
            if classified is None:  # the captures say this line shows no failure
                return
            code, status = classified
        else:
            assert rule.code is not None
            code, status = rule.code, rule.status
        facts = self.result.facts
        if rule.id == UNRAISABLE_RULE:
            self._unraisable[occurrence.source] = occurrence.line_no
            facts.unraisable_headers += 1
        elif rule.classify == "python_exception" and code == "APP_EXCEPTION":
            if self._ignored(occurrence):
                status = Status.WARN
                facts.unraisable_paired += 1
            else:
                facts.unpaired_exceptions += 1
        if occurrence.rank is None and captures.get("rank", "").isdigit():
            occurrence = _with_rank(occurrence, int(captures["rank"]))
        builder = self.result.builders.get(code)
        if builder is None:
            builder = FindingBuilder(self.catalog.codes[code])
            self.result.builders[code] = builder
        builder.add(occurrence, rule.id, rule.role, status, captures)
        pid = captures.get("pid", "")
        self.result.firsts.add(code, status, occurrence, int(pid) if pid.isdigit() else None)
        if rule.id in PROGRESS_RULES and occurrence.rank is not None:
            self.result.facts.record_progress(occurrence.rank, captures, occurrence)
        if rule.classify == "xid":
            xids = builder.details.setdefault("xids", [])
            xid = int(captures.get("xid") or 0)
            if xid not in xids and len(xids) < 50:
                xids.append(xid)

    def _ignored(self, occurrence: Occurrence) -> bool:
        """Whether this exception line ends the traceback of an 'Exception ignored in:'
        header shortly before it in the same input (its first exception line after it)."""
        header = self._unraisable.pop(occurrence.source, None)
        return header is not None and 0 < occurrence.line_no - header <= UNRAISABLE_LINES


class _Prepended:
    """`head` (already read) then the rest of `stream`; readinto is all a scan uses. Each
    call returns what one source gives, so an error of the rest (a truncated .gz) comes
    only after the head was scanned."""

    def __init__(self, head: bytes, stream: Any) -> None:
        self._head = memoryview(head)
        self._stream = stream

    def readinto(self, target: Any) -> int:
        if self._head:
            n = min(len(target), len(self._head))
            target[:n] = self._head[:n]
            self._head = self._head[n:]
            return n
        return int(self._stream.readinto(target))


class _Failing:
    """A stream whose next read raises the error the real one raised."""

    def __init__(self, error: Exception) -> None:
        self._error = error

    def readinto(self, _target: Any) -> int:
        raise self._error


def _pasted(stream: BinaryIO, reading: Callable[[bytes], object]) -> BinaryIO:
    """A small input with paste damage undone (rules/paste.py); a large one as it is."""
    buffer = bytearray(UNWRAP_MAX_BYTES + 1)
    view = memoryview(buffer)
    filled = 0
    try:
        while filled < len(buffer):  # readinto: a parallel scan's range readers have no read
            n = stream.readinto(view[filled:])  # type: ignore[attr-defined]
            if not n:
                break
            filled += n
    except Exception as exc:  # damaged input (a truncated .gz): scan what came, then fail
        return cast(BinaryIO, _Prepended(normalize(bytes(view[:filled]), reading), _Failing(exc)))
    head = bytes(view[:filled])
    if filled <= UNWRAP_MAX_BYTES:
        return io.BytesIO(normalize(head, reading))
    return cast(BinaryIO, _Prepended(head, stream))


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
