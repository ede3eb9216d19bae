"""Bundles from elsewhere are opened safely: traversal, absolute paths, links, devices, FIFOs,
duplicates, odd names and oversized members are refused with one line and exit 1, before
anything lands outside the private extraction directory."""

from __future__ import annotations

import gzip
import io
import json
import os
import tarfile
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest
from bundle_helpers import corpus_case, run_cli

from hyperpod_nccl.snapshot import BundleError, BundleLimits, Snapshot

MANIFEST = json.dumps(
    {"schema": "hyperpod-nccl/bundle/v1", "command": "logs", "items": []}
).encode()


def _tar(path: Path, add: Callable[[tarfile.TarFile], None], manifest: bool = True) -> Path:
    with tarfile.open(path, "w:gz") as tar:
        if manifest:
            _file(tar, "manifest.json", MANIFEST)
        add(tar)
    return path


def _file(tar: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    tar.addfile(info, io.BytesIO(data))


def _special(name: str, kind: bytes, linkname: str = "") -> Callable[[tarfile.TarFile], None]:
    def add(tar: tarfile.TarFile) -> None:
        info = tarfile.TarInfo(name)
        info.type = kind
        info.linkname = linkname
        tar.addfile(info)

    return add


ESCAPE = f"hpn-escape-{uuid.uuid4().hex}"

UNSAFE: dict[str, tuple[Callable[[tarfile.TarFile], None], str]] = {
    "path traversal": (
        lambda t: _file(t, f"logs/../../{ESCAPE}", b"x"),
        "its path leaves the bundle",
    ),
    "absolute path": (lambda t: _file(t, f"/tmp/{ESCAPE}", b"x"), "its path leaves the bundle"),
    "symbolic link": (
        _special("logs/0001/rank0.log", tarfile.SYMTYPE, "/etc/passwd"),
        "symbolic link",
    ),
    "hard link": (_special("logs/0001/rank0.log", tarfile.LNKTYPE, "/etc/passwd"), "hard link"),
    "device file": (_special("logs/0001/null", tarfile.CHRTYPE), "device file"),
    "fifo": (_special("logs/0001/pipe", tarfile.FIFOTYPE), "FIFO"),
    "duplicate member": (
        lambda t: (_file(t, "logs/0001/a.log", b"one"), _file(t, "logs/0001/a.log", b"two")),
        "appears twice",
    ),
    "odd name": (lambda t: _file(t, "logs/0001/a\nb.log", b"x"), "never holds such a name"),
}


@pytest.mark.parametrize("case", sorted(UNSAFE))
@pytest.mark.parametrize("command", [["bundle", "summary"], ["logs", "--bundle"]])
def test_unsafe_members_are_refused(tmp_path: Path, case: str, command: list[str]) -> None:
    add, message = UNSAFE[case]
    bundle = _tar(tmp_path / "evil.tar.gz", add)
    result = run_cli(*command, str(bundle), cwd=tmp_path)
    assert result.rc == 1, result.stderr
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], lines
    assert "Traceback" not in result.stderr
    assert not (Path("/tmp") / ESCAPE).exists() and not list(tmp_path.rglob(ESCAPE))


def test_a_member_declared_huge_is_refused_before_it_is_read(tmp_path: Path) -> None:
    """A header claiming 600 MB (over the 512 MB default) with no data behind it: refused by
    its declared size, with the limit named, instead of being decompressed."""
    info = tarfile.TarInfo("logs/0001/huge.log")
    info.size = 600 * 1024 * 1024
    raw = info.tobuf(format=tarfile.GNU_FORMAT) + b"\0" * 1024
    bundle = tmp_path / "huge.tar.gz"
    bundle.write_bytes(gzip.compress(raw))
    result = run_cli("bundle", "summary", str(bundle))
    assert result.rc == 1
    assert "629145600 bytes is over the 536870912-byte limit per member" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def _good_bundle(tmp_path: Path) -> Path:
    log = tmp_path / "rank0.log"
    log.write_text(corpus_case("b038")["log"], "utf-8")
    bundle = tmp_path / "good.tar.gz"
    assert run_cli("logs", str(log), "--save-bundle", str(bundle)).rc == 0
    return bundle


@pytest.mark.parametrize(
    ("limits", "message"),
    [
        (BundleLimits(member_bytes=100), "limit per member"),
        (BundleLimits(total_bytes=2000), "add up to over the 2000-byte limit"),
        (BundleLimits(members=3), "more than 3 members"),
        (BundleLimits(manifest_bytes=100), "manifest.json is over the 100-byte limit"),
    ],
)
def test_size_limits_are_enforced_and_named(
    tmp_path: Path, limits: BundleLimits, message: str
) -> None:
    bundle = _good_bundle(tmp_path)
    Snapshot.load(str(bundle)).close()  # within the default limits it opens
    with pytest.raises(BundleError, match=message):
        Snapshot.load(str(bundle), limits)


def test_not_a_bundle(tmp_path: Path) -> None:
    junk = tmp_path / "junk.tar.gz"
    junk.write_bytes(os.urandom(4096))
    result = run_cli("bundle", "summary", str(junk))
    assert result.rc == 1 and "not a readable .tar.gz bundle" in result.stderr
    no_manifest = _tar(tmp_path / "plain.tar.gz", lambda t: _file(t, "a.txt", b"x"), manifest=False)
    result = run_cli("bundle", "summary", str(no_manifest))
    assert result.rc == 1 and "not a hyperpod-nccl bundle (no manifest.json)" in result.stderr
    bad_json = tmp_path / "badjson.tar.gz"
    with tarfile.open(bad_json, "w:gz") as tar:
        _file(tar, "manifest.json", b"{not json")
    result = run_cli("logs", "--bundle", str(bad_json))
    assert result.rc == 1 and "manifest.json is not valid JSON" in result.stderr
    result = run_cli("bundle", "summary", str(tmp_path / "absent.tar.gz"))
    assert result.rc == 1 and "no such bundle" in result.stderr


@pytest.mark.parametrize("kind", ["symlink", "hardlink", "fifo"])
def test_directory_bundles_refuse_links_and_special_files(tmp_path: Path, kind: str) -> None:
    directory = tmp_path / "dir-bundle"
    (directory / "logs" / "0001").mkdir(parents=True)
    (directory / "manifest.json").write_bytes(MANIFEST)
    target = directory / "logs" / "0001" / "rank0.log"
    outside = tmp_path / "outside.txt"
    outside.write_text("private\n")
    if kind == "symlink":
        target.symlink_to(outside)
    elif kind == "hardlink":
        os.link(outside, target)
    else:
        os.mkfifo(target)
    result = run_cli("logs", "--bundle", str(directory))
    assert result.rc == 1, result.stderr
    assert {"symlink": "symbolic link", "hardlink": "hard link", "fifo": "special file"}[
        kind
    ] in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_a_bundle_without_logs_says_so(tmp_path: Path) -> None:
    bundle = _tar(tmp_path / "empty.tar.gz", lambda t: None)
    result = run_cli("logs", "--bundle", str(bundle))
    assert result.rc == 1 and "the bundle holds no logs" in result.stderr
