"""One pass over a byte stream for all rules at once, in bounded memory.

A multi-pattern prefilter (Hyperscan when installed, else Python's `re`) finds the few lines
that may match any rule; only those lines are decoded and handed on. The stream is read in
fixed-size chunks cut at line ends, so memory does not grow with the input; a line longer
than a chunk is scanned in chunk-sized pieces.
"""

from __future__ import annotations

import functools
import hashlib
import re
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, BinaryIO, NamedTuple, Protocol

from hyperpod_nccl.rules import prefilter as prefilter_module
from hyperpod_nccl.rules.anchors import AnchorIndex
from hyperpod_nccl.rules.catalog import Rule
from hyperpod_nccl.rules.diskcache import cache_file, store
from hyperpod_nccl.rules.literals import Literals, required_literals
from hyperpod_nccl.rules.paste import strip_ansi
from hyperpod_nccl.rules.prefilter import prefilter_pattern

CHUNK_BYTES = 8 * 1024 * 1024
# Evidence and capture extraction look at this much of a line; the rest is noise.
MAX_LINE_CHARS = 8192

_hyperscan: Any
try:  # Hyperscan is optional: it makes the scan as fast as grep, the fallback is pure Python.
    import hyperscan as _hyperscan
except ImportError:  # pragma: no cover - exercised where hyperscan is not installed
    _hyperscan = None


class LineHit(NamedTuple):
    line_no: int  # 1-based; a line longer than a chunk keeps the number it started on
    raw: bytes
    rule_indexes: tuple[int, ...]  # candidate rules, in catalog order

    @property
    def text(self) -> str:
        return _decode(self.raw)


class Prefilter(Protocol):
    name: str
    ordered: bool  # matches() already returns hits sorted by end offset

    def matches(self, data: memoryview) -> list[tuple[int, int]]:
        """(end offset, rule index) for every place a rule may match."""


class RegexPrefilter:
    """Pure-Python fallback: one compiled bytes regex per rule, run only on the lines that
    hold one of the rule's required literals (rules/literals.py), found for all rules in one
    regex pass (rules/anchors.py). A rule with no usable literal is searched over the whole
    buffer. The hits are those a whole-buffer search of every rule would give: no prefilter
    match can span lines, and each holds one of its rule's literals."""

    name = "re"
    ordered = False

    def __init__(self, rules: Sequence[Rule]) -> None:
        plan = _regex_plan(tuple((r.index, prefilter_pattern(r.pattern).encode()) for r in rules))
        self._compiled, self._whole, self._anchors = plan

    def matches(self, data: memoryview) -> list[tuple[int, int]]:
        hits: list[tuple[int, int]] = []
        for index, regex in self._whole:
            hits.extend((m.end(), index) for m in regex.finditer(data))
        end = len(data)
        compiled = self._compiled
        for start, stop, rules in self._anchors.lines(data, end):
            # Up to and with the newline: a lookahead sees what a whole-buffer search sees.
            limit = stop + 1 if stop < end else end
            for index in rules:
                hits.extend((m.end(), index) for m in compiled[index].finditer(data, start, limit))
        return hits


_Plan = tuple[dict[int, "re.Pattern[bytes]"], list[tuple[int, "re.Pattern[bytes]"]], AnchorIndex]


@functools.lru_cache(maxsize=4)
def _regex_plan(patterns: tuple[tuple[int, bytes], ...]) -> _Plan:
    """Compiled rules, those with no usable literal, and the anchor index of the others: built
    once per process (parsing every pattern for its literals takes a tenth of a second)."""
    compiled: dict[int, re.Pattern[bytes]] = {}
    whole: list[tuple[int, re.Pattern[bytes]]] = []
    literals: dict[int, Literals] = {}
    for index, pattern in patterns:
        regex = re.compile(pattern, re.MULTILINE)
        compiled[index] = regex
        required = required_literals(pattern)
        if required is None:
            whole.append((index, regex))
        else:
            literals[index] = required
    return compiled, whole, AnchorIndex(literals)


class HyperscanPrefilter:
    """All rules compiled into one Hyperscan database, scanned in a single pass.

    Compiling the catalog takes a few hundred milliseconds, longer than scanning 100 MB, so the
    compiled database is cached on disk, keyed by the patterns and the Hyperscan version.
    """

    name = "hyperscan"
    ordered = True  # Hyperscan reports matches in order of their end offset

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

    def matches(self, data: memoryview) -> list[tuple[int, int]]:
        hits: list[tuple[int, int]] = []
        append = hits.append

        def on_match(rule_index: int, _start: int, end: int, _flags: int, _ctx: object) -> None:
            append((end, rule_index))

        self._db.scan(data, match_event_handler=on_match)
        if self._fallback is not None:
            hits.extend(self._fallback.matches(data))
        return hits


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


# What a line the caller has seen before means when it comes again (scan_stream's `known`).
KNOWN_NO_MATCH = 0  # no rule confirmed it: pass over
KNOWN_MATCH = 1  # it adds nothing new: pass over, counted as a matched line
KNOWN_LAST = 2  # it adds nothing but its line number: only its last occurrence is handed over


class ScanStats:
    """Counts kept while scanning one stream."""

    def __init__(self) -> None:
        self.bytes = 0
        self.lines = 0
        self.long_lines = 0
        self.known_lines = 0  # lines passed over as already settled (see scan_stream)


def _decode(raw: bytes) -> str:
    return raw[: MAX_LINE_CHARS * 4].decode("utf-8", "replace").rstrip("\r")[:MAX_LINE_CHARS]


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
    (KNOWN_*): such a line is passed over here, costing no line object and no line number
    (logs repeat NCCL's init lines once per communicator, and a repeat adds no new
    information). The map may grow while the stream is read; it is consulted a chunk at a
    time."""
    stats = stats if stats is not None else ScanStats()
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
                clean, memoryview(clean), len(clean), line_base, prefilter, known, stats
            )
        else:
            found, newlines = _scan_segment(
                buf, view, segment_end, line_base, prefilter, known, stats
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
) -> tuple[list[LineHit], int]:
    """The candidate lines of buf[:segment_end], and the number of newlines in it.

    Hits come sorted by end offset, so lines are met in order: each line is located once
    (rfind/find from the previous line). Lines `known` settles are passed over; of those
    whose last line number matters, only the last occurrence in the segment is kept. Newlines
    are counted incrementally, only up to the lines kept. A very long line is cut to a window
    around its matches.
    """
    hits = prefilter.matches(view[:segment_end])
    if not hits:
        return [], buf.count(b"\n", 0, segment_end)
    if not prefilter.ordered:
        hits.sort()
    known = known or {}
    kept: list[_Line] = []
    last_of: dict[bytes, _Line] = {}  # lines whose last occurrence counts, by their bytes
    passed = 0
    start = stop = -1
    rules: set[int] | None = None  # None: no line open, or the open one is passed over
    raw: bytes | None = None
    tracked = False
    first_end = last_end = 0
    for end, rule_index in hits:
        last_char = end - 1 if end > 0 else 0
        if last_char <= stop:  # another match on the current line
            if rules is not None:
                rules.add(rule_index)
                last_end = end
            continue
        if rules is not None:
            line = (start, stop, raw, rules, first_end, last_end)
            if tracked:
                last_of[raw] = line  # type: ignore[index]  # tracked lines have their bytes
            else:
                kept.append(line)
        low = stop + 1 if stop >= 0 else 0
        previous_newline = buf.rfind(b"\n", low, last_char)
        start = previous_newline + 1 if previous_newline >= 0 else low
        stop = buf.find(b"\n", last_char, segment_end)
        stop = segment_end if stop < 0 else stop
        raw = bytes(view[start:stop]) if stop - start <= MAX_LINE_CHARS else None
        settled = known.get(raw) if raw is not None else None
        tracked = settled == KNOWN_LAST
        if settled is not None:
            passed += settled != KNOWN_NO_MATCH
            if not tracked:
                rules = None
                continue
        rules = {rule_index}
        first_end = last_end = end
    if rules is not None:
        line = (start, stop, raw, rules, first_end, last_end)
        if tracked:
            last_of[raw] = line  # type: ignore[index]
        else:
            kept.append(line)
    if last_of:
        passed -= len(last_of)  # handed over: the caller counts those
        kept += last_of.values()
        kept.sort(key=_line_start)
    stats.known_lines += passed
    found: list[LineHit] = []
    line_no = line_base + 1
    position = 0
    for start, stop, raw, rules, first_end, last_end in kept:
        line_no += buf.count(b"\n", position, start)
        position = start
        if raw is None:  # a very long line: the window around its matches
            start = max(start, first_end - MAX_LINE_CHARS // 2)
            stop = min(stop, last_end + MAX_LINE_CHARS // 2)
            raw = bytes(view[start:stop])
        ordered = tuple(rules) if len(rules) == 1 else tuple(sorted(rules))
        found.append(LineHit(line_no, raw, ordered))
    newlines = line_no - (line_base + 1) + buf.count(b"\n", position, segment_end)
    return found, newlines


# One candidate line: start, stop, its bytes (None when too long to keep whole), its rules,
# and the end offsets of its first and last match.
_Line = tuple[int, int, bytes | None, set[int], int, int]


def _line_start(line: _Line) -> int:
    return line[0]
