"""How fast is `hyperpod-nccl logs` against grep, on a big realistic log?

Generates a mixed log of at least 400 MB (real healthy NCCL INFO lines, training progress and
benign warnings, with rare real failure excerpts), then times, best of N runs in this same
run on this same machine:

  baseline: LC_ALL=C grep -F -i -c -f benchmarks/grep_patterns.txt FILE   (38 literal strings)
  ours:     hyperpod-nccl logs FILE --format json

and prints the ratio ours/baseline (target <= 1.0) and our peak RSS (target <= 200 MB).
Usage: python benchmarks/logs_throughput.py [--size-mb 400] [--runs 3] [--engine auto|re]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "logs"))

from logmix import corpus, healthy_sources, job_lines  # noqa: E402

PATTERNS = ROOT / "benchmarks" / "grep_patterns.txt"
FAILURE_EVERY_LINES = 250_000
RANKS = 64


def generate(path: Path, size_mb: int, nccl_share: float, seed: int = 1) -> None:
    rng = random.Random(seed)
    failures = [str(c["log"]) for c in corpus() if c["label"] != "HEALTHY"]
    job = healthy_sources()[1]  # the full 2-node EFA run: its NCCL INFO lines are the bulk
    target = size_mb * 1024 * 1024
    written = 0
    tmp = path.with_suffix(".partial")
    with open(tmp, "w") as out:
        while written < target:
            block = "\n".join(job_lines(rng, RANKS, FAILURE_EVERY_LINES, job, nccl_share)) + "\n"
            block += rng.choice(failures) + "\n"
            out.write(block)
            written += len(block)
    tmp.rename(path)


def timed(argv: list[str], env: dict[str, str] | None = None) -> tuple[float, int, bytes]:
    """Wall seconds, peak RSS in KB, and stdout of one run of argv."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    assert proc.stdout is not None
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) not in (0, 1, 3):
        raise SystemExit(f"{argv[0]} failed with status {status}")
    return elapsed, usage.ru_maxrss, out


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--size-mb", type=int, default=400)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--nccl-share",
        type=float,
        default=0.5,
        help="share of lines that are NCCL INFO init output (the rest: training progress)",
    )
    parser.add_argument("--engine", default="auto", choices=("auto", "hyperscan", "re"))
    parser.add_argument("--data-dir", default=str(ROOT / ".bench"))
    args = parser.parse_args()

    data_dir = Path(args.data_dir)
    data_dir.mkdir(parents=True, exist_ok=True)
    log = data_dir / f"mixed-{args.size_mb}MB-nccl{int(args.nccl_share * 100)}.log"
    if not log.exists():
        print(f"generating {log} ...", flush=True)
        generate(log, args.size_mb, args.nccl_share)
    size = log.stat().st_size
    with open(log, "rb") as f:  # warm the page cache so both tools read from memory
        while f.read(1 << 24):
            pass

    grep = ["grep", "-F", "-i", "-c", "-f", str(PATTERNS), str(log)]
    ours = [
        sys.executable,
        "-m",
        "hyperpod_nccl.cli",
        "logs",
        str(log),
        "--format",
        "json",
        "--engine",
        args.engine,
    ]
    env = {**os.environ, "LC_ALL": "C"}
    grep_runs = [timed(grep, env) for _ in range(args.runs)]
    our_runs = [timed(ours) for _ in range(args.runs)]
    best_grep = min(t for t, _, _ in grep_runs)
    best_ours = min(t for t, _, _ in our_runs)
    peak_rss_mb = max(rss for _, rss, _ in our_runs) / 1024
    report = json.loads(our_runs[-1][2])

    print(f"input: {log.name}, {size / 1e6:,.0f} MB, {report['summary']['lines']:,} lines")
    print(
        f"grep -F -i -c -f ({len(PATTERNS.read_text().splitlines())} patterns): best {best_grep:.3f} s, matching lines {grep_runs[0][2].decode().strip()}"
    )
    print(
        f"hyperpod-nccl logs --format json ({report['summary']['engine']}): best {best_ours:.3f} s, first run {our_runs[0][0]:.3f} s"
    )
    print(
        f"throughput: {size / best_ours / 1e6:,.0f} MB/s ours, {size / best_grep / 1e6:,.0f} MB/s grep"
    )
    print(f"root cause found: {report['root_cause']}, FAIL findings: {report['issues_found']}")
    print(f"peak_rss_mb={peak_rss_mb:.1f}")
    print(f"ratio_to_grep={best_ours / best_grep:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
