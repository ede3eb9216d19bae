"""How fast is `hyperpod-nccl perf` on a big log, against grep on the same file?

`--kind sweep` (the default) generates one log holding a pair sweep of many nodes (every run
is the real two-node nccl-tests output of tests/fixtures/perf, host names changed, one node
slow), with the real NCCL_DEBUG=INFO lines of tests/fixtures/perf/nccl-debug between runs,
each line prefixed the way AWS's pairwise runner writes it (awk timestamp, srun label).
`--kind coll` generates an NCCL_DEBUG_SUBSYS=COLL trace: the real COLL lines of
tests/fixtures/perf/progress (torchtitan on hopper01) for `--nodes` x 8 ranks, each line
its own opCount, with one rank stopping 100 collectives early. Then times, median of N runs
in this same run:

  baseline: LC_ALL=C grep -c -E (the result rows of a sweep, the COLL lines of a trace)
  start-up: hyperpod-nccl perf on the 34-line template alone (interpreter, imports, report)
  ours:     hyperpod-nccl perf FILE --format json
  before:   the same with the sources of git revision REV (`--before REV`), run alternately

and prints the ratio ours/baseline, our throughput and peak RSS, our throughput beyond the
start-up (what reading the log costs), and checks that the slow node (or the rank behind)
was found.
Last measured (2-core shared machine, `--runs 3 --before 6bee5f9`, the code before COLL lines
were read in bulk): `--kind coll --nodes 16 --rounds 2` 96 MB/s beyond start-up against 39
MB/s before (load 1.6; 33 against 16 at load 2.8 to 3.5 with `--runs 5`); `--nodes 128
--rounds 24` 80 against 84 MB/s (load 1.6 to 1.9; that reading did not change). With
`--runs 5 --before 7e13149` (load 1.3 to 1.6), after the sweep's parsing work: sweep 82 against
67 MB/s, COLL 85 against 78 MB/s beyond start-up. The README's speed table has the rest.
Usage: python benchmarks/perf_throughput.py [--kind sweep|coll] [--nodes 64] [--rounds 12]
       [--runs 3] [--before REV]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
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
COLL = FIXTURES / "progress" / "coll-opcount-trace-h100-tp2-allgather-reducescatter-allreduce.txt"


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


def generate_coll(path: Path, nodes: int, rounds: int) -> str:
    """Write a COLL trace of nodes x 8 ranks, rounds x 1000 collectives; return the lagging
    rank's host:pid."""
    template = [ln.split(" NCCL INFO ", 1)[1] for ln in COLL.read_text().splitlines()[1:]]
    template = [ln.split(": opCount ", 1) for ln in template if ": opCount " in ln]
    ranks = nodes * 8
    lagging = ranks // 3
    ops = rounds * 1000
    with path.open("w") as out:
        for op in range(ops):
            name, rest = template[op % len(template)]
            rest = rest.split(" ", 1)[1].replace("[nranks=2]", f"[nranks={ranks}]")
            for r in range(ranks):
                if r == lagging and op >= ops - 100:
                    continue
                host = f"p5-{r // 8:04d}"
                rest_r = rest.replace("comm 0x55", f"comm 0x{r:04x}55", 1)
                out.write(
                    f"{host}:{1000 + r}:{2000 + r} [{r % 8}] NCCL INFO {name}: opCount {op:x} {rest_r}\n"
                )
    return f"p5-{lagging // 8:04d}:{1000 + lagging}"


def sources_of(rev: str, into: Path) -> Path:
    """The project's sources at git revision `rev`, unpacked under `into`."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", rev, "src"], capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "x", "-C", str(into)], input=archive, check=True)
    return into / "src"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--kind", choices=("sweep", "coll"), default="sweep")
    parser.add_argument("--nodes", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=12)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--before", help="git revision whose sources to time as well")
    args = parser.parse_args()
    env = {**os.environ, "LC_ALL": "C"}
    cli = [sys.executable, "-m", "hyperpod_nccl.cli", "perf"]
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / f"{args.kind}.log"
        if args.kind == "sweep":
            slow = generate(log, args.nodes, args.rounds)
            pattern = r"^\S+ \S+ [0-9]+: +[0-9]+ +[0-9]+ +float"
        else:
            slow = generate_coll(log, args.nodes, args.rounds)
            pattern = r"NCCL INFO [A-Za-z]+: opCount"
        size_mb = log.stat().st_size / 2**20
        grep = ["grep", "-c", "-E", pattern, str(log)]
        ours_env = {**env, "PYTHONPATH": str(ROOT / "src")}
        before_env = None
        if args.before:
            before_env = {**env, "PYTHONPATH": str(sources_of(args.before, Path(tmp)))}
        base = statistics.median(timed(grep, env)[0] for _ in range(args.runs))
        start = statistics.median(
            timed([*cli, str(TEMPLATE), "--format", "json"], ours_env)[0] for _ in range(args.runs)
        )
        ours_runs, before_runs = [], []
        for _ in range(args.runs):  # alternately, so that both see the same machine load
            ours_runs.append(timed([*cli, str(log), "--format", "json"], ours_env))
            if before_env is not None:
                before_runs.append(timed([*cli, str(log), "--format", "json"], before_env))
        ours = statistics.median(r[0] for r in ours_runs)
        rss_mb = max(r[1] for r in ours_runs) / 1024
        report = json.loads(ours_runs[0][2])
        if args.kind == "sweep":
            found = [
                f["hosts"]
                for f in report["findings"]
                if f["code"] == "STRAGGLER_NODE" and f["status"] == "FAIL"
            ]
            ok = found == [[slow]]
        else:
            found = [
                b["member"]
                for f in report["findings"]
                if f["code"] == "STALLED_RANKS"
                for b in f["details"].get("behind", [])
            ]
            ok = any(slow in m for m in found)
        runs = report["summary"]["runs_found"]
        same = all(
            json.loads(b[2])["findings"] == json.loads(o[2])["findings"]
            for b, o in zip(before_runs, ours_runs, strict=False)
        )
    what = (
        f"{runs} runs of {args.nodes} nodes over {args.rounds} rounds"
        if args.kind == "sweep"
        else f"COLL trace of {args.nodes * 8} ranks, {args.rounds * 1000} collectives"
    )
    print(f"log: {size_mb:.1f} MB, {what}")
    print(f"baseline grep: {base:.3f} s")
    print(f"hyperpod-nccl perf: {ours:.3f} s ({size_mb / ours:.1f} MB/s), peak RSS {rss_mb:.0f} MB")
    print(f"ratio ours/baseline: {ours / base:.1f}x")
    print(f"start-up alone: {start:.3f} s; beyond it: {size_mb / max(ours - start, 1e-9):.1f} MB/s")
    if before_runs:
        before = statistics.median(r[0] for r in before_runs)
        print(
            f"before ({args.before}): {before:.3f} s, beyond start-up "
            f"{size_mb / max(before - start, 1e-9):.1f} MB/s, ratio before/baseline "
            f"{before / base:.1f}x; same findings: {same}"
        )
    target = "slow node" if args.kind == "sweep" else "rank behind"
    print(f"{target} {slow}: {'found' if ok else f'NOT found (got {found})'}")


if __name__ == "__main__":
    main()
