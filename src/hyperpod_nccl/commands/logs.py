"""`hyperpod-nccl logs PATH...`: name the root cause of a failed job from its logs."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from hyperpod_nccl.bundle.logs import LogSession
from hyperpod_nccl.commands.common import (
    add_bundle_options,
    add_output_options,
    check_bundle_options,
    check_inputs_exist,
    emit,
    print_skipped,
)
from hyperpod_nccl.commands.progress import TerminalProgress
from hyperpod_nccl.examples import example_path
from hyperpod_nccl.examples import names as example_names
from hyperpod_nccl.exit_codes import ExitCode, UsageError
from hyperpod_nccl.model import Report

if TYPE_CHECKING:  # the bundle format loads only when a bundle is read or saved
    from hyperpod_nccl.snapshot import Snapshot

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
    if bool(args.paths) == bool(args.bundle):
        raise UsageError(
            "logs: give log PATHs or --bundle PATH (one of the two), or --example NAME"
        )
    check_bundle_options(args)
    check_inputs_exist(args)  # after the usage checks: a conflict is exit 2, a typo exit 1
    with LogSession(args.paths, args.bundle, save=args.save_bundle is not None) as session:
        try:
            replay = session.diagnose_bundle
            if replay is not None:
                report = _replay_diagnose(replay, args.bundle)
            else:
                with TerminalProgress() as meter:
                    report = session.analyze(backend=args.engine, meter=meter)
        except RuntimeError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return ExitCode.USAGE
        print_skipped(report, args)
        code = emit(report, args)
        session.save_bundle(report, args)
    if report.summary.get("inputs_read", 0) == 0:
        print("error: none of the inputs could be read", file=sys.stderr)
        return ExitCode.NO_INPUT
    return code


def _replay_diagnose(snapshot: Snapshot, bundle: str) -> Report:
    """A diagnose bundle's logs are half its story: the pod states, nodes and security groups
    beside them may hold the cause (an OOMKilled pod explains its peers' timeouts). Its logs
    are analysed with its cluster state, as `diagnose --bundle` does, so both commands name
    the same root cause."""
    from hyperpod_nccl.api import analyze_snapshot
    from hyperpod_nccl.bundle.logs import log_items

    print(
        f"hyperpod-nccl logs: {bundle} is a diagnose bundle: its logs are analysed with the "
        "cluster state it holds (the same as 'hyperpod-nccl diagnose --bundle')",
        file=sys.stderr,
    )
    report = analyze_snapshot(snapshot, bundle=bundle)
    report.command = "logs"
    report.summary["analysed_as"] = "diagnose"
    report.summary.setdefault("inputs_read", len(log_items(snapshot)))
    return report
