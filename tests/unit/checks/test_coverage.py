"""Every registered check has unit cases here: at least one where it fails or warns and one
where it passes or skips. A new check must bring its cases (and its small fixtures)."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest
from cases import SNAPSHOTS, Case, Want, declared_codes, run_case

from hyperpod_nccl.checks import load_checks
from hyperpod_nccl.model import Status

INFO, INCOMPLETE, SKIP = Status.INFO, Status.INCOMPLETE, Status.SKIPPED

HERE = Path(__file__).parent
# Checks whose cases are still to be written (with what each lacks). The list only shrinks: a
# check that gains both cases must leave it, and a new check can never join it.
PENDING = {
    # No real capture shows these failing yet (the cases that exist pass or skip):
    "node.gpudirect": "a failing case: no captured EFA node with the NVIDIA driver and its modules",
    "node.topology": "a failing case: no captured topo -m with GPU pairs lacking NVLink",
    "node.versions": "a failing case: no captured node whose ranks load two NCCL versions",
}


# Checks that only report (INFO, INCOMPLETE) or skip: they cannot fail or warn, so their cases are
# one that reports and one that skips.
NEVER_FAILS = {
    "env.memlock": "EFA pods without IPC_LOCK rely on the node runtime's limit (INFO)",
    "node.mtu": "inventory (INFO)",
    "node.numa": "inventory (INFO)",
    "node.reachability": "nodes not reached (INCOMPLETE), or none tried (SKIPPED)",
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
    reporting = {c.check for c in cases if {w.status for w in c.wants} & {INFO, INCOMPLETE}}
    skipping = {c.check for c in cases if any(w.status is SKIP for w in c.wants)}
    assert not set(NEVER_FAILS) & failing, "a check with a failing case leaves NEVER_FAILS"
    assert set(NEVER_FAILS) <= reporting & skipping, "NEVER_FAILS: a reporting and a skipped case"
    lacking = registered - (failing & other) - set(NEVER_FAILS)
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
