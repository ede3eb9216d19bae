"""Report formats: text as users know it, JSON exactly per the contract, Markdown for tickets,
exit codes per --fail-on."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pytest

from hyperpod_nccl.api import analyze_logs
from hyperpod_nccl.cli import main
from hyperpod_nccl.report import render, use_color

# Real excerpt (tests/fixtures/corpus/dev.jsonl, b033): one FSDP rank runs out of GPU memory,
# its peers then time out in the watchdog.
LOG = """\
torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 564.00 MiB. GPU 1 has a total capacty of 22.20 GiB of which 203.12 MiB is free.
[E ProcessGroupNCCL.cpp:456] [Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=218, OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 1800595 milliseconds before timing out.
terminate called after throwing an instance of 'std::runtime_error'
"""
FINDING_KEYS = {
    "code", "status", "priority", "title", "root_cause", "explains", "ranks", "hosts",
    "first_seen", "evidence", "reference", "suggested_commands",
}  # fmt: skip


@pytest.fixture
def log(tmp_path: Path) -> Path:
    path = tmp_path / "rank1.log"
    path.write_text(LOG)
    return path


def _cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(args)
    return code, capsys.readouterr().out


def test_json_follows_the_contract(log: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _cli(["logs", str(log), "--format", "json"], capsys)
    report = json.loads(out)
    assert code == 0
    assert report["schema"] == "hyperpod-nccl/report/v1"
    assert isinstance(report["tool_version"], str)
    assert report["root_cause"] == "CUDA_OOM"
    fails = [f for f in report["findings"] if f["status"] == "FAIL"]
    assert report["issues_found"] == len(fails) == 3
    for finding in report["findings"]:
        assert set(finding) >= FINDING_KEYS
        assert finding["status"] in {"PASS", "FAIL", "WARN", "INFO", "SKIPPED", "INCOMPLETE"}
        assert finding["priority"] in {"P0", "P1", "P2"}
        assert isinstance(finding["ranks"], list) and isinstance(finding["hosts"], list)
        for ev in finding["evidence"]:
            assert set(ev) == {"source", "text"} and re.search(r":\d+$", ev["source"])
        for cmd in finding["suggested_commands"]:
            assert set(cmd) == {
                "purpose",
                "command",
                "preconditions",
                "blast_radius",
                "changes_state",
                "runs_on",
            }
            assert isinstance(cmd["changes_state"], bool)
    root = [f for f in report["findings"] if f["root_cause"]]
    assert [f["code"] for f in root] == ["CUDA_OOM"]
    assert set(root[0]["explains"]) == {"NCCL_TIMEOUT", "RANK_CRASH"}
    assert report["findings"][0]["root_cause"] is True
    assert isinstance(report["not_checked"], list)


def test_text_report_counts_the_fail_lines_it_shows(
    log: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, out = _cli(["logs", str(log)], capsys)
    fail_lines = [line for line in out.splitlines() if line.startswith("[FAIL]")]
    assert len(fail_lines) == 3
    assert re.search(r"^Issues Found: 3$", out, re.M)
    for line in fail_lines:
        assert re.search(r"^\[FAIL\] P[012] [A-Z_]+: .+ -> see [a-z-]+\.md#[a-z0-9-]+$", line), line
    assert "Root cause: CUDA_OOM" in out
    assert "\033[" not in out  # captured output is not a terminal


def test_colour_only_on_a_terminal_and_never_with_no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    assert use_color(Tty()) is True
    assert use_color(io.StringIO()) is False
    monkeypatch.setenv("NO_COLOR", "1")
    assert use_color(Tty()) is False


def test_text_report_colours_tags_on_a_tty(log: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    text = render(analyze_logs([str(log)]), "text", Tty())
    assert "\033[1;31m[FAIL]\033[0m" in text


def test_markdown_report(log: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, out = _cli(["logs", str(log), "--format", "markdown"], capsys)
    assert out.startswith("# hyperpod-nccl logs report")
    assert "**Root cause:** `CUDA_OOM`" in out
    assert "| FAIL | P0 | `CUDA_OOM` (root cause) |" in out
    assert "```" in out and "rank1.log:1" in out


@pytest.mark.parametrize(("threshold", "expected"), [("P0", 3), ("P1", 3), ("P2", 3)])
def test_fail_on_exits_3_when_a_fail_at_or_above_exists(
    log: Path, capsys: pytest.CaptureFixture[str], threshold: str, expected: int
) -> None:
    code, _ = _cli(["logs", str(log), "--fail-on", threshold, "--format", "json"], capsys)
    assert code == expected


def test_fail_on_exits_0_on_a_healthy_log(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "ok.log"
    path.write_text("ip-1:1:1 [0] NCCL INFO Connected all rings\n")
    code, out = _cli(["logs", str(path), "--fail-on", "P2", "--format", "json"], capsys)
    report: dict[str, Any] = json.loads(out)
    assert code == 0 and report["root_cause"] is None and report["issues_found"] == 0


def test_warn_only_report_does_not_trip_fail_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Xid 13 is an application fault, reported as a warning, never a hardware FAIL.
    path = tmp_path / "dmesg.txt"
    path.write_text(
        "[Fri Aug 30 11:43:09 2024] NVRM: Xid (PCI:0000:cb:00): 13, pid='<unknown>', name=<unknown>, Graphics SM Warp Exception on (GPC 7, TPC 7, SM 0): Illegal Instruction Parameter\n"
    )
    code, out = _cli(["logs", str(path), "--fail-on", "P0", "--format", "json"], capsys)
    report = json.loads(out)
    assert code == 0
    assert [f["status"] for f in report["findings"] if f["code"] == "GPU_XID"] == ["WARN"]
