"""The rules added for the launch plumbing, node health and other programs' own failure lines
(fresh70-fresh78's misses: Slurm, MUNGE, Open MPI/PMIx, Flux, XLA, TF, NGC, DCGM, logind, the
kubelet, bash, Go loggers) read messages a healthy run does not print: none of them counts on
a line of the real healthy job logs (tests/fixtures/logs/healthy) nor of any corpus case
labelled HEALTHY. Each rule's real failing lines are the blind sets' cases and the catalog's
examples (tests/logs/test_blind_corpora.py, test_catalog.py)."""

from __future__ import annotations

import io
import json

import pytest
from logmix import CORPORA
from rule_cases import ENGINES, fired_on_healthy

from hyperpod_nccl.rules.analyzer import LogAnalyzer
from hyperpod_nccl.rules.catalog import load_catalog

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
    "c10d-store-barrier-waiting",
    "kueue-admission-pending",
    "go-unknown-flag",
}


def _healthy_cases() -> list[tuple[str, str]]:
    cases = []
    for path in CORPORA:
        for line in path.read_text("utf-8").splitlines():
            if line.strip():
                case = json.loads(line)
                if case["label"] == "HEALTHY":
                    cases.append((case["id"], case["log"]))
    return cases


@pytest.mark.parametrize("engine", ENGINES)
def test_silent_on_the_real_healthy_job_logs(engine: str) -> None:
    assert fired_on_healthy(RULES, engine) == []


@pytest.mark.parametrize("engine", ENGINES)
def test_silent_on_every_healthy_corpus_case(engine: str) -> None:
    catalog = load_catalog()
    cases = _healthy_cases()
    assert len(cases) > 300
    fired = []
    for case_id, log in cases:
        verdicts = LogAnalyzer(catalog, backend=engine).line_verdicts(io.BytesIO(log.encode()))
        hits = {rule for rule, _ in verdicts.values()} & RULES
        if hits:
            fired.append((case_id, hits))
    assert fired == []
