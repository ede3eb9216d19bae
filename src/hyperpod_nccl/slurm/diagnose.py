"""`diagnose` for a Slurm cluster seen from one of its hosts (head or login node), without AWS:
collect the local Slurm, run the Slurm checks, and say what was not checked.

`diagnose --orchestrator slurm` without --cluster uses this; with --cluster the AWS side is
collected first and `collect_slurm` adds the Slurm items to the same snapshot.
"""

from __future__ import annotations

from collections.abc import Sequence

from hyperpod_nccl.checks import run_checks
from hyperpod_nccl.collect.runner import LocalRunner
from hyperpod_nccl.collect.slurm import (
    DEFAULT_DEADLINE_S,
    DEFAULT_TIMEOUT_S,
    collect_slurm,
    local_slurm_available,
)
from hyperpod_nccl.exit_codes import InputError
from hyperpod_nccl.model import Finding, NotChecked, Priority, Report, Status
from hyperpod_nccl.snapshot import Snapshot

NO_SLURM_HERE = (
    "no Slurm commands here (sinfo, scontrol, squeue not found on PATH) and no --cluster given: "
    "run on a Slurm head or login node, or give --cluster and --region"
)
AWS_NOT_CHECKED = [
    NotChecked(
        "aws", "no --cluster given: HyperPod cluster, node health and network checks not run"
    ),
    NotChecked(
        "node probes",
        "no --cluster given: GPUs, EFA and limits on the compute nodes not probed over SSM",
    ),
]
# Which failure to name as the root cause when no log explains more: the controller first,
# then what takes nodes away, then what degrades jobs.
_ROOT_ORDER = (
    "SLURMCTLD_DOWN",
    "SLURM_MUNGE_FAILED",
    "SLURM_NODE_NOT_RESPONDING",
    "SLURM_NODE_DOWN",
    "SLURM_NODE_FAIL",
    "SLURM_NODE_INVALID",
    "SLURM_NODE_DRAIN",
)


def collect_local_slurm(
    *,
    job_ids: Sequence[str] = (),
    job_outputs: Sequence[str] = (),
    timeout_s: float = DEFAULT_TIMEOUT_S,
    deadline_s: float = DEFAULT_DEADLINE_S,
) -> Snapshot:
    """A snapshot of the Slurm this host can query; InputError when it has no Slurm commands."""
    if not local_slurm_available():
        raise InputError(NO_SLURM_HERE)
    snapshot = Snapshot(meta={"command": "diagnose", "orchestrator": "slurm", "cluster": None})
    collect_slurm(
        snapshot,
        LocalRunner(),
        job_ids=job_ids,
        job_outputs=job_outputs,
        timeout_s=timeout_s,
        deadline_s=deadline_s,
    )
    return snapshot


def slurm_report(snapshot: Snapshot, not_checked: Sequence[NotChecked] = ()) -> Report:
    """Run the Slurm checks on a snapshot (live or a replayed bundle) and name a root cause."""
    findings = run_checks(snapshot, ["slurm"])
    _name_root_cause(findings)
    return Report(
        command="diagnose",
        findings=findings,
        not_checked=list(not_checked),
        summary={"orchestrator": "slurm", "host": _host(snapshot)},
    )


def _host(snapshot: Snapshot) -> str | None:
    context = snapshot.get_json("slurm/context.json")
    return str(context.get("host")) if isinstance(context, dict) else None


def _name_root_cause(findings: list[Finding]) -> None:
    """Keep a root cause the job's logs named; else the most basic Slurm failure."""
    if any(f.root_cause for f in findings):
        return
    failures = [f for f in findings if f.status is Status.FAIL]
    for code in _ROOT_ORDER:
        match = next((f for f in failures if f.code == code), None)
        if match is not None:
            match.root_cause = True
            return
    p0 = next((f for f in failures if f.priority is Priority.P0), None)
    if p0 is not None:
        p0.root_cause = True
