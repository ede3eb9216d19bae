"""The `hyperpod-nccl` command line: a thin face over the commands in hyperpod_nccl.commands.

Each command module exposes `register(subparsers)`, which adds its parser and sets
`handler`, a function taking the parsed arguments and returning an exit code. This module
only dispatches and turns expected errors into one-line messages with documented exit codes.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from hyperpod_nccl import __version__
from hyperpod_nccl.exit_codes import EXIT_CODE_HELP, ExitCode, InputError, UsageError

# Command modules, in the order `--help` lists them.
COMMAND_MODULES = [
    "hyperpod_nccl.commands.logs",
    "hyperpod_nccl.commands.perf",
    "hyperpod_nccl.commands.explain",
    "hyperpod_nccl.commands.probe",
    "hyperpod_nccl.commands.diagnose",
    "hyperpod_nccl.commands.diff",
    "hyperpod_nccl.commands.bundle",
    "hyperpod_nccl.commands.mcp",
]


class _Parser(argparse.ArgumentParser):
    """argparse that raises instead of exiting, so every usage error is one line and exit 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(f"{self.prog}: {message}")


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
        args = parser.parse_args(arguments)
        if not getattr(args, "handler", None):
            parser.print_help(sys.stderr)
            return ExitCode.USAGE
        return int(args.handler(args))
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return ExitCode.USAGE
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return ExitCode.NO_INPUT
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader of our output went away (`| head`); that is not an error of ours.
        sys.stderr.close()
        return ExitCode.OK


if __name__ == "__main__":
    sys.exit(main())
