"""Progress of long scans: a bar on a terminal's standard error (never on a pipe, never on
standard output), a byte count that reaches the inputs' size on disk (compressed bytes for a
.gz, across forked workers too), and Ctrl-C stopping a parallel scan with one line, exit 130
and no worker traceback."""

from __future__ import annotations

import gzip
import os
import pty
import random
import select
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from logmix import job_lines

from hyperpod_nccl.commands.progress import DELAY_ENV, render_line
from hyperpod_nccl.inputs import expand
from hyperpod_nccl.rules.catalog import load_catalog
from hyperpod_nccl.rules.meter import ByteMeter
from hyperpod_nccl.rules.parallel import PARALLEL_MIN_BYTES
from hyperpod_nccl.rules.scan import scan_inputs

SRC = Path(__file__).resolve().parents[2] / "src"
CLI = [sys.executable, "-m", "hyperpod_nccl.cli", "logs"]


@pytest.fixture(scope="module")
def big_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real-lines job log just over the size that is scanned on several workers."""
    path = tmp_path_factory.mktemp("progress") / "job.log"
    rng = random.Random(7)
    with open(path, "w") as out:
        while out.tell() < PARALLEL_MIN_BYTES + (1 << 20):
            out.write("\n".join(job_lines(rng, 16, 20_000)) + "\n")
    return path


def _env(**extra: str) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(SRC), **extra}


def test_the_meter_counts_every_byte_across_workers(big_log: Path) -> None:
    inputs, _ = expand([str(big_log)])
    meter = ByteMeter()
    result = scan_inputs(inputs, load_catalog(), workers=2, meter=meter)
    assert result.workers == 2
    assert meter.total == big_log.stat().st_size
    assert meter.done == meter.total


def test_a_gz_input_is_counted_in_compressed_bytes(tmp_path: Path) -> None:
    rng = random.Random(3)
    path = tmp_path / "rank0.log.gz"
    with gzip.open(path, "wt") as out:
        out.write("\n".join(job_lines(rng, 4, 50_000)) + "\n")
    inputs, _ = expand([str(path)])
    meter = ByteMeter()
    result = scan_inputs(inputs, load_catalog(), workers=1, meter=meter)
    assert result.analysis.sources[0].bytes > path.stat().st_size  # it was decompressed
    assert meter.done == meter.total == path.stat().st_size


def test_the_bar_line_says_share_sizes_and_speed() -> None:
    line = render_line(done=180_000_000, total=400_000_000, elapsed=2.0)
    assert line.startswith("scanning [############................]  45%")
    assert "180 / 400 MB" in line and "90 MB/s" in line and "2 s left" in line
    assert render_line(done=5_000_000, total=0, elapsed=1.0) == ("scanning: 5 MB read  5 MB/s")


def test_no_bar_when_standard_error_is_not_a_terminal(big_log: Path) -> None:
    done = subprocess.run(
        [*CLI, str(big_log), "--format", "json"],
        env=_env(**{DELAY_ENV: "0"}),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert "scanning" not in done.stderr and "\r" not in done.stderr
    assert done.stdout.lstrip().startswith("{") and "scanning" not in done.stdout


def _read_until(fd: int, wanted: bytes, seen: bytearray) -> None:
    while wanted not in seen:
        ready, _, _ = select.select([fd], [], [], 60)
        assert ready, f"no {wanted!r} on the terminal; got {bytes(seen[-500:])!r}"
        try:
            data = os.read(fd, 65536)
        except OSError:  # the other side closed
            return
        if not data:
            return
        seen += data


def test_on_a_terminal_the_bar_shows_and_ctrl_c_stops_cleanly(big_log: Path) -> None:
    # The pure-Python engine keeps the two workers busy long enough to be interrupted.
    argv = [*CLI, str(big_log), "--engine", "re", "--format", "json"]
    pid, fd = pty.fork()
    if pid == 0:  # the child: stdout and stderr are the terminal
        os.execvpe(argv[0], argv, _env(**{DELAY_ENV: "0"}))
    seen = bytearray()
    try:
        _read_until(fd, b"scanning [", seen)
        # Ctrl-C on a terminal signals its whole foreground group: parent and workers.
        os.killpg(os.getpgid(pid), signal.SIGINT)
        _read_until(fd, b"\x00never", seen)  # everything up to the end
    finally:
        _, status = os.waitpid(pid, 0)
        os.close(fd)
    text = seen.decode(errors="replace")
    assert os.waitstatus_to_exitcode(status) == 130, text[-2000:]
    assert "Traceback" not in text and "KeyboardInterrupt" not in text
    assert text.rstrip().endswith("\x1b[Kerror: interrupted")  # the bar erased first
    assert "{" not in text  # no partial report
