"""The perf command line: formats, exit codes, and inputs that are damaged or not nccl-tests."""

from __future__ import annotations

import gzip
import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest


def test_json_report_follows_the_contract(cli: Any, perf: Any) -> None:
    result = cli("perf", perf.pair_sweep, "--format", "json")
    doc = result.json()
    assert doc["schema"] == "hyperpod-nccl/report/v1"
    assert doc["command"] == "perf"
    assert doc["issues_found"] == sum(1 for f in doc["findings"] if f["status"] == "FAIL")
    for finding in doc["findings"]:
        for key in (
            "code",
            "status",
            "priority",
            "title",
            "root_cause",
            "explains",
            "ranks",
            "hosts",
            "first_seen",
            "evidence",
            "reference",
            "suggested_commands",
        ):
            assert key in finding, key
        if finding["status"] == "FAIL":
            assert finding["reference"] and finding["reference"].startswith(
                "performance-testing.md#"
            )
    assert doc["summary"]["runs_found"] == 12
    assert len(doc["summary"]["runs"][0]["rows"]) == 6


def test_markdown_report_has_the_node_table(cli: Any, perf: Any) -> None:
    result = cli("perf", perf.pair_sweep, "--format", "markdown")
    assert result.out.startswith("# hyperpod-nccl perf report")
    assert "| ip-10-1-0-16 | 3 |" in result.out and "**straggler**" in result.out
    assert "## Runs" in result.out


def test_text_report_ends_with_issues_found(cli: Any, perf: Any) -> None:
    result = cli("perf", perf.pair_sweep)
    lines = result.out.rstrip("\n").splitlines()
    assert lines[-1] == "Issues Found: 1"
    assert any(line.startswith("[FAIL] P1 STRAGGLER_NODE: ip-10-1-0-16") for line in lines)
    assert "Nodes (busbw at large sizes, GB/s):" in result.out


def test_fail_on_turns_findings_into_exit_3(cli: Any, perf: Any) -> None:
    assert cli("perf", perf.pair_sweep, "--fail-on", "P1").code == 3
    assert cli("perf", perf.pair_sweep, "--fail-on", "P0").code == 0


def test_html_for_perf_and_the_other_report_commands(cli: Any, perf: Any) -> None:
    ok = cli("perf", perf.pair_sweep, "--format", "html")
    assert ok.code == 0 and ok.out.startswith("<!DOCTYPE html>")
    assert 'id="chart-busbw"' in ok.out or 'id="chart-pairs"' in ok.out
    logs = cli("logs", perf.pair_sweep, "--format", "html")
    assert logs.code == 0 and logs.out.startswith("<!DOCTYPE html>")
    assert "<title>hyperpod-nccl logs report</title>" in logs.out
    assert 'id="chart-busbw"' not in logs.out  # perf's charts are perf's


def test_output_file(cli: Any, perf: Any, tmp_path: Path) -> None:
    target = tmp_path / "report.html"
    result = cli("perf", perf.pair_sweep, "--format", "html", "-o", target)
    assert result.code == 0 and result.out == ""
    assert target.read_text().startswith("<!DOCTYPE html>")
    assert oct(target.stat().st_mode & 0o777) != "0o600"  # not left private like a temp file
    missing = cli("perf", perf.pair_sweep, "-o", tmp_path / "no-such-dir" / "r.txt")
    assert missing.code == 2 and missing.err.strip().startswith("error: --output: directory")


def test_gzip_and_stdin(
    cli: Any, perf: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    raw = (perf.nccl_tests / "two-node-pair-sweep-slow-node-se02gn644.txt").read_bytes()
    gz = tmp_path / "sweep.txt.gz"
    gz.write_bytes(gzip.compress(raw))
    assert [
        f["hosts"]
        for f in cli("perf", gz, "--format", "json").findings("STRAGGLER_NODE")
        if f["status"] == "FAIL"
    ] == [["se02gn644"]]
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(raw)))
    from_stdin = cli("perf", "-", "--format", "json")
    assert [f["hosts"] for f in from_stdin.findings("STRAGGLER_NODE") if f["status"] == "FAIL"] == [
        ["se02gn644"]
    ]


def test_nccl_tests_json_output(cli: Any, perf: Any) -> None:
    result = cli("perf", perf.root / "nccl-tests-json" / "allreduce-2node.json", "--format", "json")
    (run,) = result.json()["summary"]["runs"]
    assert run["collective"] == "all_reduce" and run["status"] == "completed"
    assert run["hosts"] == ["ip-10-1-0-21", "ip-10-1-0-22"]
    assert run["nccl_version"] == "2.12.12"
    assert run["rows"][-1] == [1073741824, 182.8, 181.39, 0.0]
    assert [f["status"] for f in result.findings("WRONG_RESULTS")] == ["PASS"]


def test_cut_json_is_read_up_to_the_damage(cli: Any, perf: Any) -> None:
    result = cli(
        "perf", perf.root / "nccl-tests-json" / "allreduce-2node-cut.json", "--format", "json"
    )
    (run,) = result.json()["summary"]["runs"]
    assert len(run["rows"]) == 2 and run["status"] == "stopped"
    assert "cut short" in result.err
    (failed,) = result.findings("TEST_FAILED")
    assert failed["status"] == "FAIL" and failed["hosts"] == ["ip-10-1-0-21", "ip-10-1-0-22"]


def test_missing_path_is_one_line_and_exit_1(cli: Any, tmp_path: Path) -> None:
    result = cli("perf", tmp_path / "nope.log")
    assert result.code == 1 and result.out == ""  # nothing printed before the error
    assert result.err == f"error: perf: no such file or directory: {tmp_path / 'nope.log'}\n"


def test_a_file_that_is_not_nccl_tests_output(cli: Any, tmp_path: Path) -> None:
    readme = (
        Path(__file__).parent.parent.parent / "src" / "hyperpod_nccl" / "kb" / "debugging-guide.md"
    )
    result = cli("perf", readme, "--format", "json")
    assert result.code == 1
    assert "no nccl-tests output" in result.err
    (finding,) = result.json()["findings"]
    assert (finding["code"], finding["status"]) == ("INPUT_UNREADABLE", "INCOMPLETE")


def test_binary_and_empty_files(cli: Any, tmp_path: Path) -> None:
    binary = tmp_path / "core"
    binary.write_bytes(bytes(range(256)) * 64)
    empty = tmp_path / "empty.log"
    empty.write_bytes(b"")
    result = cli("perf", binary, empty, "--format", "json")
    assert result.code == 1
    reasons = {n["check"]: n["reason"] for n in result.json()["not_checked"]}
    assert "binary" in reasons[str(binary)]
    assert "no nccl-tests output" in reasons[str(empty)]


def test_truncated_table_gives_a_partial_analysis(cli: Any, perf: Any, tmp_path: Path) -> None:
    lines = (
        (perf.nccl_tests / "aws-batch-efa-allreduce-to-16G-healthy-avg156.txt")
        .read_text()
        .splitlines()
    )
    cut = tmp_path / "cut.log"
    # Keep the first 20 rows and half of the 21st, as a log copied while the run was going.
    cut.write_text("\n".join(lines[:24]) + "\n" + lines[24][:60] + "\n")
    result = cli("perf", cut, "--format", "json")
    assert result.code == 0
    (run,) = result.json()["summary"]["runs"]
    assert len(run["rows"]) == 20
    assert "could not be read" in result.err and "lines 25" in result.err
    assert [f["status"] for f in result.findings("TEST_FAILED")] == ["INCOMPLETE"]


def test_usage_errors(cli: Any) -> None:
    assert cli("perf").code == 2
    assert cli("perf", "--world-size", "0").code == 2
    bad = cli("perf", "x.log", "--instance-type", "p9.large")
    assert bad.code == 2 and "unknown instance type 'p9.large'" in bad.err


def test_hyperpod_instance_type_names(cli: Any, perf: Any) -> None:
    """HyperPod names instance types ml.p5.48xlarge; EC2 names them p5.48xlarge."""
    hyperpod = cli("perf", perf.pair_sweep, "--instance-type", "ml.p5.48xlarge", "--format", "json")
    ec2 = cli("perf", perf.pair_sweep, "--instance-type", "p5.48xlarge", "--format", "json")
    assert hyperpod.code == ec2.code == 0
    assert hyperpod.json()["findings"] == ec2.json()["findings"]


def test_timeout_sizing_is_labelled_a_heuristic(cli: Any) -> None:
    result = cli("perf", "--world-size", "128", "--format", "json")
    (finding,) = result.findings("TIMEOUT_SIZING")
    assert finding["status"] == "INFO" and finding["title"].startswith("HEURISTIC")
    assert finding["details"]["suggested_minutes"] == 15 and finding["details"]["heuristic"] is True
    assert finding["reference"] == "performance-testing.md#timeout-sizing"
    assert json.dumps(finding).count("timedelta(minutes=15)") == 1
