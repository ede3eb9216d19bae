"""Run the probe batch on a Slurm node with `srun -w <node> -N1 -n1`.

Without a job id, srun asks for a new allocation; `--immediate` makes it give up instead of
queueing behind the training job that holds the node. With `job_id`, the probe runs as an extra
step of that job (`--jobid <id> --overlap`), which is how to look at nodes a job owns.
"""

from __future__ import annotations

import math
import re
import shutil

from hyperpod_nccl.collect.transports.base import Transport, TransportError
from hyperpod_nccl.probes.batch import BatchScript

_NODE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
_JOB = re.compile(r"^\d{1,12}$")


def validate_node(node: str) -> str:
    if not isinstance(node, str) or not _NODE.fullmatch(node):
        raise TransportError(f"not a valid Slurm node name: {node!r}")
    return node


class SlurmTransport(Transport):
    name = "slurm"

    def __init__(
        self,
        job_id: str | None = None,
        srun: str = "srun",
        immediate_s: int = 30,
        time_limit_s: int = 600,
    ) -> None:
        if job_id is not None and not _JOB.fullmatch(str(job_id)):
            raise TransportError(f"not a valid Slurm job id: {job_id!r}")
        self.job_id = str(job_id) if job_id is not None else None
        self.srun = srun
        self.immediate_s = int(immediate_s)
        self.time_limit_min = max(1, math.ceil(time_limit_s / 60))

    def preflight(self) -> str | None:
        if shutil.which(self.srun) is None:
            return f"{self.srun} is not on PATH: run from a Slurm login or controller node"
        return None

    def _argv(self, node: str, script: BatchScript) -> list[str]:
        argv = [
            self.srun,
            f"--nodelist={validate_node(node)}",
            "--nodes=1",
            "--ntasks=1",
            "--quiet",
            "--job-name=hyperpod-nccl-probe",
            f"--time={self.time_limit_min}",
        ]
        if self.job_id:
            argv += [f"--jobid={self.job_id}", "--overlap"]
        else:
            argv.append(f"--immediate={self.immediate_s}")
        return [*argv, "sh", "-c", script.text]

    def _failure(self, returncode: int, stdout: str, stderr: str) -> str:
        lines = [ln.strip() for ln in stderr.splitlines() if ln.strip()]
        errors = [ln for ln in lines if "error" in ln.lower()]
        return (errors or lines or [f"srun exited with status {returncode}"])[-1]
