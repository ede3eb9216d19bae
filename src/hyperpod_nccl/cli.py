"""The `hyperpod-nccl` command line: a thin face over the commands in hyperpod_nccl.commands.

Each command module exposes `register(subparsers)`, which adds its parser and sets
`handler`, a function taking the parsed arguments and returning an exit code. This module
only dispatches and turns expected errors into one-line messages with documented exit codes.
"""

from __future__ import annotations

import argparse
import difflib
import errno
import importlib
import re
import sys
from collections.abc import Sequence

from hyperpod_nccl import __version__
from hyperpod_nccl.exit_codes import EXIT_CODE_HELP, ExitCode, InputError, UsageError

# errno values of a standard output that cannot be written: a full disk, a closed or bad
# descriptor, an I/O error.
_OUTPUT_ERRNOS = (errno.ENOSPC, errno.EBADF, errno.EIO, errno.EDQUOT)

# Command modules, in the order `--help` lists them.
COMMAND_MODULES = [
    "hyperpod_nccl.commands.logs",
    "hyperpod_nccl.commands.perf",
    "hyperpod_nccl.commands.explain",
    "hyperpod_nccl.commands.checks",
    "hyperpod_nccl.commands.probe",
    "hyperpod_nccl.commands.diagnose",
    "hyperpod_nccl.commands.diff",
    "hyperpod_nccl.commands.bundle",
    "hyperpod_nccl.commands.mcp",
]


_CHOICE = re.compile(r"invalid choice: '([^']*)' \(choose from (.*)\)")


class _Parser(argparse.ArgumentParser):
    """argparse that raises instead of exiting, so every usage error is one line and exit 2,
    with a "did you mean" when a close option or choice exists."""

    def error(self, message: str) -> None:  # type: ignore[override]
        wrong = _CHOICE.search(message)
        if wrong:
            choices = [c.strip().strip("'") for c in wrong.group(2).split(",")]
            message += did_you_mean(wrong.group(1), choices)
        raise UsageError(f"{self.prog}: {message}")

    def option_strings(self) -> list[str]:
        return [o for action in self._actions for o in action.option_strings]


def did_you_mean(given: str, known: Sequence[str]) -> str:
    """`; did you mean --format?` when one known word is close to `given`, else ''."""
    close = difflib.get_close_matches(given, list(known), n=1, cutoff=0.6)
    return f"; did you mean {close[0]}?" if close else ""


def _unrecognized(
    parser: argparse.ArgumentParser, args: argparse.Namespace, extras: list[str]
) -> str:
    """The usage error for arguments no option took, from the subcommand they were given
    to (its name and its options), not from the top-level parser."""
    sub = _subparser(parser, getattr(args, "command", None))
    target = sub if isinstance(sub, _Parser) else parser
    options = target.option_strings() if isinstance(target, _Parser) else []
    hint = ""
    for extra in extras:
        if extra.startswith("-"):
            hint = did_you_mean(extra.split("=", 1)[0], options)
            if hint:
                break
    return f"{target.prog}: unrecognized arguments: {' '.join(extras)}{hint}"


def _subparser(parser: argparse.ArgumentParser, name: str | None) -> argparse.ArgumentParser | None:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and name in action.choices:
            chosen: argparse.ArgumentParser = action.choices[name]
            return chosen
    return None


def _chosen_command(argv: Sequence[str]) -> str | None:
    """The command named on the line, if it is one of ours: then only its module is imported,
    so `logs` does not pay for boto3 and the Kubernetes client at start-up."""
    first = next((a for a in argv if not a.startswith("-")), None)
    names = {m.rsplit(".", 1)[1] for m in COMMAND_MODULES}
    return first if first in names else None


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    parser = _Parser(
        prog="hyperpod-nccl",
        description=(
            "Tells why a distributed GPU training job hangs or dies, on which rank or node, "
            "and what to do about it. Read-only: it never changes cluster, node or job state."
        ),
        epilog=EXIT_CODE_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"hyperpod-nccl {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    chosen = _chosen_command(argv) if argv is not None else None
    for name in COMMAND_MODULES:
        if chosen is None or name.endswith("." + chosen):
            importlib.import_module(name).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    try:
        arguments = list(sys.argv[1:] if argv is None else argv)
        parser = build_parser(arguments)
        args, extras = parser.parse_known_args(arguments)
        if extras:
            raise UsageError(_unrecognized(parser, args, extras))
        if not getattr(args, "handler", None):
            parser.print_help(sys.stderr)
            return ExitCode.USAGE
        from hyperpod_nccl.commands.options import prepare_output

        if sys.stdout is None and not getattr(args, "output", None):
            # `>&-`: print() would drop everything without a word
            print("error: standard output is closed; nothing could be written", file=sys.stderr)
            return ExitCode.NO_INPUT
        if hasattr(args, "output") and hasattr(args, "format"):
            prepare_output(args)  # before any work: the format, and no overwrite
        code = int(args.handler(args))
        if sys.stdout is not None:
            sys.stdout.flush()  # a full disk shows here, not in a traceback at exit
        return code
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return ExitCode.USAGE
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return ExitCode.NO_INPUT
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # before OSError, of which it is one
        # The reader of our output went away (`| head`); that is not an error of ours.
        sys.stderr.close()
        return ExitCode.OK
    except OSError as exc:
        if exc.errno not in _OUTPUT_ERRNOS:
            raise
        # print() of a command that writes no report (explain, --list) on a full or closed
        # standard output.
        from hyperpod_nccl.commands.options import silence_stdout

        silence_stdout()
        print(f"error: cannot write to standard output: {exc.strerror or exc}", file=sys.stderr)
        return ExitCode.NO_INPUT


if __name__ == "__main__":
    sys.exit(main())
