"""Turn what the user named (files, .gz files, directories, `-`) into readable log streams.

Problems with one input never stop the others: each becomes a NotChecked entry with a
one-line reason naming the path.
"""

from __future__ import annotations

import gzip
import io
import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, BinaryIO, cast

from hyperpod_nccl.model import NotChecked

GZIP_MAGIC = b"\x1f\x8b"
SNIFF_BYTES = 8192


@dataclass(frozen=True)
class LogInput:
    name: str  # how evidence refers to it: the path as given, or "<stdin>"
    path: str | None  # None for standard input


class UnreadableInput(Exception):
    """The input cannot be analysed; the message is one line naming why."""


def expand(paths: Sequence[str]) -> tuple[list[LogInput], list[NotChecked]]:
    """Files in the order given; directories walked recursively in name order."""
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
            inputs.append(LogInput(given, given))
        elif os.path.islink(given):
            problems.append(NotChecked(given, "broken symbolic link"))
        else:
            problems.append(NotChecked(given, "no such file or directory"))
    return inputs, problems


def _walk(top: str, problems: list[NotChecked]) -> Iterator[str]:
    def on_error(err: OSError) -> None:
        problems.append(NotChecked(err.filename or top, f"cannot list directory: {err.strerror}"))

    for root, dirs, files in os.walk(top, onerror=on_error):
        dirs.sort()
        for name in sorted(files):
            yield os.path.join(root, name)


def _looks_binary(head: bytes) -> bool:
    if not head:
        return False
    if b"\x00" not in head:
        return False
    # Text with a stray NUL is still text; mostly-control bytes are not.
    control = sum(1 for b in head if b < 9 or 13 < b < 32)
    return control / len(head) > 0.1


class _StepwiseReader(io.RawIOBase):
    """Reads a gzip stream in small steps, so when the data turns out truncated or corrupt
    everything decompressed before the damage has already been handed on."""

    STEP = 64 * 1024

    def __init__(self, gz: gzip.GzipFile) -> None:
        self._gz = gz

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        # One decompression step per call: a later call that fails loses nothing handed on.
        chunk = self._gz.read1(min(self.STEP, len(buffer)))
        memoryview(buffer)[: len(chunk)] = chunk
        return len(chunk)


@contextmanager
def open_stream(item: LogInput) -> Iterator[BinaryIO]:
    """Open one input for binary reading; gzip is detected by its magic bytes."""
    if item.path is None:
        yield sys.stdin.buffer
        return
    try:
        raw = open(item.path, "rb")  # noqa: SIM115 - closed below
    except PermissionError as exc:
        raise UnreadableInput("permission denied") from exc
    except IsADirectoryError as exc:
        raise UnreadableInput("is a directory") from exc
    except OSError as exc:
        raise UnreadableInput(exc.strerror or str(exc)) from exc
    try:
        try:
            head = raw.peek(SNIFF_BYTES)[:SNIFF_BYTES]
        except OSError as exc:
            raise UnreadableInput(exc.strerror or str(exc)) from exc
        if head.startswith(GZIP_MAGIC):
            with gzip.GzipFile(fileobj=raw, mode="rb") as gz:
                yield cast(BinaryIO, _StepwiseReader(gz))  # only readinto is used
            return
        if _looks_binary(head):
            raise UnreadableInput("binary file, not text (skipped)")
        yield raw
    finally:
        raw.close()
