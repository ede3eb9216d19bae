"""What the perf findings show: a run's name, the lines that prove its result, sizes; and the
guide reference of a code (the one of `codes.reference`, re-exported for the perf modules)."""

from __future__ import annotations

from hyperpod_nccl.codes import reference as reference  # re-exported for perf modules
from hyperpod_nccl.model import Evidence
from hyperpod_nccl.perf.model import Row, Run
from hyperpod_nccl.rules.titles import format_hosts
from hyperpod_nccl.units import size_text as size_text  # re-exported for perf modules

MAX_EVIDENCE = 6


def run_name(run: Run) -> str:
    """`all_reduce on node1, node2` or `all_reduce in file:line`."""
    what = run.collective if run.collective not in ("unknown", "summary") else "nccl-tests"
    if run.summary_busbw is not None:
        what = "pair-sweep result"
    hosts = run.hosts
    where = f"on {format_hosts(hosts)}" if hosts else f"in {run.label}"
    return f"{what} {where}"


def row_evidence(run: Run, row: Row) -> Evidence:
    return Evidence(f"{run.source}:{row.line}", row.text)


def run_evidence(run: Run) -> list[Evidence]:
    """The lines that show a run's result: its largest rows, or its summary line."""
    if run.summary_busbw is not None:
        return [
            Evidence(f"{run.source}:{run.start_line}", f"{','.join(run.hosts)} {run.summary_busbw}")
        ]
    return [row_evidence(run, r) for r in run.rows[-2:]]
