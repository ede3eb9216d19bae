"""How fast is `hyperpod-nccl perf` on a big pair-sweep log, against grep on the same file?

Generates one log holding a pair sweep of many nodes (every run is the real two-node nccl-tests
output of tests/fixtures/perf, host names changed, one node slow), with the real NCCL_DEBUG=INFO
lines of tests/fixtures/perf/nccl-debug between runs, each line prefixed the way AWS's pairwise
runner writes it (awk timestamp, srun label). Then times, median of N runs in this same run:

  baseline: LC_ALL=C grep -c -E '^\\S+ \\S+ [0-9]+: +[0-9]+ +[0-9]+ +float' FILE
            (counting the result rows, the guide's own way to look at them)
  start-up: hyperpod-nccl perf on the 34-line template alone (interpreter, imports, report)
  ours:     hyperpod-nccl perf FILE --format json

and prints the ratio ours/baseline, our throughput and peak RSS, our throughput beyond the
start-up (what reading the log costs), and checks that the slow node was found.
Last measured: see the README's speed table.
Usage: python benchmarks/perf_throughput.py [--nodes 64] [--rounds 12] [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from logs_throughput import timed  # noqa: E402  (the same timing and RSS measurement)

FIXTURES = ROOT / "tests" / "fixtures" / "perf"
TEMPLATE = FIXTURES / "nccl-tests" / "a100-sxm4-80gb-2node-16gpu-allreduce-pairwise-healthy.txt"
NOISE = [
    FIXTURES / "nccl-debug" / n
    for n in (
        "efa-ofi-1.11.0-init-p4d-sagemaker-cloudwatch.txt",
        "multinode-socket-fallback-channels-via-net-socket.txt",
    )
]
NOISE_REPEAT = 400  # NCCL INFO lines per run: NCCL_DEBUG=INFO prints hundreds for a 2-node init


def generate(path: Path, nodes: int, rounds: int) -> str:
    """Write the sweep; return the slow node's name."""
    template = TEMPLATE.read_text().splitlines()[1:]
    noise = [ln for p in NOISE for ln in p.read_text().splitlines()[1:]]
    names = [f"ip-10-2-{i // 250}-{i % 250 + 1}" for i in range(nodes)]
    slow = names[nodes // 3]
    with path.open("w") as out:
        for r in range(rounds):
            order = [names[0], *(names[1:][r:] + names[1:][:r])]
            for i in range(nodes // 2):
                a, b = order[i], order[-1 - i]
                factor = 0.6 if slow in (a, b) else 1.0
                stamp = f"[2024-06-01 10:{r:02d}:{i % 60:02d}] 0: "
                for _ in range(NOISE_REPEAT // len(noise) + 1):
                    out.writelines(f"{stamp}{ln}\n" for ln in noise)
                for line in template:
                    line = line.replace("{host1}", a).replace("{host2}", b)
                    if line.strip()[:1].isdigit() and factor != 1.0:
                        parts = line.split()
                        for k in (6, 7, 10, 11):
                            parts[k] = f"{float(parts[k]) * factor:.2f}"
                        line = "  ".join(parts)
                    out.write(f"{stamp}{line}\n")
    return slow


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--nodes", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=12)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    tool = str(Path(sys.executable).parent / "hyperpod-nccl")
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "sweep.log"
        slow = generate(log, args.nodes, args.rounds)
        size_mb = log.stat().st_size / 2**20
        grep = ["grep", "-c", "-E", r"^\S+ \S+ [0-9]+: +[0-9]+ +[0-9]+ +float", str(log)]
        env = {**os.environ, "LC_ALL": "C"}
        base = statistics.median(timed(grep, env)[0] for _ in range(args.runs))
        start = statistics.median(
            timed([tool, "perf", str(TEMPLATE), "--format", "json"], env)[0]
            for _ in range(args.runs)
        )
        ours_runs = [
            timed([tool, "perf", str(log), "--format", "json"], env) for _ in range(args.runs)
        ]
        ours = statistics.median(r[0] for r in ours_runs)
        rss_mb = max(r[1] for r in ours_runs) / 1024
        report = json.loads(ours_runs[0][2])
        found = [
            f["hosts"]
            for f in report["findings"]
            if f["code"] == "STRAGGLER_NODE" and f["status"] == "FAIL"
        ]
        runs = report["summary"]["runs_found"]
    print(f"log: {size_mb:.1f} MB, {runs} runs of {args.nodes} nodes over {args.rounds} rounds")
    print(f"baseline grep: {base:.3f} s")
    print(f"hyperpod-nccl perf: {ours:.3f} s ({size_mb / ours:.1f} MB/s), peak RSS {rss_mb:.0f} MB")
    print(f"ratio ours/baseline: {ours / base:.1f}x")
    print(f"start-up alone: {start:.3f} s; beyond it: {size_mb / max(ours - start, 1e-9):.1f} MB/s")
    print(f"slow node {slow}: {'found' if found == [[slow]] else f'NOT found (got {found})'}")


if __name__ == "__main__":
    main()
