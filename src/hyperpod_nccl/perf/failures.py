"""Lines that say an nccl-tests run failed, was killed, or hung, and the host they name.

Kinds: `nccl` and `cuda` (nccl-tests' own `Test NCCL failure` / `Test CUDA failure` lines and
its `# error:` footer), `launch` (MPI or Slurm could not start the job), `exit` and `signal`
(a task ended early), `timeout` (killed at a time limit: the run hung), `cancelled`
(stopped from outside), and `nccl-warn` (an NCCL warning: context, not a failure by itself).
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class FailurePattern:
    kind: str
    pattern: re.Pattern[str]
    own: bool  # printed by nccl-tests itself, so it shows a run even with no table around it


def _p(kind: str, regex: str) -> FailurePattern:
    return FailurePattern(kind, re.compile(regex), own=False)


def _own(kind: str, regex: str) -> FailurePattern:
    return FailurePattern(kind, re.compile(regex), own=True)


# Checked in order; the first match wins. A named group `host` says where it happened.
PATTERNS = (
    _own("nccl", r"(?:(?P<host>[\w.-]+):\s+)?(?:Test )?NCCL failure\s+\S+\s+'?(?P<what>[^']*)"),
    _own("cuda", r"(?:(?P<host>[\w.-]+):\s+)?Test CUDA failure\s+\S+\s+'?(?P<what>[^']*)"),
    _own("nccl", r"\.\. (?P<host>[\w.-]+) pid \d+: Test failure\s+\S+"),
    _own("nccl", r"(?:(?P<host>[A-Za-z][\w.-]*):\s+)?Test failure\s+\S+"),
    _own("nccl", r"^#\s*error:\s*(?P<what>\S.*)"),
    _p(
        "timeout",
        r"slurmstepd: error: \*\*\* (?:STEP|JOB) \S+ ON (?P<host>\S+) CANCELLED AT \S+ DUE TO TIME LIMIT",
    ),
    _p("cancelled", r"slurmstepd: error: \*\*\* (?:STEP|JOB) \S+ ON (?P<host>\S+) CANCELLED AT"),
    _p("timeout", r"The user-provided time limit for job execution has been reached"),
    _p("exit", r"srun: error: (?P<host>[\w.-]+): tasks? [\d,\-]+: (?P<what>.*)"),
    _p(
        "signal",
        r"mpirun noticed that process rank \d+ with PID \d+ on node (?P<host>\S+) exited on signal",
    ),
    _p(
        "exit",
        r"(?:Primary job\s+terminated normally, but \d+ process returned|mpirun detected that one or more processes exited with non-zero status)",
    ),
    _p("signal", r"BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES"),
    _p("launch", r"There are not enough slots available in the system"),
    _p(
        "launch",
        r"(?:ORTE|PRTE) (?:was unable to reliably start|has lost communication)|An? (?:ORTE|PRTE) daemon has unexpectedly failed|mpirun was unable to launch",
    ),
    _p("launch", r"srun: error: (?:Unable to|Invalid|Task launch)"),
    _p("launch", r"Invalid number of GPUs: \d+ requested but only \d+ were found"),
    _p(
        "signal",
        r"\b(?:Segmentation fault|Bus error)\b.*(?:core dumped|\(signal)|^\S*\s*(?:Segmentation fault|Bus error)\s*$",
    ),
    _p("cuda", r"\bcudaError\w+|CUDA driver version is insufficient"),
    _p("nccl-warn", r"(?P<host>[\w.-]+):\d+:\d+ \[\d+\] NCCL WARN (?P<what>.*)"),
)


@dataclass(frozen=True)
class FailureLine:
    kind: str
    host: str | None
    own: bool


def classify(body: str) -> FailureLine | None:
    """The failure a line reports, or None. `body` has its launcher prefixes removed."""
    # Cheap gate: every pattern above contains one of these words.
    if not _GATE.search(body):
        return None
    for fp in PATTERNS:
        m = fp.pattern.search(body)
        if m:
            host = m.groupdict().get("host")
            return FailureLine(fp.kind, host, fp.own)
    return None


_GATE = re.compile(
    r"failure|error|CANCELLED|time limit|noticed|terminated|TERMINATION|not enough slots|"
    r"ORTE|PRTE|unable to launch|Invalid number|Segmentation|Bus error|insufficient|WARN|"
    r"non-zero"
)
