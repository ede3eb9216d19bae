"""Turn what the user named (files, .gz files, directories, `-`) into readable log streams.

Problems with one input never stop the others: each becomes a NotChecked entry with a
one-line reason naming the path.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import BinaryIO, cast

from hyperpod_nccl.model import NotChecked
from hyperpod_nccl.safeio import (
    GZIP_MAGIC,
    BoundedGzip,
    UnreadableInput,
    WalkProblem,
    irregular_reason,
    open_regular,
    walk_files,
)

__all__ = ["GZIP_MAGIC", "LogInput", "UnreadableInput", "expand", "looks_binary", "open_stream"]

SNIFF_BYTES = 8192


@dataclass(frozen=True)
class LogInput:
    name: str  # how evidence refers to it: the path as given, or "<stdin>"
    path: str | None  # None for standard input


def expand(paths: Sequence[str]) -> tuple[list[LogInput], list[NotChecked]]:
    """Files in the order given; directories walked recursively in name order. Only regular
    files are inputs: a FIFO, socket or device is reported (one line naming it) and skipped."""
    inputs: list[LogInput] = []
    problems: list[NotChecked] = []
    seen_stdin = False
    for given in paths:
        if given == "-":
            if not seen_stdin:
                inputs.append(LogInput("<stdin>", None))
                seen_stdin = True
            continue
        if os.path.isdir(given):
            found = list(_walk(given, problems))
            if not found:
                problems.append(NotChecked(given, "directory holds no files"))
            inputs.extend(LogInput(p, p) for p in found)
        elif os.path.exists(given):
            reason = irregular_reason(given)
            if reason is None:
                inputs.append(LogInput(given, given))
            else:
                problems.append(NotChecked(given, reason))
        elif os.path.islink(given):
            problems.append(NotChecked(given, "broken symbolic link"))
        else:
            problems.append(NotChecked(given, "no such file or directory"))
    return inputs, problems


def _walk(top: str, problems: list[NotChecked]) -> Iterator[str]:
    walk_problems: list[WalkProblem] = []
    for path in walk_files(top, walk_problems):
        if os.path.islink(path) and not os.path.exists(path):
            problems.append(NotChecked(path, "broken symbolic link"))
            continue
        reason = irregular_reason(path)
        if reason is None:
            yield path
        else:
            problems.append(NotChecked(path, reason))
    problems.extend(NotChecked(p.path, p.reason) for p in walk_problems)


def looks_binary(head: bytes) -> bool:
    if not head:
        return False
    if b"\x00" not in head:
        return False
    # Text with a stray NUL is still text; mostly-control bytes are not.
    control = sum(1 for b in head if b < 9 or 13 < b < 32)
    return control / len(head) > 0.1


@contextmanager
def open_stream(item: LogInput) -> Iterator[BinaryIO]:
    """Open one input for binary reading; gzip is detected by its magic bytes and
    decompressed within the limits of hyperpod_nccl.safeio."""
    if item.path is None:
        yield sys.stdin.buffer
        return
    raw = open_regular(item.path)
    try:
        try:
            head = raw.peek(SNIFF_BYTES)[:SNIFF_BYTES]
        except OSError as exc:
            raise UnreadableInput(exc.strerror or str(exc)) from exc
        if head.startswith(GZIP_MAGIC):
            with BoundedGzip(raw) as gz:
                yield cast(BinaryIO, gz)  # only readinto is used
            return
        if looks_binary(head):
            raise UnreadableInput("binary file, not text (skipped)")
        yield raw
    finally:
        raw.close()
