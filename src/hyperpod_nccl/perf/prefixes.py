"""Launcher and logging prefixes in front of nccl-tests lines, and how to take them off.

Launchers tag each line with the task that printed it: Open MPI `--tag-output`
(`[1,0]<stdout>:`), `srun --label` (`0: `), MPICH `-prepend-rank` and similar (`[0] `).
Log shippers add timestamps (`kubectl logs --timestamps`, `awk strftime` wrappers) and pod
names (`kubectl logs --prefix`). The label, when there is one, says which task printed the
line, so interleaved output of independent runs can be told apart.
"""

from __future__ import annotations

import re
from typing import NamedTuple

# One prefix at the start of a line; prefixes are peeled off in any order. The first three
# carry the launcher's task label.
_LABELLED = (
    r"\[\d+,(?P<ompi>\d+)\]<std(?:out|err)>:"  # Open MPI --tag-output
    r"|\[(?P<rank>\d+)\](?=\s|#|$)"  # MPICH -prepend-rank, other launchers
    r"|(?P<srun>\d+):(?=\s|$)"  # srun --label
)
_UNLABELLED = (
    # ISO 8601 timestamps (kubectl logs --timestamps, CloudWatch exports).
    r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?(?=\s)"
    # Bracketed timestamps, e.g. `[2024-05-01 10:00:00]` from an awk strftime wrapper.
    r"|\[\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?\]"
    r"|\[pod/[^\]\s]+\]"  # kubectl logs --prefix
    # pdsh / clush host labels in front of a table line: `node-1: #  size ...`.
    r"|[A-Za-z][\w.-]*:(?=\s+(?:#|\d|\[))"
)
MAX_PREFIXES = 6
# No two prefixes can match at one position (each starts differently), so peeling them one
# match at a time and matching up to MAX_PREFIXES of them in one go give the same end; the
# label is that of the first labelled one among them.
_PREFIXES = re.compile(rf"(?:\s*(?:{_LABELLED}|{_UNLABELLED})){{0,{MAX_PREFIXES}}}")
_FIRST_LABEL = re.compile(rf"(?:\s*(?:{_UNLABELLED})){{0,{MAX_PREFIXES - 1}}}\s*(?:{_LABELLED})")
# Launcher tags that some launchers repeat inside a line, at every write the task made.
_INLINE_TAG = re.compile(r"\[\d+(?:,\d+)?\](?:<std(?:out|err)>:)?")
MAX_PREFIXES = 6


class Stripped(NamedTuple):
    body: str  # the line without its prefixes and leading white space
    label: str  # the launcher's task label, "" when the line had none


def strip_prefixes(line: str) -> Stripped:
    """Peel launcher and logging prefixes off one line."""
    pos, start, end = peel(line)
    return Stripped(line[pos:].lstrip(), line[start:end])


def peel(line: str) -> tuple[int, int, int]:
    """Where the prefixes of `line` end, and where its label is in it (start == end: none)."""
    peeled = _PREFIXES.match(line)  # always matches, perhaps empty
    pos = peeled.end() if peeled else 0
    if not pos:
        return 0, 0, 0
    first = _FIRST_LABEL.match(line)
    if first is None:
        return pos, 0, 0
    group = "ompi" if first["ompi"] else "rank" if first["rank"] else "srun"
    start, end = first.span(group)
    return pos, max(start, 0), max(end, 0)


def drop_inline_tags(body: str) -> str:
    """`-1[0]    1626.5` -> `-1     1626.5`: launcher tags repeated inside a table row."""
    return _INLINE_TAG.sub(" ", body) if "[" in body else body
