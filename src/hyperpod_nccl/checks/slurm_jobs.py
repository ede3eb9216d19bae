"""Job checks: pending jobs that need someone to act, and job output through the log rules."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from hyperpod_nccl.checks import check
from hyperpod_nccl.checks.findings import reference
from hyperpod_nccl.checks.slurm_data import (
    AREA,
    MAX_EVIDENCE,
    PENDING_LONG_S,
    guide_section,
    incomplete,
    json_item,
    load_jobs,
)
from hyperpod_nccl.model import Evidence, Finding, Priority, Status, SuggestedCommand
from hyperpod_nccl.slurm import suggestions
from hyperpod_nccl.slurm.jobs import (
    INTENDED_WAITS,
    SlurmJob,
    blocked_reason,
)
from hyperpod_nccl.slurm.values import iso_from_epoch
from hyperpod_nccl.snapshot import Snapshot
from hyperpod_nccl.snapshot.items import SLURM_CONTEXT, SLURM_JOB_OUTPUT_PREFIX


def _collected_at(snapshot: Snapshot) -> int | None:
    context = json_item(snapshot, SLURM_CONTEXT) or {}
    value = context.get("collected_at")
    return int(value) if isinstance(value, (int, float)) else None


@check("slurm.pending_jobs", AREA, ["SLURM_JOB_PENDING"])
def pending_jobs(snapshot: Snapshot) -> list[Finding]:
    """Pending jobs that cannot start until someone acts, or that waited unusually long."""
    jobs, source, why = load_jobs(snapshot)
    if jobs is None:
        return [incomplete("SLURM_JOB_PENDING", "pending jobs", why, source)]
    now = _collected_at(snapshot)
    pending = [j for j in jobs if j.state == "PENDING"]
    blocked: list[tuple[SlurmJob, str]] = []
    waiting: list[tuple[SlurmJob, int]] = []
    for job in pending:
        why_blocked = blocked_reason(job)
        if why_blocked:
            blocked.append((job, why_blocked))
            continue
        if job.reason in INTENDED_WAITS or now is None:
            continue
        since = job.eligible_time or job.submit_time
        if since and now - since >= PENDING_LONG_S:
            waiting.append((job, now - since))
    findings = []
    if blocked:
        hosts = sorted({n for job, _ in blocked for n in job.unavailable_nodes})
        findings.append(
            Finding(
                code="SLURM_JOB_PENDING",
                status=Status.FAIL,
                priority=Priority.P1,
                title=(
                    f"{len(blocked)} pending job{'s' if len(blocked) != 1 else ''} cannot start "
                    f"until someone acts: "
                    + "; ".join(f"job {j.job_id}: {w}" for j, w in blocked[:3])
                ),
                reference=reference("SLURM_JOB_PENDING"),
                hosts=hosts,
                evidence=[
                    Evidence(
                        source,
                        f"job {j.job_id} ({j.name}, {j.user}) PENDING ({j.detail or j.reason})",
                    )
                    for j, _ in blocked[:MAX_EVIDENCE]
                ],
                suggested_commands=_pending_commands([j for j, _ in blocked], hosts),
                count=len(blocked),
                details={"jobs": [_job_details(j, w, now) for j, w in blocked]},
            )
        )
    if waiting:
        findings.append(
            Finding(
                code="SLURM_JOB_PENDING",
                status=Status.WARN,
                priority=Priority.P2,
                title=(
                    f"{len(waiting)} job{'s' if len(waiting) != 1 else ''} pending for over "
                    f"{PENDING_LONG_S // 3600} h: "
                    + "; ".join(
                        f"job {j.job_id} {age // 60} min ({j.reason})" for j, age in waiting[:3]
                    )
                ),
                reference=reference("SLURM_JOB_PENDING"),
                evidence=[
                    Evidence(
                        source,
                        f"job {j.job_id} ({j.name}, {j.user}) PENDING {age // 60} min: {j.reason}",
                    )
                    for j, age in waiting[:MAX_EVIDENCE]
                ],
                suggested_commands=_pending_commands([j for j, _ in waiting], []),
                count=len(waiting),
                details={"jobs": [_job_details(j, j.reason, now) for j, _ in waiting]},
            )
        )
    if not findings:
        findings.append(
            Finding(
                code="SLURM_JOB_PENDING",
                status=Status.PASS,
                priority=Priority.P2,
                title=(
                    f"no job is blocked or pending over {PENDING_LONG_S // 3600} h "
                    f"({len(pending)} pending, {len(jobs)} listed)"
                ),
                reference=reference("SLURM_JOB_PENDING"),
            )
        )
    return findings


def _job_details(job: SlurmJob, why: str, now: int | None) -> dict[str, Any]:
    since = job.eligible_time or job.submit_time
    return {
        "job_id": job.job_id,
        "name": job.name,
        "user": job.user,
        "partition": job.partition,
        "reason": job.reason,
        "detail": job.detail,
        "why": why,
        "submitted": iso_from_epoch(job.submit_time),
        "pending_s": (now - since) if now and since else None,
        "waits_for_nodes": job.unavailable_nodes,
    }


def _pending_commands(jobs: list[SlurmJob], hosts: list[str]) -> list[SuggestedCommand]:
    first = jobs[0].job_id.split("_")[0]
    commands = [
        SuggestedCommand(
            purpose="read the job's requirements and Slurm's reason",
            command=f"scontrol show job {first}; squeue -j {first} -o '%i %T %r %R'",
        )
    ]
    if hosts:
        commands.append(suggestions.inspect(hosts))
    return commands


def _job_groups(snapshot: Snapshot) -> dict[str, list[str]]:
    groups: dict[str, list[str]] = defaultdict(list)
    for name in snapshot.names(SLURM_JOB_OUTPUT_PREFIX):
        group = name.split("/")[2]
        groups[group].append(name)
    return groups


# Beside the log rules' codes, the log engine adds its own: a clean scan, an unreadable input,
# ranks that stalled.
@check(
    "slurm.job_output",
    AREA,
    ["SLURM_JOB_OUTPUT", "NO_FAILURE_SIGNATURE", "INPUT_UNREADABLE", "STALLED_RANKS"],
)
def job_output(snapshot: Snapshot) -> list[Finding]:
    """Job output files through the log rules, root-caused across all ranks of a job."""
    from hyperpod_nccl.log_analysis import (
        analyze_logs,  # the log engine is heavy; load it only here
    )

    findings: list[Finding] = []
    for group, names in sorted(_job_groups(snapshot).items()):
        collected = [n for n in names if snapshot.has(n)]
        label = "given job output" if group == "given" else f"job {group}"
        for name in names:
            if not snapshot.has(name):
                findings.append(
                    Finding(
                        code="SLURM_JOB_OUTPUT",
                        status=Status.INCOMPLETE,
                        priority=Priority.P2,
                        title=f"{label}: {snapshot.items[name].source or name} not read: {snapshot.why_missing(name)}",
                        reference=guide_section("input-unreadable"),
                    )
                )
        if not collected:
            continue
        paths = {str(snapshot.path_of(n)): snapshot.items[n].source or n for n in collected}
        report = analyze_logs(list(paths))
        for finding in report.findings:
            finding.title = f"{label}: {finding.title}"
            finding.evidence = [_renamed(e, paths) for e in finding.evidence]
            finding.details = {**finding.details, "job": group}
            findings.append(finding)
    return findings


def _renamed(evidence: Evidence, paths: dict[str, str]) -> Evidence:
    for temporary, original in paths.items():
        if evidence.source.startswith(temporary):
            original = original.split(" (last ")[0]
            return Evidence(original + evidence.source[len(temporary) :], evidence.text)
    return evidence
