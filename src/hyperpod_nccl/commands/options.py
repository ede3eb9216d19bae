"""Options a Report command takes, and how its report is written and its exit code chosen."""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TextIO, TypeVar

from hyperpod_nccl.exit_codes import ExitCode, InputError, UsageError
from hyperpod_nccl.model import Priority, Report
from hyperpod_nccl.report import FORMATS, render
from hyperpod_nccl.report.show import DEFAULT_SHOW, SHOW
from hyperpod_nccl.safeio import TargetExists, refuse_existing, write_new_file

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

# Report formats a file name implies, for `-o FILE` without `--format`.
EXTENSIONS = {
    ".html": "html",
    ".htm": "html",
    ".json": "json",
    ".md": "markdown",
    ".markdown": "markdown",
    ".txt": "text",
    ".text": "text",
}


def _priority(text: str) -> str:
    """`--fail-on` in any case: p0, P0."""
    value = text.strip().upper()
    if value not in {p.value for p in Priority}:
        raise argparse.ArgumentTypeError(f"expected P0, P1 or P2, got {text!r}")
    return value


def add_format_options(parser: argparse.ArgumentParser) -> argparse._ArgumentGroup:
    """`--format` and `-o/--output`, the same on every command that writes a document."""
    group = parser.add_argument_group("output")
    group.add_argument(
        "--format",
        choices=FORMATS,
        default=None,
        help="report format: text, json, markdown or html (default: from the -o file's "
        "extension, else text)",
    )
    group.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="write the report to FILE (a new file: never overwritten) instead of standard "
        "output; .html, .json, .md and .txt set the format",
    )
    return group


def add_check_options(
    parser: argparse.ArgumentParser, which: str = "checks", skip_also: str = ""
) -> None:
    """`--check` and `--skip ID|AREA,...`, the same on every command that runs checks
    (`which` says which of them it runs; `skip_also`, what else --skip takes)."""
    pick = parser.add_argument_group("checks")
    pick.add_argument(
        "--check",
        dest="checks",
        action="append",
        default=[],
        metavar="ID|AREA,...",
        help=f"run only these {which} (hyperpod-nccl checks lists them); repeatable",
    )
    pick.add_argument(
        "--skip",
        action="append",
        default=[],
        metavar="ID|AREA,...",
        help="leave out these checks or areas; they are listed as not checked" + skip_also,
    )


def add_output_options(parser: argparse.ArgumentParser) -> None:
    """`--format`, `-o/--output`, `--show` and `--fail-on`, the same on every report command."""
    group = add_format_options(parser)
    group.add_argument(
        "--show",
        choices=SHOW,
        default=DEFAULT_SHOW,
        help="what text and Markdown list: fail (FAILs and what was not checked), warn (also "
        "WARNs; the default) or all (also PASS and INFO); JSON and HTML hold everything",
    )
    group.add_argument(
        "--fail-on",
        type=_priority,
        metavar="P0|P1|P2",
        help="exit 3 when a FAIL at or above this priority is found (any case: p0 or P0)",
    )


def prepare_output(args: argparse.Namespace) -> None:
    """Settle the format and refuse, before any work, an --output that would replace
    anything or cannot be written. Called by the CLI for every command with these options."""
    output = getattr(args, "output", None)
    if args.format is None:
        extension = os.path.splitext(output)[1].lower() if output else ""
        args.format = EXTENSIONS.get(extension, "text")
    if output:
        inputs = (
            *getattr(args, "paths", ()),
            *([args.bundle] if getattr(args, "bundle", None) else []),
        )
        check_output(output, tuple(str(i) for i in inputs))


def check_output(path: str, inputs: tuple[str, ...]) -> None:
    """Refuse an --output that would replace anything: an existing file, a symbolic link,
    one of the inputs; or that cannot be written at all. Exit 2."""
    try:
        refuse_existing(path, "--output", inputs)
    except TargetExists as exc:
        raise UsageError(str(exc)) from exc
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise UsageError(f"--output: directory {directory} does not exist")
    if not os.access(directory, os.W_OK | os.X_OK):
        raise UsageError(f"--output: cannot write in {directory}: permission denied")


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


Renderer = Callable[[Report, str, TextIO], str]


class OutputError(InputError):
    """Standard output cannot take the report (a full disk, a closed descriptor): one line,
    exit 1."""


def write_stdout(text: str) -> None:
    stream = sys.stdout
    if stream is None:
        raise OutputError("cannot write the report: standard output is closed (use -o FILE)")
    try:
        stream.write(text)
        stream.flush()
    except BrokenPipeError:
        raise  # the reader went away (`| head`): the CLI ends quietly
    except OSError as exc:
        silence_stdout()
        raise OutputError(
            f"cannot write the report to standard output: {exc.strerror or exc}"
        ) from None


def silence_stdout() -> None:
    """Point file descriptor 1 at /dev/null, so the interpreter's last flush of what is
    still buffered does not fail again with a traceback."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.close(devnull)
    except OSError:
        pass


def write_report(text: str, args: argparse.Namespace) -> None:
    """The rendered report to -o FILE (a new file, all or nothing) or standard output."""
    output = getattr(args, "output", None)
    if not output:
        write_stdout(text)
        return
    try:
        write_new_file(output, text.encode("utf-8"))
    except TargetExists as exc:
        raise UsageError(f"--output: {exc}") from exc
    except OSError as exc:
        raise UsageError(f"--output: cannot write {output}: {exc.strerror or exc}") from exc
    print(f"hyperpod-nccl: wrote the {args.format} report to {output}", file=sys.stderr)


def notify(line: str) -> None:
    """The api's lines for a person (a bundle saved, nodes probed) go to standard error."""
    print(line, file=sys.stderr)


R = TypeVar("R", bound="DataclassInstance")


def request_from(args: argparse.Namespace, kind: type[R], **given: Any) -> R:
    """The api request of a command: each field from the argument of the same name (the
    options' `dest`s are the request's field names, so no command lists them again), the
    bundle options from `--save-bundle`, `--obfuscate` and `--no-redact`, and `given`
    for what the command works out itself."""
    values = {
        f.name: getattr(args, f.name) for f in dataclasses.fields(kind) if hasattr(args, f.name)
    }
    values.update(
        save_bundle=getattr(args, "save_bundle", None),
        obfuscate=getattr(args, "obfuscate", False),
        redact=not getattr(args, "no_redact", False),
        argv=list(sys.argv),  # the manifest's command line
    )
    values.update(given)
    return kind(**values)


def deliver(
    args: argparse.Namespace, renderer: Renderer | None = None, *, skipped: bool = False
) -> Callable[[Report], None]:
    """What the api calls with the report once it is ready: the inputs not read on standard
    error (`skipped`), then the report in the format asked for."""

    def show(report: Report) -> None:
        if skipped:
            print_skipped(report, args)
        emit(report, args, renderer)

    return show


def emit(report: Report, args: argparse.Namespace, renderer: Renderer | None = None) -> int:
    show = getattr(args, "show", DEFAULT_SHOW)
    if renderer is None:
        text = render(shown(report, args), args.format or "text", sys.stdout, show)
    else:
        text = renderer(shown(report, args), args.format or "text", sys.stdout)
    write_report(text, args)
    return exit_code_for(report, args.fail_on)


# ------------------------------------------------------------------ escalation bundles
def add_bundle_options(parser: argparse.ArgumentParser) -> None:
    """`--save-bundle PATH [--obfuscate | --no-redact]`, for every command with a Report.

    The api refuses a target it cannot write before any work, and writes the bundle after
    the report (`save_fields(args)` gives it the options).
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
