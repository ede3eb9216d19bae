"""The rules added for the launch plumbing, node health and other programs' own failure lines
(fresh70-fresh78's misses: Slurm, MUNGE, Open MPI/PMIx, Flux, XLA, TF, NGC, DCGM, logind, the
kubelet, bash, Go loggers) read messages a healthy run does not print: none of them counts on
a line of the real healthy job logs (tests/fixtures/logs/healthy) nor of any corpus case
labelled HEALTHY. Each rule's real failing lines are the blind sets' cases and the catalog's
examples (tests/logs/test_blind_corpora.py, test_catalog.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from rule_cases import ENGINES, fired_on_healthy, fired_on_healthy_cases

from hyperpod_nccl.api import analyze_logs

RULES = {
    "launcher-exit-report-unclassified",
    "slurm-fatal-unclassified",
    "slurm-request-unsatisfiable",
    "slurm-daemon-failed",
    "logind-power-key",
    "ngc-container-driver-check",
    "xla-kv-get-timeout",
    "xla-nccl-library-missing",
    "tf-collective-group-incarnation",
    "mpi-runtime-init-failed",
    "flux-job-stopped",
    "flux-job-exception",
    "cgroup-write-no-space",
    "dcgm-health-code",
    "logger-fatal-unclassified",
    "kubelet-admission-error",
    "shell-command-missing",
    "sglang-scheduler-watchdog",
    "vllm-shm-broadcast-wait",
    "grpc-connect-failed",
    "cuda-device-assert",
    "nccl-topology-gpu-not-found",
    "kueue-admission-pending",
    "go-unknown-flag",
    "jax-cuda-backend-unavailable",
    "ssh-failed",
}


@pytest.mark.parametrize("engine", ENGINES)
def test_silent_on_the_real_healthy_job_logs(engine: str) -> None:
    assert fired_on_healthy(RULES, engine) == []


@pytest.mark.parametrize("engine", ENGINES)
def test_silent_on_every_healthy_corpus_case(engine: str) -> None:
    assert fired_on_healthy_cases(RULES, engine) == []


# c10d's store barrier (torch/distributed/distributed_c10d.py): a wait fires on healthy runs too
# while slow ranks arrive; the same log's 'Completed store-based barrier' settles it.
# github.com/huggingface/accelerate/issues/1401 (fresh83 cl004) and lightning-flash (fresh87
# cp006).
WAITING = (
    "05/10/2023 23:07:45 - INFO - torch.distributed.distributed_c10d - Waiting in store based "
    "barrier to initialize process group for rank: 0, key: store_based_barrier_key:1 "
    "(world_size=8, worker_count=1, timeout=0:30:00)"
)
COMPLETED = (
    "02/21/2022 13:46:15 - INFO - torch.distributed.distributed_c10d -   Rank 0: Completed "
    "store-based barrier for key:store_based_barrier_key:1 with 8 nodes."
)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_store_barrier_still_waiting_is_the_warning_root(engine: str, tmp_path: Path) -> None:
    log = tmp_path / "rank0.log"
    log.write_text(WAITING + "\n" + WAITING + "\n", "utf-8")
    report = analyze_logs([str(log)], backend=engine).to_dict()
    assert report["root_cause"] == "RENDEZVOUS_FAILURE"
    statuses = {f["code"]: f["status"] for f in report["findings"]}
    assert statuses["RENDEZVOUS_FAILURE"] == "WARN"


@pytest.mark.parametrize("engine", ENGINES)
def test_a_store_barrier_the_log_shows_completed_is_no_failure(engine: str, tmp_path: Path) -> None:
    log = tmp_path / "rank0.log"
    log.write_text(WAITING + "\n" + COMPLETED + "\n", "utf-8")
    report = analyze_logs([str(log)], backend=engine).to_dict()
    assert report["root_cause"] is None
    assert not [f for f in report["findings"] if f["status"] in ("FAIL", "WARN")]
