"""Collect Slurm state into a Snapshot: controller and munge, nodes, jobs, configuration, the
job scripts it names, systemd-logind's RemoveIPC, and job output files.

Every command goes through a `CommandRunner` (local subprocess today, a node transport later)
with a per-command timeout and one overall deadline, so a hung slurmctld costs seconds, not a
hang. What could not be collected is recorded with the reason; the checks in
`hyperpod_nccl.checks.slurm` decide what it means.

Snapshot items (all under `slurm/`):
  context.json                  where and when: host, Slurm version, submit shell's memlock limit
  munge.json, ping.json         command records {argv, rc, stdout, stderr, elapsed_s, timed_out}
  sinfo.json                    `sinfo --json`, or scontrol_show_node.txt where --json fails
  squeue.json                   `squeue --json`, or squeue.txt (fixed -o format)
  config.txt                    `scontrol show config`
  scontrol_show_partition.txt   `scontrol show partition -o`: each partition's limits
  sdiag.txt                     scheduler statistics, for people reading the bundle
  scripts/<path>                prolog/epilog scripts the configuration names
  logind/<host>.json            {files: {path: text}, absent: [...], errors: {path: why}}
  jobs/<id>/scontrol.txt        `scontrol show job -o <id>`
  job_output/<id>/<file>        job output files, analysed by the log rules
"""

from __future__ import annotations

import os
import re
import resource
import shutil
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hyperpod_nccl.collect.runner import CommandResult, CommandRunner, LocalRunner
from hyperpod_nccl.probes.parsers.logind import DROPIN_DIRS, MAIN_FILES
from hyperpod_nccl.safeio import UnreadableInput, open_regular, walk_files
from hyperpod_nccl.slurm.config import parse_show_config, script_paths
from hyperpod_nccl.slurm.jobs import SQUEUE_FORMAT
from hyperpod_nccl.snapshot import Snapshot
from hyperpod_nccl.snapshot.items import (
    SLURM_CONFIG,
    SLURM_CONTEXT,
    SLURM_MUNGE,
    SLURM_PARTITIONS,
    SLURM_PING,
    SLURM_SDIAG,
    SLURM_SHOW_NODE,
    SLURM_SINFO,
    SLURM_SQUEUE,
    SLURM_SQUEUE_TEXT,
)

DEFAULT_TIMEOUT_S = 20.0
DEFAULT_DEADLINE_S = 180.0
# Job output files can be large; the end holds the failure, so a long file keeps its tail.
MAX_JOB_OUTPUT_BYTES = 64 * 1024 * 1024
MAX_JOB_OUTPUT_FILES = 2000
_ITEM_PART = re.compile(r"[^A-Za-z0-9_.@:+=-]+")


@dataclass
class _Budget:
    """The per-command timeout, capped by what is left of the overall deadline."""

    timeout: float
    deadline: float
    started: float = field(default_factory=time.monotonic)

    def next_timeout(self) -> float | None:
        left = self.deadline - (time.monotonic() - self.started)
        return None if left <= 0.5 else min(self.timeout, left)


class _Collector:
    def __init__(self, snapshot: Snapshot, runner: CommandRunner, budget: _Budget):
        self.snapshot = snapshot
        self.runner = runner
        self.budget = budget

    def run(self, argv: Sequence[str]) -> CommandResult | str:
        """The command's result, or why it did not run (deadline reached)."""
        timeout = self.budget.next_timeout()
        if timeout is None:
            return f"not run: the overall deadline of {self.budget.deadline:g} s was reached"
        return self.runner.run(argv, timeout)

    def source(self, argv: Sequence[str]) -> str:
        return f"{' '.join(argv)} (on {self.runner.host})"

    def record(self, name: str, argv: Sequence[str]) -> CommandResult | None:
        """Run argv and store its full record as JSON, whatever the outcome."""
        result = self.run(argv)
        if isinstance(result, str):
            self.snapshot.missing(name, result, self.source(argv))
            return None
        self.snapshot.put_json(name, _as_record(argv, result, self.runner.host), self.source(argv))
        return result

    def output(self, name: str, argv: Sequence[str]) -> CommandResult | None:
        """Run argv and store its standard output when it succeeded, else why it did not."""
        result = self.run(argv)
        if isinstance(result, str):
            self.snapshot.missing(name, result, self.source(argv))
            return None
        if result.rc == 0:
            self.snapshot.put_text(name, result.stdout, self.source(argv))
        else:
            self.snapshot.missing(name, failure_reason(argv, result), self.source(argv))
        return result


# What collect_slurm runs before it has seen any output: a runner that can batch (SSM) runs them
# in one session; STATE_COMMANDS ask slurmctld, so they run only when `scontrol ping` says UP.
FIRST_COMMANDS = (("scontrol", "--version"), ("munge", "-n"), ("scontrol", "ping"))
STATE_COMMANDS = (
    ("sinfo", "--json"),
    ("squeue", "--json"),
    ("scontrol", "show", "config"),
    ("scontrol", "show", "partition", "-o"),
    ("sdiag",),
)
LOGIND_COMMANDS = tuple(("cat", p) for p in MAIN_FILES) + tuple(
    ("ls", "-1", d) for d in DROPIN_DIRS
)


def _prefetch(
    collector: _Collector, commands: Sequence[Sequence[str]], gated: Sequence[Sequence[str]] = ()
) -> None:
    """Hand the runner the commands about to run, when it can run them in one go."""
    prefetch = getattr(collector.runner, "prefetch", None)
    timeout = collector.budget.next_timeout()
    if not callable(prefetch) or timeout is None:
        return
    budget = collector.budget
    left = budget.deadline - (time.monotonic() - budget.started)
    # The batch gets the time its commands would get one by one, within the deadline.
    prefetch(commands, min(left, timeout * (len(commands) + len(gated))), gated)


def failure_reason(argv: Sequence[str], result: CommandResult) -> str:
    command = " ".join(argv[:2])
    if result.timed_out:
        return f"{command} did not answer within {result.elapsed_s:.0f} s (timed out)"
    if result.rc is None:
        return f"{command} could not start: {result.stderr.strip() or 'unknown error'}"
    message = (result.stderr.strip() or result.stdout.strip()).splitlines()
    return f"{command} exited {result.rc}: {message[-1] if message else 'no output'}"


def _as_record(argv: Sequence[str], result: CommandResult, host: str) -> dict[str, Any]:
    return {
        "argv": list(argv),
        "host": host,
        "rc": result.rc,
        "stdout": result.stdout,
        "stderr": result.stderr,
        "elapsed_s": round(result.elapsed_s, 3),
        "timed_out": result.timed_out,
    }


def collect_slurm(
    snapshot: Snapshot,
    runner: CommandRunner,
    *,
    job_ids: Sequence[str] = (),
    job_outputs: Sequence[str] = (),
    logind_runners: Sequence[CommandRunner] | None = None,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    deadline_s: float = DEFAULT_DEADLINE_S,
) -> None:
    """Fill `snapshot` with Slurm state read through `runner` (run where Slurm commands work).

    job_ids: jobs whose record and output file to collect; job_outputs: output files or
    directories to analyse (a `slurm-%j.out`, a directory of per-rank logs). logind_runners: the
    hosts whose systemd-logind configuration to read (default: the runner's own host).
    """
    collector = _Collector(snapshot, runner, _Budget(timeout_s, deadline_s))
    snapshot.meta.setdefault("orchestrator", "slurm")
    own_logind = LOGIND_COMMANDS if logind_runners is None else ()
    _prefetch(collector, [*FIRST_COMMANDS, *own_logind], STATE_COMMANDS)
    _collect_context(collector)
    collector.record(SLURM_MUNGE, ["munge", "-n"])
    ping = collector.record(SLURM_PING, ["scontrol", "ping"])
    controller_problem = _controller_problem(ping)
    if controller_problem:
        for name in (
            SLURM_SINFO,
            SLURM_SQUEUE,
            SLURM_CONFIG,
            SLURM_PARTITIONS,
            SLURM_SDIAG,
        ):
            snapshot.missing(name, controller_problem, "slurmctld")
    else:
        _collect_nodes(collector)
        _collect_jobs(collector)
        config = collector.output(SLURM_CONFIG, ["scontrol", "show", "config"])
        collector.output(SLURM_PARTITIONS, ["scontrol", "show", "partition", "-o"])
        collector.output(SLURM_SDIAG, ["sdiag"])
        if config is not None and config.rc == 0:
            _collect_scripts(collector, parse_show_config(config.stdout))
    for target in logind_runners if logind_runners is not None else [runner]:
        _collect_logind(_Collector(snapshot, target, collector.budget))
    for job_id in job_ids:
        _collect_job(collector, job_id, controller_problem)
    for path in job_outputs:
        _copy_job_output(snapshot, "given", path)


def _collect_context(collector: _Collector) -> None:
    context: dict[str, Any] = {
        "host": collector.runner.host,
        "runner": type(collector.runner).__name__,
        "collected_at": int(time.time()),
        "slurm_version": None,
        "submit_rlimit_memlock": None,
    }
    version = collector.run(["scontrol", "--version"])
    if isinstance(version, CommandResult) and version.rc == 0:
        found = re.search(r"\d+\.\d+(?:\.\d+)?", version.stdout)
        context["slurm_version"] = found.group(0) if found else version.stdout.strip()
    if isinstance(collector.runner, LocalRunner):
        # This process's limit is what a job submitted from this shell inherits when Slurm
        # propagates MEMLOCK.
        soft, hard = resource.getrlimit(resource.RLIMIT_MEMLOCK)
        context["submit_rlimit_memlock"] = {"soft": _limit(soft), "hard": _limit(hard)}
    collector.snapshot.put_json(SLURM_CONTEXT, context, "hyperpod-nccl")


def _limit(value: int) -> int | None:
    return None if value == resource.RLIM_INFINITY else value


def _controller_problem(ping: CommandResult | None) -> str | None:
    """Why state queries would fail, so they are skipped instead of each timing out."""
    if ping is None:
        return "not queried: the overall deadline was reached"
    if ping.timed_out:
        return f"not queried: scontrol ping did not answer within {ping.elapsed_s:.0f} s"
    if ping.rc is None:
        return f"not queried: scontrol could not start ({ping.stderr.strip()})"
    if "is UP" not in ping.stdout:
        return "not queried: scontrol ping reports no slurmctld UP"
    return None


def _is_json_object(text: str) -> bool:
    return text.lstrip().startswith("{")


def _json_or_text(
    collector: _Collector,
    json_item: str,
    json_argv: list[str],
    text_item: str,
    text_argv: list[str],
) -> None:
    """Prefer Slurm's JSON form; where the installed Slurm has none, its fixed text form."""
    result = collector.run(json_argv)
    if isinstance(result, CommandResult) and result.rc == 0 and _is_json_object(result.stdout):
        collector.snapshot.put_text(json_item, result.stdout, collector.source(json_argv))
        return
    why = result if isinstance(result, str) else failure_reason(json_argv, result)
    collector.snapshot.missing(json_item, why, collector.source(json_argv))
    if isinstance(result, CommandResult) and not result.timed_out:
        collector.output(text_item, text_argv)


def _collect_nodes(collector: _Collector) -> None:
    _json_or_text(
        collector,
        SLURM_SINFO,
        ["sinfo", "--json"],
        SLURM_SHOW_NODE,
        ["scontrol", "show", "node", "-o"],
    )


def _collect_jobs(collector: _Collector) -> None:
    _json_or_text(
        collector,
        SLURM_SQUEUE,
        ["squeue", "--json"],
        SLURM_SQUEUE_TEXT,
        ["squeue", "-h", "-o", SQUEUE_FORMAT],
    )


def _collect_scripts(collector: _Collector, settings: dict[str, str]) -> None:
    paths = sorted({p for found in script_paths(settings).values() for p in found})
    allow = getattr(collector.runner, "allow_files", None)
    if callable(allow):
        allow(paths)
    _prefetch(collector, [["cat", path] for path in paths])
    for path in paths:
        collector.output(f"slurm/scripts{_item_path(path)}", ["cat", path])


def _item_path(path: str) -> str:
    """An absolute path as a snapshot item suffix: '/etc/slurm/prolog.sh' stays as it is."""
    return "/" + "/".join(_ITEM_PART.sub("_", part) for part in path.split("/") if part)


def _collect_logind(collector: _Collector) -> None:
    files: dict[str, str] = {}
    absent: list[str] = []
    errors: dict[str, str] = {}

    def read(path: str) -> None:
        result = collector.run(["cat", path])
        if isinstance(result, str):
            errors[path] = result
        elif result.rc == 0:
            files[path] = result.stdout
        elif "No such file" in result.stderr:
            absent.append(path)
        else:
            errors[path] = failure_reason(["cat", path], result)

    for path in MAIN_FILES:
        read(path)
    dropins: list[str] = []
    for directory in DROPIN_DIRS:
        listing = collector.run(["ls", "-1", directory])
        if isinstance(listing, str):
            errors[directory] = listing
        elif listing.rc == 0:
            names = sorted(listing.stdout.split())
            dropins += [f"{directory}/{n}" for n in names if n.endswith(".conf") and "/" not in n]
        elif "No such file" in listing.stderr:
            absent.append(directory)
        else:
            errors[directory] = failure_reason(["ls", directory], listing)
    _prefetch(collector, [["cat", path] for path in dropins])
    for path in dropins:
        read(path)
    host = collector.runner.host
    collector.snapshot.put_json(
        f"slurm/logind/{_ITEM_PART.sub('_', host)}.json",
        {"host": host, "files": files, "absent": absent, "errors": errors},
        f"systemd-logind configuration (on {host})",
    )


_STDOUT = re.compile(r"(?:^|\s)StdOut=(\S+)")
_STDERR = re.compile(r"(?:^|\s)StdErr=(\S+)")


def _collect_job(collector: _Collector, job_id: str, controller_problem: str | None) -> None:
    safe_id = _ITEM_PART.sub("_", job_id)
    name = f"slurm/jobs/{safe_id}/scontrol.txt"
    if controller_problem:
        collector.snapshot.missing(name, controller_problem, "slurmctld")
        return
    result = collector.output(name, ["scontrol", "show", "job", "-o", job_id])
    if result is None or result.rc != 0:
        return
    paths = [m.group(1) for p in (_STDOUT, _STDERR) for m in p.finditer(result.stdout)]
    for path in dict.fromkeys(paths):
        if path != "/dev/null":
            _copy_job_output(collector.snapshot, safe_id, path)


def _copy_job_output(snapshot: Snapshot, group: str, given: str) -> None:
    """Copy a job output file (or every file under a directory) into the snapshot. The file
    system is read directly: on HyperPod the head node shares it with the compute nodes."""
    root = Path(given)
    if root.is_dir():
        # Walked without recursion (any depth); only regular files are read.
        files = sorted(Path(p) for p in walk_files(given) if os.path.isfile(p))
        files = files[:MAX_JOB_OUTPUT_FILES]
        if not files:
            snapshot.missing(f"slurm/job_output/{group}{_item_path(given)}", "empty directory")
    else:
        files = [root]
    for path in files:
        name = f"slurm/job_output/{group}{_item_path(str(path.absolute()))}"
        try:
            size = path.stat().st_size
            with open_regular(str(path)) as stream:
                if size > MAX_JOB_OUTPUT_BYTES:
                    stream.seek(size - MAX_JOB_OUTPUT_BYTES)
                data = stream.read(MAX_JOB_OUTPUT_BYTES)
        except OSError as exc:
            snapshot.missing(name, f"{path}: {exc.strerror or exc}", str(path))
            continue
        except UnreadableInput as exc:  # a FIFO or device named as the job's output
            snapshot.missing(name, f"{path}: {exc}", str(path))
            continue
        note = f" (last {MAX_JOB_OUTPUT_BYTES} of {size} bytes)" if size > len(data) else ""
        snapshot.put_text(name, data.decode("utf-8", "replace"), f"{path}{note}")


def local_slurm_available() -> bool:
    """Whether Slurm's client commands are installed here (auto-detection of the orchestrator)."""
    return all(shutil.which(tool) for tool in ("sinfo", "scontrol", "squeue"))
