"""FIFOs, sockets and devices, given as paths or found in a directory, are skipped with one
line naming what they are; they never block a command, and the other inputs are analysed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hostile import assert_no_traceback, run, unix_socket

DISK_FULL = "OSError: [Errno 28] No space left on device\n"
NCCL_TESTS = Path(__file__).parents[1] / "fixtures" / "perf" / "nccl-tests"


@pytest.fixture
def specials(tmp_path: Path) -> dict[str, Path]:
    fifo = tmp_path / "rank1.log"
    os.mkfifo(fifo)
    sock = tmp_path / "rank2.log"
    server = unix_socket(sock)
    logs = tmp_path / "logs"
    logs.mkdir()
    os.mkfifo(logs / "pipe.log")
    (logs / "rank0.log").write_text(DISK_FULL)
    yield {"fifo": fifo, "socket": sock, "dir": logs}
    server.close()


def test_logs_skips_fifos_sockets_and_devices(tmp_path: Path, specials: dict[str, Path]) -> None:
    paths = [specials["fifo"], specials["socket"], "/dev/zero", "/dev/urandom", specials["dir"]]
    result = run("logs", *map(str, paths), "--format", "json", tmp=tmp_path, timeout=60)
    assert_no_traceback(result)
    report = result.json()
    assert report["root_cause"] == "DISK_FULL"  # the one regular file is still analysed
    skipped = result.not_checked()
    assert "FIFO" in skipped[str(specials["fifo"])]
    assert "socket" in skipped[str(specials["socket"])]
    assert "character device" in skipped["/dev/zero"]
    assert "character device" in skipped["/dev/urandom"]
    assert "FIFO" in skipped[str(specials["dir"] / "pipe.log")]
    for path in [*paths, specials["dir"] / "pipe.log"]:
        if path != specials["dir"]:
            assert f"skipped {path}: not a regular file" in result.err


@pytest.mark.parametrize("attempt", range(3))
def test_urandom_is_never_read_as_text(tmp_path: Path, attempt: int) -> None:
    # /dev/urandom passed the binary sniff now and then and was then read forever.
    for command in ("logs", "perf"):
        result = run(command, "/dev/urandom", tmp=tmp_path, timeout=60)
        assert_no_traceback(result)
        assert result.code == 1
        assert "not a regular file (character device)" in result.err


def test_perf_skips_fifos_and_devices(tmp_path: Path, specials: dict[str, Path]) -> None:
    good = NCCL_TESTS / "a100-sxm4-80gb-1node-8gpu-allreduce-healthy.txt"
    paths = [specials["fifo"], "/dev/zero", specials["dir"], good]
    result = run("perf", *map(str, paths), "--format", "json", tmp=tmp_path, timeout=60)
    assert_no_traceback(result)
    report = result.json()
    assert report["summary"]["runs_found"] >= 1
    skipped = result.not_checked()
    assert "FIFO" in skipped[str(specials["fifo"])]
    assert "character device" in skipped["/dev/zero"]


@pytest.mark.parametrize(
    "command",
    [["diagnose", "--bundle"], ["bundle", "summary"], ["logs", "--bundle"], ["perf", "--bundle"]],
)
@pytest.mark.parametrize("kind", ["fifo", "/dev/zero"])
def test_a_bundle_that_is_a_fifo_or_device_is_refused(
    tmp_path: Path, specials: dict[str, Path], command: list[str], kind: str
) -> None:
    path = str(specials["fifo"]) if kind == "fifo" else kind
    result = run(*command, path, tmp=tmp_path, timeout=60)
    assert_no_traceback(result)
    assert result.code == 1
    lines = [line for line in result.err.splitlines() if line.strip()]
    assert len(lines) == 1, result.err
    assert "not a regular file" in lines[0] and path in lines[0]
