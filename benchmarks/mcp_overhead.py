"""What does an agent pay for going through `hyperpod-nccl mcp` instead of running the CLI?

Times, best of N in this same run on this same machine, the same analysis two ways:

  baseline: hyperpod-nccl logs PATH --format json       (a process per analysis, as an agent
                                                         without the server runs it)
  ours:     analyze_logs {"paths": [PATH]} over MCP     (one server process, kept warm; the
                                                         SDK's stdio client, as an agent's)

on the example job (examples/logs/oom-one-rank, a few KB), on the same job pasted as text
(the CLI reading it from standard input) and on a generated mixed log of --size-mb (real NCCL
INFO, training and failure lines; benchmarks/logs_throughput.py makes it). Prints the server's
start-up time, each ratio ours/baseline and the server's peak RSS; checks both ways name the
same root cause.
Usage: python benchmarks/mcp_overhead.py [--size-mb 100] [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from logs_throughput import mixed_log  # noqa: E402  (the same mixed log)

EXAMPLE = ROOT / "src" / "hyperpod_nccl" / "examples" / "logs" / "oom-one-rank"
CLI = [sys.executable, "-m", "hyperpod_nccl.cli"]


def children() -> list[int]:
    """Pids of this process's children (the server), from /proc."""
    pids: list[int] = []
    for task in Path(f"/proc/{os.getpid()}/task").iterdir():
        pids += [int(p) for p in (task / "children").read_text().split()]
    return pids


def peak_rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


def cli_best(argv: list[str], runs: int, stdin: bytes | None = None) -> tuple[float, str | None]:
    """Best wall time of the CLI over `runs`, and the root cause it printed."""
    best = float("inf")
    root = None
    for _ in range(runs):
        start = time.perf_counter()
        done = subprocess.run(argv, input=stdin, capture_output=True, check=True)
        best = min(best, time.perf_counter() - start)
        root = json.loads(done.stdout)["root_cause"]
    return best, root


async def mcp_measure(cases: dict[str, dict[str, Any]], runs: int) -> dict[str, Any]:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "hyperpod_nccl.cli", "mcp"], cwd=str(ROOT)
    )
    started = time.perf_counter()
    async with Client(params) as client:
        startup = time.perf_counter() - started
        results: dict[str, Any] = {"startup_s": startup}
        for name, arguments in cases.items():
            best = float("inf")
            root = None
            for _ in range(runs):
                start = time.perf_counter()
                result = await client.call_tool("analyze_logs", arguments)
                best = min(best, time.perf_counter() - start)
                assert not result.is_error and result.structured_content is not None
                root = result.structured_content["root_cause"]
            results[name] = (best, root)
        results["server_peak_rss_kb"] = max((peak_rss_kb(p) for p in children()), default=0)
    return results


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--size-mb", type=int, default=100)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--data-dir", default=str(ROOT / ".bench"))
    args = parser.parse_args()

    data_dir = Path(args.data_dir)
    data_dir.mkdir(parents=True, exist_ok=True)
    big = mixed_log(data_dir, args.size_mb)
    pasted = "".join(p.read_text(encoding="utf-8") for p in sorted(EXAMPLE.iterdir()))

    cases = {
        "example job": {"paths": [str(EXAMPLE)]},
        "example job pasted": {"text": pasted},
        f"{args.size_mb} MB log": {"paths": [str(big)]},
    }
    logs = [*CLI, "logs"]
    baselines: dict[str, tuple[list[str], bytes | None]] = {
        "example job": ([*logs, str(EXAMPLE), "--format", "json"], None),
        "example job pasted": ([*logs, "-", "--format", "json"], pasted.encode()),
        f"{args.size_mb} MB log": ([*logs, str(big), "--format", "json"], None),
    }
    measured = anyio.run(mcp_measure, cases, args.runs)
    print(f"server start-up (spawn, imports, initialize): {measured['startup_s']:.2f} s")
    for name, (argv, stdin) in baselines.items():
        ours, our_root = measured[name]
        base, base_root = cli_best(argv, args.runs, stdin)
        if base_root != our_root:
            raise SystemExit(f"{name}: MCP found {our_root}, the CLI {base_root}")
        print(
            f"{name}: CLI {base:.3f} s, MCP call {ours:.3f} s, root cause {our_root}; "
            f"ratio_mcp_to_cli={ours / base:.2f}"
        )
    print(f"server peak RSS: {measured['server_peak_rss_kb'] / 1024:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
