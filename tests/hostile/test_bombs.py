"""Compressed and endless input: a gzip bomb, an endless line, a bundle member that is gzip
data. Memory stays flat (each run is capped at hostile.ADDRESS_SPACE and its peak RSS is
checked), the run stops early with one line naming the limit, and what came before counts."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from hostile import assert_no_traceback, gzip_bomb, run

DISK_FULL = b"OSError: [Errno 28] No space left on device\n"
PEAK_MB = 1500


@pytest.fixture(scope="module")
def bomb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # 10 GiB of zeros, no newline, in about 10 MB; the first line holds a real error.
    return gzip_bomb(tmp_path_factory.mktemp("bomb") / "rank0.log.gz", 10, DISK_FULL)


@pytest.mark.parametrize("command", ["logs", "perf"])
def test_a_gzip_bomb_is_stopped_in_flat_memory(tmp_path: Path, bomb: Path, command: str) -> None:
    result = run(command, str(bomb), "--format", "json", tmp=tmp_path)
    assert_no_traceback(result)
    assert result.peak_rss_mb < PEAK_MB, result.peak_rss_mb
    reason = result.not_checked()[str(bomb)]
    assert "decompresses to over 100 times its size" in reason, reason
    assert len(reason.splitlines()) == 1
    if command == "logs":
        report = result.json()
        assert report["root_cause"] == "DISK_FULL"  # the part before the limit was analysed
        assert report["summary"]["inputs_read"] == 1


def test_saving_a_bundle_of_a_gzip_bomb_stays_flat(tmp_path: Path, bomb: Path) -> None:
    target = tmp_path / "case.tar.gz"
    result = run("logs", str(bomb), "--save-bundle", str(target), tmp=tmp_path)
    assert_no_traceback(result)
    assert result.peak_rss_mb < PEAK_MB, result.peak_rss_mb
    assert target.is_file()
    # What was kept is noted in the bundle, and the bundle still analyses.
    again = run("logs", "--bundle", str(target), "--format", "json", tmp=tmp_path)
    assert_no_traceback(again)
    assert again.code == 0, again.err
    assert again.json()["root_cause"] == "DISK_FULL"


def test_a_bundle_member_that_is_gzip_data_is_bounded_too(tmp_path: Path) -> None:
    bundle = tmp_path / "bundle"
    member = bundle / "logs" / "0001" / "rank0.log"
    member.parent.mkdir(parents=True)
    gzip_bomb(member, 4)
    size = member.stat().st_size
    items = [{"name": "logs/0001/rank0.log", "status": "collected", "kind": "text", "bytes": size}]
    manifest = {"schema": "hyperpod-nccl/bundle/v1", "command": "perf", "items": items}
    (bundle / "manifest.json").write_text(json.dumps(manifest))
    for command in ("perf", "logs"):
        result = run(command, "--bundle", str(bundle), tmp=tmp_path)
        assert_no_traceback(result)
        assert result.peak_rss_mb < PEAK_MB, (command, result.peak_rss_mb)
        assert "100 times its size" in result.err


@pytest.mark.parametrize("command", ["logs", "perf"])
def test_one_endless_line_costs_no_memory(tmp_path: Path, command: str) -> None:
    path = tmp_path / "rank0.log"
    with open(path, "wb") as out:
        out.write(DISK_FULL + b"x" * 16384)
        out.truncate(2 * 1024**3)  # then a sparse hole: one 2 GiB line, no disk used
    result = run(command, str(path), "--format", "json", tmp=tmp_path)
    assert_no_traceback(result)
    assert result.peak_rss_mb < PEAK_MB, result.peak_rss_mb


def test_ratio_limit_only_past_the_floor(tmp_path: Path) -> None:
    from hyperpod_nccl.safeio import BoundedGzip, DecompressionLimits, LimitReached

    # A small, very repetitive log is never refused, whatever its ratio.
    path = tmp_path / "small.gz"
    path.write_bytes(gzip.compress(b"NCCL WARN same line again\n" * 100_000))
    with open(path, "rb") as raw, BoundedGzip(raw) as gz:
        assert len(gz.read()) == 2_600_000
    limits = DecompressionLimits(max_bytes=10**9, ratio=100, ratio_floor=1024 * 1024)
    with open(path, "rb") as raw, BoundedGzip(raw, limits) as gz, pytest.raises(LimitReached):
        gz.read()
    absolute = DecompressionLimits(max_bytes=1_000_000, ratio=10**6, ratio_floor=0)
    with open(path, "rb") as raw, BoundedGzip(raw, absolute) as gz, pytest.raises(LimitReached):
        gz.read()


def test_line_chunks_are_bounded_and_lossless(tmp_path: Path) -> None:
    from hyperpod_nccl.safeio import line_chunks

    path = tmp_path / "mixed.log"
    data = b"short\n" * 1000 + b"y" * 5000 + b" tail\n" + b"z" * 9000
    path.write_bytes(data)
    with open(path, "rb") as stream:
        chunks = list(line_chunks(stream, 1024))
    assert b"".join(chunks) == data
    assert max(map(len, chunks)) <= 2048
