"""Options and output handling shared by the commands that produce a Report."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from hyperpod_nccl.exit_codes import ExitCode
from hyperpod_nccl.model import Priority, Report
from hyperpod_nccl.report import FORMATS, render

if TYPE_CHECKING:
    pass


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


def shown(report: Report, args: argparse.Namespace) -> Report:
    """The report as printed: secrets redacted unless --no-redact, and for the terminal
    formats, no control sequence from the logs (see report.display)."""
    from hyperpod_nccl.report.display import for_display

    terminal = getattr(args, "format", "text") not in ("json", "html")
    return for_display(report, redact=not getattr(args, "no_redact", False), terminal=terminal)


def print_skipped(report: Report, args: argparse.Namespace) -> None:
    """`hyperpod-nccl: skipped PATH: why` on standard error for each input not read."""
    from hyperpod_nccl.report.display import display_line

    redact = not getattr(args, "no_redact", False)
    for item in report.not_checked:
        line = f"hyperpod-nccl: skipped {item.check}: {item.reason}"
        print(display_line(line, redact=redact), file=sys.stderr)


def emit(report: Report, args: argparse.Namespace) -> int:
    sys.stdout.write(render(shown(report, args), args.format, sys.stdout))
    sys.stdout.flush()
    return exit_code_for(report, args.fail_on)


# ------------------------------------------------------------------ escalation bundles
def add_bundle_options(parser: argparse.ArgumentParser) -> None:
    """`--save-bundle PATH [--obfuscate | --no-redact]`, for every command with a Report.

    Call `check_bundle_options(args)` before the work (it refuses an existing target) and
    `bundle.escalation.save_requested_bundle(report, snapshot, args)` after it.
    """
    group = parser.add_argument_group("escalation bundle")
    group.add_argument(
        "--save-bundle",
        metavar="PATH",
        help="also write a redacted bundle for a support case: PATH.tar.gz (or a directory) "
        "with the reports, what was read, versions and a summary (`bundle summary PATH`)",
    )
    scrub = group.add_mutually_exclusive_group()
    scrub.add_argument(
        "--obfuscate",
        action="store_true",
        help="in the bundle, also replace host names, IPs, account and instance IDs with "
        "consistent stand-ins; the mapping goes to PATH.mapping.json (mode 0600), never "
        "into the bundle",
    )
    scrub.add_argument(
        "--no-redact",
        action="store_true",
        help="show secrets (keys, tokens, passwords) in the report, and keep them in the "
        "bundle; by default both are redacted. Never share such a bundle",
    )


def check_bundle_options(args: argparse.Namespace) -> None:
    """Refuse, before any work, options that cannot be honoured; exit 2."""
    from hyperpod_nccl.bundle.escalation import check_save_options

    check_save_options(
        getattr(args, "save_bundle", None),
        obfuscate=getattr(args, "obfuscate", False),
        redact=not getattr(args, "no_redact", False),
        inputs=[
            *getattr(args, "paths", ()),
            *([args.bundle] if getattr(args, "bundle", None) else []),
        ],
    )
