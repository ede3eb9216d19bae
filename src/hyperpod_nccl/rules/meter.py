"""How much of the input a scan has read, for a progress display: one counter in shared
memory, so forked scan workers add to it and the parent reads it while they work.

Bytes are counted as they are on disk (the compressed bytes of a .gz), so the count reaches
the sum of the inputs' sizes when the scan is done.
"""

from __future__ import annotations

import multiprocessing
from typing import Any, BinaryIO, cast

from hyperpod_nccl.safeio import BoundedGzip


class ByteMeter:
    def __init__(self, total: int = 0) -> None:
        self.total = total  # bytes to read, 0 when unknown (standard input)
        # Shared memory made before the fork is the same memory in the workers.
        self._done: Any = multiprocessing.Value("q", 0)

    def add(self, count: int) -> None:
        if count:
            with self._done.get_lock():
                self._done.value += count

    @property
    def done(self) -> int:
        return int(self._done.value)


class MeteredStream:
    """A stream whose reads are added to a meter; readinto is all a scan uses."""

    def __init__(self, stream: BinaryIO, meter: ByteMeter) -> None:
        self._stream = stream
        self._meter = meter
        self._reported = 0

    def readinto(self, buffer: Any) -> int:
        count = int(self._stream.readinto(buffer) or 0)  # type: ignore[attr-defined]
        raw = cast(Any, self._stream)
        position = raw.compressed_read if isinstance(raw, BoundedGzip) else self._reported + count
        self._meter.add(position - self._reported)
        self._reported = position
        return count


def metered(stream: BinaryIO, meter: ByteMeter | None) -> BinaryIO:
    return stream if meter is None else cast(BinaryIO, MeteredStream(stream, meter))
