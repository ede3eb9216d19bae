"""Every registered check has unit cases here: at least one where it fails or warns and one
where it passes or skips. A new check must bring its cases (and its small fixtures)."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest
from cases import SNAPSHOTS, Case, Want, declared_codes, run_case

from hyperpod_nccl.checks import load_checks
from hyperpod_nccl.model import Status

HERE = Path(__file__).parent
# Checks whose cases are still to be written (with what each lacks). The list only shrinks: a
# check that gains both cases must leave it, and a new check can never join it.
PENDING = {
    "env.memlock": "a failing case",
    "kubernetes.efa-device-plugin": "a failing case",
    "kubernetes.nvidia-device-plugin": "a failing case",
    "logs.scan": "both",
    **{
        f"node.{name}": "both"
        for name in [
            "cross_node",
            "dcgm",
            "efa",
            "firewall",
            "gpu_ecc",
            "gpu_inventory",
            "gpudirect",
            "limits",
            "mtu",
            "numa",
            "nvlink",
            "ofi_nccl",
            "pci_acs",
            "ras",
            "reachability",
            "removeipc",
            "shm",
            "stale_shm",
            "topology",
            "versions",
            "xid",
        ]
    },
}


def all_cases() -> list[Case]:
    cases: list[Case] = []
    for path in sorted(HERE.glob("test_*.py")):
        if path.stem != "test_coverage":
            cases.extend(importlib.import_module(path.stem).CASES)
    return cases


def test_every_registered_check_has_a_failing_and_a_passing_case() -> None:
    cases = all_cases()
    registered = set(load_checks())
    failing = {c.check for c in cases if c.failing}
    other = {c.check for c in cases if not c.failing}
    assert not {c.check for c in cases} - registered, "cases for checks that do not exist"
    lacking = registered - (failing & other)
    new = sorted(lacking - set(PENDING))
    assert not new, f"checks without both a failing and a passing/skipped case: {new}"
    done = sorted(set(PENDING) - lacking)
    assert not done, f"these have their cases now; take them off PENDING: {done}"


def test_every_fixture_is_used() -> None:
    used = {c.fixture for c in all_cases()}
    present = {
        p.relative_to(SNAPSHOTS).with_suffix("").as_posix() for p in SNAPSHOTS.rglob("*.json")
    }
    assert present - used == set()


def test_a_case_fails_on_a_wrong_status_and_on_an_unwanted_finding() -> None:
    # The harness itself: the cluster.status case of a healthy cluster, told the wrong thing.
    with pytest.raises(AssertionError, match="not found"):
        run_case(
            Case("cluster.status", "cluster/healthy", [Want("CLUSTER_NOT_INSERVICE", Status.FAIL)])
        )
    with pytest.raises(AssertionError, match="findings not wanted"):
        run_case(Case("cluster.nodes", "cluster/healthy", [Want("NODE_CENSUS", Status.INFO)]))


def test_only_checks_that_run_the_log_engine_may_emit_the_log_rules_codes() -> None:
    assert "CUDA_OOM" in declared_codes("logs.scan")
    assert "CUDA_OOM" in declared_codes("slurm.job_output")
    assert "CUDA_OOM" not in declared_codes("pods.status")
    assert declared_codes("slurm.munge") == {"SLURM_MUNGE_FAILED"}
