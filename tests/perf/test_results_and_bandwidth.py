"""WRONG_RESULTS, TEST_FAILED and LOW_BUSBW on real nccl-tests outputs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest


def test_wrong_values_are_a_p0_data_corruption_finding(cli: Any, perf: Any) -> None:
    result = cli("perf", perf.root / "wrong-results-1node-derived.txt", "--format", "json")
    (finding,) = result.findings("WRONG_RESULTS")
    assert (finding["status"], finding["priority"], finding["root_cause"]) == ("FAIL", "P0", True)
    assert finding["hosts"] == ["{hostname}"]
    assert finding["details"]["wrong_values"] == 2048
    assert finding["details"]["rows"] == [536870912]
    assert finding["details"]["out_of_bounds"] == 2048
    assert any("2048 FAILED" in e["text"] for e in finding["evidence"])
    assert result.json()["issues_found"] == 1


def test_no_wrong_values_pass_and_unchecked_runs_are_skipped(cli: Any, perf: Any) -> None:
    healthy = cli(
        "perf",
        perf.nccl_tests / "a100-sxm4-80gb-1node-8gpu-allreduce-healthy.txt",
        "--format",
        "json",
    )
    assert [f["status"] for f in healthy.findings("WRONG_RESULTS")] == ["PASS"]
    old = cli(
        "perf",
        perf.nccl_tests / "p4dn-1to4node-efa-allreduce-scaling-drop-low-busbw.txt",
        "--format",
        "json",
    )
    # The old `error` column is a rounding error, not a count: not called wrong results.
    assert [f["status"] for f in old.findings("WRONG_RESULTS")] == ["SKIPPED"]


@pytest.mark.parametrize(
    ("fixture", "hosts", "text"),
    [
        (
            "test-nccl-failure-internal-error-2node-rtx-a6000.txt",
            ["fengyun", "fengyun416"],
            "internal error",
        ),
        ("test-nccl-failure-rtx4090-unindented-rows.txt", ["c2211f46f318"], "unhandled CUDA error"),
        ("nccl1-old-layout-unhandled-cuda-error.txt", ["node03"], "unhandled cuda error"),
        ("mpirun-not-enough-slots-failed-launch.txt", [], "not enough slots"),
    ],
)
def test_failed_runs(cli: Any, perf: Any, fixture: str, hosts: list[str], text: str) -> None:
    result = cli("perf", perf.nccl_tests / fixture, "--format", "json", "--fail-on", "P0")
    (finding,) = result.findings("TEST_FAILED")
    assert (finding["status"], finding["priority"]) == ("FAIL", "P0")
    assert finding["hosts"] == hosts
    assert text in finding["title"]
    assert finding["reference"] == "performance-testing.md#test-failed"
    assert result.code == 3  # --fail-on P0


def test_failure_after_rows_names_every_failing_host(cli: Any, perf: Any) -> None:
    result = cli(
        "perf",
        perf.nccl_tests / "test-nccl-failure-unhandled-cuda-after-16G-rows.txt",
        "--format",
        "json",
    )
    (finding,) = result.findings("TEST_FAILED")
    assert finding["status"] == "FAIL"
    assert {"HCA-107", "HCA-108", "HCA-128"} <= set(finding["hosts"])


def test_hung_run_is_a_p1_failure_that_says_where_it_stopped(cli: Any, perf: Any) -> None:
    result = cli(
        "perf",
        perf.nccl_tests / "a100-2node-ib-hang-with-nccl-info-partial.txt",
        "--format",
        "json",
    )
    (finding,) = result.findings("TEST_FAILED")
    assert (finding["status"], finding["priority"]) == ("FAIL", "P1")
    assert finding["hosts"] == ["lascar", "ranokau"]
    assert finding["details"]["hung"] is True
    assert "before the result table" in finding["details"]["stopped"]


def test_output_without_footer_or_plan_is_incomplete_not_failed(cli: Any, perf: Any) -> None:
    result = cli(
        "perf",
        perf.nccl_tests / "p4de-24xlarge-2node-efa-allreduce-slurm-healthy-noheader.txt",
        "--format",
        "json",
    )
    (finding,) = result.findings("TEST_FAILED")
    assert (finding["status"], finding["priority"]) == ("INCOMPLETE", "P2")
    assert result.json()["issues_found"] == 0


def test_bandwidth_collapse_at_large_sizes(cli: Any, perf: Any) -> None:
    result = cli(
        "perf",
        perf.nccl_tests / "allreduce-bandwidth-collapse-above-64MB-partial.txt",
        "--format",
        "json",
    )
    (finding,) = [f for f in result.findings("LOW_BUSBW") if f["status"] == "FAIL"]
    assert finding["details"]["peak_size"] == 33554432
    assert finding["details"]["large_busbw"] == pytest.approx(5.32)
    assert "64 MiB" in finding["title"]


def test_against_the_guide_figure_for_the_instance_type(cli: Any, perf: Any) -> None:
    p5 = perf.nccl_tests / "p5-48xlarge-2node-efa-allreduce-slurm-healthy-noheader.txt"
    ok = cli("perf", p5, "--instance-type", "p5.48xlarge", "--format", "json")
    assert [f["status"] for f in ok.findings("LOW_BUSBW")] == ["PASS"]
    # The same run judged as if it were from a p4de is far above that figure; a p4de run judged
    # against the p5 figure is far below it.
    p4de = perf.nccl_tests / "p4de-24xlarge-2node-efa-allreduce-slurm-healthy-noheader.txt"
    low = cli("perf", p4de, "--instance-type", "p5.48xlarge", "--format", "json")
    (finding,) = [f for f in low.findings("LOW_BUSBW") if f["status"] == "FAIL"]
    assert finding["details"]["expected_busbw"] == 487.0
    assert finding["details"]["measured_busbw"] == pytest.approx(78.33)
    assert finding["details"]["figure_source"] == "performance-testing.md#expected-bandwidth"
    assert "field observation" in finding["details"]["figure_status"]


def test_instance_type_inferred_from_the_gpu_model(cli: Any, perf: Any) -> None:
    result = cli(
        "perf",
        perf.nccl_tests / "a100-sxm4-80gb-2node-16gpu-allreduce-pairwise-healthy.txt",
        "--format",
        "json",
    )
    (finding,) = result.findings("LOW_BUSBW")
    assert finding["status"] == "PASS"
    assert "p4de.24xlarge" in finding["details"]["runs"][0]
    assert "does not show the transport" in finding["details"]["runs"][0]


def test_against_your_own_baseline(cli: Any, perf: Any) -> None:
    run = perf.nccl_tests / "p4de-24xlarge-2node-efa-allreduce-slurm-healthy-noheader.txt"
    low = cli("perf", run, "--expected-busbw", "100", "--format", "json")
    (finding,) = low.findings("LOW_BUSBW")
    assert finding["status"] == "FAIL"
    assert finding["details"]["ratio"] == pytest.approx(78.33 / 100, abs=0.001)
    ok = cli("perf", run, "--expected-busbw", "80", "--format", "json")
    assert [f["status"] for f in ok.findings("LOW_BUSBW")] == ["PASS"]


def test_no_figure_says_why(cli: Any, perf: Any) -> None:
    result = cli(
        "perf",
        perf.nccl_tests / "h100-64gpu-8node-ib-sharp-allreduce-healthy-coreweave.txt",
        "--format",
        "json",
    )
    (finding,) = result.findings("LOW_BUSBW")
    assert finding["status"] == "SKIPPED"
    assert "instance type unknown" in finding["title"]


def test_socket_transport_on_an_efa_instance_is_low(cli: Any, perf: Any, tmp_path: Path) -> None:
    table = (
        perf.nccl_tests / "a100-sxm4-80gb-2node-16gpu-allreduce-pairwise-healthy.txt"
    ).read_text()
    info = (
        perf.root / "nccl-debug" / "multinode-socket-fallback-channels-via-net-socket.txt"
    ).read_text()
    path = tmp_path / "socket.log"
    path.write_text(info + table)
    result = cli("perf", path, "--format", "json")
    (finding,) = result.findings("LOW_BUSBW")
    assert finding["status"] == "FAIL"
    assert finding["details"]["transport"] == "socket"
