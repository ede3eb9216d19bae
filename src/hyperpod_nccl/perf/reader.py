"""Open one perf input and say what it holds: a pickle, a JSON document, or lines of text.

Files, .gz files and standard input are read as the `logs` command reads them
(hyperpod_nccl.inputs), except that a pickle (a flight recorder dump) is recognised before the
binary-file check would reject it.
"""

from __future__ import annotations

import gzip
import io
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import BinaryIO

from hyperpod_nccl.inputs import GZIP_MAGIC, LogInput, UnreadableInput, open_stream
from hyperpod_nccl.perf.flight_recorder import looks_like_pickle

# A JSON document is parsed whole; anything larger is not an nccl-tests or FR JSON file.
MAX_DOCUMENT_BYTES = 512 * 1024 * 1024


@dataclass
class Content:
    kind: str  # pickle, json, text
    data: bytes = b""
    lines: Iterator[str] | None = None


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
    if item.path is not None:
        try:
            raw = open(item.path, "rb")  # noqa: SIM115 - closed below
        except OSError as exc:
            raise UnreadableInput(exc.strerror or str(exc)) from exc
        with raw:
            try:
                head = _peek(raw, 2)
                stream: BinaryIO = raw
                if head.startswith(GZIP_MAGIC):
                    stream = gzip.GzipFile(fileobj=raw, mode="rb")  # type: ignore[assignment]
                    head = _peek(stream, 2)
            except OSError as exc:
                raise UnreadableInput(exc.strerror or str(exc)) from exc
            if looks_like_pickle(head):
                yield Content("pickle", data=_document(stream))
                return
    with open_stream(item) as stream:
        head = _peek(stream, 64).lstrip()
        if head.startswith(b"{"):
            yield Content("json", data=_document(stream))
            return
        text = io.TextIOWrapper(stream, encoding="utf-8", errors="replace", newline=None)
        try:
            yield Content("text", lines=iter(text))
        finally:
            # Detach so that closing the wrapper never closes standard input.
            text.detach()
