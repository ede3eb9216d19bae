"""Scan big inputs on every CPU: the work is cut into contiguous groups of files and byte
ranges of large files (cut at line ends), one group per worker process, and the results are
merged back in input order with line numbers renumbered, so the findings equal a serial scan.

Only plain files are split (a gzip stream cannot be entered in the middle); standard input
and gzip files stay whole units. Workers are forked, so they share the compiled pattern
database with the parent instead of compiling it again.
"""

from __future__ import annotations

import itertools
import multiprocessing
import os
import signal
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, BinaryIO, cast

from hyperpod_nccl.inputs import GZIP_MAGIC, LogInput
from hyperpod_nccl.rules.analyzer import LogAnalysis, LogAnalyzer
from hyperpod_nccl.rules.meter import ByteMeter, metered
from hyperpod_nccl.safeio import UnreadableInput, open_regular

# Below this many bytes of plain files, starting processes costs more than it saves.
PARALLEL_MIN_BYTES = 32 * 1024 * 1024
ORDER_STRIDE = 1 << 40  # keeps each group's `order` values after the previous group's


@dataclass(frozen=True)
class Unit:
    """A whole input, or one byte range [start, end) of a plain file."""

    item: LogInput
    start: int = 0
    end: int | None = None


@dataclass
class GroupResult:
    analysis: LogAnalysis
    lines: list[tuple[str, int]]  # per unit, in order: (name, lines it held)
    problems: list[tuple[str, str]]  # (name, reason) for units that could not be read


def _is_plain_file(item: LogInput) -> bool:
    if item.path is None:
        return False
    try:
        with open_regular(item.path) as handle:
            return not handle.read(2).startswith(GZIP_MAGIC)
    except (OSError, UnreadableInput):
        return False


def _line_start_after(path: str, offset: int) -> int:
    """The first byte of the line that contains or follows `offset`."""
    with open_regular(path) as handle:
        handle.seek(offset)
        while True:
            block = handle.read(1 << 16)
            if not block:
                return offset
            newline = block.find(b"\n")
            if newline >= 0:
                return offset + newline + 1
            offset += len(block)


def plan(inputs: Sequence[LogInput], workers: int) -> list[list[Unit]]:
    """Contiguous groups of units of about equal size, one per worker."""
    units: list[tuple[Unit, int]] = []
    for item in inputs:
        size = os.path.getsize(item.path) if item.path and os.path.isfile(item.path) else 0
        if size >= PARALLEL_MIN_BYTES and _is_plain_file(item):
            assert item.path is not None
            cuts = (
                [0]
                + [_line_start_after(item.path, size * k // workers) for k in range(1, workers)]
                + [size]
            )
            for start, end in itertools.pairwise(cuts):
                if end > start:
                    units.append((Unit(item, start, end), end - start))
        else:
            units.append((Unit(item), size))
    total = sum(size for _, size in units) or 1
    groups: list[list[Unit]] = [[]]
    filled = 0
    for unit, size in units:
        if filled >= total * len(groups) / workers and len(groups) < workers and groups[-1]:
            groups.append([])
        groups[-1].append(unit)
        filled += size
    return groups


class _RangeReader:
    """Reads [start, end) of a file through readinto, as scan_stream expects."""

    def __init__(self, handle: BinaryIO, start: int, end: int) -> None:
        handle.seek(start)
        self._handle = handle
        self._left = end - start

    def readinto(self, buffer: Any) -> int:
        if self._left <= 0:
            return 0
        view = memoryview(buffer)[: self._left]
        count = self._handle.readinto(view) or 0  # type: ignore[attr-defined]
        self._left -= count
        return count


# Scans one unit given the lines of the same input already scanned in this group; returns
# the unit's line count, or raises with a one-line reason.
ScanUnit = Callable[[LogAnalyzer, Unit, int], int]


def scan_group(analyzer: LogAnalyzer, group: list[Unit], scan_unit: ScanUnit) -> GroupResult:
    lines: list[tuple[str, int]] = []
    problems: list[tuple[str, str]] = []
    scanned: dict[str, int] = {}
    for unit in group:
        name = unit.item.name
        try:
            count = scan_unit(analyzer, unit, scanned.get(name, 0))
        except Exception as exc:  # reported per unit; the caller turns it into NotChecked
            problems.append((name, str(exc) or type(exc).__name__))
            count = 0
        scanned[name] = scanned.get(name, 0) + count
        lines.append((name, count))
    return GroupResult(analyzer.result, lines, problems)


def scan_range(
    analyzer: LogAnalyzer, unit: Unit, lines_before: int, meter: ByteMeter | None = None
) -> int:
    """Scan one byte range of a plain file; returns the number of lines in it."""
    assert unit.item.path is not None and unit.end is not None
    with open_regular(unit.item.path) as handle:
        reader = metered(cast(BinaryIO, _RangeReader(handle, unit.start, unit.end)), meter)
        return analyzer.scan(unit.item.name, reader, lines_before).lines


_FORK_STATE: dict[str, Any] = {}
# Workers read their work from _FORK_STATE, set just before the fork; one parallel scan at a
# time per process keeps two threads (say, an MCP server's) from seeing each other's work.
_FORK_LOCK = threading.Lock()


def _ignore_interrupt() -> None:
    """Ctrl-C reaches every process of the terminal's group: the parent alone handles it (and
    terminates the pool), so workers print no traceback of their own."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _run_in_child(index: int) -> GroupResult:
    analyzer: LogAnalyzer = _FORK_STATE["make_analyzer"]()
    return scan_group(analyzer, _FORK_STATE["groups"][index], _FORK_STATE["scan_unit"])


def run_parallel(
    groups: list[list[Unit]], make_analyzer: Callable[[], LogAnalyzer], scan_unit: ScanUnit
) -> list[GroupResult]:
    with _FORK_LOCK:
        _FORK_STATE.update(groups=groups, make_analyzer=make_analyzer, scan_unit=scan_unit)
        try:
            context = multiprocessing.get_context("fork")
            with context.Pool(len(groups), initializer=_ignore_interrupt) as pool:
                return pool.map(_run_in_child, range(len(groups)), chunksize=1)
        finally:
            _FORK_STATE.clear()


def merge_groups(results: list[GroupResult]) -> LogAnalysis:
    """Merge group results in order; a file split across groups gets its later ranges'
    line numbers shifted by the lines of the ranges before them."""
    merged = LogAnalysis()
    lines_before: dict[str, int] = {}
    for index, result in enumerate(results):
        # Within a group line numbers already run on across its ranges of one file; what is
        # missing is the lines of that file scanned by earlier groups.
        offsets = {name: lines_before.get(name, 0) for name, _ in result.lines}
        for name, count in result.lines:
            lines_before[name] = lines_before.get(name, 0) + count
        _renumber(result.analysis, offsets, index * ORDER_STRIDE)
        merged.merge(result.analysis)
    return merged


def _renumber(analysis: LogAnalysis, offsets: dict[str, int], order_offset: int) -> None:
    done: set[int] = set()
    for occ in analysis.occurrences():
        if id(occ) in done:
            continue
        done.add(id(occ))
        occ.line_no += offsets.get(occ.source, 0)
        occ.order += order_offset
    facts = analysis.facts
    facts.init_complete = {
        key: line + offsets.get(key[0], 0) for key, line in facts.init_complete.items()
    }


def worker_count() -> int:
    if "fork" not in multiprocessing.get_all_start_methods():
        return 1
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cpus = os.cpu_count() or 1
    return max(1, min(cpus, 8))
