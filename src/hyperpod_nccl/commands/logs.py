"""`hyperpod-nccl logs PATH...`: name the root cause of a failed job from its logs."""

from __future__ import annotations

import argparse

from hyperpod_nccl import api
from hyperpod_nccl.api import LogsRequest
from hyperpod_nccl.commands.options import (
    add_bundle_options,
    add_output_options,
    deliver,
    exit_code_for,
    notify,
    request_from,
)
from hyperpod_nccl.commands.progress import TerminalProgress
from hyperpod_nccl.examples import example_path
from hyperpod_nccl.examples import names as example_names
from hyperpod_nccl.exit_codes import UsageError

EXAMPLES = """examples:
  hyperpod-nccl logs --example oom-one-rank          # the per-rank logs shipped with the tool
  hyperpod-nccl logs job-logs/                       # a directory of per-rank or per-pod logs
  hyperpod-nccl logs rank*.log dmesg.txt.gz          # files, plain or gzip
  kubectl logs job/train --all-containers | hyperpod-nccl logs -
  hyperpod-nccl logs slurm-1234.out --format json --fail-on P0
  hyperpod-nccl logs job-logs/ --save-bundle case-1234.tar.gz --obfuscate   # for a support case
  hyperpod-nccl logs --bundle case-1234.tar.gz                              # re-analyse offline
"""


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser(
        "logs",
        help="analyse training, NCCL, kernel, Kubernetes or Slurm logs and name the root cause",
        description=(
            "Analyse logs of a failed or hung distributed job: per-rank torchrun output, "
            "NCCL_DEBUG=INFO files, Slurm job output, kubectl logs/describe, dmesg. Names the "
            "root cause and the rank and host where it happened."
        ),
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "paths", nargs="*", metavar="PATH", help="file, .gz file, directory, or - for stdin"
    )
    parser.add_argument(
        "--bundle", metavar="PATH", help="analyse the logs inside a saved bundle instead"
    )
    parser.add_argument(
        "--example",
        metavar="NAME",
        help="analyse an example job's logs shipped with the tool: "
        + ", ".join(example_names("logs")),
    )
    parser.add_argument(
        "--engine",
        choices=("auto", "hyperscan", "re"),
        default="auto",
        help="pattern engine: hyperscan when installed (default), or pure-Python re",
    )
    add_output_options(parser)
    add_bundle_options(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.example is not None:
        if args.paths or args.bundle:
            raise UsageError("logs: --example analyses shipped logs; drop the PATHs/--bundle")
        args.paths = [example_path("logs", args.example)]
    request = request_from(args, LogsRequest, refuse_missing=True)
    report = api.logs(
        request, progress=TerminalProgress, notify=notify, deliver=deliver(args, skipped=True)
    )
    return exit_code_for(report, args.fail_on)
