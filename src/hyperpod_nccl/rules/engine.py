"""One pass over a byte stream for all rules at once, in bounded memory.

A multi-pattern prefilter (Hyperscan when installed, else Python's `re`) finds the few lines
that may match any rule; rules/lines.py turns its matches into lines, passing over those the
caller has already settled, and only the others are handed on. The stream is read in
fixed-size chunks cut at line ends, so memory does not grow with the input; a line longer
than a chunk is scanned in chunk-sized pieces.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import marshal
import re
import sys
from collections.abc import Iterator, Mapping, Sequence
from operator import itemgetter
from pathlib import Path
from typing import Any, BinaryIO, Protocol

from hyperpod_nccl.diskcache import cache_file, store
from hyperpod_nccl.rules import anchors as anchors_module
from hyperpod_nccl.rules import bytefreq as bytefreq_module
from hyperpod_nccl.rules import literals as literals_module
from hyperpod_nccl.rules import prefilter as prefilter_module
from hyperpod_nccl.rules.anchors import AnchorIndex
from hyperpod_nccl.rules.catalog import Rule
from hyperpod_nccl.rules.lines import (
    KNOWN_LAST,
    KNOWN_NO_MATCH,
    MAX_LINE_CHARS,
    LineHit,
    OnMatch,
    collect,
    number,
)
from hyperpod_nccl.rules.literals import Literals, required_literals
from hyperpod_nccl.rules.paste import strip_ansi
from hyperpod_nccl.rules.prefilter import prefilter_pattern

CHUNK_BYTES = 8 * 1024 * 1024

_hyperscan: Any
try:  # Hyperscan is optional: it makes the scan as fast as grep, the fallback is pure Python.
    import hyperscan as _hyperscan
except ImportError:  # pragma: no cover - exercised where hyperscan is not installed
    _hyperscan = None


class Prefilter(Protocol):
    name: str

    def scan(
        self, data: memoryview, on_match: OnMatch, known: Mapping[bytes, int] | None = None
    ) -> None:
        """Call on_match(rule index, 0, end offset, 0, None) for every place a rule may
        match, in order of end offset. `known` is the collector's map of settled lines
        (rules/lines.py): a prefilter may report a single match on such a line (with any
        rule index, -1 included: the collector does not read it), or none on one settled as
        KNOWN_NO_MATCH, as the collector passes over them either way."""


class RegexPrefilter:
    """Pure-Python fallback: one compiled bytes regex per rule, run only on the lines that
    hold one of the rule's required literals (rules/literals.py), found for all rules in one
    regex pass (rules/anchors.py). A rule with no usable literal is searched over the whole
    buffer. The hits are those a whole-buffer search of every rule would give: no prefilter
    match can span lines, and each holds one of its rule's literals."""

    name = "re"

    def __init__(self, rules: Sequence[Rule]) -> None:
        plan = _regex_plan(tuple((r.index, prefilter_pattern(r.pattern).encode()) for r in rules))
        self._compiled, self._whole, self._anchors = plan

    def scan(
        self, data: memoryview, on_match: OnMatch, known: Mapping[bytes, int] | None = None
    ) -> None:
        for end, index in sorted(self.matches(data, known)):
            on_match(index, 0, end, 0, None)

    def matches(
        self, data: memoryview, known: Mapping[bytes, int] | None = None
    ) -> list[tuple[int, int]]:
        """(end offset, rule index) for places rules may match, in no order: every place,
        except that on a line of up to MAX_LINE_CHARS only each rule's first (all the
        collector keeps of it), on a line `known` as settled only one match, and on one
        known as KNOWN_NO_MATCH none."""
        hits: list[tuple[int, int]] = []
        for index, regex in self._whole:
            hits.extend((m.end(), index) for m in regex.finditer(data))
        end = len(data)
        compiled = self._compiled
        append = hits.append
        settled = (known or {}).get
        anchors = self._anchors
        buf = bytes(data)
        for start, stop, marked, alone in anchors.spans(buf):
            # Up to and with the newline: a lookahead sees what a whole-buffer search sees.
            limit = stop + 1 if stop < end else end
            if stop - start > MAX_LINE_CHARS:  # the collector keeps its first and last match
                for index in anchors.rules_on(buf, start, stop, marked, alone):
                    hits.extend(
                        (m.end(), index) for m in compiled[index].finditer(data, start, limit)
                    )
                continue
            seen = settled(buf[start:stop]) if known else None
            if seen == KNOWN_NO_MATCH:
                continue
            if seen is not None and seen != KNOWN_LAST:
                # Settled: the collector only looks it up and passes over it, whatever rule.
                append((stop, -1))
                continue
            rules = anchors.rules_on(buf, start, stop, marked, alone)
            for index in rules:
                match = compiled[index].search(data, start, limit)
                if match is not None:
                    append((match.end(), index))
                    if seen is not None and seen != KNOWN_LAST:
                        break  # the collector only looks it up, and passes over it
        return hits


_Plan = tuple[dict[int, "re.Pattern[bytes]"], list[tuple[int, "re.Pattern[bytes]"]], AnchorIndex]


@functools.lru_cache(maxsize=4)
def _regex_plan(patterns: tuple[tuple[int, bytes], ...]) -> _Plan:
    """Compiled rules, those with no usable literal, and the anchor index of the others: built
    once per process, and what is costly in it (parsing every pattern for its literals and
    choosing their anchors, about 0.4 s) is kept in the user cache."""
    compiled = {index: re.compile(pattern, re.MULTILINE) for index, pattern in patterns}
    cache = _plan_file(patterns)
    try:
        whole, state = marshal.loads(cache.read_bytes())
        anchors = AnchorIndex.from_state(state)
        if not set(whole) <= compiled.keys() or not _covers(anchors, compiled.keys() - whole):
            raise ValueError("another catalog's plan")
    except (OSError, ValueError, EOFError, TypeError):  # not cached yet, or damaged: build
        whole = []
        literals: dict[int, Literals] = {}
        for index, pattern in patterns:
            required = required_literals(pattern)
            if required is None:
                whole.append(index)
            else:
                literals[index] = required
        anchors = AnchorIndex(literals)
        store(cache, marshal.dumps((whole, anchors.state())))
    return compiled, [(index, compiled[index]) for index in whole], anchors


def _covers(anchors: AnchorIndex, indexes: set[int]) -> bool:
    """Whether the index looks for exactly these rules."""
    return {i for rules in anchors.rules.values() for i in rules} == indexes


@functools.lru_cache(maxsize=1)
def _planner_digest() -> bytes:
    """The code that turns patterns into literals and anchors is part of what a cached plan
    is built from, and so is the Python whose regex parser reads the patterns."""
    digest = hashlib.sha256(sys.version.encode())
    for module in (anchors_module, bytefreq_module, literals_module):
        # No source to read (a frozen build): the digest of nothing.
        with contextlib.suppress(OSError):
            digest.update(Path(module.__file__ or "").read_bytes())
    return digest.digest()


def _plan_file(patterns: tuple[tuple[int, bytes], ...]) -> Path:
    digest = hashlib.sha256(_planner_digest())
    for index, pattern in patterns:
        digest.update(b"%d\0%s\0" % (index, pattern))
    return cache_file(f"re-plan-{digest.hexdigest()[:32]}.marshal")


class HyperscanPrefilter:
    """All rules compiled into one Hyperscan database, scanned in a single pass.

    Compiling the catalog takes a few hundred milliseconds, longer than scanning 100 MB, so the
    compiled database is cached on disk, keyed by the patterns and the Hyperscan version.
    """

    name = "hyperscan"

    def __init__(self, rules: Sequence[Rule], cache_dir: Path | None = None) -> None:
        assert _hyperscan is not None
        self.unsupported: tuple[str, ...] = ()
        self._fallback: RegexPrefilter | None = None
        # Keyed by the catalog's own patterns: rewriting them (prefilter_pattern) costs more
        # than loading the database, and is only needed to compile it.
        cache = _cache_file(
            [r.index for r in rules], [r.pattern.encode() for r in rules], cache_dir
        )
        db = _load_cached(cache)
        if db is None:
            expressions = [prefilter_pattern(r.pattern).encode() for r in rules]
            try:
                db = _compile([r.index for r in rules], expressions)
            except Exception:  # hyperscan.error: some pattern uses unsupported syntax
                db = self._compile_supported(rules)
            else:
                _store_cached(cache, db)
        self._db: Any = db

    def _compile_supported(self, rules: Sequence[Rule]) -> Any:
        """Compile rule by rule to find the unsupported ones; those fall back to `re`."""
        supported: list[Rule] = []
        leftovers: list[Rule] = []
        for rule in rules:
            try:
                _compile([rule.index], [prefilter_pattern(rule.pattern).encode()])
                supported.append(rule)
            except Exception:
                leftovers.append(rule)
        self._fallback = RegexPrefilter(leftovers) if leftovers else None
        self.unsupported = tuple(r.id for r in leftovers)
        return _compile(
            [r.index for r in supported], [prefilter_pattern(r.pattern).encode() for r in supported]
        )

    def scan(
        self, data: memoryview, on_match: OnMatch, known: Mapping[bytes, int] | None = None
    ) -> None:
        # `known` is not needed: the collector passes over settled lines at their first match.
        if self._fallback is None:  # Hyperscan reports matches in order of end offset
            self._db.scan(data, match_event_handler=on_match)
            return
        hits: list[tuple[int, int]] = self._fallback.matches(data, known)
        append = hits.append

        def add(rule_index: int, _start: int, end: int, _flags: int, _ctx: object) -> None:
            append((end, rule_index))

        self._db.scan(data, match_event_handler=add)
        for end, index in sorted(hits):
            on_match(index, 0, end, 0, None)


def _compile(ids: list[int], expressions: list[bytes]) -> Any:
    db = _hyperscan.Database(mode=_hyperscan.HS_MODE_BLOCK)
    db.compile(
        expressions=expressions,
        ids=ids,
        elements=len(expressions),
        flags=[_hyperscan.HS_FLAG_MULTILINE] * len(expressions),
    )
    return db


@functools.lru_cache(maxsize=1)
def _rewriter_digest() -> bytes:
    """The code that rewrites patterns for Hyperscan is part of what a database is built
    from: a change to it must not be served an old database."""
    try:
        return hashlib.sha256(Path(prefilter_module.__file__ or "").read_bytes()).digest()
    except OSError:  # no source to read (a frozen build): the digest of nothing
        return b""


def _cache_file(ids: list[int], patterns: list[bytes], cache_dir: Path | None) -> Path | None:
    # The ids are the rules' catalog positions: a rule added before others (a benign one,
    # which is not scanned) shifts them while the patterns stay the same.
    digest = hashlib.sha256(b"\0".join(patterns))
    digest.update(",".join(map(str, ids)).encode())
    digest.update(str(getattr(_hyperscan, "__version__", "")).encode())
    digest.update(_rewriter_digest())
    return cache_file(f"hyperscan-{digest.hexdigest()[:32]}.db", cache_dir)


def _load_cached(path: Path | None) -> Any:
    if path is None:
        return None
    try:
        db = _hyperscan.loadb(path.read_bytes(), _hyperscan.HS_MODE_BLOCK)
        db.scratch = _hyperscan.Scratch(db)
        return db
    except Exception:  # no cache yet, unreadable, or from another build: compile instead
        return None


def _store_cached(path: Path | None, db: Any) -> None:
    if path is not None:
        store(path, _hyperscan.dumpb(db))  # a read-only home only costs the compile next run


FALLBACK_NOTICE = (
    "hyperpod-nccl: Hyperscan is not installed (it has no wheel for this platform or Python); "
    "using the pure-Python engine, several times slower on large logs"
)
_noticed = False


def _fallback_notice() -> None:
    """Said once per process on stderr, so a user who expected grep speed knows why not; never
    on stdout, which may carry JSON."""
    global _noticed
    if not _noticed:
        _noticed = True
        print(FALLBACK_NOTICE, file=sys.stderr)


def make_prefilter(rules: Sequence[Rule], backend: str = "auto") -> Prefilter:
    """`backend`: auto (Hyperscan if installed), hyperscan, or re."""
    if backend == "auto" and _hyperscan is None:
        _fallback_notice()
        return RegexPrefilter(rules)
    if backend == "re":
        return RegexPrefilter(rules)
    if _hyperscan is None:
        raise RuntimeError("the hyperscan package is not installed")
    return HyperscanPrefilter(rules)


def hyperscan_available() -> bool:
    return _hyperscan is not None


class ScanStats:
    """Counts kept while scanning one stream."""

    def __init__(self) -> None:
        self.bytes = 0
        self.lines = 0
        self.long_lines = 0
        self.known_lines = 0  # lines passed over as already settled (see scan_stream)


def scan_stream(
    stream: BinaryIO,
    prefilter: Prefilter,
    stats: ScanStats | None = None,
    chunk_bytes: int | None = None,
    line_base: int = 0,
    known: Mapping[bytes, int] | None = None,
) -> Iterator[LineHit]:
    """Yield the lines of `stream` that may match a rule, with their line numbers.

    `known` maps line texts the caller has already settled to what a repeat of them means
    (rules/lines.py, KNOWN_*): such a line is passed over here, costing no line object and
    no line number (logs repeat NCCL's init lines once per communicator, and a repeat adds
    no new information). The map may grow while the stream is read; it is consulted a chunk
    at a time. A line whose repeats only move its line number on (KNOWN_LAST) is yielded
    once, at its last occurrence, after the stream's other lines."""
    stats = stats if stats is not None else ScanStats()
    pending: dict[bytes, LineHit] = {}  # KNOWN_LAST lines: their last occurrence so far
    try:
        yield from _scan_chunks(stream, prefilter, stats, chunk_bytes, line_base, known, pending)
    except Exception:  # the stream failed (a truncated .gz): what was read still counts
        yield from sorted(pending.values(), key=itemgetter(0))
        raise
    yield from sorted(pending.values(), key=itemgetter(0))


def _scan_chunks(
    stream: BinaryIO,
    prefilter: Prefilter,
    stats: ScanStats,
    chunk_bytes: int | None,
    line_base: int,
    known: Mapping[bytes, int] | None,
    pending: dict[bytes, LineHit],
) -> Iterator[LineHit]:
    chunk_bytes = chunk_bytes or CHUNK_BYTES
    buf = bytearray(chunk_bytes)
    view = memoryview(buf)
    filled = 0  # line_base: lines before buf[0] (non-zero when resuming inside a file)
    eof = False
    while not eof:
        n = stream.readinto(view[filled:])  # type: ignore[attr-defined]
        if not n:
            eof = True
            end = filled
            if end == 0:
                break
            segment_end = end
        else:
            stats.bytes += n
            end = filled + n
            last_nl = buf.rfind(b"\n", filled, end)
            if last_nl < 0:
                if end < chunk_bytes:
                    filled = end  # a short read: read more before cutting
                    continue
                stats.long_lines += 1
                segment_end = end  # one line longer than the buffer: scan this piece
            else:
                segment_end = last_nl + 1
        if buf.find(b"\x1b", 0, segment_end) >= 0:  # colour codes split the text rules match
            clean = bytearray(strip_ansi(bytes(buf[:segment_end])))
            found, newlines = _scan_segment(
                clean, memoryview(clean), len(clean), line_base, prefilter, known, stats, pending
            )
        else:
            found, newlines = _scan_segment(
                buf, view, segment_end, line_base, prefilter, known, stats, pending
            )
        yield from found
        line_base += newlines
        stats.lines += newlines
        if eof and buf[segment_end - 1] != 0x0A:
            stats.lines += 1  # a last line without its newline still counts
        carry = end - segment_end
        if carry:
            buf[0:carry] = buf[segment_end:end]
        filled = carry


def _scan_segment(
    buf: bytearray,
    view: memoryview,
    segment_end: int,
    line_base: int,
    prefilter: Prefilter,
    known: Mapping[bytes, int] | None,
    stats: ScanStats,
    pending: dict[bytes, LineHit],
) -> tuple[list[LineHit], int]:
    """The candidate lines of buf[:segment_end] (rules/lines.py), and its newline count;
    KNOWN_LAST lines go to `pending` instead."""
    known = known or {}
    on_match, finish = collect(buf, view, segment_end, known)
    prefilter.scan(view[:segment_end], on_match, known)
    lines, last, passed = finish()
    found, position, newlines = number(buf, view, lines, line_base)
    if last:
        kept: list[LineHit] = []
        for hit in found:
            if hit.raw in last:
                passed += hit.raw in pending  # the earlier occurrence is passed over now
                pending[hit.raw] = hit
            else:
                kept.append(hit)
        found = kept
    stats.known_lines += passed
    return found, newlines + buf.count(b"\n", position, segment_end)
