"""Which lines of a large buffer a set of patterns can match, found in one Hyperscan scan.

The obfuscator's passes (learning names, rewriting them) only ever match inside one line, so
running them on the few lines where one of them can match gives the same result as running
them on everything. Each pass here has a Hyperscan expression that matches wherever the pass
can (a superset: what it must not be next to is left to the pass), and one scan of all of
them finds those lines, at hundreds of MB/s. Without Hyperscan there is no scan and callers
run their passes on the whole text.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

_hyperscan: Any
try:
    import hyperscan as _hyperscan
except ImportError:  # pragma: no cover - exercised where hyperscan is not installed
    _hyperscan = None

# Where a pattern has `\d`, Python's `re` on text also matches non-ASCII digits (Arabic-Indic,
# Devanagari...): in the scan of the UTF-8 bytes such a digit is a run of bytes >= 0x80.
DIGIT = rb"[0-9\x80-\xff]"
# The only non-ASCII characters `re`'s (?i) matches for an ASCII letter (every code point
# checked): dotted and dotless I, the long s and the Kelvin sign.
_CASELESS_EXTRA = {"i": ("\u0130", "\u0131"), "s": ("\u017f",), "k": ("\u212a",)}


def available() -> bool:
    return _hyperscan is not None


def caseless(word: str) -> bytes:
    """An expression matching `word` (ASCII) in any case, as `re`'s (?i) on text does."""
    parts: list[bytes] = []
    for c in word.lower():
        if not c.isalpha():
            parts.append(literal(c))
            continue
        forms = [b"[" + c.encode() + c.upper().encode() + b"]"]
        forms += [literal(x) for x in _CASELESS_EXTRA.get(c, ())]
        parts.append(b"(?:" + b"|".join(forms) + b")" if len(forms) > 1 else forms[0])
    return b"".join(parts)


def literal(text: str) -> bytes:
    """An expression matching `text` (its UTF-8 bytes) exactly."""
    return b"".join(b"\\x%02x" % b for b in text.encode("utf-8", "surrogateescape"))


class LineScan:
    """Spans of whole lines (merged where they touch) in which any expression matches."""

    def __init__(self, expressions: Sequence[bytes], multiline: Sequence[bool] = ()) -> None:
        if _hyperscan is None:
            raise RuntimeError("the hyperscan package is not installed")
        flags = [
            _hyperscan.HS_FLAG_MULTILINE if i < len(multiline) and multiline[i] else 0
            for i in range(len(expressions))
        ]
        db = _hyperscan.Database(mode=_hyperscan.HS_MODE_BLOCK)
        db.compile(
            expressions=list(expressions),
            ids=list(range(len(expressions))),
            elements=len(expressions),
            flags=flags,
        )
        self._db = db
        self._lock = threading.Lock()  # one scratch space per database: scans must not overlap

    def regions(self, data: bytes) -> list[tuple[int, int]]:
        ends: list[int] = []
        add = ends.append

        def on_match(_id: int, _start: int, end: int, _flags: int, _ctx: object) -> None:
            add(end)

        with self._lock:
            self._db.scan(data, match_event_handler=on_match)
        return lines_of(data, ends)

    def regions_by_expression(self, data: bytes) -> dict[int, list[tuple[int, int]]]:
        """`regions`, apart for each expression (by its index) that matched."""
        ends: dict[int, list[int]] = {}

        def on_match(id_: int, _start: int, end: int, _flags: int, _ctx: object) -> None:
            ends.setdefault(id_, []).append(end)

        with self._lock:
            self._db.scan(data, match_event_handler=on_match)
        return {i: lines_of(data, found) for i, found in ends.items()}


def lines_of(data: bytes, ends: list[int]) -> list[tuple[int, int]]:
    """The whole lines of `data` in which matches end at `ends`, merged where they touch."""
    ends.sort()
    regions: list[tuple[int, int]] = []
    covered = -1  # the end of the last region
    size = len(data)
    for end in ends:
        last = end - 1  # the match's last byte: every expression stays inside one line
        if last < covered:
            continue
        start = data.rfind(b"\n", 0, last) + 1
        stop = data.find(b"\n", last)
        stop = size if stop < 0 else stop + 1
        if regions and start <= covered:
            regions[-1] = (regions[-1][0], stop)
        else:
            regions.append((start, stop))
        covered = stop
    return regions


def union(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Whole-line spans of several `regions`, in order, merged where they overlap or touch."""
    merged: list[tuple[int, int]] = []
    for start, stop in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(stop, merged[-1][1]))
        else:
            merged.append((start, stop))
    return merged
