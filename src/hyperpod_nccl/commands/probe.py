"""`hyperpod-nccl probe`: run the node probe catalog on this node (or on Slurm nodes) and report
GPU, EFA and host problems; `--bundle` re-analyses saved probe results without running anything."""

from __future__ import annotations

import argparse
import json
import re
import sys
from datetime import datetime, timezone

from hyperpod_nccl import targets
from hyperpod_nccl.bundle.escalation import save_requested_bundle
from hyperpod_nccl.checks.node_report import node_report
from hyperpod_nccl.collect.probes import (
    DEFAULT_CONCURRENCY,
    DEFAULT_DEADLINE_S,
    DEFAULT_NODE_TIMEOUT_S,
    DEFAULT_START_RATE,
    probe_nodes,
    sample_nodes,
)
from hyperpod_nccl.collect.transports import LocalTransport, SlurmTransport, TransportError
from hyperpod_nccl.collect.transports.base import Transport
from hyperpod_nccl.collect.transports.local import local_node_name
from hyperpod_nccl.collect.transports.slurm import validate_node
from hyperpod_nccl.commands.common import (
    add_bundle_options,
    add_output_options,
    check_bundle_options,
    check_inputs_exist,
    emit,
)
from hyperpod_nccl.exit_codes import ExitCode, InputError, UsageError
from hyperpod_nccl.probes.catalog import CATALOG, PROBE_IDS, UnknownProbe
from hyperpod_nccl.snapshot import BundleError, Snapshot

EXAMPLES = """examples:
  hyperpod-nccl probe                                  # this node: GPUs, EFA, limits, /dev/shm, ...
  hyperpod-nccl probe --since 6h --fail-on P0          # Xid window of 6 hours; exit 3 on a P0 FAIL
  hyperpod-nccl probe --save-bundle node.tar.gz        # keep the raw outputs to re-analyse later
  hyperpod-nccl probe --bundle node.tar.gz             # re-analyse a saved bundle, run nothing
  hyperpod-nccl probe --slurm-nodes 'gpu-[01-16]' --slurm-job 1234   # nodes of a running job
  hyperpod-nccl probe --list                           # the read-only commands it may run
"""


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser(
        "probe",
        help="check GPUs, EFA and host settings on this node (or Slurm nodes) with read-only probes",
        description=(
            "Run a fixed catalog of read-only commands on this node (nvidia-smi queries, the "
            "kernel log, EFA devices, fi_info, the training processes' limits and /dev/shm, "
            "RemoveIPC, firewall, NCCL RAS ...) and report what is wrong. Checks that need a GPU "
            "or EFA are SKIPPED with the reason on machines without them."
        ),
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    what = parser.add_argument_group("what to probe")
    what.add_argument("--probes", metavar="ID,...", help="only these probe ids (see --list)")
    what.add_argument("--skip", metavar="ID,...", help="leave out these probe ids")
    what.add_argument(
        "--since",
        metavar="DURATION|TIME",
        help="Xid window start: 30m, 6h, 2d or an ISO time (default: 24h before the node's clock)",
    )
    what.add_argument("--list", action="store_true", help="print the probe catalog and exit")
    where = parser.add_argument_group("where")
    where.add_argument("--bundle", metavar="PATH", help="analyse saved probe results; run nothing")
    where.add_argument(
        "--slurm-nodes",
        metavar="NODES",
        help="probe these Slurm nodes through srun (comma list; one [a-b] range allowed) instead of this node",
    )
    where.add_argument(
        "--slurm-job", metavar="JOBID", help="run as an overlapping step of this job"
    )
    where.add_argument(
        "--sample-nodes",
        type=int,
        metavar="N",
        help="probe at most N of the nodes: --prefer-nodes first, then an even spread (default: all)",
    )
    where.add_argument(
        "--prefer-nodes", metavar="NODES", help="nodes to include first when sampling (suspects)"
    )
    limits = parser.add_argument_group("limits")
    limits.add_argument(
        "--node-timeout",
        type=float,
        default=DEFAULT_NODE_TIMEOUT_S,
        metavar="S",
        help=f"per-node time limit in seconds (default {DEFAULT_NODE_TIMEOUT_S:.0f})",
    )
    limits.add_argument(
        "--deadline",
        type=float,
        default=DEFAULT_DEADLINE_S,
        metavar="S",
        help=f"overall time limit in seconds (default {DEFAULT_DEADLINE_S:.0f})",
    )
    limits.add_argument(
        "--concurrency",
        type=int,
        default=DEFAULT_CONCURRENCY,
        metavar="N",
        help=f"nodes probed at once (default {DEFAULT_CONCURRENCY})",
    )
    limits.add_argument(
        "--start-rate",
        type=float,
        default=DEFAULT_START_RATE,
        metavar="PER_S",
        help=f"session starts per second (default {DEFAULT_START_RATE:g})",
    )
    add_output_options(parser)
    add_bundle_options(parser)  # --save-bundle with --obfuscate / --no-redact, as elsewhere
    parser.set_defaults(handler=run)


def _ids(value: str | None) -> list[str]:
    return [v.strip() for v in (value or "").split(",") if v.strip()]


def selected_probes(only: str | None, skip: str | None) -> list[str]:
    chosen = _ids(only) or list(PROBE_IDS)
    unknown = [p for p in chosen + _ids(skip) if p not in CATALOG]
    if unknown:
        raise UsageError(f"unknown probe id(s): {', '.join(unknown)} (see --list)")
    out = [p for p in chosen if p not in set(_ids(skip))]
    if not out:
        raise UsageError("no probes left to run")
    return out


def parse_since(value: str | None, now: datetime | None = None) -> str | None:
    """The Xid window's start as an ISO time, from --since as every command reads it."""
    if not value:
        return None
    now = now or datetime.now(timezone.utc)
    return (now - targets.parse_since(value, now)).isoformat()


def expand_nodes(spec: str) -> list[str]:
    """'gpu-[01-03,07],login' -> gpu-01, gpu-02, gpu-03, gpu-07, login."""
    out: list[str] = []
    for part in re.findall(r"[^,\[]+(?:\[[^\]]*\][^,]*)?", spec):
        m = re.fullmatch(r"([^\[\]]*)\[([0-9,\-]+)\]([^\[\]]*)", part)
        if not m:
            out.append(part)
            continue
        for rng in m.group(2).split(","):
            lo, _, hi = rng.partition("-")
            width = len(lo)
            for n in range(int(lo), int(hi or lo) + 1):
                out.append(f"{m.group(1)}{n:0{width}d}{m.group(3)}")
    try:
        return [validate_node(n.strip()) for n in out if n.strip()]
    except TransportError as exc:
        raise UsageError(str(exc)) from None


def _print_catalog(fmt: str | None = None) -> int:
    if fmt == "json":
        listing = [
            {
                "id": probe.id,
                "title": probe.title,
                "timeout_s": probe.timeout_s,
                "argv": list(probe.argv),
            }
            for probe in CATALOG.values()
        ]
        print(json.dumps({"schema": "hyperpod-nccl/probe-catalog/v1", "probes": listing}, indent=2))
        return ExitCode.OK
    for probe in CATALOG.values():
        cmd = (
            " ".join(probe.argv)
            if probe.argv[:2] != ("sh", "-c")
            else "sh script (see probes/catalog.py)"
        )
        print(f"{probe.id:15} {probe.timeout_s:4}s  {probe.title}\n{'':21}{cmd}")
    return ExitCode.OK


def run(args: argparse.Namespace) -> int:
    if args.list:
        return _print_catalog(args.format)
    if args.node_timeout <= 0 or args.deadline <= 0 or args.concurrency < 1 or args.start_rate <= 0:
        raise UsageError(
            "--node-timeout, --deadline, --start-rate must be positive and --concurrency at least 1"
        )
    try:
        probes = selected_probes(args.probes, args.skip)
    except UnknownProbe as exc:
        raise UsageError(str(exc)) from None
    check_bundle_options(args)
    check_inputs_exist(args)  # after the usage checks: a conflict is exit 2, a typo exit 1
    since = parse_since(args.since)
    if args.bundle:
        try:
            snapshot = Snapshot.load(args.bundle)
        except BundleError as exc:
            raise InputError(str(exc)) from None
        if since:
            snapshot.meta["probe_since"] = since
        return emit(node_report(snapshot), args)

    transport: Transport
    if args.slurm_nodes:
        nodes = expand_nodes(args.slurm_nodes)
        if args.sample_nodes is not None:
            if args.sample_nodes < 1:
                raise UsageError("--sample-nodes must be at least 1")
            prefer = expand_nodes(args.prefer_nodes) if args.prefer_nodes else []
            nodes = sample_nodes(nodes, args.sample_nodes, prefer)
        try:
            transport = SlurmTransport(job_id=args.slurm_job, time_limit_s=int(args.node_timeout))
        except TransportError as exc:
            raise UsageError(str(exc)) from None
    else:
        if args.slurm_job or args.sample_nodes or args.prefer_nodes:
            raise UsageError("--slurm-job, --sample-nodes and --prefer-nodes need --slurm-nodes")
        nodes, transport = [local_node_name()], LocalTransport()
    snapshot = Snapshot(meta={"command": "probe"})
    if since:
        snapshot.meta["probe_since"] = since
    summary = probe_nodes(
        snapshot,
        transport,
        nodes,
        probes=probes,
        concurrency=args.concurrency,
        start_rate=args.start_rate,
        node_timeout_s=args.node_timeout,
        deadline_s=args.deadline,
    )
    print(
        f"hyperpod-nccl: probed {len(summary.reached)} of {summary.nodes} node(s) through "
        f"{summary.transport} in {summary.elapsed_s:.1f}s",
        file=sys.stderr,
    )
    report = node_report(snapshot)
    code = emit(report, args)
    save_requested_bundle(report, snapshot, args)  # redacted (and obfuscated) like any bundle
    if not summary.reached:
        print("error: no node could be probed", file=sys.stderr)
        return ExitCode.NO_INPUT
    return code
