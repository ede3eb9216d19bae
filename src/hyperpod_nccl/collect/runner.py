"""Running read-only Slurm commands: a small transport interface and its local implementation.

Every collector that talks to Slurm goes through a `CommandRunner`: `run(argv, timeout)` returns
the exit status and both output streams. The local runner starts the command as a subprocess on
this host; a node transport (SSM, from the probes work) can implement the same interface.

Whatever the transport, `check_read_only(argv)` is applied first: only a fixed set of Slurm
commands that read state is allowed (see `ALLOWED`), so a bug in a collector cannot drain a
node or cancel a job.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import PurePosixPath
from typing import NamedTuple, Protocol


class CommandResult(NamedTuple):
    """What a command did. `rc` is None when it did not finish (timed out or could not start)."""

    rc: int | None
    stdout: str
    stderr: str
    elapsed_s: float = 0.0
    timed_out: bool = False


class CommandRunner(Protocol):
    """Runs one read-only command; never raises for the command's own failure."""

    @property
    def host(self) -> str:
        """The host the commands run on, as findings should name it."""
        ...

    def run(self, argv: Sequence[str], timeout: float) -> CommandResult: ...


class CommandRefused(ValueError):
    """The argv is not on the read-only allow-list; a programming error, never user input."""


# Files a collector may read with `cat`: Slurm's configuration and systemd-logind's.
_LOGIND_FILE = re.compile(
    r"^/(etc|run|usr/lib|usr/local/lib)/systemd/logind\.conf(\.d/[A-Za-z0-9_.@-]+\.conf)?$"
)
_LOGIND_DIR = re.compile(r"^/(etc|run|usr/lib|usr/local/lib)/systemd/logind\.conf\.d$")
_SLURM_CONF = re.compile(r"^/[A-Za-z0-9_./@+-]*slurm[A-Za-z0-9_./@+-]*\.conf$")
_SAFE_PATH = re.compile(r"^/[A-Za-z0-9_./@+=:-]+$")

# Read-only forms of each command: a predicate over the arguments after the program name.
_SCONTROL_SHOW = {"node", "nodes", "job", "config", "partition", "partitions", "hostnames"}


def _options_only(args: Sequence[str], allowed: set[str]) -> bool:
    """True when every argument is one of the allowed options or a safe `--opt=value`."""
    for arg in args:
        name = arg.split("=", 1)[0]
        if name not in allowed:
            return False
    return True


def _is_safe_path(path: str) -> bool:
    return bool(_SAFE_PATH.fullmatch(path)) and ".." not in PurePosixPath(path).parts


def _sinfo(args: Sequence[str]) -> bool:
    return _options_only(args, {"--json", "-N", "-h", "-R", "-o", "--noheader", "--Node"}) or (
        # `-o FORMAT` takes its format as the next argument.
        len(args) >= 2 and args[-2] == "-o" and _options_only(args[:-2], {"-N", "-h", "-R"})
    )


def _squeue(args: Sequence[str]) -> bool:
    if _options_only(args, {"--json", "-h", "--noheader", "-a", "--all"}):
        return True
    if len(args) >= 2 and args[-2] == "-o":
        return _options_only(args[:-2], {"-h", "--noheader", "-a", "--all", "-t", "--states"})
    return False


def _scontrol(args: Sequence[str]) -> bool:
    words = [a for a in args if a not in ("-o", "--oneliner", "--json", "-d", "--details")]
    if words == ["ping"] or words == ["--version"]:
        return True
    return len(words) in (2, 3) and words[0] == "show" and words[1] in _SCONTROL_SHOW


def _sacct(args: Sequence[str]) -> bool:
    allowed = {"-j", "--jobs", "-P", "--parsable2", "-n", "--noheader", "--json", "-o", "-X"}
    allowed |= {"--format", "-S", "--starttime", "-a", "--allusers"}
    return all(not a.startswith("-") or a.split("=", 1)[0] in allowed for a in args)


def _munge(args: Sequence[str]) -> bool:
    return list(args) in (["-n"], ["--no-input"], ["--version"])


def _cat(args: Sequence[str]) -> bool:
    if len(args) != 1 or not _is_safe_path(args[0]):
        return False
    path = args[0]
    return bool(_LOGIND_FILE.fullmatch(path) or _SLURM_CONF.fullmatch(path))


def _ls(args: Sequence[str]) -> bool:
    return len(args) == 2 and args[0] == "-1" and bool(_LOGIND_DIR.fullmatch(args[1]))


ALLOWED: dict[str, Callable[[Sequence[str]], bool]] = {
    "sinfo": _sinfo,
    "squeue": _squeue,
    "scontrol": _scontrol,
    "sacct": _sacct,
    "sdiag": lambda args: list(args) in ([], ["--json"]),
    "munge": _munge,
    "unmunge": lambda args: list(args) in ([], ["--version"]),
    "cat": _cat,
    "ls": _ls,
    "hostname": lambda args: list(args) in ([], ["-s"]),
}


def check_read_only(argv: Sequence[str], extra_files: frozenset[str] = frozenset()) -> None:
    """Raise CommandRefused unless argv is a read-only command on the allow-list.

    `extra_files` are further paths `cat` may read: the prolog and epilog scripts that Slurm's
    own configuration names, which can live anywhere.
    """
    if not argv:
        raise CommandRefused("empty command")
    program, args = argv[0], list(argv[1:])
    check = ALLOWED.get(program)
    if check is None:
        raise CommandRefused(f"{program!r} is not an allowed read-only command")
    if program == "cat" and len(args) == 1 and args[0] in extra_files and _is_safe_path(args[0]):
        return
    if not check(args):
        raise CommandRefused(f"refusing {' '.join(argv)!r}: not a read-only form of {program}")


class LocalRunner:
    """Runs allowed commands on this host, each in its own process group with a timeout."""

    def __init__(self, host: str | None = None, extra_files: frozenset[str] = frozenset()):
        self._host = host or os.uname().nodename.split(".")[0]
        self.extra_files = extra_files

    @property
    def host(self) -> str:
        return self._host

    def allow_files(self, paths: Sequence[str]) -> None:
        """Let `cat` read these further files (scripts named by slurm.conf)."""
        self.extra_files = self.extra_files | frozenset(paths)

    def run(self, argv: Sequence[str], timeout: float) -> CommandResult:
        check_read_only(argv, self.extra_files)
        return run_process(argv, timeout, env={**os.environ, "LC_ALL": "C"})


def run_process(
    argv: Sequence[str],
    timeout: float,
    *,
    env: Mapping[str, str] | None = None,
    hold_stdin: bool = False,
) -> CommandResult:
    """Run argv in its own process group, ended with everything it started at the timeout.

    hold_stdin: give it an empty pipe that stays open until it ends, for programs that stop
    at end of input (session-manager-plugin ends its session when stdin reaches EOF).
    Callers vet argv first (`check_read_only`, or a session built from it).
    """
    started = time.monotonic()
    stdin_r, stdin_w = os.pipe() if hold_stdin else (subprocess.DEVNULL, -1)
    try:
        process = subprocess.Popen(
            list(argv),
            stdin=stdin_r,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            # Its own session, so a timeout can end it and anything it started.
            start_new_session=True,
            env=dict(env) if env is not None else None,
        )
    except OSError as exc:
        if hold_stdin:
            os.close(stdin_w)
        return CommandResult(None, "", exc.strerror or str(exc), 0.0)
    finally:
        if hold_stdin:
            os.close(stdin_r)
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(process)
        out, err = process.communicate()
        elapsed = time.monotonic() - started
        return CommandResult(None, _text(out), _text(err), elapsed, timed_out=True)
    finally:
        if hold_stdin:
            os.close(stdin_w)
    return CommandResult(process.returncode, _text(out), _text(err), time.monotonic() - started)


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):  # it ended on its own meanwhile
        os.killpg(process.pid, signal.SIGKILL)


def _text(data: bytes) -> str:
    return data.decode("utf-8", "replace")
