"""Small helpers shared by the perf findings: guide references, sizes, evidence."""

from __future__ import annotations

from hyperpod_nccl.kb import reference_for_code
from hyperpod_nccl.model import Evidence
from hyperpod_nccl.perf.model import Row, Run
from hyperpod_nccl.rules.titles import format_hosts
from hyperpod_nccl.units import size_text as size_text  # re-exported for perf modules

MAX_EVIDENCE = 6


def reference(code: str) -> str | None:
    """The guide section for a code, or None when the guide has none (never a broken link)."""
    try:
        return reference_for_code(code)
    except KeyError:
        return None


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
