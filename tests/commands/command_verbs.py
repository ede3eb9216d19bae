"""An independent reading of whether a shell command changes anything, from the write verbs
of the programs we suggest (AWS CLI, kubectl, Slurm, systemd, coreutils). The tests hold each
command's declared `changes_state` against it; the tool itself never guesses."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterable

from hyperpod_nccl.model import Finding, Status

_WRITES = [
    r"\baws \S+ (?:create|delete|update|put|authorize|revoke|modify|batch-reboot|batch-replace|start|stop|terminate|reboot|attach|detach)-",
    r"\baws eks update-kubeconfig\b",
    r"\bkubectl(?: -n \S+)? (?:apply|create|delete|edit|patch|replace|cordon|uncordon|drain|label|annotate|scale|rollout|taint)\b",
    r"\bscontrol (?:update|reconfigure|reboot|create|delete|requeue|hold|release)\b",
    r"\b(?:sbatch|srun|salloc|scancel)\b",
    r"\bsystemctl (?:restart|stop|start|enable|disable|reload|mask)\b",
    r"\b(?:tee|mkdir|rm|mv|cp|sed -i|sudoedit|reboot|shutdown)\b",
    r"\bdcgmi diag\b",
    r"(?<![0-9&])>(?!&|\s*/dev/(?:null|stderr|stdout))",  # output redirected into a file
]
WRITE = re.compile("|".join(_WRITES))


def _code(command: str) -> str:
    """The command without quoted strings and its trailing comment, where words are data."""
    code = re.sub(r"'[^']*'", "''", command)
    return re.sub(r"(^|\s)#.*$", "", code)


def writes(command: str) -> bool:
    return bool(WRITE.search(_code(command)))


def syntax_error(command: str) -> str | None:
    """bash's own verdict on the command as printed, or None when it parses."""
    done = subprocess.run(
        ["bash", "-n"], input=command, text=True, capture_output=True, check=False
    )
    return (done.stderr.strip() or "syntax error") if done.returncode else None


def placeholder_in_shell(command: str) -> bool:
    """A `<name>` outside the trailing comment: bash would read it as a redirection."""
    return bool(re.search(r"<[a-z][a-z0-9-]*>", re.sub(r"(^|\s)#.*$", "", command)))


def command_problems(findings: Iterable[Finding]) -> list[str]:
    """What is wrong with the findings' commands as printed: a bash syntax error, a
    placeholder in a shell position, a `changes_state` the write verbs contradict, or a FAIL
    or WARN without a read-only command."""
    problems = []
    for f in findings:
        if f.status in (Status.FAIL, Status.WARN) and not any(
            not c.changes_state for c in f.suggested_commands
        ):
            problems.append(f"{f.code} {f.status.value}: no read-only command")
        for c in f.suggested_commands:
            if error := syntax_error(c.command):
                problems.append(f"{f.code}: bash -n: {error}: {c.command}")
            if placeholder_in_shell(c.command):
                problems.append(f"{f.code}: placeholder: {c.command}")
            if writes(c.command) != c.changes_state:
                problems.append(f"{f.code}: changes_state={c.changes_state}: {c.command}")
    return problems
