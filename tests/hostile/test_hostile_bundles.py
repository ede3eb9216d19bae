"""Bundles from elsewhere are checked whole before anything is extracted (member count, total
size, decompressed size, names, types), and a malformed manifest, a zip or a garbage file is
one line (exit 1) from every bundle command, never a traceback."""

from __future__ import annotations

import io
import json
import shutil
import tarfile
import zipfile
import zlib
from pathlib import Path
from typing import Any

import pytest

from hostile import assert_no_traceback, run
from hyperpod_nccl.cli import main

COMMANDS = [
    ["bundle", "summary"],
    ["logs", "--bundle"],
    ["perf", "--bundle"],
    ["diagnose", "--bundle"],
]
LOG = b"OSError: [Errno 28] No space left on device\n"
ITEM = {"name": "logs/0001/rank0.log", "status": "collected", "kind": "text", "bytes": len(LOG)}


def _manifest(**fields: Any) -> dict[str, Any]:
    return {"schema": "hyperpod-nccl/bundle/v1", "command": "logs", "items": [ITEM], **fields}


def _dir_bundle(path: Path, manifest: bytes) -> Path:
    (path / "logs" / "0001").mkdir(parents=True)
    (path / "logs" / "0001" / "rank0.log").write_bytes(LOG)
    (path / "manifest.json").write_bytes(manifest)
    return path


def _deep(depth: int) -> bytes:
    return b'{"schema": "hyperpod-nccl/bundle/v1", "x": ' + b"[" * depth + b"]" * depth + b"}"


MALFORMED: dict[str, bytes] = {
    "nested 100,000 deep": _deep(100_000),
    "nested 40 deep": _deep(40),
    "a list": b"[]",
    "not JSON": b"{nope",
    "not UTF-8": b'{"command": "\xff\xfe"}',
    "items is an object": json.dumps(_manifest(items={"a": 1})).encode(),
    "item is a string": json.dumps(_manifest(items=["logs/0001/rank0.log"])).encode(),
    "name is an int": json.dumps(_manifest(items=[{**ITEM, "name": 7}])).encode(),
    "name is null": json.dumps(_manifest(items=[{**ITEM, "name": None}])).encode(),
    "name is missing": json.dumps(_manifest(items=[{"status": "collected"}])).encode(),
    "name escapes": json.dumps(_manifest(items=[{**ITEM, "name": "../../etc/passwd"}])).encode(),
    "status unknown": json.dumps(_manifest(items=[{**ITEM, "status": "stolen"}])).encode(),
    "bytes is text": json.dumps(_manifest(items=[{**ITEM, "bytes": "44"}])).encode(),
    "kind is a list": json.dumps(_manifest(items=[{**ITEM, "kind": ["text"]}])).encode(),
    "orchestrator is a list": json.dumps(_manifest(orchestrator=["eks"])).encode(),
    "command is a number": json.dumps(_manifest(command=3)).encode(),
    "window_start is a number": json.dumps(_manifest(window_start=5)).encode(),
    "window is a list": json.dumps(_manifest(window=[1, 2])).encode(),
    "command_line is a string": json.dumps(_manifest(command_line="rm -rf /")).encode(),
    "scrubbing is a list": json.dumps(_manifest(scrubbing=[])).encode(),
    "node_probe is a string": json.dumps(_manifest(node_probe="x")).encode(),
    "cluster_arns_in_logs holds numbers": json.dumps(_manifest(cluster_arns_in_logs=[1])).encode(),
    "since_seconds is true": json.dumps(_manifest(since_seconds=True)).encode(),
    "unknown schema": json.dumps(_manifest(schema="hyperpod-nccl/bundle/v9")).encode(),
}


def _one_line_error(code: int, err: str, *words: str) -> None:
    assert code == 1, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert lines[0].startswith("error: ")
    for word in words:
        assert word in lines[0], (word, err)


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_a_malformed_manifest_is_one_line_from_every_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str
) -> None:
    bundle = _dir_bundle(tmp_path / "bundle", MALFORMED[case])
    for command in COMMANDS:
        code = main([*command, str(bundle)])
        captured = capsys.readouterr()
        _one_line_error(code, captured.err, "manifest.json")
        assert captured.out == ""


def test_the_manifest_is_checked_in_a_tar_gz_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    archive = tmp_path / "case.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        for name, data in (("manifest.json", MALFORMED["name is an int"]), (ITEM["name"], LOG)):
            info = tarfile.TarInfo(str(name))
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    for command in COMMANDS:
        code = main([*command, str(archive)])
        _one_line_error(code, capsys.readouterr().err, "items[0].name", "expected a string")


@pytest.mark.parametrize("kind", ["zip", "garbage", "empty", "truncated gzip"])
def test_what_is_not_a_bundle_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    path = tmp_path / "case.tar.gz"
    if kind == "zip":
        with zipfile.ZipFile(path, "w") as archive:
            archive.writestr("manifest.json", "{}")
    elif kind == "garbage":
        path.write_bytes(bytes(range(256)) * 64)
    elif kind == "empty":
        path.write_bytes(b"")
    else:
        path.write_bytes(zlib.compress(b"x" * 100_000)[:50])
        path.write_bytes(b"\x1f\x8b\x08\x00" + path.read_bytes())
    for command in COMMANDS:
        code = main([*command, str(path)])
        _one_line_error(code, capsys.readouterr().err, "not a readable .tar.gz bundle")


def _count_copies(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every copy of a member's data (tarfile and the snapshot copy with these two)."""
    copies: list[int] = []
    for name in ("copyfileobj", "copyfile"):
        real = getattr(shutil, name)

        def counting(*args: Any, _real: Any = real, **kwargs: Any) -> Any:
            copies.append(1)
            return _real(*args, **kwargs)

        monkeypatch.setattr(shutil, name, counting)
    return copies


def test_too_many_members_are_refused_before_any_is_extracted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hyperpod_nccl.snapshot import BundleError, BundleLimits, Snapshot

    archive = tmp_path / "many.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        data = json.dumps(_manifest(items=[])).encode()
        info = tarfile.TarInfo("manifest.json")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
        for n in range(1500):
            info = tarfile.TarInfo(f"logs/{n:04d}/rank.log")
            info.size = 1
            tar.addfile(info, io.BytesIO(b"x"))
    copies = _count_copies(monkeypatch)
    with pytest.raises(BundleError, match="more than 1000 members; refusing"):
        Snapshot.load(str(archive), BundleLimits(members=1000))
    assert copies == []  # nothing was written before the refusal


def test_too_many_files_in_a_directory_bundle_are_refused_before_any_is_copied(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hyperpod_nccl.snapshot import BundleError, BundleLimits, Snapshot

    bundle = _dir_bundle(tmp_path / "bundle", json.dumps(_manifest()).encode())
    for n in range(300):
        (bundle / "logs" / "0001" / f"{n}.log").write_bytes(b"x")
    copies = _count_copies(monkeypatch)
    with pytest.raises(BundleError, match="more than 200 members"):
        Snapshot.load(str(bundle), BundleLimits(members=200))
    assert copies == []


def _zeros_bundle(path: Path, members: int, size: int) -> Path:
    """A .tar.gz of `members` members of `size` zero bytes each, compressed as it is built."""
    compressor = zlib.compressobj(1, zlib.DEFLATED, 31)
    block = b"\0" * (16 * 1024 * 1024)
    with open(path, "wb") as out:
        manifest = json.dumps(_manifest(items=[])).encode()
        for n, (name, length) in enumerate(
            [("manifest.json", len(manifest))]
            + [(f"logs/{i:04d}/z.log", size) for i in range(members)]
        ):
            info = tarfile.TarInfo(name)
            info.size = length
            out.write(compressor.compress(info.tobuf(format=tarfile.GNU_FORMAT)))
            if n == 0:
                out.write(compressor.compress(manifest + b"\0" * (-len(manifest) % 512)))
                continue
            for _ in range(size // len(block)):
                out.write(compressor.compress(block))
            out.write(compressor.compress(b"\0" * (-size % 512)))
        out.write(compressor.compress(b"\0" * 1024) + compressor.flush())
    return path


def test_a_compressible_bundle_under_the_floor_is_read(tmp_path: Path) -> None:
    from hyperpod_nccl.snapshot import Snapshot

    archive = _zeros_bundle(tmp_path / "zeros.tar.gz", 1, 64 * 1024 * 1024)
    Snapshot.load(str(archive)).close()


def test_a_tar_gz_bomb_is_refused_before_any_member_is_extracted(tmp_path: Path) -> None:
    # 1.25 GiB of zeros in about a megabyte: far over 100 times its size, and over the
    # floor below which a bundle this tool saved (up to 256 MiB per input) is never refused.
    archive = _zeros_bundle(tmp_path / "bomb.tar.gz", 5, 256 * 1024 * 1024)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    result = run("bundle", "summary", str(archive), tmp=tmp_path, env_tmpdir=scratch)
    assert_no_traceback(result)
    _one_line_error(result.code, result.err, "100 times", "decompression bomb")
    assert list(scratch.iterdir()) == []
