"""Where, in a large buffer, secrets with no trigger word may stand: bare 40-character tokens
(an AWS secret access key alone) and `.pgpass` lines on any port. The keyword scan cannot
find them, so these two searches add their lines to the few that the rules see.

Both are supersets, cheap on a big log: the rules then decide (secret_rules.BARE_AWS_SECRET,
PGPASS_LINE). A regex that starts with a character class is tried at every byte (ten times
slower here), so tokens are found by mapping the base64 alphabet to one byte with
`bytes.translate` and searching for a run of 40 of it, and `.pgpass` lines from the newline
before them (a literal `re` finds quickly).
"""

from __future__ import annotations

import re

KEY_LENGTH = 40
_RUN_BYTE, _DOT, _PAD = ord("a"), ord("."), ord("=")
# base64 -> `a` (a run of them is one token); `.` (it may not precede a key) and `=` (it may
# not follow one: padding) kept; anything else -> a space.
_MARKS = bytes(
    _RUN_BYTE
    if chr(b).isascii() and (chr(b).isalnum() or chr(b) in "+/")
    else b
    if b in (_DOT, _PAD)
    else ord(" ")
    for b in range(256)
)
_RUN = bytes([_RUN_BYTE]) * KEY_LENGTH
_RUN_END = re.compile(rb"[^a]")
_PGPASS_BODY = rb"[^\s:#]+:(?:[0-9]{1,5}|\*):[^\s:]+:[^\s:]+:\S"
_PGPASS_AFTER_NEWLINE = re.compile(rb"\n" + _PGPASS_BODY)
_PGPASS_FIRST = re.compile(_PGPASS_BODY)


def key_offsets(data: bytes) -> list[int]:
    """Start offsets of every run of exactly 40 base64 characters, no `.` before, no `=` after."""
    marked = data.translate(_MARKS)
    found: list[int] = []
    at = marked.find(_RUN)
    while at >= 0:
        end = at + KEY_LENGTH
        after = marked[end] if end < len(marked) else None
        if after == _RUN_BYTE:  # a longer token: skip it whole
            run_end = _RUN_END.search(marked, end)
            end = run_end.start() if run_end else len(marked)
        elif after != _PAD and (at == 0 or marked[at - 1] != _DOT):
            found.append(at)  # the search finds the leftmost run, so no base64 precedes it
        at = marked.find(_RUN, end)
    return found


def pgpass_offsets(data: bytes) -> list[int]:
    """Start offsets of lines shaped as `host:port:database:user:password`, any port."""
    found = [m.start() + 1 for m in _PGPASS_AFTER_NEWLINE.finditer(data)]
    if _PGPASS_FIRST.match(data):
        found.insert(0, 0)
    return found


def offsets(data: bytes) -> list[int]:
    return key_offsets(data) + pgpass_offsets(data)
