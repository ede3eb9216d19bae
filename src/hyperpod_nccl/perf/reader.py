"""Open one perf input and say what it holds: a pickle, a JSON document, or lines of text.

Files, .gz files and standard input are read as the `logs` command reads them
(hyperpod_nccl.inputs), except that a pickle (a flight recorder dump) is recognised before the
binary-file check would reject it.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import BinaryIO

from hyperpod_nccl.inputs import SNIFF_BYTES, LogInput, looks_binary
from hyperpod_nccl.perf.flight_recorder import looks_like_pickle
from hyperpod_nccl.safeio import (
    GZIP_MAGIC,
    BoundedGzip,
    UnreadableInput,
    bounded_lines,
    open_regular,
)

# A JSON document is parsed whole; anything larger is not an nccl-tests or FR JSON file.
MAX_DOCUMENT_BYTES = 512 * 1024 * 1024


@dataclass
class Content:
    kind: str  # pickle, json, text
    data: bytes = b""
    lines: Iterator[str] | None = None
    # A plain file's text, for perf/fastread.py to read in chunks instead of `lines`.
    stream: BinaryIO | None = None


def _peek(stream: BinaryIO, n: int) -> bytes:
    peek = getattr(stream, "peek", None)
    return bytes(peek(n)[:n]) if peek else b""


def _document(stream: BinaryIO) -> bytes:
    data = stream.read(MAX_DOCUMENT_BYTES + 1)
    if len(data) > MAX_DOCUMENT_BYTES:
        raise UnreadableInput(
            f"larger than {MAX_DOCUMENT_BYTES // 2**20} MiB for a single document"
        )
    return data


@contextmanager
def open_content(item: LogInput) -> Iterator[Content]:
    """Open one input (only a regular file, or standard input) and say what it holds. Gzip
    is decompressed within the limits of hyperpod_nccl.safeio, and text lines are cut at
    safeio.MAX_LINE_BYTES, so no input can take more memory than a 512 MiB document."""
    if item.path is None:
        yield from _content(sys.stdin.buffer, sniff=False)
        return
    with open_regular(item.path) as raw:
        try:
            compressed = _peek(raw, 2).startswith(GZIP_MAGIC)
        except OSError as exc:
            raise UnreadableInput(exc.strerror or str(exc)) from exc
        if not compressed:
            yield from _content(raw, sniff=True)
            return
        with BoundedGzip(raw) as gz, io.BufferedReader(gz) as stream:
            yield from _content(stream, sniff=False)


def _content(stream: BinaryIO, *, sniff: bool) -> Iterator[Content]:
    """`sniff`: refuse binary data (plain files; gzip and standard input are read as text)."""
    try:
        head = _peek(stream, SNIFF_BYTES)
    except OSError as exc:
        raise UnreadableInput(exc.strerror or str(exc)) from exc
    if looks_like_pickle(head[:2]):
        yield Content("pickle", data=_document(stream))
        return
    if sniff and looks_binary(head):
        raise UnreadableInput("binary file, not text (skipped)")
    if head[:64].lstrip().startswith(b"{"):
        yield Content("json", data=_document(stream))
        return
    # Only a plain file is read in chunks: what a .gz or standard input yields before a limit
    # or damage depends on how it is read, and the line reader's way is the one tested.
    yield Content("text", lines=bounded_lines(stream), stream=stream if sniff else None)
