"""A progress bar on standard error for long scans: only on a terminal, only once the work has
taken a moment (a small input finishes before anything is drawn), redrawn a few times a
second from a thread that reads the scan's shared byte counter, and erased before the report
is printed. Never on standard output, so JSON there stays one document.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from types import TracebackType
from typing import TextIO

from hyperpod_nccl.rules.meter import ByteMeter

# Shown only for work that has run this long; tests set it to 0 to see the bar at once.
DELAY_ENV = "HYPERPOD_NCCL_PROGRESS_DELAY_S"
DEFAULT_DELAY_S = 1.5
REDRAW_S = 0.25
WIDTH = 28
ERASE = "\r\x1b[K"


def render_line(done: int, total: int, elapsed: float) -> str:
    """`[#####.....]  45%  180 / 400 MB  150 MB/s  2 s left`, or without a total (stdin)
    `180 MB read  150 MB/s`."""
    rate = done / elapsed if elapsed > 0 else 0.0
    speed = f"{rate / 1e6:,.0f} MB/s"
    if total <= 0:
        return f"scanning: {done / 1e6:,.0f} MB read  {speed}"
    share = min(done / total, 1.0)
    filled = int(share * WIDTH)
    bar = "#" * filled + "." * (WIDTH - filled)
    left = f"  {(total - done) / rate:,.0f} s left" if rate > 0 and done < total else ""
    return (
        f"scanning [{bar}] {share:4.0%}  {done / 1e6:,.0f} / {total / 1e6:,.0f} MB  {speed}{left}"
    )


class TerminalProgress:
    """Context manager: `with TerminalProgress() as meter: scan(..., meter=meter)`."""

    def __init__(self, stream: TextIO | None = None, delay_s: float | None = None) -> None:
        self._stream = stream or sys.stderr
        self.meter = ByteMeter()
        if delay_s is None:
            delay_s = float(os.environ.get(DELAY_ENV) or DEFAULT_DELAY_S)
        self._delay = delay_s
        self._stop = threading.Event()
        self._drawn = False
        self._thread: threading.Thread | None = None
        self._started = 0.0

    @property
    def enabled(self) -> bool:
        isatty = getattr(self._stream, "isatty", None)
        return bool(isatty and isatty())

    def __enter__(self) -> ByteMeter:
        if self.enabled:
            self._started = time.monotonic()
            self._thread = threading.Thread(target=self._run, name="progress", daemon=True)
            self._thread.start()
        return self.meter

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        # Also on Ctrl-C: the bar is erased before the one-line "interrupted".
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        if self._drawn:
            self._stream.write(ERASE)
            self._stream.flush()

    def _run(self) -> None:
        if self._stop.wait(self._delay):
            return
        while not self._stop.is_set():
            if self.meter.done == 0:  # still expanding and planning the inputs
                self._stop.wait(REDRAW_S)
                continue
            elapsed = time.monotonic() - self._started
            line = render_line(self.meter.done, self.meter.total, elapsed)
            self._stream.write(ERASE + line)
            self._stream.flush()
            self._drawn = True
            self._stop.wait(REDRAW_S)
