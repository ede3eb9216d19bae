"""Build realistic job logs: real failure excerpts spread over per-rank files among long
stretches of real healthy NCCL output, training progress lines and known-benign warnings.

Used by the robustness tests and by benchmarks/logs_throughput.py. Every line comes from a
real log: the healthy NCCL samples in tests/fixtures/logs/healthy/ (each with its source),
progress lines lifted from the public corpus, and the benign lines below (sources given).
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from pathlib import Path

FIXTURES = Path(__file__).parents[1] / "fixtures"
# Every labelled corpus (tests/fixtures/corpus/*.jsonl): a new set is scored and checked
# everywhere once it is there.
CORPORA = tuple(sorted((FIXTURES / "corpus").glob("*.jsonl")))
CORPUS = FIXTURES / "corpus" / "dev.jsonl"
HEALTHY_DIR = FIXTURES / "logs" / "healthy"

# Real lines that are harmless; a FAIL from them would be a false alarm.
BENIGN_LINES = [
    # https://github.com/antgroup/animate-x/issues/15
    "[W socket.cpp:601] [c10d] The IPv6 network addresses of (localhost, 51595) cannot be retrieved (gai error: -2 - Name or service not known).",
    # https://github.com/NVIDIA/nccl-tests/issues/252
    "kolyoz2:25146:25852 [0] NCCL INFO [Service thread] Connection closed by localRank 0",
    # https://github.com/aws/aws-k8s-tester/pull/454
    "[1,6]<stdout>:bert-mpi-training-worker-0:27:579 [6] NCCL INFO [Service thread] Connection closed by localRank 2",
    # tests/fixtures/logs/healthy/efa-aws-ofi-nccl-1.5.0-init-plus-allreduce-g4dn-2node-full.txt
    "[1,0]<stdout>:test-nccl-efa-worker-0:21:21 [0] NCCL INFO NET/Plugin: Failed to find ncclCollNetPlugin_v5 symbol.",
    "Warning: Permanently added 'test-nccl-efa-worker-1.test-nccl-efa-worker.default.svc,10.11.5.31' (ECDSA) to the list of known hosts.",
]

_PROGRESS = re.compile(r"^(?:Epoch: \[\d+\]|\{'loss'|\s*\d+%\|)")


def healthy_sources() -> list[Path]:
    return sorted(HEALTHY_DIR.glob("*.txt"))


def healthy_lines(source: Path | None = None) -> list[str]:
    """Lines of one real healthy job log (one job: one NCCL version, one set of hosts)."""
    paths = [source] if source else healthy_sources()
    lines: list[str] = []
    for path in paths:
        lines += [
            line
            for line in path.read_text().splitlines()
            if line.strip() and not line.startswith("# source:")
        ]
    return lines


def progress_lines() -> list[str]:
    """Training progress lines (epochs, loss dicts, tqdm bars) from the corpus."""
    found: list[str] = []
    for row in corpus():
        for line in row["log"].splitlines():
            if _PROGRESS.match(line) and "death signal" not in line and "Warning" not in line:
                found.append(line.split("WARNING:")[0])
    return found


def corpus() -> list[dict[str, object]]:
    return [json.loads(line) for line in CORPUS.read_text().splitlines() if line.strip()]


def noise(rng: random.Random, count: int, source: Path | None = None) -> Iterator[str]:
    """`count` healthy lines of one job: mostly NCCL INFO, some progress, a few benign
    warnings."""
    healthy = healthy_lines(source or rng.choice(healthy_sources()))
    progress = progress_lines()
    for _ in range(count):
        roll = rng.random()
        if roll < 0.02:
            yield rng.choice(BENIGN_LINES)
        elif roll < 0.2:
            yield rng.choice(progress)
        else:
            yield rng.choice(healthy)


_NCCL_PREFIX = re.compile(r"^((?:\[\d+,\d+\]<std(?:out|err)>:)?)[A-Za-z0-9_.-]+:\d+:\d+ \[(\d+)\]")
_STEP = re.compile(r"\d+")


def job_lines(
    rng: random.Random,
    ranks: int,
    count: int,
    source: Path | None = None,
    nccl_share: float = 0.5,
) -> Iterator[str]:
    """`count` lines of one healthy job of `ranks` ranks, as its combined output looks: every
    rank's NCCL INFO lines carry that rank's own host:pid:tid prefix (so lines differ between
    ranks as in real logs), interleaved with training progress whose numbers advance, and a few
    benign warnings."""
    healthy = healthy_lines(source or rng.choice(healthy_sources()))
    progress = progress_lines()
    hosts = [f"ip-10-1-{r // 8}-{10 + r // 8}" for r in range(ranks)]
    step = 0
    for _ in range(count):
        rank = rng.randrange(ranks)
        roll = rng.random()
        if roll < 0.005:
            yield rng.choice(BENIGN_LINES)
        elif roll < 1 - nccl_share:
            step += 1
            template = rng.choice(progress)
            offset = step % 997
            yield _STEP.sub(lambda m, k=offset: str(int(m.group(0)) + k), template, count=2)
        else:
            line = rng.choice(healthy)
            pid = 4000 + rank
            tid = pid + 50 + rng.randrange(4)
            prefix = f"{hosts[rank]}:{pid}:{tid} [{rank % 8}]"
            yield _NCCL_PREFIX.sub(lambda m, p=prefix: m.group(1) + p, line, count=1)


def spread_case(
    log: str, directory: Path, rng: random.Random, ranks: int = 4, noise_lines: int = 2000
) -> list[Path]:
    """Write `ranks` files rank0.log.. of noise and place the case's lines among them: the
    excerpt is cut into contiguous pieces, each dropped at a random place in a random file,
    keeping the pieces' order within a file."""
    lines = [line for line in log.splitlines() if line.strip() != "[... cut ...]"]
    job = rng.choice(healthy_sources())
    files: list[list[str]] = [list(noise(rng, noise_lines, job)) for _ in range(ranks)]
    pieces = max(1, min(ranks, len(lines) // 4 or 1))
    bounds = sorted(rng.sample(range(1, len(lines)), pieces - 1)) if len(lines) > pieces else []
    chunks = [lines[a:b] for a, b in zip([0, *bounds], [*bounds, len(lines)], strict=True)]
    last_position = [0] * ranks
    for chunk in chunks:
        target = rng.randrange(ranks)
        position = rng.randint(last_position[target], len(files[target]))
        files[target][position:position] = chunk
        last_position[target] = position + len(chunk)
    paths = []
    for rank, content in enumerate(files):
        path = directory / f"rank{rank}.log"
        path.write_text("\n".join(content) + "\n")
        paths.append(path)
    return paths
