"""Undo what pasting does to a log before the rules see it.

Logs reach us through terminals, issue trackers and chat: coloured with ANSI escapes, hard-
wrapped at the terminal's width (a message cut mid-word goes on at the start of the next
line), quoted with `> `, or with stray backticks from a code fence. Quote marks and
backticks are peeled where a line's prefixes are read (attribution); this module handles
the two that change the bytes the rules match:

- ANSI escape sequences (colour, cursor, OSC titles) are removed, on any input size;
- hard wrapping is undone on small inputs (pastes; a log file a program wrote is not
  wrapped): when many lines have exactly the same length and none is longer, each such line
  is joined with the one that continues it. A joined line is followed by an empty line for
  each line it absorbed, so line numbers of everything else stay the same.
"""

from __future__ import annotations

import itertools
import re

# CSI sequences (ESC [ ... final byte), OSC sequences (ESC ] ... BEL or ESC \), and the
# two-byte escapes; 8-bit CSI (0x9b) is left alone: in UTF-8 text it is a continuation byte.
ANSI = re.compile(rb"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])")

# Inputs up to this size are checked for hard wrapping.
UNWRAP_MAX_BYTES = 4 * 1024 * 1024
_MIN_WIDTH = 60
_MIN_WRAPPED = 2


def strip_ansi(data: bytes) -> bytes:
    return ANSI.sub(b"", data) if b"\x1b" in data else data


def _continues(line: bytes, following: bytes) -> bool:
    """`following` reads as the rest of `line`, not as a record of its own: records of one
    log start alike (a timestamp, `host:pid:tid`, `[rank3]:`), a continuation does not."""
    return bool(following) and following[:10] != line[:10]


def wrap_width(lines: list[bytes]) -> int | None:
    """The width a paste was hard-wrapped at, or None: the longest line length, shared by at
    least two different lines that are each followed by their continuation."""
    if not lines:
        return None
    width = max(len(line) for line in lines)
    if width < _MIN_WIDTH:
        return None
    cut = {
        line
        for line, following in itertools.pairwise(lines)
        if len(line) == width and _continues(line, following)
    }
    return width if len(cut) >= _MIN_WRAPPED else None


def unwrap(data: bytes) -> bytes:
    """Join hard-wrapped lines back, keeping the line count (see the module text)."""
    if len(data) > UNWRAP_MAX_BYTES or b"\n" not in data:
        return data
    crlf = b"\r\n" in data
    text = data.replace(b"\r\n", b"\n") if crlf else data
    lines = text.split(b"\n")
    width = wrap_width(lines)
    if width is None:
        return data
    out: list[bytes] = []
    i = 0
    while i < len(lines):
        joined = lines[i]
        absorbed = 0
        while (
            len(lines[i + absorbed]) == width
            and i + absorbed + 1 < len(lines)
            and _continues(lines[i + absorbed], lines[i + absorbed + 1])
        ):
            absorbed += 1
            joined += lines[i + absorbed]
            if len(lines[i + absorbed]) != width:
                break
        out.append(joined)
        out.extend([b""] * absorbed)
        i += absorbed + 1
    return b"\n".join(out)


def normalize(data: bytes) -> bytes:
    return unwrap(strip_ansi(data))
