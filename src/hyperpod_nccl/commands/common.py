"""Options and output handling shared by the commands that produce a Report."""

from __future__ import annotations

import argparse
import sys

from hyperpod_nccl.exit_codes import ExitCode
from hyperpod_nccl.model import Priority, Report
from hyperpod_nccl.report import FORMATS, render


def add_output_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("output")
    group.add_argument(
        "--format", choices=FORMATS, default="text", help="report format (default: text)"
    )
    group.add_argument(
        "--fail-on",
        choices=[p.value for p in Priority],
        metavar="P0|P1|P2",
        help="exit 3 when a FAIL at or above this priority is found",
    )


def exit_code_for(report: Report, fail_on: str | None) -> int:
    if fail_on is None:
        return ExitCode.OK
    threshold = Priority(fail_on).rank
    worst = report.worst_failure_priority()
    return ExitCode.FINDINGS if worst is not None and worst.rank <= threshold else ExitCode.OK


def emit(report: Report, args: argparse.Namespace) -> int:
    sys.stdout.write(render(report, args.format, sys.stdout))
    sys.stdout.flush()
    return exit_code_for(report, args.fail_on)
