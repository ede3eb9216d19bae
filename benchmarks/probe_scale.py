"""Probe-scale benchmark: how close `probe_nodes` gets to the best possible time on many nodes.

Each simulated node answers after a fixed latency with the real batch output this machine
produced (captured once at the start through the local transport), behind the same start-rate
limiter and concurrency bound as a real run. The floor is the best any schedule can do:

    floor = max(nodes / start_rate, nodes * latency / concurrency)

Defaults scale a real SSM run (3 session starts/s, ~8 s per node) down 16x in time so the run
finishes in well under a minute here: 48 starts/s and 0.5 s per node. The one-at-a-time
baseline is measured on a sample of nodes in the same run and scaled to all of them. Memory is
the peak traced allocation while probing N/10 and then N nodes without latency: bounded means
it does not grow with the nodes (outputs are spooled to disk as they arrive).

Prints the figures, and as its last line `ratio_to_floor=<wall/floor>` (target <= 1.2).
"""

from __future__ import annotations

import argparse
import gc
import time
import tracemalloc
from collections.abc import Sequence

from hyperpod_nccl.checks.node_report import node_report
from hyperpod_nccl.collect.probes import probe_nodes
from hyperpod_nccl.collect.transports import LocalTransport
from hyperpod_nccl.collect.transports.base import NodeRun, Transport
from hyperpod_nccl.probes import batch
from hyperpod_nccl.probes.batch import BatchScript
from hyperpod_nccl.probes.catalog import PROBE_IDS
from hyperpod_nccl.snapshot import Snapshot

TEMPLATE_NONCE = "0123456789abcdef"


def capture_template() -> str:
    """Real batch stdout from this machine, with its nonce replaced by a fixed placeholder."""
    script = batch.build(list(PROBE_IDS), nonce=TEMPLATE_NONCE)
    run = LocalTransport().run("template", PROBE_IDS, 120)
    if not run.reached or run.output is None:
        raise SystemExit(f"could not capture a template batch here: {run.reason}")
    lines = []
    for pid in script.probe_ids:
        outcome = run.output.outcomes[pid]
        lines += [f"@@HPN {TEMPLATE_NONCE} BEGIN {pid}", outcome.text, ""]
        lines.append(
            f"@@HPN {TEMPLATE_NONCE} END {pid} rc={outcome.rc if outcome.rc is not None else 0}"
        )
    lines.append(f"@@HPN {TEMPLATE_NONCE} DONE")
    return "\n".join(lines) + "\n"


class SimulatedNodes(Transport):
    """Every node answers after `latency` seconds with the template output."""

    name = "simulated"

    def __init__(self, template: str, latency: float) -> None:
        self.template = template
        self.latency = latency

    def _argv(self, node: str, script: BatchScript) -> list[str]:
        return ["true"]

    def run(self, node: str, probe_ids: Sequence[str], timeout_s: float) -> NodeRun:
        script = batch.build(list(probe_ids))
        self.command(node, script)  # the same verification a real transport does
        started = time.monotonic()
        if self.latency:
            time.sleep(self.latency)
        output = batch.split_output(script, self.template.replace(TEMPLATE_NONCE, script.nonce))
        return NodeRun(node, node, time.monotonic() - started, 0, output)


def timed_run(
    nodes: int, transport: Transport, rate: float, concurrency: int
) -> tuple[float, Snapshot, int]:
    snapshot = Snapshot()
    started = time.perf_counter()
    summary = probe_nodes(
        snapshot,
        transport,
        [f"node-{i:05d}" for i in range(nodes)],
        concurrency=concurrency,
        start_rate=rate,
        deadline_s=3600,
        progress=False,
    )
    return time.perf_counter() - started, snapshot, len(summary.reached) + len(summary.unreachable)


def peak_memory_mb(nodes: int, template: str) -> float:
    gc.collect()
    tracemalloc.start()
    _, snapshot, _ = timed_run(nodes, SimulatedNodes(template, 0.0), 1e6, 64)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    snapshot.close()
    return peak / 1e6


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--nodes", type=int, default=1000)
    parser.add_argument(
        "--latency", type=float, default=0.5, help="seconds each node takes to answer"
    )
    parser.add_argument("--start-rate", type=float, default=48.0, help="session starts per second")
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument(
        "--serial-sample", type=int, default=8, help="nodes probed one at a time for the baseline"
    )
    args = parser.parse_args()

    template = capture_template()
    transport = SimulatedNodes(template, args.latency)
    floor = max(args.nodes / args.start_rate, args.nodes * args.latency / args.concurrency)

    wall, snapshot, accounted = timed_run(args.nodes, transport, args.start_rate, args.concurrency)
    checks_started = time.perf_counter()
    report = node_report(snapshot)
    checks_s = time.perf_counter() - checks_started
    probe_files = sum(1 for _ in snapshot.collected("nodes/"))
    snapshot.close()

    sample = min(args.serial_sample, args.nodes)
    serial_wall, serial_snapshot, _ = timed_run(sample, transport, args.start_rate, 1)
    serial_snapshot.close()
    serial_estimate = serial_wall * args.nodes / sample

    small = max(args.nodes // 10, 1)
    mem_small, mem_full = peak_memory_mb(small, template), peak_memory_mb(args.nodes, template)

    print(
        f"nodes={args.nodes} latency_s={args.latency} start_rate_per_s={args.start_rate} concurrency={args.concurrency}"
    )
    print(
        f"probes_per_node={len(PROBE_IDS)} probe_outputs_written={probe_files} nodes_accounted_for={accounted}/{args.nodes}"
    )
    print(f"wall_s={wall:.2f} floor_s={floor:.2f}")
    print(
        f"checks_s={checks_s:.2f} findings={len(report.findings)} (node checks over all {args.nodes} nodes)"
    )
    print(
        f"one_at_a_time_s={serial_estimate:.1f} (measured on {sample} nodes, scaled) speedup={serial_estimate / wall:.1f}x"
    )
    print(
        f"peak_traced_mb nodes={small}:{mem_small:.1f} nodes={args.nodes}:{mem_full:.1f} growth={mem_full / mem_small:.2f}x for {args.nodes / small:.0f}x the nodes"
    )
    if accounted != args.nodes:
        raise SystemExit(f"only {accounted} of {args.nodes} nodes accounted for")
    print(f"ratio_to_floor={wall / floor:.3f}")


if __name__ == "__main__":
    main()
