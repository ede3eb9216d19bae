"""How many SSM sessions does the Slurm side of one `diagnose` start on the controller?

Runs `diagnose --cluster` twice in this same run against the test stand-ins (moto for AWS, the
real Slurm on loopback reached through stand-in `aws` and session-manager-plugin that relay each
session's command to this machine; scripts/services-up.sh starts Slurm):

  baseline: one session per Slurm command (batching turned off: the tool before batches)
  ours:     batched sessions (collect/slurm_ssm.py: a first one to see the controller answer,
            one for every command known up front, one each for the files they name)

and prints the controller sessions of each, their ratio, and the wall time of each diagnose.
Usage: python benchmarks/slurm_ssm_sessions.py
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "eks"))
sys.path.insert(0, str(ROOT / "tests" / "slurm"))
sys.path.append(str(ROOT / "tests" / "integration"))

from aws_server import moto_server  # noqa: E402
from seams import install_fake_ssm, slurm_cluster, slurm_held  # noqa: E402

from hyperpod_nccl import api  # noqa: E402
from hyperpod_nccl.collect import slurm_ssm  # noqa: E402


def one_diagnose(moto: Any, batch: bool) -> tuple[int, float, str | None]:
    """Controller sessions, seconds, and the root cause of one diagnose."""
    with tempfile.TemporaryDirectory() as tmp, pytest.MonkeyPatch.context() as patch:
        cluster = slurm_cluster(moto, patch)
        ssm = install_fake_ssm(Path(tmp), patch)
        if not batch:
            patch.setattr(slurm_ssm.SsmSlurmRunner, "prefetch", lambda *_a, **_k: None)
        started = time.perf_counter()
        report = api.diagnose(cluster=cluster.world.cluster_name, sample_nodes=1)
        elapsed = time.perf_counter() - started
        controller = cluster.target("controller-machine", cluster.controller)
        root = report.root_cause.code if report.root_cause else None
        return ssm.targets().count(controller), elapsed, root


def main() -> int:
    with moto_server() as moto, slurm_held():
        before, before_s, root_before = one_diagnose(moto, batch=False)
        after, after_s, root_after = one_diagnose(moto, batch=True)
    print(f"baseline (one session per command): {before} sessions, {before_s:.2f} s")
    print(f"ours (batched):                     {after} sessions, {after_s:.2f} s")
    print(f"same root cause: {root_before == root_after} ({root_after})")
    print(f"ratio_sessions={after / before:.3f} ratio_time={after_s / before_s:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
