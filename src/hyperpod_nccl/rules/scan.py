"""Scan a set of log inputs into one LogAnalysis, on all CPUs when the inputs are big."""

from __future__ import annotations

import functools
import gzip
import os
import zlib
from collections.abc import Sequence
from dataclasses import dataclass

from hyperpod_nccl.inputs import LogInput, UnreadableInput, open_stream
from hyperpod_nccl.model import NotChecked
from hyperpod_nccl.rules.analyzer import LogAnalysis, LogAnalyzer
from hyperpod_nccl.rules.catalog import Catalog
from hyperpod_nccl.rules.meter import ByteMeter, metered
from hyperpod_nccl.rules.parallel import (
    PARALLEL_MIN_BYTES,
    Unit,
    merge_groups,
    plan,
    run_parallel,
    scan_group,
    scan_range,
    worker_count,
)
from hyperpod_nccl.safeio import LIMIT_REACHED

TRUNCATED = "gzip data is truncated or corrupt"


@dataclass
class ScanResult:
    analysis: LogAnalysis
    not_checked: list[NotChecked]
    inputs_read: int
    engine: str
    workers: int


def _scan_unit(
    analyzer: LogAnalyzer, unit: Unit, lines_before: int, meter: ByteMeter | None = None
) -> int:
    """Scan one input or byte range; raises with a one-line reason when it cannot."""
    if unit.end is not None:
        return scan_range(analyzer, unit, lines_before, meter)
    try:
        with open_stream(unit.item) as stream:
            return analyzer.scan(unit.item.name, metered(stream, meter), lines_before).lines
    except (EOFError, gzip.BadGzipFile, zlib.error) as exc:
        # A truncated or corrupt .gz: what was decompressed before the damage still counts.
        raise UnreadableInput(f"{TRUNCATED} ({exc}); analysed the part before the damage") from exc
    except UnreadableInput:
        raise
    except OSError as exc:
        raise UnreadableInput(exc.strerror or str(exc)) from exc


def _size(unit: Unit) -> int:
    if unit.end is not None:
        return unit.end - unit.start
    try:
        return os.path.getsize(unit.item.path) if unit.item.path else 0
    except OSError:
        return 0


def scan_inputs(
    inputs: Sequence[LogInput],
    catalog: Catalog,
    backend: str = "auto",
    workers: int | None = None,
    meter: ByteMeter | None = None,
) -> ScanResult:
    """`meter`, when given, gets its total set and counts the bytes read as the scan goes."""
    analyzer = LogAnalyzer(catalog, backend)
    workers = worker_count() if workers is None else workers
    parallel = workers > 1 and all(item.path is not None for item in inputs)
    groups = plan(inputs, workers) if parallel else [[Unit(item) for item in inputs]]
    total = sum(_size(u) for g in groups for u in g)
    if meter is not None:
        meter.total = total
    scan_unit = functools.partial(_scan_unit, meter=meter)
    if len(groups) > 1 and total >= PARALLEL_MIN_BYTES:
        prefilter = analyzer.prefilter
        results = run_parallel(groups, lambda: LogAnalyzer(catalog, prefilter=prefilter), scan_unit)
    else:
        units = [unit for group in groups for unit in group]
        results = [scan_group(analyzer, units, scan_unit)]
        groups = [units]
    problems = [problem for result in results for problem in result.problems]
    # Read in part (damaged gzip, a limit reached): what came before still counts as read.
    unreadable = {
        name for name, reason in problems if not reason.startswith((TRUNCATED, LIMIT_REACHED))
    }
    return ScanResult(
        analysis=merge_groups(results),
        not_checked=[NotChecked(name, reason) for name, reason in problems],
        inputs_read=len({item.name for item in inputs} - unreadable),
        engine=analyzer.prefilter.name,
        workers=len(results),
    )
