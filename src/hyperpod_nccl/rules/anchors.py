"""Find, in one regex pass over a whole buffer, the lines that hold any rule's required
literal, and which rules each such line may concern.

A Python regex made of hundreds of alternatives is slow when it must try them at every byte.
Two things keep it near memory speed: the literals are merged into a trie (`abc|abd` becomes
`ab[cd]`), so a position costs one test per distinct first byte; and each literal is cut down
to an *anchor*, its tail from a rare byte on (`Watchdog caught...` starts at `W`, not at a
space), so the regex engine's first-byte skip rejects almost every position in C. Any part of
a required literal is itself required, so the cut never loses a match; it only admits a few
more candidate lines, which the rules' own regexes then reject.

The first bytes are chosen for all literals together (`choose_anchors`): every distinct first
byte makes the engine stop, and start a match attempt, wherever that byte occurs, so one
common byte (a `:` or a `.`, frequent in NCCL's output) costs more than the rest of the trie.
A literal made only of common bytes (`.cpp:`) is searched on its own with `bytes.find`, a
pass at memory speed, instead.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator, Mapping
from operator import itemgetter
from typing import Any, cast

from hyperpod_nccl.rules.bytefreq import byte_share, chance
from hyperpod_nccl.rules.literals import Literals

# Costs in units of one failed match attempt of the trie (60 to 80 ns with CPython 3.11;
# measured on benchmarks/logs_throughput.py's 118 MB 50% mix, where the trie's attempts at
# 21 million positions took 1.8 s of CPU): a candidate line costs the Python work of about
# HIT_COST attempts; a literal searched on its own costs PASS_COST per byte of buffer
# (bytes.find runs at about 3 GB/s, 0.35 ns a byte).
HIT_COST = 100
PASS_COST = 0.01
NEWLINE = 0x0A
# An anchor keeps at least this many bytes of its literal (all of a shorter one).
ANCHOR_BYTES = 6


def _tails(literal: bytes) -> list[tuple[float, int, int]]:
    """(cost of the hits, first byte, start) of the cheapest tail of `literal` per first
    byte, cheapest first."""
    keep = min(len(literal), ANCHOR_BYTES)
    best: dict[int, tuple[float, int, int]] = {}
    for start in range(len(literal) - keep + 1):
        cost = HIT_COST * chance(literal[start:])
        byte = literal[start]
        if byte not in best or cost < best[byte][0]:
            best[byte] = (cost, byte, start)
    return sorted(best.values())


def choose_anchors(literals: Iterable[bytes]) -> dict[bytes, bytes | None]:
    """Each literal's anchor, or None for a literal best searched on its own.

    Starts from every first byte allowed and drops, one at a time, the byte whose dropping
    saves most (its share of the buffer's positions, against what its literals then cost
    with their next-best first byte or a search of their own), until none saves anything."""
    tails = {literal: _tails(literal) for literal in set(literals)}
    alone = {literal: PASS_COST + HIT_COST * chance(literal) for literal in tails}
    allowed = {byte for options in tails.values() for _, byte, _ in options}

    def best(literal: bytes, without: int = -1) -> tuple[float, int]:
        for cost, byte, _ in tails[literal]:
            if cost >= alone[literal]:
                break
            if byte in allowed and byte != without:
                return cost, byte
        return alone[literal], -1

    current = {literal: best(literal) for literal in tails}
    while True:
        users: dict[int, list[bytes]] = {byte: [] for byte in allowed}
        for literal, (_, byte) in current.items():
            if byte >= 0:
                users[byte].append(literal)
        saving, drop = 0.0, -1
        for byte, using in users.items():
            change = sum(best(x, byte)[0] - current[x][0] for x in using) - byte_share(byte)
            if change < saving:
                saving, drop = change, byte
        if drop < 0:
            break
        allowed.discard(drop)
        for literal in users[drop]:
            current[literal] = best(literal)
    anchors: dict[bytes, bytes | None] = {}
    for literal, (_, byte) in current.items():
        start = next((s for _, b, s in tails[literal] if b == byte), -1)
        anchors[literal] = literal[start:] if start >= 0 else None
    return anchors


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


def _marked_chance(text: bytes, firsts: set[int], mark: float) -> float:
    """The chance that `text` starts at a position of the translated buffer, where every
    first byte of the trie is one byte as common as all of them together."""
    return math.prod(mark if b in firsts else byte_share(b) for b in text)


def _searched_alone(anchors: list[bytes], in_trie: set[bytes]) -> set[bytes]:
    """The anchors to search with bytes.find: those chosen so, and those whose translated
    form (see AnchorIndex._setup) is so common that its hits would cost more than a pass
    (`+0x` becomes mark, `0`, mark, which most hexadecimal numbers hold). Each anchor moved
    out of the trie may drop a first byte and make the mark rarer, so this repeats."""
    alone = {text for text in anchors if text not in in_trie}
    while True:
        trie = [text for text in anchors if text not in alone]
        firsts = {text[0] for text in trie}
        mark = sum(byte_share(b) for b in firsts)
        weak = {
            text
            for text in trie
            if HIT_COST * _marked_chance(text, firsts, mark) > PASS_COST + HIT_COST * chance(text)
        }
        if not weak:
            return alone
        alone |= weak


# For an anchor that stands for longer ones: each longer anchor, where the short one starts
# in it, and that anchor's own rules.
Spellings = dict[bytes, tuple[tuple[bytes, int, tuple[int, ...]], ...]]


def _spellings(minimal: list[bytes], found: Mapping[bytes, set[int]]) -> Spellings:
    """The longer anchors each of `minimal` stands for (none listed where it stands only for
    itself)."""
    spelled: Spellings = {}
    for short in minimal:
        entries = []
        for text, indexes in found.items():
            at = text.find(short)
            while at >= 0:
                entries.append((text, at, tuple(sorted(indexes))))
                at = text.find(short, at + 1)
        if entries != [(short, 0, tuple(sorted(found.get(short, ()))))]:
            spelled[short] = tuple(sorted(entries))
    return spelled


class AnchorIndex:
    """Rules keyed by the anchors of their required literals, searched all at once; and the
    literals searched on their own."""

    def __init__(self, literals: Mapping[int, Literals]) -> None:
        chosen = choose_anchors(x for options in literals.values() for x in options)
        found: dict[bytes, set[int]] = {}
        in_trie: set[bytes] = set()
        for index, options in literals.items():
            for literal in options:
                anchor = chosen[literal]
                found.setdefault(anchor or literal, set()).add(index)
                if anchor is not None:
                    in_trie.add(anchor)
        # A string holding a shorter one is found by that one: keep the shortest, each
        # standing for the rules of every string that holds it. This also makes sure no
        # anchor is a prefix of another, which the trie needs.
        minimal: list[bytes] = []
        for text in sorted(found, key=lambda t: (len(t), t not in in_trie)):
            if not any(short in text for short in minimal):
                minimal.append(text)
        rules = {
            short: tuple(sorted({i for a, rs in found.items() if short in a for i in rs}))
            for short in minimal
        }
        self._setup(rules, sorted(_searched_alone(minimal, in_trie)), _spellings(minimal, found))

    def _setup(
        self, rules: dict[bytes, tuple[int, ...]], alone: list[bytes], spelled: Spellings
    ) -> None:
        self.rules = rules
        self.alone = alone  # searched on their own; the others are the trie's
        # A short anchor stands for every longer one that holds it ('Fail' for some 40 rules):
        # where it is found, the longer ones are checked in place, so a line is handed on
        # with the rules whose own anchors it holds.
        self.spelled = spelled
        trie = sorted(set(rules) - set(alone))
        # The trie's first bytes all become one byte in a translated copy of the buffer, so
        # that the regex starts with one literal byte, which the engine skips to in a tight
        # loop; with a set of first bytes it runs a set test per byte, four times slower.
        # Translating merges anchors that differ only in those bytes, and with hundreds of
        # anchors some become runs of the mark that match most words: the translated search
        # only finds candidate lines, and the exact anchors are then looked for in each.
        firsts = {text[0] for text in trie}
        mark = next(b for b in range(256) if b not in firsts and b != NEWLINE)
        self._table = bytes(mark if b in firsts else b for b in range(256))
        minimal: list[bytes] = []
        for text in sorted({text.translate(self._table) for text in trie}, key=len):
            if not any(short in text for short in minimal):
                minimal.append(text)
        self._regex = re.compile(_trie(sorted(minimal))) if minimal else None
        # Zero-width, so that overlapping anchors are all found; no anchor is a prefix of
        # another, so one start position holds at most one.
        self._exact = re.compile(b"(?=(" + _trie(trie) + b"))") if trie else None

    def state(self) -> tuple[Any, ...]:
        """What the index is made of, for the user cache (choosing the anchors costs a run
        more than scanning 20 MB)."""
        return sorted(self.rules.items()), list(self.alone), sorted(self.spelled.items())

    @classmethod
    def from_state(cls, state: object) -> AnchorIndex:
        """The index `state()` described; ValueError when `state` is not one."""
        try:
            items, texts, spellings = cast(tuple[Any, Any, Any], state)
            rules = {bytes(text): tuple(int(i) for i in rs) for text, rs in items}
            alone = [bytes(text) for text in texts]
            spelled: Spellings = {
                bytes(short): tuple(
                    (bytes(text), int(at), tuple(int(i) for i in rs)) for text, at, rs in entries
                )
                for short, entries in spellings
            }
        except (TypeError, ValueError) as exc:
            raise ValueError("not an anchor index") from exc
        if not set(alone) <= set(rules) or not all(rules.values()) or b"" in rules:
            raise ValueError("not an anchor index")
        for short, entries in spelled.items():
            held = {i for _, _, rs in entries for i in rs}
            if short not in rules or held != set(rules[short]):
                raise ValueError("not an anchor index")
            if not all(text[at : at + len(short)] == short for text, at, _ in entries):
                raise ValueError("not an anchor index")
        index = cls.__new__(cls)
        index._setup(rules, alone, spelled)
        return index

    def lines(self, data: memoryview | bytes, end: int) -> Iterator[tuple[int, int, set[int]]]:
        """(start, stop, rule indexes) for every line of data[:end] holding an anchor; stop is
        the index of the line's newline (or `end`)."""
        buf = bytes(data[:end])
        for start, stop, marked, alone in self.spans(buf):
            found = self.rules_on(buf, start, stop, marked, alone)
            if found:
                yield start, stop, found

    def spans(self, buf: bytes) -> Iterator[tuple[int, int, bool, list[tuple[int, bytes]]]]:
        """(start, stop, whether the trie marked it, the literals searched alone found on it
        with their positions) for every line of `buf` that may hold an anchor: which rules it
        holds (rules_on) costs more, and a caller that settled the line needs none."""
        end = len(buf)
        find = buf.find
        # (position, a literal searched alone found there, or None for a line the trie marks)
        hits: list[tuple[int, bytes | None]] = []
        append = hits.append
        if self._regex is not None:
            search = self._regex.search
            marked_buf = buf.translate(self._table)  # newlines stay where they are
            match = search(marked_buf, 0, end)
            while match is not None:
                at = match.start()
                append((at, None))
                # The exact search looks at the whole line: go on after it.
                stop = find(b"\n", at, end)
                if stop < 0:
                    break
                match = search(marked_buf, stop + 1, end)
        unsorted = False
        for literal in self.alone:
            at = find(literal, 0, end)
            unsorted = unsorted or at >= 0
            while at >= 0:
                append((at, literal))
                at = find(literal, at + 1, end)
        if unsorted:
            hits.sort(key=itemgetter(0))
        start = stop = -1
        marked = False
        alone: list[tuple[int, bytes]] = []
        for at, found in hits:
            if at >= stop:  # the first hit of a new line
                if stop >= 0:
                    yield start, stop, marked, alone
                start = buf.rfind(b"\n", max(stop, 0), at) + 1 or max(stop + 1, 0)
                stop = find(b"\n", at, end)
                stop = end if stop < 0 else stop
                marked = False
                alone = []
            if found is None:
                marked = True
            else:
                alone.append((at, found))
        if stop >= 0:
            yield start, stop, marked, alone

    def rules_on(
        self, buf: bytes, start: int, stop: int, marked: bool, alone: list[tuple[int, bytes]]
    ) -> set[int]:
        """The rules whose anchors buf[start:stop] holds (a span of `spans`)."""
        found: set[int] = set()
        for at, literal in alone:
            self._add_rules(buf, literal, at, found)
        if marked:
            self._exact_on(buf, start, stop, found)
        return found

    def _exact_on(self, buf: bytes, start: int, stop: int, found: set[int]) -> None:
        """The rules of the trie's anchors on buf[start:stop]."""
        if self._exact is not None:
            for match in self._exact.finditer(buf, start, stop):
                self._add_rules(buf, match.group(1), match.start(), found)

    def _add_rules(self, buf: bytes, anchor: bytes, at: int, found: set[int]) -> None:
        """The rules of the anchors found at `at`: the short one's own, or those of the longer
        ones it stands for that are there too."""
        entries = self.spelled.get(anchor)
        if entries is None:
            found.update(self.rules[anchor])
            return
        startswith = buf.startswith
        for text, offset, indexes in entries:
            if at >= offset and startswith(text, at - offset):
                found.update(indexes)
