"""Slurm checks: controller and munge, node states, pending jobs, limit propagation, task plugin,
job-script environment, RemoveIPC and job output. They read only the `slurm/` items that
`hyperpod_nccl.collect.slurm` wrote (and SageMaker node lists under `aws/` when present).

Each concern lives in its own module, checks/slurm_*.py (the parsing they share stays in
`hyperpod_nccl.slurm`); importing them here registers
their checks (area "slurm") when the check registry loads this module.
"""

from __future__ import annotations

from hyperpod_nccl.checks import (  # noqa: F401  (imported to register the checks)
    slurm_config,
    slurm_controller,
    slurm_jobs,
    slurm_nodes,
    slurm_removeipc,
)
from hyperpod_nccl.checks.slurm_data import AREA, load_jobs, load_nodes

__all__ = ["AREA", "load_jobs", "load_nodes"]
