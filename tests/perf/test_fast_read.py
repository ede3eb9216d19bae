"""The chunked reader (perf/fastread.py) gives what feeding every line gives.

Each input is read both ways into a fresh TextParser and ProgressCollector: the runs, the
table lines skipped, the line and character counts and the per-rank progress must be the
same. Inputs: every text fixture of tests/fixtures/perf, and variants made from them the way
real logs differ (launcher labels and time stamps in front, several tasks interleaved, CRLF,
non-ASCII text, a missing last line end, over-long lines, NCCL INFO lines whose prefixes are
odd), read with small chunks so that chunk ends fall everywhere.
"""

from __future__ import annotations

import dataclasses
import io
import random
from pathlib import Path
from typing import Any

import pytest

from hyperpod_nccl.perf.fastread import FastReader
from hyperpod_nccl.perf.nccl_tests import TextParser
from hyperpod_nccl.perf.progress import ProgressCollector
from hyperpod_nccl.safeio import MAX_LINE_BYTES, bounded_lines

PERF = Path(__file__).parent.parent / "fixtures" / "perf"
TEXTS = sorted(
    p
    for p in PERF.rglob("*")
    if p.suffix in (".txt", ".log") and p.is_file() and not p.name.startswith("SOURCES")
)
NCCL_DEBUG = sorted((PERF / "nccl-debug").glob("*.txt"))
TABLE = PERF / "nccl-tests" / "a100-sxm4-80gb-2node-16gpu-allreduce-pairwise-healthy.txt"


def read(data: bytes, fast: bool, chunk: int = 1 << 12) -> dict[str, Any]:
    parser = TextParser("input.log")
    collector = ProgressCollector()
    reader = FastReader("input.log", parser, collector, chunk_bytes=chunk)
    stream = io.BufferedReader(io.BytesIO(data))  # type: ignore[arg-type]
    counts = reader.read(stream) if fast else reader.read_lines(bounded_lines(stream))
    collector.feed_lines("input.log", [])
    runs = parser.finish()
    return {
        "runs": [dataclasses.asdict(r) for r in runs],
        "skipped": parser.skipped_lines,
        "lines": (counts.lines, parser.lines),
        "chars": counts.chars,
        "progress": collector.result().summary(),
        "findings": [f.to_dict() for f in collector.result().findings],
    }


def same_both_ways(data: bytes, chunk: int = 1 << 12) -> dict[str, Any]:
    slow = read(data, fast=False)
    assert read(data, fast=True, chunk=chunk) == slow
    return slow


@pytest.mark.parametrize("path", TEXTS, ids=lambda p: p.name)
def test_every_fixture_reads_the_same(path: Path) -> None:
    result = same_both_ways(path.read_bytes())
    assert result["lines"][0] == len(path.read_bytes().splitlines())


def _lines(path: Path) -> list[str]:
    return [ln for ln in path.read_text().splitlines() if not ln.startswith("# source:")]


PREFIXES = [
    lambda r, k: f"{k % 4}: ",  # srun --label
    lambda r, k: f"[1,{k % 3}]<stdout>:",  # Open MPI --tag-output
    lambda r, k: f"[2024-06-01 10:00:{k % 60:02d}] {k % 2}: ",  # awk stamp, srun label
    lambda r, k: f"2024-06-01T10:00:{k % 60:02d}.{k:06d}Z [pod/worker-{k % 2}] ",
    lambda r, k: "",
    lambda r, k: f"[{k % 2}] ",  # MPICH -prepend-rank
    lambda r, k: f"node-{k % 3}: ",  # pdsh
]
# NCCL INFO lines naming the network, with the starts that TextParser treats differently.
ODD_NET_LINES = [
    "NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>",
    "10-1-2-3:1:2 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB",
    "# host:1:2 [0] NCCL INFO NET/OFI Selected provider is efa",
    "-1 host:1:2 [0] NCCL INFO Using network Socket",
    "nThread 1 nGpus 1 host:1:2 [0] NCCL INFO NET/Plugin: no plugin",
    "host:1:2 [0] NCCL INFO AWS Libfabric via NET/Libfabric/0/GDRDMA",
    "hôst:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via NET/Socket/0",
    "[pod/NET/x] h:1:2 [0] NCCL INFO Channel 00 : AWS Libfabric",
    "h:1:2 [0] NCCL INFO NCCL version 2.21.5+cuda12.4 NET/IB",
    "h:1:2 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 - Init COMPLETE NET/IB",
]


def variant(seed: int, paths: list[Path]) -> bytes:
    """Lines of `paths` interleaved, each with a prefix, NCCL INFO lines (real ones from the
    nccl-debug fixtures and odd ones) between them, and the oddities real files have."""
    rng = random.Random(seed)
    noise = [ln for p in NCCL_DEBUG for ln in _lines(p)] + ODD_NET_LINES
    streams = [list(_lines(p)) for p in paths]
    out: list[str] = []
    k = 0
    while any(streams):
        s = rng.choice([s for s in streams if s])
        prefix = PREFIXES[(seed + streams.index(s)) % len(PREFIXES)]
        for _ in range(rng.randint(1, 6)):
            if s:
                out.append(prefix(rng, k) + s.pop(0))
                k += 1
        for _ in range(rng.randint(0, 8)):
            out.append(rng.choice(PREFIXES)(rng, k) + rng.choice(noise))
            k += 1
    text = "\n".join(out)
    if seed % 3 == 0:
        text = text.replace("\n", "\r\n", rng.randint(1, 20))
    if seed % 4 == 1:
        text = text.replace("NCCL INFO Channel", "NCCL INFO Channël", 5)
    if seed % 5 == 2:
        cut = rng.randrange(len(text))
        text = text[:cut] + "x" * (MAX_LINE_BYTES + rng.randint(-2, 2)) + text[cut:]
    return (text if seed % 2 else text + "\n").encode()


@pytest.mark.parametrize("seed", range(24))
def test_generated_variants_read_the_same(seed: int) -> None:
    rng = random.Random(seed)
    picks = rng.sample(TEXTS, 3)
    data = variant(seed, picks)
    result = same_both_ways(data, chunk=rng.choice([1 << 10, 1 << 12, 1 << 16]))
    assert result["lines"][0] > 0


def test_a_pair_sweep_with_a_net_line_before_any_run() -> None:
    # A NET line before the run's first line starts a run in the line reader; so here.
    data = (
        b"0: h:1:2 [0] NCCL INFO NET/Socket : Using [0]eth0\n"
        + b"".join(b"0: " + ln.encode() + b"\n" for ln in _lines(TABLE))
        + b"0: h:1:2 [0] NCCL INFO Channel 00 via NET/Socket/0\n" * 3
    )
    result = same_both_ways(data)
    assert result["runs"] and "socket" in result["runs"][0]["transports"]
    assert result["runs"][-1]["end_line"] == result["lines"][0]


def test_a_line_longer_than_a_chunk_and_what_follows_it() -> None:
    table = b"".join(ln.encode() + b"\n" for ln in _lines(TABLE))
    data = table + b"y" * 5000 + b"\n" + table
    result = same_both_ways(data, chunk=1024)
    assert len(result["runs"]) >= 2


def test_an_analyzer_block_is_read_line_by_line_until_it_closes() -> None:
    block = PERF / "progress" / "torchfrtrace-not-all-ranks-joining-collective-missing-rank1.txt"
    noise = b"h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC\n"
    data = noise + block.read_bytes() + noise
    result = same_both_ways(data)
    assert any(f["code"] == "STALLED_RANKS" for f in result["findings"])
