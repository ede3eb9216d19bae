"""Exit codes of every hyperpod-nccl command, documented in one place (README, `--help`)."""

from __future__ import annotations

import enum


class ExitCode(enum.IntEnum):
    OK = 0
    """The analysis completed (findings may still exist; see --fail-on)."""

    NO_INPUT = 1
    """Nothing could be read or collected: no readable input, no credentials, no cluster."""

    USAGE = 2
    """The command line was wrong: unknown option, invalid value."""

    FINDINGS = 3
    """--fail-on was given and a FAIL at or above that priority was found."""


EXIT_CODE_HELP = """exit codes:
  0  the analysis completed (use --fail-on to turn findings into a non-zero exit)
  1  nothing could be read or collected (no readable input, no credentials, cluster not found)
  2  usage error (unknown option, invalid value)
  3  --fail-on P0|P1|P2 was given and a FAIL at or above that priority was found"""


class UsageError(Exception):
    """Bad command-line input; exits with ExitCode.USAGE after a one-line message."""


class InputError(Exception):
    """Nothing usable could be read; exits with ExitCode.NO_INPUT after a one-line message."""
