"""`hyperpod-nccl diff GOOD BAD`: what changed between a run that worked and one that fails,
ranked by what explains the failure. Read-only and offline."""

from __future__ import annotations

import argparse
import sys

from hyperpod_nccl.commands.options import add_output_options, check_output
from hyperpod_nccl.exit_codes import ExitCode, UsageError
from hyperpod_nccl.model import Priority

EXAMPLES = """examples:
  hyperpod-nccl diff src/hyperpod_nccl/examples/bundles/healthy-eks src/hyperpod_nccl/examples/bundles/sg-efa-fallback
  hyperpod-nccl diff good-case.tar.gz bad-case.tar.gz --format json
  hyperpod-nccl diff logs-monday/ logs-tuesday/ --format markdown
  hyperpod-nccl diff good.tar.gz bad.tar.gz --format html -o diff.html

Each side is a bundle (from logs, perf, probe or diagnose: a directory or .tar.gz) or a
directory of logs. Obfuscated bundles compare correctly when both were made with the same
mapping. Differences that never matter (timestamps, pids, pod-name hashes, ports NCCL picks)
are not reported.
"""


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser(
        "diff",
        help="compare a known-good run with a failing one and name what changed",
        description=(
            "Compare GOOD (a run that worked) with BAD (one that fails): versions, NCCL and "
            "libfabric environment, images, instance types and nodes, security groups and "
            "NetworkPolicies, Slurm configuration, what NCCL built, bus bandwidth, and the "
            "failure itself. Each difference is a finding with the failures of BAD it can "
            "explain; the most likely cause comes first."
        ),
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("good", metavar="GOOD", help="the run that worked: bundle or log directory")
    parser.add_argument("bad", metavar="BAD", help="the run that fails: bundle or log directory")
    add_output_options(parser)  # --format, -o/--output, --fail-on as on every report command
    parser.add_argument(
        "--no-redact", action="store_true", help="show secrets in the report (redacted by default)"
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from hyperpod_nccl.diff import diff_paths
    from hyperpod_nccl.diff.render import displayed, render

    if args.output:
        check_output(args.output, (args.good, args.bad))
    report = diff_paths(args.good, args.bad)
    terminal = args.format not in ("json", "html")
    text = render(displayed(report, redact=not args.no_redact, terminal=terminal), args.format)
    if args.output:
        from hyperpod_nccl.safeio import TargetExists, write_new_file

        try:
            write_new_file(args.output, text.encode("utf-8"))
        except TargetExists as exc:
            raise UsageError(f"--output: {exc}") from exc
        print(f"hyperpod-nccl: wrote the {args.format} diff to {args.output}", file=sys.stderr)
    else:
        sys.stdout.write(text)
        sys.stdout.flush()
    if args.fail_on is not None:
        worst = report.worst_failure_priority()
        if worst is not None and worst.rank <= Priority(args.fail_on).rank:
            return ExitCode.FINDINGS
    return ExitCode.OK
