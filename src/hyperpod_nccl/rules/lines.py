"""From match end offsets to candidate lines, with the least Python work per match.

The prefilter reports, in order of end offset, each place a rule may match. A collector
(`collect`) turns those reports into lines: each line is located once (rfind/find from the
match), its other matches only add their rule. Lines the caller has already settled
(`known`, by their bytes) are passed over there and then: NCCL repeats its init lines for
every communicator and every rank, and a repeat carries no new information. Hyperscan calls
the collector directly, so a passed-over line costs one call, two finds and a dict look-up.
Line numbers are counted afterwards, only up to the lines kept (`number`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from operator import itemgetter
from typing import NamedTuple

# Evidence and capture extraction look at this much of a line; the rest is noise.
MAX_LINE_CHARS = 8192

# What a line the caller has seen before means when it comes again (`known`). Bit 0: it
# counts as a matched line; bit 1: its last occurrence is kept.
KNOWN_NO_MATCH = 0  # no rule confirmed it: pass over
KNOWN_MATCH = 1  # it adds nothing new: pass over, counted as a matched line
KNOWN_LAST = 3  # it adds nothing but its line number: only its last occurrence is kept

# One candidate line: start, stop, its bytes (None when too long to keep whole), its rules,
# and the end offsets of its first and last match.
Line = tuple[int, int, bytes | None, set[int], int, int]
# Hyperscan's match callback: rule index, start (unused), end offset, flags, context.
OnMatch = Callable[[int, int, int, int, object], None]


class LineHit(NamedTuple):
    line_no: int  # 1-based; a line longer than a chunk keeps the number it started on
    raw: bytes
    rule_indexes: tuple[int, ...]  # candidate rules, in catalog order

    @property
    def text(self) -> str:
        return decode(self.raw)


def decode(raw: bytes) -> str:
    return raw[: MAX_LINE_CHARS * 4].decode("utf-8", "replace").rstrip("\r")[:MAX_LINE_CHARS]


def collect(
    buf: bytearray, view: memoryview, segment_end: int, known: Mapping[bytes, int]
) -> tuple[OnMatch, Callable[[], tuple[list[Line], Collection[bytes], int]]]:
    """A match callback for buf[:segment_end] (`view` is a view of buf), fed matches in
    order of end offset, and the function that closes it: the lines kept, in order; the
    bytes of those among them whose last occurrence counts (only that one is kept); and how
    many lines were passed over as matched ones."""
    kept: list[Line] = []
    last_of: dict[bytes, Line] = {}  # lines whose last occurrence counts, by their bytes
    get = known.get
    rfind = buf.rfind
    find = buf.find
    # The open line: its bounds, bytes and rules (None: no line open, or passed over);
    # `limit`, one past its newline (a match ending there or before is on it).
    limit = start = stop = -1
    raw: bytes | None = None
    rules: set[int] | None = None
    tracked = False
    first_end = last_end = 0
    passed = 0

    def on_match(rule_index: int, _from: int, end: int, _flags: int, _ctx: object) -> None:
        # Called for every match: kept lean, as most calls are another match on the open
        # line or a line passed over.
        nonlocal limit, start, stop, raw, rules, tracked, first_end, last_end, passed
        if end <= limit:  # another match on the open line
            if rules is not None:
                rules.add(rule_index)
                last_end = end
            return
        if rules is not None:
            if tracked:
                last_of[raw] = (start, stop, raw, rules, first_end, last_end)  # type: ignore[index]
            else:
                kept.append((start, stop, raw, rules, first_end, last_end))
        last_char = end - 1 if end else 0
        low = limit if limit > 0 else 0
        start = rfind(b"\n", low, last_char) + 1 or low
        stop = find(b"\n", last_char, segment_end)
        if stop < 0:
            stop = segment_end
        limit = stop + 1
        raw = bytes(view[start:stop]) if stop - start <= MAX_LINE_CHARS else None
        settled = get(raw) if raw is not None else None
        if settled is not None:
            passed += settled & KNOWN_MATCH
            if settled != KNOWN_LAST:
                rules = None
                return
            tracked = True
        else:
            tracked = False
        rules = {rule_index}
        first_end = last_end = end

    def finish() -> tuple[list[Line], Collection[bytes], int]:
        if rules is not None:  # the last line
            if tracked:
                last_of[raw] = (start, stop, raw, rules, first_end, last_end)  # type: ignore[index]
            else:
                kept.append((start, stop, raw, rules, first_end, last_end))
        if not last_of:
            return kept, (), passed
        # The last occurrences were counted as passed over: they are kept instead.
        lines = sorted(kept + list(last_of.values()), key=itemgetter(0))
        return lines, last_of.keys(), passed - len(last_of)

    return on_match, finish


def number(
    buf: bytearray, view: memoryview, lines: list[Line], line_base: int
) -> tuple[list[LineHit], int, int]:
    """LineHits for `lines` of buf (in order), numbered after `line_base` lines; and the
    offset up to which newlines were counted, with their count (the caller counts the rest
    of its segment). A very long line is cut to a window around its matches."""
    found: list[LineHit] = []
    line_no = line_base + 1
    position = 0
    count = buf.count
    for start, stop, raw, rules, first_end, last_end in lines:
        line_no += count(b"\n", position, start)
        position = start
        if raw is None:
            start = max(start, first_end - MAX_LINE_CHARS // 2)
            raw = bytes(view[start : min(stop, last_end + MAX_LINE_CHARS // 2)])
        ordered = tuple(rules) if len(rules) == 1 else tuple(sorted(rules))
        found.append(LineHit(line_no, raw, ordered))
    return found, position, line_no - (line_base + 1)
