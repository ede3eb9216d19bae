"""How do the Slurm parsers and checks scale to a large HyperPod cluster?

Builds a `sinfo --json` document of N nodes (default 2000) from the real Slurm 22.05 sample in
tests/fixtures/slurm (its eight nodes, one per state, repeated under new names), and a
`squeue --json` of as many jobs, then times, best of R runs in this same process:

  baseline: json.loads of both documents (the least any reader of them must do)
  ours:     the Slurm checks on a Snapshot holding them (parse, classify, group, findings)

and prints the ratio ours/baseline and the peak memory our part added (tracemalloc).
Usage: python benchmarks/slurm_scale.py [--nodes 2000] [--runs 5]
"""

from __future__ import annotations

import argparse
import copy
import json
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

from hyperpod_nccl.checks import run_checks
from hyperpod_nccl.snapshot import Snapshot

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "slurm"


def documents(count: int) -> tuple[str, str]:
    sinfo = json.loads((FIXTURES / "sinfo-22.05.json").read_text())
    squeue = json.loads((FIXTURES / "squeue-22.05.json").read_text())
    nodes, jobs = sinfo["nodes"], squeue["jobs"]
    sinfo["nodes"] = []
    squeue["jobs"] = []
    for index in range(count):
        node = copy.deepcopy(nodes[index % len(nodes)])
        node["name"] = f"ip-10-1-{index // 250}-{index % 250}"
        sinfo["nodes"].append(node)
        job = copy.deepcopy(jobs[index % len(jobs)])
        job["job_id"] = 1000 + index
        squeue["jobs"].append(job)
    return json.dumps(sinfo), json.dumps(squeue)


def best_of(runs: int, action: Callable[[], object]) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    sinfo, squeue = documents(args.nodes)
    snapshot = Snapshot(meta={"command": "benchmark"})
    snapshot.put_text("slurm/sinfo.json", sinfo)
    snapshot.put_text("slurm/squeue.json", squeue)
    snapshot.put_json("slurm/context.json", {"host": "bench", "collected_at": 1796000000})

    baseline = best_of(args.runs, lambda: (json.loads(sinfo), json.loads(squeue)))
    ours = best_of(args.runs, lambda: run_checks(snapshot, ["slurm"]))
    tracemalloc.start()
    findings = run_checks(snapshot, ["slurm"])
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    size_mb = (len(sinfo) + len(squeue)) / 1e6
    print(f"{args.nodes} nodes and jobs, {size_mb:.1f} MB of JSON, {len(findings)} findings")
    print(f"baseline json.loads: {baseline * 1000:.1f} ms")
    print(f"ours (Slurm checks): {ours * 1000:.1f} ms")
    print(f"ratio ours/baseline: {ours / baseline:.2f}")
    print(f"peak memory of one check run: {peak / 1e6:.1f} MB")
    snapshot.close()


if __name__ == "__main__":
    main()
