"""Find, in one regex pass over a whole buffer, the lines that hold any rule's required
literal, and which rules each such line may concern.

A Python regex made of hundreds of alternatives is slow when it must try them at every byte.
Two things keep it near memory speed: the literals are merged into a trie (`abc|abd` becomes
`ab[cd]`), so a position costs one test per distinct first byte; and each literal is cut down
to an *anchor*, its tail from its rarest byte on (`Watchdog caught...` starts at `W`, not at a
space), so the regex engine's first-byte skip rejects almost every position in C. Any part of
a required literal is itself required, so the cut never loses a match; it only admits a few
more candidate lines, which the rules' own regexes then reject.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping

from hyperpod_nccl.rules.bytefreq import byte_share, chance
from hyperpod_nccl.rules.literals import Literals

# A candidate line costs the Python work of about this many positions rejected in C.
HIT_COST = 100
# An anchor keeps at least this many bytes of its literal (all of a shorter one).
ANCHOR_BYTES = 6


def anchor_of(literal: bytes) -> bytes:
    """The tail of `literal` cheapest to search for: the regex engine tries the trie at
    every position holding the tail's first byte, and hands on every line holding the tail."""
    keep = min(len(literal), ANCHOR_BYTES)

    def cost(i: int) -> float:
        return byte_share(literal[i]) + HIT_COST * chance(literal[i:])

    return literal[min(range(len(literal) - keep + 1), key=cost) :]


def _trie(words: list[bytes]) -> bytes:
    """A regex matching exactly `words` (none of which is a prefix of another), shared
    prefixes merged."""
    by_first: dict[bytes, list[bytes]] = {}
    for word in words:
        by_first.setdefault(word[:1], []).append(word[1:])
    branches = []
    for first, rests in sorted(by_first.items()):
        head = re.escape(first)
        if len(rests) == 1:
            branches.append(head + re.escape(rests[0]))
        else:
            branches.append(head + b"(?:" + _trie(rests) + b")")
    return b"|".join(branches)


class AnchorIndex:
    """Rules keyed by the anchors of their required literals, searched all at once."""

    def __init__(self, literals: Mapping[int, Literals]) -> None:
        anchors: dict[bytes, set[int]] = {}
        for index, options in literals.items():
            for literal in options:
                anchors.setdefault(anchor_of(literal), set()).add(index)
        # An anchor holding a shorter one is found by that one: keep the shortest, each
        # standing for the rules of every anchor that holds it. This also makes sure no
        # anchor is a prefix of another, which the trie needs.
        minimal: list[bytes] = []
        for anchor in sorted(anchors, key=len):
            if not any(short in anchor for short in minimal):
                minimal.append(anchor)
        self.rules: dict[bytes, tuple[int, ...]] = {
            short: tuple(sorted({i for a, rs in anchors.items() if short in a for i in rs}))
            for short in minimal
        }
        self._regex = re.compile(_trie(minimal)) if minimal else None

    def lines(self, data: memoryview | bytes, end: int) -> Iterator[tuple[int, int, set[int]]]:
        """(start, stop, rule indexes) for every line of data[:end] holding an anchor; stop is
        the index of the line's newline (or `end`)."""
        if self._regex is None:
            return
        search = self._regex.search
        rules = self.rules
        buf = bytes(data[:end]) if isinstance(data, memoryview) else data
        start = stop = -1
        found: set[int] = set()
        match = search(buf, 0, end)
        while match is not None:
            at = match.start()
            if at >= stop:  # the first anchor of a new line
                if found:
                    yield start, stop, found
                start = buf.rfind(b"\n", max(stop, 0), at) + 1 or max(stop + 1, 0)
                stop = buf.find(b"\n", at, end)
                stop = end if stop < 0 else stop
                found = set()
            found.update(rules[match.group()])
            # Search again one byte on, not after the match: anchors may overlap.
            match = search(buf, at + 1, end)
        if found:
            yield start, stop, found
