"""The one ranker, on small sets of findings as every path makes them: state findings
(the default basis), log findings (roles, rule-level explanations, order of events) and
perf findings, all over the registry's cause graph."""

from __future__ import annotations

from datetime import datetime

from hyperpod_nccl import root_cause
from hyperpod_nccl.model import Basis, Finding, Priority, Status


def _f(code: str, status: Status = Status.FAIL, **basis: object) -> Finding:
    return Finding(code, status, Priority.P0, code.lower(), basis=Basis(**basis))  # type: ignore[arg-type]


def _root(findings: list[Finding]) -> str | None:
    root_cause.rank(findings)
    return next((f.code for f in findings if f.root_cause), None)


def test_a_slurm_node_down_explains_the_jobs_timeouts() -> None:
    timeout = _f("NCCL_TIMEOUT", roles=frozenset({"symptom"}))
    down = _f("SLURM_NODE_DOWN")
    findings = [timeout, down]
    assert _root(findings) == "SLURM_NODE_DOWN"
    assert down.explains == ["NCCL_TIMEOUT"]
    assert timeout.explained_by == ["SLURM_NODE_DOWN"]


def test_an_efa_request_mismatch_explains_the_tcp_fallback_under_another_root() -> None:
    sg = _f("SG_SELF_REFERENCE_MISSING")
    count = _f("EFA_COUNT_MISMATCH")
    fallback = _f("EFA_TCP_FALLBACK")
    findings = [fallback, count, sg]
    assert _root(findings) == "SG_SELF_REFERENCE_MISSING"
    assert fallback.explained_by == ["EFA_COUNT_MISMATCH"]
    assert count.explained_by == []


def test_advisories_and_access_gaps_are_never_the_root_cause() -> None:
    findings = [_f("IAM_PERMISSION_MISSING"), _f("K8S_WRONG_CONTEXT"), _f("NCCL_TIMEOUT")]
    assert _root(findings) == "NCCL_TIMEOUT"


def test_nothing_failing_and_nothing_warned_is_no_root_cause() -> None:
    assert _root([_f("NO_FAILURE_SIGNATURE", Status.PASS)]) is None
    assert _root([_f("NODE_CENSUS", Status.WARN)]) is None


def test_a_stalled_rank_or_an_application_xid_is_named_when_nothing_fails() -> None:
    assert _root([_f("STALLED_RANKS", Status.WARN)]) == "STALLED_RANKS"
    assert _root([_f("GPU_XID", Status.WARN), _f("STALLED_RANKS", Status.WARN)]) == "GPU_XID"
    # a rank behind in COLL traces that merely end where the log was cut is only a lead
    assert _root([_f("STALLED_RANKS", Status.WARN, roles=frozenset({"symptom"}))]) is None
    # and a warning never outranks a failure
    assert _root([_f("STALLED_RANKS", Status.WARN), _f("NCCL_TIMEOUT")]) == "NCCL_TIMEOUT"


def test_evidence_explained_at_rule_level_neither_explains_nor_is_root() -> None:
    # a peer reset whose rule says an OOM kill explains it, next to an OOM kill
    reset = _f("PEER_EXITED", rule_explainers=(frozenset({"CONTAINER_OOM"}),))
    assert _root([reset, _f("CONTAINER_OOM")]) == "CONTAINER_OOM"
    # the same rule with another rule's unexplained evidence stays active
    mixed = _f("PEER_EXITED", rule_explainers=(frozenset({"CUDA_OOM"}), frozenset()))
    assert _root([mixed, _f("CUDA_OOM", roles=frozenset({"symptom"}))]) == "CUDA_OOM"


def test_a_watchdog_stuck_after_a_timeout_is_its_symptom_not_the_reverse() -> None:
    hang = _f("WATCHDOG_HANG", follows=frozenset({"NCCL_TIMEOUT"}))
    timeout = _f("NCCL_TIMEOUT")
    findings = [hang, timeout]
    assert _root(findings) == "NCCL_TIMEOUT"
    assert hang.explained_by == ["NCCL_TIMEOUT"]


def test_weak_evidence_does_not_explain_a_cause_line() -> None:
    versions = _f("NCCL_VERSION_MISMATCH", roles=frozenset({"weak"}))
    crash = _f("RANK_CRASH")
    assert _root([versions, crash]) == "RANK_CRASH"


def test_earlier_cause_wins_over_a_deeper_tier_when_both_are_timed() -> None:
    early = _f("CUDA_OOM", time=datetime(2026, 1, 1, 10, 0, 0))
    late = _f("GPU_ECC", time=datetime(2026, 1, 1, 10, 5, 0))
    assert _root([late, early]) == "CUDA_OOM"
    untimed = _f("GPU_ECC")
    assert _root([_f("CUDA_OOM", time=datetime(2026, 1, 1)), untimed]) == "GPU_ECC"


def test_perf_order_wrong_results_then_usage_then_failed_tests_then_stragglers() -> None:
    def perf(code: str, priority: Priority) -> Finding:
        return Finding(code, Status.FAIL, priority, code)

    assert (
        _root([perf("LOW_BUSBW", Priority.P1), perf("WRONG_RESULTS", Priority.P0)])
        == "WRONG_RESULTS"
    )
    assert (
        _root([perf("TEST_FAILED", Priority.P1), perf("NCCL_INVALID_USAGE", Priority.P0)])
        == "NCCL_INVALID_USAGE"
    )
    slow, low = perf("STRAGGLER_NODE", Priority.P1), perf("LOW_BUSBW", Priority.P1)
    assert _root([low, slow]) == "STRAGGLER_NODE"
    assert low.explained_by == ["STRAGGLER_NODE"]


def test_failures_whose_rules_explain_each_other_still_name_a_root_cause() -> None:
    # A store client failed (its rule: explained by the training code's error) and the rank
    # exited 1 (its rule: explained by the rendezvous failure): github.com/pytorch/pytorch
    # store-barrier timeout, tests/fixtures/corpus/fresh31.jsonl ak012.
    store = _f(
        "RENDEZVOUS_FAILURE",
        roles=frozenset({"symptom"}),
        rule_explainers=(frozenset({"APP_EXCEPTION"}),),
    )
    exit_one = _f(
        "APP_EXCEPTION",
        roles=frozenset({"symptom"}),
        rule_explainers=(frozenset({"RENDEZVOUS_FAILURE"}),),
    )
    assert _root([exit_one, store]) is not None
