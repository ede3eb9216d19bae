"""LOW_BUSBW: bus bandwidth well below what the run should reach.

Four yardsticks, strongest first:
1. the user's own baseline (``--expected-busbw``, measured on healthy nodes of the same type);
2. the guide's figure for the instance type (expected.py), only for the collective, node count
   and transport the figure was measured with, and only far below it (it is a field observation);
3. the run itself: busbw that collapses at large sizes, or stays at zero;
4. nccl-tests' own bandwidth check (``Avg bus bandwidth : ... FAILED``).
A run that used TCP sockets on an EFA instance type is low by construction.
"""

from __future__ import annotations

from dataclasses import dataclass

from hyperpod_nccl.model import Evidence, Finding, Priority, Status
from hyperpod_nccl.perf import expected
from hyperpod_nccl.perf.evidence import (
    MAX_EVIDENCE,
    reference,
    row_evidence,
    run_evidence,
    run_name,
    size_text,
)
from hyperpod_nccl.perf.model import LARGE_MESSAGE_BYTES, Run, RunStatus

COLLAPSE_RATIO = 0.5  # large-size busbw below half of the run's own earlier peak
MIN_COLLAPSE_BYTES = 1024 * 1024  # peaks below 1 MiB are latency, not bandwidth
MAX_FINDINGS = 20


@dataclass
class Options:
    instance_type: str | None = None
    transport: str | None = None
    expected_busbw: float | None = None


def _finding(
    run: Run, status: Status, title: str, evidence: list[Evidence], details: dict[str, object]
) -> Finding:
    return Finding(
        code="LOW_BUSBW",
        status=status,
        priority=Priority.P1,
        title=title,
        reference=reference("LOW_BUSBW"),
        hosts=run.hosts,
        evidence=evidence[:MAX_EVIDENCE],
        details={"run": run.label, "collective": run.collective, **details},
    )


def _collapse(run: Run) -> Finding | None:
    rows = [r for r in run.rows if r.size >= MIN_COLLAPSE_BYTES]
    if len(rows) < 3:
        return None
    peak_row = max(rows, key=lambda r: r.busbw)
    tail = [r for r in rows if r.size > peak_row.size]
    if not tail:
        return None
    largest = max(r.size for r in rows)
    end_rows = [r for r in rows if r.size >= largest // 4 and r.size > peak_row.size]
    if not end_rows:
        return None
    end = max(r.busbw for r in end_rows)
    if peak_row.busbw <= 0 or end >= COLLAPSE_RATIO * peak_row.busbw:
        return None
    first_low = next(r for r in tail if r.busbw < COLLAPSE_RATIO * peak_row.busbw)
    return _finding(
        run,
        Status.FAIL,
        f"{run_name(run)}: busbw collapses from {peak_row.busbw:.1f} GB/s at {size_text(peak_row.size)} "
        f"to {end:.1f} GB/s at {size_text(first_low.size)} and above; bandwidth should level off, not fall",
        [
            row_evidence(run, peak_row),
            row_evidence(run, first_low),
            row_evidence(run, end_rows[-1]),
        ],
        {
            "peak_busbw": peak_row.busbw,
            "peak_size": peak_row.size,
            "large_busbw": end,
            "yardstick": "the run's own peak",
        },
    )


def _zero(run: Run) -> Finding | None:
    rows = [r for r in run.rows if r.size >= MIN_COLLAPSE_BYTES]
    if not rows or any(r.busbw > 0 for r in rows):
        return None
    return _finding(
        run,
        Status.FAIL,
        f"{run_name(run)}: busbw is 0 at every size from {size_text(rows[0].size)} up",
        [row_evidence(run, rows[-1])],
        {"yardstick": "non-zero"},
    )


def _instance(run: Run, options: Options) -> tuple[str | None, str]:
    """The instance type to compare with, and how it was chosen."""
    if options.instance_type:
        return options.instance_type, "given with --instance-type"
    candidates = expected.infer_instance_types(run.gpu_models)
    if len(candidates) == 1:
        return candidates[0], f"inferred from the GPU model {', '.join(run.gpu_models)}"
    return None, ""


def _transport(run: Run, options: Options) -> str | None:
    if options.transport:
        return options.transport
    if len(run.transports) == 1:
        return next(iter(run.transports))
    return None


def _against_figure(run: Run, options: Options, notes: list[str]) -> Finding | None:
    instance, how = _instance(run, options)
    if instance is None:
        notes.append(f"{run_name(run)}: instance type unknown (pass --instance-type)")
        return None
    transport = _transport(run, options)
    if transport == "socket" and instance in {t.name for t in expected.INSTANCE_TYPES}:
        return _finding(
            run,
            Status.FAIL,
            f"{run_name(run)} used TCP sockets, not EFA, on {instance} ({how}): expect a small "
            "fraction of EFA bandwidth (debugging-guide.md#efa-tcp-fallback)",
            run_evidence(run),
            {"instance_type": instance, "transport": transport, "yardstick": "transport"},
        )
    nodes = len(run.hosts) or None
    figure = expected.figure_for(instance, run.collective, nodes)
    if figure is None:
        notes.append(
            f"{run_name(run)}: the guide has no busbw figure for {run.collective} on "
            f"{nodes or 'an unknown number of'} node(s) of {instance}; measure a baseline and pass --expected-busbw"
        )
        return None
    if transport is not None and transport != figure.transport:
        notes.append(
            f"{run_name(run)}: the guide's figure is for {figure.transport.upper()}, this run used {transport}"
        )
        return None
    measured = run.peak_large_busbw()
    if measured is None:
        notes.append(
            f"{run_name(run)}: largest message {size_text(run.largest_size)} is below "
            f"{size_text(LARGE_MESSAGE_BYTES)}; busbw there mostly measures latency"
        )
        return None
    ratio = measured / figure.busbw_gbps
    details = {
        "instance_type": instance,
        "instance_type_from": how,
        "measured_busbw": measured,
        "expected_busbw": figure.busbw_gbps,
        "expected_at_bytes": figure.at_bytes,
        "ratio": round(ratio, 3),
        "figure_status": figure.status,
        "figure_source": figure.source,
        "nodes_known": nodes is not None,
        "yardstick": "guide figure",
    }
    caveats = []
    if nodes is None:
        caveats.append(f"the node count is unknown, the figure is for {figure.nodes} nodes")
    if transport is None:
        caveats.append(
            f"the output does not show the transport, the figure is for {figure.transport.upper()}"
        )
    caveat = "".join(f"; {c}" for c in caveats)
    source = f"{figure.busbw_gbps:g} GB/s for {figure.nodes}-node {figure.collective} on {instance} ({figure.status}; {figure.source})"
    if ratio < expected.LOW_BUSBW_FAIL_RATIO:
        status = Status.FAIL
    elif ratio < expected.LOW_BUSBW_WARN_RATIO:
        status = Status.WARN
    else:
        return _finding(
            run,
            Status.PASS,
            f"{run_name(run)}: {measured:.1f} GB/s at large sizes, {ratio:.0%} of {source}{caveat}",
            [],
            details,
        )
    return _finding(
        run,
        status,
        f"{run_name(run)}: {measured:.1f} GB/s at large sizes is {ratio:.0%} of {source}{caveat}",
        run_evidence(run),
        details,
    )


def _against_baseline(run: Run, baseline: float) -> Finding:
    measured = run.peak_large_busbw()
    if measured is None:
        return _finding(
            run,
            Status.SKIPPED,
            f"{run_name(run)}: no row at {size_text(LARGE_MESSAGE_BYTES)} or more to compare with the baseline",
            [],
            {"yardstick": "baseline"},
        )
    ratio = measured / baseline
    details = {
        "measured_busbw": measured,
        "expected_busbw": baseline,
        "ratio": round(ratio, 3),
        "yardstick": "baseline (--expected-busbw)",
    }
    if ratio < expected.BASELINE_FAIL_RATIO:
        return _finding(
            run,
            Status.FAIL,
            f"{run_name(run)}: {measured:.1f} GB/s at large sizes is {ratio:.0%} of your baseline {baseline:g} GB/s",
            run_evidence(run),
            details,
        )
    return _finding(
        run,
        Status.PASS,
        f"{run_name(run)}: {measured:.1f} GB/s, {ratio:.0%} of your baseline",
        [],
        details,
    )


def low_busbw(runs: list[Run], options: Options) -> list[Finding]:
    problems: list[Finding] = []
    passes: list[Finding] = []
    notes: list[str] = []
    for run in runs:
        if run.status is RunStatus.FAILED or (not run.rows and run.summary_busbw is None):
            continue
        own = _collapse(run) or _zero(run)
        if own is not None:
            problems.append(own)
            continue
        if run.avg_busbw_failed:
            problems.append(
                _finding(
                    run,
                    Status.FAIL,
                    f"{run_name(run)}: nccl-tests' own bandwidth check failed (Avg bus bandwidth {run.avg_busbw} FAILED)",
                    run_evidence(run),
                    {"yardstick": "nccl-tests check"},
                )
            )
            continue
        if options.expected_busbw:
            verdict = _against_baseline(run, options.expected_busbw)
        else:
            verdict = _against_figure(run, options, notes)  # type: ignore[assignment]
        if verdict is None:
            continue
        (problems if verdict.status in (Status.FAIL, Status.WARN) else passes).append(verdict)
    findings = problems[:MAX_FINDINGS]
    if len(problems) > MAX_FINDINGS:
        findings.append(
            Finding(
                code="LOW_BUSBW",
                status=Status.INFO,
                priority=Priority.P1,
                title=f"{len(problems) - MAX_FINDINGS} more low-bandwidth runs in --format json details",
                reference=reference("LOW_BUSBW"),
                details={"runs": [f.details.get("run") for f in problems[MAX_FINDINGS:]]},
            )
        )
    if not problems and passes:
        findings.append(
            Finding(
                code="LOW_BUSBW",
                status=Status.PASS,
                priority=Priority.P1,
                title=f"{len(passes)} run(s) at or near the expected bus bandwidth",
                reference=reference("LOW_BUSBW"),
                hosts=sorted({h for f in passes for h in f.hosts}),
                details={"runs": [f.title for f in passes[:50]]},
            )
        )
    if not problems and not passes and runs:
        findings.append(
            Finding(
                code="LOW_BUSBW",
                status=Status.SKIPPED,
                priority=Priority.P1,
                title="bus bandwidth not compared with an expected figure: "
                + (notes[0] if notes else "no run has result rows")
                + (f" (and {len(notes) - 1} more)" if len(notes) > 1 else ""),
                reference=reference("LOW_BUSBW"),
                details={"reasons": notes[:50]},
            )
        )
    elif notes:
        findings.append(
            Finding(
                code="LOW_BUSBW",
                status=Status.INFO,
                priority=Priority.P2,
                title=f"{len(notes)} run(s) not compared with an expected figure: {notes[0]}",
                reference=reference("LOW_BUSBW"),
                details={"reasons": notes[:50]},
            )
        )
    return findings
