"""Nothing a user has is overwritten or followed: `-o` and `--save-bundle` refuse an existing
path, a symbolic link (dangling too) and an input, in one line, before any work; temporary
files are created exclusively under unpredictable names, so an existing `PATH.partial` (or a
link of that name) is never written or removed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hostile import assert_no_traceback, run

NCCL_TESTS = Path(__file__).parents[1] / "fixtures" / "perf" / "nccl-tests"
RUN = NCCL_TESTS / "a100-sxm4-80gb-1node-8gpu-allreduce-healthy.txt"
DISK_FULL = "OSError: [Errno 28] No space left on device\n"
PRECIOUS = "the user's own file\n"


def _one_line_error(err: str, *words: str) -> None:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    for word in words:
        assert word in lines[0], (word, err)


@pytest.fixture
def log(tmp_path: Path) -> Path:
    path = tmp_path / "rank0.log"
    path.write_text(DISK_FULL)
    return path


@pytest.fixture
def victim(tmp_path: Path) -> Path:
    path = tmp_path / "victim.txt"
    path.write_text(PRECIOUS)
    return path


@pytest.mark.parametrize("suffix", [".tar.gz", ""])
@pytest.mark.parametrize("partial", ["file", "link"])
def test_an_existing_partial_beside_the_bundle_is_left_alone(
    tmp_path: Path, log: Path, victim: Path, suffix: str, partial: str
) -> None:
    target = tmp_path / f"case{suffix}"
    beside = tmp_path / f"case{suffix}.partial"
    if partial == "file":
        beside.write_text(PRECIOUS)
    else:
        beside.symlink_to(victim)
    result = run("logs", str(log), "--save-bundle", str(target), tmp=tmp_path)
    assert_no_traceback(result)
    assert result.code == 0, result.err
    assert target.exists()
    assert os.path.lexists(beside)
    assert beside.read_text() == PRECIOUS  # through the link: the victim is untouched
    assert victim.read_text() == PRECIOUS
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".case")]  # no temp left


@pytest.mark.parametrize("option", ["-o", "--save-bundle"])
@pytest.mark.parametrize("case", ["existing file", "link to a file", "dangling link", "input"])
def test_outputs_refuse_what_is_already_there(
    tmp_path: Path, victim: Path, option: str, case: str
) -> None:
    given = tmp_path / "nccl.out"
    given.write_text(RUN.read_text())
    before = given.read_text()
    name = "report.txt" if option == "-o" else "case.tar.gz"
    target = tmp_path / name
    if case == "existing file":
        target.write_text(PRECIOUS)
    elif case == "link to a file":
        target.symlink_to(victim)
    elif case == "dangling link":
        target.symlink_to(tmp_path / "not-yet")
    else:
        target = given
    result = run("perf", str(given), option, str(target), tmp=tmp_path)
    assert_no_traceback(result)
    assert result.code == 2, result.err
    words = {"input": "one of the inputs", "existing file": "already exists"}
    _one_line_error(result.err, str(target), words.get(case, "symbolic link"))
    assert victim.read_text() == PRECIOUS
    assert given.read_text() == before
    assert not (tmp_path / "not-yet").exists()
    if case == "existing file":
        assert target.read_text() == PRECIOUS


def test_logs_save_bundle_refuses_its_own_input(tmp_path: Path, log: Path) -> None:
    before = log.read_text()
    result = run("logs", str(log), "--save-bundle", str(log), tmp=tmp_path)
    assert result.code == 2
    _one_line_error(result.err, "one of the inputs")
    assert log.read_text() == before


def test_output_in_a_directory_that_cannot_be_written_is_one_line(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        directory = Path("/sys")  # refuses new files even to root
    else:
        directory = tmp_path / "read-only"
        directory.mkdir()
        directory.chmod(0o555)
    result = run("perf", str(RUN), "-o", str(directory / "report.txt"), tmp=tmp_path)
    assert_no_traceback(result)
    assert result.code == 2, result.err
    _one_line_error(result.err, "--output")
    assert not (directory / "report.txt").exists()


def test_a_new_output_is_written_whole(tmp_path: Path) -> None:
    target = tmp_path / "report.txt"
    result = run("perf", str(RUN), "-o", str(target), tmp=tmp_path)
    assert result.code == 0, result.err
    assert "Issues Found" in target.read_text()
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []
