"""Clean edges of the command line: typo'd paths, full and closed standard output, partial
input, and the wording of the text report, on the example job's real logs."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hyperpod_nccl.cli import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE_LOGS = ROOT / "src" / "hyperpod_nccl" / "examples" / "logs" / "oom-one-rank"


def _cli(
    *args: str | Path, stdout: int | None = subprocess.PIPE, close_stdout: bool = False
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    return subprocess.run(
        [sys.executable, "-m", "hyperpod_nccl.cli", *map(str, args)],
        stdout=None if close_stdout else stdout,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        timeout=120,
        check=False,
        # `>&-`: the command starts with no file descriptor 1
        preexec_fn=(lambda: os.close(1)) if close_stdout else None,
    )


@pytest.mark.parametrize("command", ["logs", "perf"])
def test_a_missing_path_is_one_line_and_exit_1_before_any_report(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    typo = tmp_path / "rank0.lgo"
    code = main([command, str(EXAMPLE_LOGS / "rank0.log"), str(typo)])
    out, err = capsys.readouterr()
    assert code == 1 and out == ""
    assert err == f"error: {command}: no such file or directory: {typo}\n"


def test_partial_input_exits_0_with_the_unread_input_listed_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    logs = tmp_path / "logs"
    shutil.copytree(EXAMPLE_LOGS, logs)
    os.mkfifo(logs / "rank9.log")  # there, but not a regular file: skipped with its reason
    assert main(["logs", str(logs)]) == 0
    out, err = capsys.readouterr()
    assert err.startswith("hyperpod-nccl: skipped ") and "rank9.log" in err.splitlines()[0]
    assert "Root cause: CONTAINER_OOM" in out


def test_a_full_standard_output_is_one_line_without_a_traceback() -> None:
    with open("/dev/full", "w") as full:
        done = _cli("logs", EXAMPLE_LOGS, stdout=full.fileno())
    assert done.returncode == 1
    assert done.stderr == (
        "error: cannot write the report to standard output: No space left on device\n"
    )


def test_a_closed_standard_output_is_one_line() -> None:
    done = _cli("logs", EXAMPLE_LOGS, close_stdout=True)
    assert done.returncode == 1
    assert done.stderr == "error: standard output is closed; nothing could be written\n"


def test_text_report_wording(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["logs", str(EXAMPLE_LOGS)]) == 0
    out = capsys.readouterr().out
    # 20,086 bytes: a size people read, not "(0.0 MB)"
    assert out.splitlines()[0] == (
        "hyperpod-nccl logs: 7 input(s), 241 lines (19.6 KiB) scanned with hyperscan"
    ) or out.splitlines()[0].endswith("lines (19.6 KiB) scanned with re")
    assert "... 1 more evidence line in --format json" in out  # NCCL_TIMEOUT: 4 lines, 3 shown
    assert "1 more evidence lines" not in out


def test_an_abort_with_no_rank_reads_without_a_gap(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    line = (EXAMPLE_LOGS / "rank0.log").read_text("utf-8").splitlines()[52]
    assert line.startswith("terminate called after throwing")
    job = tmp_path / "job.log"
    job.write_text(line + "\n", "utf-8")
    assert main(["logs", str(job)]) == 0
    out = capsys.readouterr().out
    assert "RANK_CRASH: the process aborted (SIGABRT), as PyTorch does after a failed" in out
    assert " , as PyTorch" not in out
