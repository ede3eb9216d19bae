"""`diagnose` for a Slurm cluster seen from one of its hosts (head or login node), without AWS.

`diagnose` without --cluster uses this (api.diagnose), then runs the same analysis as for any
diagnose snapshot: the AWS checks report what they could not check, the Slurm checks run.
"""

from __future__ import annotations

from collections.abc import Sequence

from hyperpod_nccl.collect.runner import LocalRunner
from hyperpod_nccl.collect.slurm import (
    DEFAULT_DEADLINE_S,
    DEFAULT_TIMEOUT_S,
    collect_slurm,
    local_slurm_available,
)
from hyperpod_nccl.exit_codes import InputError
from hyperpod_nccl.snapshot import Snapshot

NO_SLURM_HERE = (
    "no Slurm commands here (sinfo, scontrol, squeue not found on PATH) and no --cluster given: "
    "run on a Slurm head or login node, or give --cluster and --region"
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
