"""Launcher and logging prefixes in front of nccl-tests lines, and how to take them off.

Launchers tag each line with the task that printed it: Open MPI `--tag-output`
(`[1,0]<stdout>:`), `srun --label` (`0: `), MPICH `-prepend-rank` and similar (`[0] `).
Log shippers add timestamps (`kubectl logs --timestamps`, `awk strftime` wrappers) and pod
names (`kubectl logs --prefix`). The label, when there is one, says which task printed the
line, so interleaved output of independent runs can be told apart.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Each pattern matches one prefix at the start of a line; they are peeled off in any order.
_LABELLED = [
    re.compile(r"\[\d+,(?P<label>\d+)\]<std(?:out|err)>:"),  # Open MPI --tag-output
    re.compile(r"\[(?P<label>\d+)\](?=\s|#|$)"),  # MPICH -prepend-rank, other launchers
    re.compile(r"(?P<label>\d+):(?=\s|$)"),  # srun --label
]
_UNLABELLED = [
    # ISO 8601 timestamps (kubectl logs --timestamps, CloudWatch exports).
    re.compile(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?(?=\s)"),
    # Bracketed timestamps, e.g. `[2024-05-01 10:00:00]` from an awk strftime wrapper.
    re.compile(r"\[\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?\]"),
    # kubectl logs --prefix: `[pod/name/container]`.
    re.compile(r"\[pod/[^\]\s]+\]"),
    # pdsh / clush host labels in front of a table line: `node-1: #  size ...`.
    re.compile(r"[A-Za-z][\w.-]*:(?=\s+(?:#|\d|\[))"),
]
# Launcher tags that some launchers repeat inside a line, at every write the task made.
_INLINE_TAG = re.compile(r"\[\d+(?:,\d+)?\](?:<std(?:out|err)>:)?")
MAX_PREFIXES = 6


@dataclass(frozen=True)
class Stripped:
    body: str  # the line without its prefixes and leading white space
    label: str  # the launcher's task label, "" when the line had none


def strip_prefixes(line: str) -> Stripped:
    """Peel launcher and logging prefixes off one line."""
    body = line.lstrip()
    label = ""
    for _ in range(MAX_PREFIXES):
        matched = False
        for pattern in _LABELLED:
            m = pattern.match(body)
            if m:
                label = label or m.group("label")
                body = body[m.end() :].lstrip()
                matched = True
                break
        if not matched:
            for pattern in _UNLABELLED:
                m = pattern.match(body)
                if m:
                    body = body[m.end() :].lstrip()
                    matched = True
                    break
        if not matched:
            break
    return Stripped(body, label)


def drop_inline_tags(body: str) -> str:
    """`-1[0]    1626.5` -> `-1     1626.5`: launcher tags repeated inside a table row."""
    return _INLINE_TAG.sub(" ", body) if "[" in body else body
