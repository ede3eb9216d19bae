"""How often each byte occurs in log text, to guess how often a literal occurs by chance.

Counts per 100,000 bytes of the project's corpus of real failure logs
(tests/fixtures/corpus/*.jsonl, 285 KB), counted once; a byte not listed (a control or
non-ASCII byte) counts as the rarest. The pure-Python engine uses them to prefer rare literals
and to start its searches at rare bytes; a wrong guess costs speed, never a match.
"""

from __future__ import annotations

import math

PER_100K = {
    b" ": 13601, b"e": 5255, b"t": 3975, b"r": 3873, b"i": 3728, b"o": 3721, b"n": 3483,
    b"a": 3338, b"0": 3087, b"s": 2866, b"c": 2769, b"l": 2352, b":": 2199, b"1": 2154,
    b"d": 2094, b"-": 1852, b"p": 1815, b".": 1773, b"u": 1761, b"2": 1682, b"/": 1624,
    b"m": 1343, b"3": 1217, b"h": 1138, b"C": 1116, b"4": 1058, b"g": 1019, b"N": 986,
    b"f": 966, b"5": 959, b"b": 959, b"6": 943, b"7": 878, b"8": 860, b"_": 854, b"9": 784,
    b"]": 745, b"[": 742, b"k": 728, b",": 704, b"y": 695, b"v": 590, b"L": 547, b"I": 542,
    b"=": 491, b"E": 466, b"(": 453, b")": 444, b"F": 438, b"w": 438, b"R": 421, b"T": 419,
    b"O": 415, b"A": 348, b"x": 344, b"P": 337, b'"': 296, b"G": 278, b"S": 275, b">": 247,
    b"D": 242, b"U": 231, b"*": 221, b"^": 198, b"M": 184, b"W": 169, b"B": 133, b"z": 133,
    b"'": 126, b"<": 119, b"`": 119, b"V": 102, b"q": 91, b"#": 69, b"H": 67, b"j": 64,
    b"|": 50, b"+": 39, b"X": 38, b"K": 24, b"?": 23, b"Z": 16, b"Y": 15, b"\\": 14,
    b"{": 14, b"J": 14, b"%": 13, b"$": 13, b"@": 13, b";": 12, b"}": 12, b"!": 8, b"Q": 6,
    b"~": 5, b"&": 4,
}  # fmt: skip
_LOG = {ord(k): math.log(v / 100_000) for k, v in PER_100K.items()}
_RAREST = math.log(1 / 100_000)
# Text that heads most lines of an NCCL_DEBUG=INFO log: no evidence of rarity at all.
FREQUENT = (b"NCCL INFO ",)


def byte_share(byte: int) -> float:
    """The share of log bytes that are `byte`."""
    return math.exp(_LOG.get(byte, _RAREST))


def chance(literal: bytes) -> float:
    """Roughly, the chance that `literal` starts at a given position of a log."""
    for common in FREQUENT:
        literal = literal.replace(common, b"")
    return math.exp(sum(_LOG.get(b, _RAREST) for b in literal))
