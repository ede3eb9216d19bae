"""A .tar.gz bundle is standard gzip whichever compressor wrote it (snapshot/compress.py).

The same snapshot, holding a real log with seeded secrets, is saved as a directory and as a
.tar.gz written by ISA-L (where installed) and by zlib: `tar xzf` and our own reader must
find the same members with the same, redacted, bytes in each.
"""

from __future__ import annotations

import gzip
import shutil
import subprocess
from pathlib import Path

import pytest
from bundle_helpers import bundle_members, seeded_log

from hyperpod_nccl.snapshot import Snapshot, compress

LOG = (
    Path(__file__).parents[1]
    / "fixtures"
    / "perf"
    / "nccl-tests"
    / "a100-2node-ib-hang-with-nccl-info-partial.txt"
)
WRITERS = [pytest.param(False, id="zlib")] + (
    [pytest.param(None, id="isal")] if compress.available() else []
)


def _snapshot(tmp_path: Path, secrets: dict[str, str]) -> Snapshot:
    log = tmp_path / "rank0.log"
    log.write_text(seeded_log(secrets, LOG.read_text()) * 50)
    snap = Snapshot()
    with log.open("rb") as stream:
        snap.put_stream("logs/rank0.log", stream, source=str(log))
    snap.put_json("aws/describe_cluster.json", {"ClusterName": "demo", "token": secrets["jwt"]})
    return snap


@pytest.mark.parametrize("use_isal", WRITERS)
def test_tar_xzf_and_our_reader_open_it(
    tmp_path: Path, secrets: dict[str, str], use_isal: bool | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    if use_isal is False:
        monkeypatch.setattr(compress, "_igzip", None)  # as where isal has no wheel
    snap = _snapshot(tmp_path, secrets)
    plain = snap.save(str(tmp_path / "plain"))
    archive = snap.save(str(tmp_path / "bundle.tar.gz"))
    expected = bundle_members(plain)

    assert archive.read_bytes()[:2] == b"\x1f\x8b"
    members = bundle_members(archive)
    assert members == expected
    assert set(members) == {"manifest.json", "logs/rank0.log", "aws/describe_cluster.json"}
    assert secrets["jwt"].encode() not in members["aws/describe_cluster.json"]
    assert secrets["hf_token"].encode() not in members["logs/rank0.log"]

    tar = shutil.which("tar")
    if tar is not None:
        out = tmp_path / "untarred"
        out.mkdir()
        subprocess.run([tar, "xzf", str(archive), "-C", str(out)], check=True)
        assert (out / "logs" / "rank0.log").read_bytes() == expected["logs/rank0.log"]

    loaded = Snapshot.load(str(archive))
    try:
        assert loaded.get_text("logs/rank0.log") == expected["logs/rank0.log"].decode()
    finally:
        loaded.close()


def test_the_writer_makes_gzip_that_gzip_reads(tmp_path: Path) -> None:
    data = LOG.read_bytes() * 200
    for use_isal in (False, None):
        path = tmp_path / f"out-{use_isal}.gz"
        with path.open("wb") as raw:
            with compress.gzip_writer(raw, use_isal) as gz:
                gz.write(data)
            assert not raw.closed  # the bundle's file is closed by its owner
        assert gzip.decompress(path.read_bytes()) == data
        assert path.stat().st_size < len(data) / 4
