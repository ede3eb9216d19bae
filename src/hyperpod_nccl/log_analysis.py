"""The one log-analysis path: files, directories, .gz or stdin through the rule catalog, the
per-rank progress pass (NCCL COLL traces, Flight Recorder dumps) and the root-cause ranker.
`logs`, the MCP server, Slurm job output in `diagnose` and bundle replays all call this."""

from __future__ import annotations

import os
import time
from collections.abc import Sequence

from hyperpod_nccl import root_cause
from hyperpod_nccl.inputs import LogInput, expand
from hyperpod_nccl.model import Finding, Priority, Report, Status
from hyperpod_nccl.rules.catalog import load_catalog
from hyperpod_nccl.rules.diagnosis import add_external_findings
from hyperpod_nccl.rules.diagnosis import diagnose as diagnose_logs
from hyperpod_nccl.rules.meter import ByteMeter
from hyperpod_nccl.rules.scan import scan_inputs
from hyperpod_nccl.safeio import UnreadableInput, open_regular
from hyperpod_nccl.suggest.complete import complete


def is_flight_recorder_dump(item: LogInput) -> bool:
    """A PyTorch Flight Recorder dump (a pickle, or its JSON form), read by the per-rank
    progress analysis rather than scanned as text."""
    if item.path is None:
        return False
    try:
        with open_regular(item.path) as handle:
            head = handle.read(4096)
    except (OSError, UnreadableInput):
        return False
    from hyperpod_nccl.perf.flight_recorder import looks_like_pickle  # rarely needed: lazy

    if looks_like_pickle(head):
        return True
    stripped = head.lstrip()
    return stripped.startswith(b"{") and b'"entries"' in head and b'"version"' in head


def analyze_logs(
    paths: Sequence[str],
    *,
    backend: str = "auto",
    workers: int | None = None,
    meter: ByteMeter | None = None,
) -> Report:
    """Analyse log files, directories, .gz files or `-` (stdin) and name the root cause.
    Big inputs are scanned on all CPUs (`workers`, default: the CPUs available); the findings
    are the same as a serial scan's. `meter` counts the bytes scanned, for a progress bar."""
    started = time.perf_counter()
    catalog = load_catalog()
    inputs, not_checked = expand(paths)
    dumps = [item for item in inputs if is_flight_recorder_dump(item)]
    is_dump = set(dumps)  # a set: `in` over the list was quadratic in the number of files
    scanned = scan_inputs(
        [i for i in inputs if i not in is_dump], catalog, backend, workers, meter=meter
    )
    not_checked += scanned.not_checked
    read = scanned.inputs_read + len(dumps)
    # Per-rank progress (NCCL COLL lines, flight recorder dumps) needs its own pass; it runs
    # only on the inputs where the one-pass scan saw such evidence.
    progress_paths = [d.name for d in dumps] + sorted(
        s for s in scanned.analysis.facts.progress_sources if os.path.isfile(s)
    )
    progress = []
    if progress_paths:  # imported here: most logs hold no progress evidence
        from hyperpod_nccl.perf.progress import progress_findings

        progress = progress_findings(progress_paths)
    add_external_findings(scanned.analysis, progress, catalog)
    findings = diagnose_logs(scanned.analysis, catalog)
    findings += [f for f in progress if f.code not in catalog.codes]
    root_cause.rank(findings, catalog.registry)
    complete(findings, catalog.registry)
    sources = scanned.analysis.sources
    summary = {
        "inputs": len(inputs),
        "inputs_read": read,
        "bytes": sum(s.bytes for s in sources),
        "lines": sum(s.lines for s in sources),
        "matched_lines": sum(s.matched_lines for s in sources),
        "engine": scanned.engine,
        "workers": scanned.workers,
        "elapsed_s": round(time.perf_counter() - started, 3),
        # the first failing line of each rank and host, for the cross-rank timeline
        "timeline": scanned.analysis.firsts.events(scanned.analysis.facts.comm_ranks),
    }
    if not_checked:
        findings.append(
            Finding(
                code="INPUT_UNREADABLE",
                status=Status.INCOMPLETE,
                priority=Priority.P2,
                title=f"{len(not_checked)} input(s) could not be read in full; findings may be missing",
                reference="debugging-guide.md#input-unreadable",
                details={"inputs": [n.to_dict() for n in not_checked[:100]]},
            )
        )
    if not any(f.status is Status.FAIL for f in findings) and read:
        findings.append(
            Finding(
                code="NO_FAILURE_SIGNATURE",
                status=Status.PASS if not not_checked else Status.INFO,
                priority=Priority.P2,
                title=f"no failure signature in {summary['lines']:,} lines from {read} input(s)",
                reference="debugging-guide.md#no-failure-signature",
            )
        )
    return Report(command="logs", findings=findings, not_checked=not_checked, summary=summary)
