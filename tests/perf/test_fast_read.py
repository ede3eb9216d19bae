"""The chunked reader (perf/fastread.py) gives what feeding every line gives.

Each input is read both ways into a fresh TextParser and ProgressCollector: the runs, the
table lines skipped, the line and character counts and the per-rank progress must be the
same. Inputs: every text fixture of tests/fixtures/perf, and variants made from them the way
real logs differ (launcher labels and time stamps in front, several tasks interleaved, CRLF,
non-ASCII text, a missing last line end, over-long lines, NCCL INFO lines whose prefixes are
odd), read with small chunks so that chunk ends fall everywhere. COLL traces made of the
fixtures' real COLL lines (many ranks, one behind, a mismatch, communicators re-made with
another size, pids written with leading zeros, more opCounts than are kept, other lines and
COLL lines that are not read in bulk among them) check the bulk reading of COLL lines, down
to the collector's records and their order.
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
from hyperpod_nccl.perf.progress import COLL_ROW, MAX_OPS_KEPT, ProgressCollector, _keep_recent
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
        "coll": coll_records(collector),
    }


def coll_records(collector: ProgressCollector) -> list[Any]:
    """What the collector kept of COLL lines, in the order it kept it (ops as result() keeps
    them: the most recent MAX_OPS_KEPT)."""
    return [
        list(collector.coll_last.items()),
        list(collector.coll_nranks.items()),
        [(k, list(_keep_recent(dict(v)).items())) for k, v in collector.coll_ops.items()],
        [
            (k, list(p.comm_order.items()), list(p.comm_ranks.items()))
            for k, p in sorted(collector.processes.items())
        ],
    ]


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


COLL_FIXTURE = (
    PERF / "progress" / "coll-opcount-trace-h100-tp2-allgather-reducescatter-allreduce.txt"
)


def coll_trace(seed: int) -> tuple[bytes, int]:
    """A COLL trace of the fixture's real lines for a few ranks; returns it and how many of its
    lines COLL_ROW reads whole."""
    rng = random.Random(seed)
    template = [ln.split(" NCCL INFO ", 1)[1] for ln in _lines(COLL_FIXTURE)]
    template = [ln.split(": opCount ", 1) for ln in template if ": opCount " in ln]
    ranks = rng.randint(2, 12)
    behind = rng.randrange(ranks)
    ops = rng.randint(50, 3 * MAX_OPS_KEPT)
    noise = [ln for p in NCCL_DEBUG for ln in _lines(p) if "opCount" not in ln]
    out: list[str] = []
    for r in range(ranks):  # Init lines give some ranks their rank in the communicator
        if rng.random() < 0.5:
            out.append(
                f"p5-{r // 8}:{1000 + r}:1 [{r % 8}] NCCL INFO comm 0x{r:04x}55fca23fc0f0 "
                f"rank {r} nranks {ranks} cudaDev {r % 8} nvmlDev {r % 8} - Init COMPLETE"
            )
    for op in range(ops):
        name, rest = template[op % len(template)]
        rest = rest.split(" ", 1)[1].replace("[nranks=2]", f"[nranks={ranks}]")
        for r in range(ranks):
            if r == behind and op >= ops - rng.randint(1, 20):
                continue
            pid = f"{1000 + r}" if rng.random() < 0.9 else f"0{1000 + r}"  # the same process
            comm = f"0x{r:04x}55fca23fc0f0"
            if r == 2 and op % 2:  # a second communicator of the same size in one process
                comm = f"0x{r:04x}66aa00000000"
            if r == 1 and op > ops // 2:  # the communicator made again, with another size
                rest_r = rest.replace(f"[nranks={ranks}]", f"[nranks={ranks + 1}]")
            else:
                rest_r = rest
            rest_r = rest_r.replace("comm 0x55fca23fc0f0", f"comm {comm}").replace(
                "comm 0x55e290bd32d0", f"comm {comm}"
            )
            count, op_name = op, name
            if r == 0 and op == ops - 30:  # rank 0 names its last opCount another collective
                count, op_name = op - 1, "Broadcast"
            line = (
                f"p5-{r // 8}:{pid}:{2000 + r} [{r % 8}] NCCL INFO {op_name}: opCount {count:x} "
                + rest_r
            )
            if rng.random() < 0.02:
                line = rng.choice(
                    [
                        f"(RayTrainWorker pid=1) {line}",  # not from the line's start
                        line.replace("sendbuff 0x", "sendbuff (nil) 0x", 1).replace(
                            "(nil) 0x7", "(nil)"
                        ),
                        line.split(" [nranks=")[0],  # cut short
                        line.replace("p5-", "opCount-p5-", 1),  # "opCount" twice
                    ]
                )
            out.append(line)
        if rng.random() < 0.1:
            out.append(rng.choice(noise))
    text = "\n".join(out) + "\n"
    return text.encode(), len(COLL_ROW.findall(text.encode()))


@pytest.mark.parametrize("seed", range(12))
def test_coll_traces_read_the_same(seed: int) -> None:
    data, whole = coll_trace(seed)
    assert whole > len(data.splitlines()) // 2  # most of it is read in bulk
    result = same_both_ways(data, chunk=random.Random(seed).choice([1 << 10, 1 << 12, 1 << 16]))
    assert result["coll"][0] and result["progress"]["members"]


def test_a_pure_coll_trace_and_its_findings() -> None:
    # Every line of every chunk a COLL row: the rows' line numbers follow from the chunk's first.
    data, _ = coll_trace(100)
    data = b"".join(ln + b"\n" for ln in data.splitlines() if COLL_ROW.fullmatch(ln + b"\n"))
    result = same_both_ways(data, chunk=1 << 14)
    assert result["lines"][0] == len(data.splitlines())
    codes = {f["code"] for f in result["findings"]}
    assert {"STALLED_RANKS", "NCCL_INVALID_USAGE"} <= codes
