"""Bad input never produces a traceback and never stops the other inputs from being analysed."""

from __future__ import annotations

import gzip
import io
import json
import os
import sys
from pathlib import Path

import pytest

from hyperpod_nccl.cli import main

OOM_LINE = "[rank2]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 2 has a total capacity of 79.10 GiB of which 1.06 GiB is free.\n"
DISK_LINE = "OSError: [Errno 28] No space left on device\n"


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, dict, str]:  # type: ignore[type-arg]
    code = main(["logs", *args, "--format", "json"])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return code, json.loads(captured.out), captured.err


def _good(tmp_path: Path) -> Path:
    path = tmp_path / "rank2.log"
    path.write_text("step 1 loss 2.3\n" + OOM_LINE)
    return path


def test_binary_file_is_skipped_with_its_name_and_others_still_analysed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    binary = tmp_path / "core.bin"
    binary.write_bytes(bytes(range(256)) * 64)
    code, report, err = _run([str(binary), str(_good(tmp_path))], capsys)
    assert code == 0
    assert report["root_cause"] == "CUDA_OOM"
    assert f"skipped {binary}: binary file" in err
    assert any(n["check"] == str(binary) for n in report["not_checked"])
    assert any(
        f["code"] == "INPUT_UNREADABLE" and f["status"] == "INCOMPLETE" for f in report["findings"]
    )


def test_only_unreadable_inputs_exit_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    binary = tmp_path / "core.bin"
    binary.write_bytes(b"\x00\x01\x02\x03" * 4096)
    fifo = tmp_path / "pipe.log"
    os.mkfifo(fifo)
    code, report, err = _run([str(binary), str(fifo)], capsys)
    assert code == 1
    assert report["root_cause"] is None
    assert "none of the inputs could be read" in err
    assert f"skipped {fifo}: not a regular file (FIFO)" in err


def test_invalid_utf8_is_analysed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "latin1.log"
    path.write_bytes(b"caf\xe9 \xff\xfe\n" + DISK_LINE.encode())
    code, report, _ = _run([str(path)], capsys)
    assert code == 0 and report["root_cause"] == "DISK_FULL"
    assert report["findings"][0]["evidence"][0]["source"] == f"{path}:2"


def test_a_single_100mb_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "one-line.log"
    with open(path, "wb") as out:
        out.write(b"x" * (50 * 1024 * 1024))
        out.write(b" OSError: [Errno 28] No space left on device ")
        out.write(b"y" * (50 * 1024 * 1024))
    code, report, _ = _run([str(path)], capsys)
    assert code == 0
    assert report["root_cause"] == "DISK_FULL"
    assert all(len(e["text"]) <= 500 for f in report["findings"] for e in f["evidence"])


def test_empty_file_is_a_healthy_analysis(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "empty.log"
    path.write_bytes(b"")
    code, report, _ = _run([str(path)], capsys)
    assert code == 0
    assert report["root_cause"] is None and report["issues_found"] == 0
    assert [f["code"] for f in report["findings"]] == ["NO_FAILURE_SIGNATURE"]


def test_missing_path_stops_before_any_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A path that is not there is a typo: a report of the others would read as if it had
    been fine. One line naming it, exit 1, nothing on standard output."""
    missing = tmp_path / "missing.log"
    code = main(["logs", str(missing), str(_good(tmp_path)), "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 1 and out == ""
    assert err == f"error: logs: no such file or directory: {missing}\n"


def test_unreadable_file_is_reported_by_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # /proc/self/mem opens but every read at offset 0 fails with EIO, for root too, so this
    # exercises a real read error wherever the tests run (mode 000 stops nobody as root).
    unreadable = "/proc/self/mem"
    code, report, err = _run([unreadable, str(_good(tmp_path))], capsys)
    assert code == 0
    assert report["root_cause"] == "CUDA_OOM"
    assert f"skipped {unreadable}: Input/output error" in err
    assert {"check": unreadable, "reason": "Input/output error"} in report["not_checked"]


def test_directory_of_10000_small_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    logs = tmp_path / "pods"
    for i in range(100):
        sub = logs / f"node-{i:03d}"
        sub.mkdir(parents=True)
        for j in range(100):
            (sub / f"rank{i * 100 + j}.log").write_text(f"step {j} loss 1.0\n")
    (logs / "node-042" / "rank4242.log").write_text(OOM_LINE)
    code, report, _ = _run([str(logs)], capsys)
    assert code == 0
    assert report["summary"]["inputs_read"] == 10_000
    assert report["root_cause"] == "CUDA_OOM"
    assert report["findings"][0]["ranks"] == [2]


def test_truncated_gzip_is_analysed_up_to_the_damage(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb") as gz:
        gz.write(OOM_LINE.encode())
        gz.write(os.urandom(256 * 1024))  # incompressible, so the cut lands after the first line
    path = tmp_path / "rank2.log.gz"
    path.write_bytes(buffer.getvalue()[: len(buffer.getvalue()) // 2])
    code, report, err = _run([str(path)], capsys)
    assert code == 0
    assert report["root_cause"] == "CUDA_OOM"
    assert "truncated or corrupt" in err


def test_gzip_is_detected_by_content(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "worker-0.txt"  # no .gz suffix
    path.write_bytes(gzip.compress(DISK_LINE.encode()))
    code, report, _ = _run([str(path)], capsys)
    assert code == 0 and report["root_cause"] == "DISK_FULL"


def test_stdin(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(DISK_LINE.encode())))
    code, report, _ = _run(["-"], capsys)
    assert code == 0 and report["root_cause"] == "DISK_FULL"
    assert report["findings"][0]["evidence"][0]["source"] == "<stdin>:1"


def test_unknown_option_is_a_one_line_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["logs", "--no-such-flag", "x"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and len(err.strip().splitlines()) == 1
