"""`hyperpod-nccl probe`: run the node probe catalog on this node (or on Slurm nodes) and report
GPU, EFA and host problems; `--bundle` re-analyses saved probe results without running anything."""

from __future__ import annotations

import argparse
import json

from hyperpod_nccl import api
from hyperpod_nccl.api import ProbeRequest
from hyperpod_nccl.collect.probes import (
    DEFAULT_CONCURRENCY,
    DEFAULT_DEADLINE_S,
    DEFAULT_NODE_TIMEOUT_S,
    DEFAULT_START_RATE,
)
from hyperpod_nccl.commands.options import (
    add_bundle_options,
    add_check_options,
    add_output_options,
    deliver,
    exit_code_for,
    notify,
    request_from,
)
from hyperpod_nccl.exit_codes import ExitCode

EXAMPLES = """examples:
  hyperpod-nccl probe                                  # this node: GPUs, EFA, limits, /dev/shm, ...
  hyperpod-nccl probe --since 6h --fail-on P0          # Xid window of 6 hours; exit 3 on a P0 FAIL
  hyperpod-nccl probe --save-bundle node.tar.gz        # keep the raw outputs to re-analyse later
  hyperpod-nccl probe --bundle node.tar.gz             # re-analyse a saved bundle, run nothing
  hyperpod-nccl probe --slurm-nodes 'gpu-[01-16]' --slurm-job 1234   # nodes of a running job
  hyperpod-nccl probe --check node.xid,node.gpu_ecc    # only these checks, as diagnose picks them
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
    what.add_argument(
        "--probes",
        action="append",
        default=[],
        metavar="ID,...",
        help="only these probe ids (see --list); repeatable",
    )
    what.add_argument(
        "--skip-probes",
        action="append",
        default=[],
        metavar="ID,...",
        help="leave out these probe ids; repeatable",
    )
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
        help="probe at most N of the --slurm-nodes: --prefer-nodes first, then an even spread "
        "(default: all of them, the nodes you named; diagnose, which finds the nodes itself, "
        f"probes {api.DEFAULT_SAMPLE_NODES} unless told)",
    )
    where.add_argument(
        "--prefer-nodes", metavar="NODES", help="nodes to include first when sampling (suspects)"
    )
    limits = parser.add_argument_group("limits")
    limits.add_argument(
        "--node-timeout",
        dest="node_timeout_s",
        type=float,
        default=DEFAULT_NODE_TIMEOUT_S,
        metavar="S",
        help=f"per-node time limit in seconds (default {DEFAULT_NODE_TIMEOUT_S:.0f})",
    )
    limits.add_argument(
        "--deadline",
        dest="deadline_s",
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
    add_check_options(
        parser,
        "node checks",
        "; a probe id here leaves out that probe, as --skip-probes does",
    )
    add_output_options(parser)
    add_bundle_options(parser)  # --save-bundle with --obfuscate / --no-redact, as elsewhere
    parser.set_defaults(handler=run)


def _print_catalog(fmt: str | None = None) -> int:
    catalog = api.probe_catalog()
    if fmt == "json":
        listing = [
            {"id": p.id, "title": p.title, "timeout_s": p.timeout_s, "argv": list(p.argv)}
            for p in catalog
        ]
        print(json.dumps({"schema": "hyperpod-nccl/probe-catalog/v1", "probes": listing}, indent=2))
        return ExitCode.OK
    for probe in catalog:
        cmd = (
            " ".join(probe.argv)
            if probe.argv[:2] != ("sh", "-c")
            else "sh script (see probes/catalog.py)"
        )
        print(f"{probe.id:15} {probe.timeout_s:4}s  {probe.title}\n{'':21}{cmd}")
    return ExitCode.OK


def _split_skip(values: list[str]) -> tuple[list[str], list[str]]:
    """`--skip` names checks and areas, as in diagnose; a probe id there (the option's older
    meaning) still leaves that probe out, as --skip-probes does."""
    names = [n.strip() for v in values for n in v.split(",") if n.strip()]
    return [n for n in names if api.is_probe_id(n)], [n for n in names if not api.is_probe_id(n)]


def run(args: argparse.Namespace) -> int:
    if args.list:
        return _print_catalog(args.format)
    old_style, skip = _split_skip(args.skip)
    request = request_from(
        args,
        ProbeRequest,
        skip_probes=[*args.skip_probes, *old_style],
        skip=skip,
        refuse_missing=True,
    )
    report = api.probe(request, notify=notify, deliver=deliver(args))
    return exit_code_for(report, args.fail_on)
