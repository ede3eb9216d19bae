"""Slurm's configuration as `scontrol show config` reports it (the controller's effective
settings), and what it means for jobs: locked-memory propagation, task plugin, job scripts."""

from __future__ import annotations

import re
from dataclasses import dataclass

_LINE = re.compile(r"^([A-Za-z][A-Za-z0-9_]*)\s*=\s?(.*)$")
_UNSET = {"", "(null)", "none", "n/a", "(null type)"}


def parse_show_config(output: str) -> dict[str, str]:
    """`Key = Value` lines of `scontrol show config`, keys as printed. Unset values are ''."""
    settings: dict[str, str] = {}
    for line in output.splitlines():
        match = _LINE.match(line.rstrip())
        if match:
            value = match.group(2).strip()
            settings[match.group(1)] = "" if value.lower() in _UNSET else value
    return settings


def _limits(value: str) -> set[str]:
    return {v.strip().upper() for v in value.split(",") if v.strip()}


@dataclass(frozen=True)
class MemlockPropagation:
    """Whether a job's RLIMIT_MEMLOCK is copied from the shell that submitted it."""

    propagated: bool
    limits: str  # PropagateResourceLimits as configured ('' = default ALL)
    except_: str  # PropagateResourceLimitsExcept


def memlock_propagation(settings: dict[str, str]) -> MemlockPropagation:
    """Slurm copies the submitting shell's limits named by PropagateResourceLimits (default ALL)
    minus PropagateResourceLimitsExcept into every task. When MEMLOCK is among them, a job gets
    the submit host's locked-memory limit instead of the compute node's."""
    limits = settings.get("PropagateResourceLimits", "")
    except_ = settings.get("PropagateResourceLimitsExcept", "")
    propagated_set = _limits(limits) if limits else {"ALL"}
    if except_:
        # With an Except list, Slurm propagates everything else (it shows Limits as unset).
        propagated_set = {"ALL"}
    if "NONE" in propagated_set:
        propagated = False
    else:
        named = "ALL" in propagated_set or "MEMLOCK" in propagated_set
        propagated = named and "MEMLOCK" not in _limits(except_) and "ALL" not in _limits(except_)
    return MemlockPropagation(propagated, limits, except_)


# Settings naming scripts: (setting, where the script runs, whether its exports reach tasks).
SCRIPT_SETTINGS = (
    "Prolog",
    "Epilog",
    "TaskProlog",
    "TaskEpilog",
    "PrologSlurmctld",
    "EpilogSlurmctld",
    "SrunProlog",
    "SrunEpilog",
)


def script_paths(settings: dict[str, str]) -> dict[str, list[str]]:
    """Scripts each setting names (comma-separated lists allowed), absolute paths only."""
    paths: dict[str, list[str]] = {}
    for setting in SCRIPT_SETTINGS:
        value = settings.get(setting, "")
        found = [p.strip() for p in value.split(",") if p.strip().startswith("/")]
        if found:
            paths[setting] = found
    return paths


@dataclass(frozen=True)
class ScriptVariable:
    """An NCCL_* or FI_* variable a job script sets, and whether it reaches the job's tasks."""

    setting: str  # Prolog, TaskProlog, ...
    path: str
    line: int
    name: str
    value: str
    reaches_tasks: bool
    text: str


_VARIABLE = r"((?:NCCL|FI)_[A-Za-z0-9_]+)=(\"[^\"]*\"|'[^']*'|[^\s;\"']*)"
# `echo "export NAME=value"` or `printf 'export NAME=value\n'`: what a TaskProlog prints.
_PRINTED_EXPORT = re.compile(r"^\s*(?:echo|printf)\b.*?\bexport\s+" + _VARIABLE)
# `export NAME=value`, `NAME=value`, `declare -x NAME=value` in the script's own shell.
_SHELL_ASSIGNMENT = re.compile(r"^\s*(?:export\s+|declare\s+-x\s+)?" + _VARIABLE)


def script_variables(setting: str, path: str, content: str) -> list[ScriptVariable]:
    """NCCL_*/FI_* variables a script sets. Only a TaskProlog reaches the tasks, and only by
    printing `export NAME=value` lines; a Prolog or Epilog runs in slurmd's context and whatever
    it exports ends with it."""
    found: list[ScriptVariable] = []
    for number, raw in enumerate(content.splitlines(), 1):
        line = raw.split("#", 1)[0] if not raw.lstrip().startswith(("echo", "printf")) else raw
        if not line.strip():
            continue
        printed = _PRINTED_EXPORT.match(line)
        match = printed or _SHELL_ASSIGNMENT.match(line)
        if not match:
            continue
        reaches = setting == "TaskProlog" and printed is not None
        value = match.group(2).strip("\"'")
        found.append(
            ScriptVariable(setting, path, number, match.group(1), value, reaches, raw.strip())
        )
    return found
