"""WRONG_RESULTS (nccl-tests counted wrong values: data corruption) and TEST_FAILED (the run
failed, hung or did not finish)."""

from __future__ import annotations

from hyperpod_nccl.model import Evidence, Finding, Priority, Status, SuggestedCommand
from hyperpod_nccl.perf.evidence import MAX_EVIDENCE, reference, row_evidence, run_name, size_text
from hyperpod_nccl.perf.model import Run, RunError, RunStatus
from hyperpod_nccl.rules.titles import format_hosts


def wrong_results(runs: list[Run]) -> list[Finding]:
    findings = []
    checked = 0
    for run in runs:
        bad_rows = [r for r in run.rows if r.wrong]
        failed_footer = run.out_of_bounds is not None and run.out_of_bounds > 0
        if any(r.wrong is not None for r in run.rows) or run.out_of_bounds is not None:
            checked += 1
        if not bad_rows and not failed_footer:
            continue
        total = sum(r.wrong or 0 for r in bad_rows)
        evidence = [row_evidence(run, r) for r in bad_rows[:MAX_EVIDENCE]]
        if failed_footer:
            evidence.append(
                Evidence(
                    f"{run.source}:{run.end_line}",
                    f"# Out of bounds values : {run.out_of_bounds} FAILED",
                )
            )
        sizes = ", ".join(size_text(r.size) for r in bad_rows[:4]) + (
            " ..." if len(bad_rows) > 4 else ""
        )
        what = (
            f"{total:g} wrong values at {sizes}"
            if bad_rows
            else f"{run.out_of_bounds} out-of-bounds values"
        )
        findings.append(
            Finding(
                code="WRONG_RESULTS",
                status=Status.FAIL,
                priority=Priority.P0,
                title=f"{run_name(run)} returned wrong results ({what}): silent data corruption",
                reference=reference("WRONG_RESULTS"),
                hosts=run.hosts,
                ranks=[d.rank for d in run.devices],
                evidence=evidence,
                suggested_commands=[
                    SuggestedCommand(
                        purpose="look for protocol or algorithm overrides that can corrupt data",
                        command="env | grep -E '^NCCL_(PROTO|ALGO)='",
                    ),
                    SuggestedCommand(
                        purpose="run NVIDIA's long diagnostic on each node of the run (drained first)",
                        command="dcgmi diag -r 3",
                        preconditions="the node is drained: the diagnostic occupies every GPU",
                        changes_state=True,
                        blast_radius="the node's GPUs are busy for several minutes",
                    ),
                ],
                details={
                    "run": run.label,
                    "wrong_values": total,
                    "rows": [r.size for r in bad_rows],
                    "out_of_bounds": run.out_of_bounds,
                },
            )
        )
    if findings:
        return findings
    if checked:
        return [
            Finding(
                code="WRONG_RESULTS",
                status=Status.PASS,
                priority=Priority.P0,
                title=f"no wrong values in {checked} run(s) with result checking on",
                reference=reference("WRONG_RESULTS"),
            )
        ]
    if runs:
        return [
            Finding(
                code="WRONG_RESULTS",
                status=Status.SKIPPED,
                priority=Priority.P0,
                title="results were not checked: no run printed #wrong values or an out-of-bounds count (nccl-tests -c 0, or the output lacks them)",
                reference=reference("WRONG_RESULTS"),
            )
        ]
    return []


_KIND_TEXT = {
    "nccl": "NCCL error",
    "cuda": "CUDA error",
    "launch": "the launcher could not start it",
    "exit": "a task exited with an error",
    "signal": "a task was killed by a signal",
    "timeout": "it hung and was killed at the time limit",
    "cancelled": "it was cancelled",
}
_SEVERITY = ("timeout", "nccl", "cuda", "signal", "exit", "launch", "cancelled")


def _main_error(errors: list[RunError]) -> RunError:
    real = [e for e in errors if e.kind != "nccl-warn"]
    return min(real, key=lambda e: (_SEVERITY.index(e.kind) if e.kind in _SEVERITY else 99, e.line))


def _stopped_where(run: Run) -> str:
    if run.rows:
        return f"after the {size_text(run.rows[-1].size)} row"
    if run.columns:
        return "after the column header, before the first result row"
    if run.devices:
        return "after the device list, before the result table"
    return "before the result table"


def test_failed(runs: list[Run]) -> list[Finding]:
    findings = []
    unclear: list[Run] = []
    for run in runs:
        status = run.status
        if status is RunStatus.FAILED:
            error = _main_error(run.errors)
            hosts = sorted(
                {e.host for e in run.errors if e.host and e.kind != "nccl-warn"} | set(run.hosts)
            )
            warns = [e for e in run.errors if e.kind == "nccl-warn"]
            evidence = [Evidence(f"{run.source}:{error.line}", error.text)]
            evidence += [
                Evidence(f"{run.source}:{e.line}", e.text) for e in run.errors if e is not error
            ][: MAX_EVIDENCE - 1]
            findings.append(
                Finding(
                    code="TEST_FAILED",
                    status=Status.FAIL,
                    priority=Priority.P1 if error.kind == "cancelled" else Priority.P0,
                    title=f"{run_name(run)} failed: {_KIND_TEXT.get(error.kind, error.kind)}: {error.text[:160]}",
                    reference=reference("TEST_FAILED"),
                    hosts=hosts,
                    evidence=evidence,
                    details={
                        "run": run.label,
                        "error_kind": error.kind,
                        "hung": error.kind == "timeout",
                        "nccl_warnings": len(warns),
                        "stopped": _stopped_where(run),
                    },
                )
            )
        elif status is RunStatus.STOPPED:
            planned = run.params.get("maxBytes")
            findings.append(
                Finding(
                    code="TEST_FAILED",
                    status=Status.FAIL,
                    priority=Priority.P1,
                    title=(
                        f"{run_name(run)} did not finish: the output stops {_stopped_where(run)} "
                        f"of a sweep up to {size_text(planned or 0)}, with no error: it hung or was "
                        "killed (or the output was cut short)"
                    ),
                    reference=reference("TEST_FAILED"),
                    hosts=run.hosts,
                    evidence=[Evidence(f"{run.source}:{run.end_line}", "(last line of the run)")],
                    details={
                        "run": run.label,
                        "hung": True,
                        "stopped": _stopped_where(run),
                        "max_bytes": planned,
                    },
                )
            )
        elif status is RunStatus.UNFINISHED:
            unclear.append(run)
    if unclear:
        names = "; ".join(run_name(r) for r in unclear[:4]) + (" ..." if len(unclear) > 4 else "")
        findings.append(
            Finding(
                code="TEST_FAILED",
                status=Status.INCOMPLETE,
                priority=Priority.P2,
                title=(
                    f"{len(unclear)} run(s) have no end-of-run footer and no header saying how far they "
                    f"should go, so whether they finished cannot be told: {names}"
                ),
                reference=reference("TEST_FAILED"),
                hosts=sorted({h for r in unclear for h in r.hosts}),
                details={"runs": [r.label for r in unclear]},
            )
        )
    if not findings and runs:
        findings.append(
            Finding(
                code="TEST_FAILED",
                status=Status.PASS,
                priority=Priority.P0,
                title=f"all {len(runs)} run(s) completed",
                reference=reference("TEST_FAILED"),
                hosts=sorted({h for r in runs for h in r.hosts}),
            )
        )
    return findings


__all__ = ["format_hosts", "test_failed", "wrong_results"]
