"""Values a command needs that the run did not learn. Checks and rules write them as
`<name>` placeholders; printed as such they are shell redirections, so before a command is
shown each one becomes a shell expansion that either finds the value (a read-only
substitution) or stops with a message saying where to get it (`${VAR:?...}`)."""

from __future__ import annotations

import re

PLACEHOLDER = re.compile(r"<([a-z][a-z0-9-]*(?:-of-[^<>\s]+)?)>")

# The workers of a torchrun job are the children of its launcher; their pid is what py-spy
# or /proc/PID/limits need. The oldest matching process is the launcher itself.
LAUNCHER_PID = "$(pgrep -o -f 'torchrun|torch[.]distributed[.]run')"
WORKER_PID = f'"$(pgrep -n -P "{LAUNCHER_PID}")"'

# placeholder -> (variable, where to get it). The message may not hold `}` or quotes.
_ASK: dict[str, tuple[str, str]] = {
    "cluster-name": (
        "CLUSTER",
        "set CLUSTER to the HyperPod cluster name: aws sagemaker list-clusters",
    ),
    "cluster-arn": ("CLUSTER_ARN", "set CLUSTER_ARN: aws sagemaker list-clusters"),
    "region": ("AWS_REGION", "set AWS_REGION to the cluster region"),
    "eks-cluster": ("EKS_CLUSTER", "set EKS_CLUSTER to the EKS cluster behind HyperPod"),
    "instance-id": (
        "INSTANCE_ID",
        "set INSTANCE_ID to the node instance id: hyperpod-nccl diagnose --cluster NAME lists them",
    ),
    "peer-address": ("PEER", "set PEER to the address in the connection error"),
    "port": ("PORT", "set PORT to the port in the connection error"),
    "your-job-script": ("JOB_SCRIPT", "set JOB_SCRIPT to the batch script of your job"),
    "node": ("NODE", "set NODE to the node name"),
    "job-id": ("JOB_ID", "set JOB_ID to the Slurm job id: squeue or sacct -X"),
    "log-file": ("LOG_FILE", "set LOG_FILE to the log of the failed rank"),
    "security-group-id": (
        "SECURITY_GROUP_ID",
        "set SECURITY_GROUP_ID to the cluster security group: aws sagemaker describe-cluster",
    ),
}
# Placeholders a read-only substitution answers on the machine the command runs on.
_FIND = {
    "pid-of-training-process": WORKER_PID,
    "training-pid": WORKER_PID,
    "pid": WORKER_PID,
}


def _variable(name: str) -> str:
    return re.sub(r"[^A-Z0-9]+", "_", name.upper()).strip("_") or "VALUE"


def expansion(name: str, of: str | None = None) -> str:
    """The shell text standing for placeholder `<name>` (or `<name-of-OF>`)."""
    if name in _FIND and of is None:
        return _FIND[name]
    variable, hint = _ASK.get(name, (_variable(name), f"set {_variable(name)}"))
    if of:
        what, colon, how = hint.partition(":")
        hint = f"{what} of {of}{colon}{how}"
    hint = re.sub(r"[{}\"'`$\\]", "", hint)
    return f'"${{{variable}:?{hint}}}"'


def _split(placeholder: str) -> tuple[str, str | None]:
    if placeholder in _FIND or placeholder in _ASK:
        return placeholder, None
    name, sep, of = placeholder.partition("-of-")
    return name, (of if sep else None)


def _code_part(command: str) -> tuple[str, str]:
    """The command and its trailing `#` comment (outside quotes), which stays as written."""
    quote = ""
    for i, ch in enumerate(command):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or command[i - 1].isspace()):
            return command[:i], command[i:]
    return command, ""


def runnable(command: str) -> str:
    """`command` with every placeholder in a shell position replaced by its expansion.
    Placeholders in a trailing comment are words for the reader and stay."""
    code, comment = _code_part(command)
    used: dict[str, str] = {}  # variable -> the placeholder it stands for

    def replace(match: re.Match[str]) -> str:
        text = expansion(*_split(match.group(1)))
        variable = re.match(r'"\$\{([A-Z0-9_]+):', text)
        if variable:  # two hosts' instance ids in one command need two variables
            name = base = variable.group(1)
            n = 1
            while used.get(name, match.group(0)) != match.group(0):
                n += 1
                name = f"{base}_{n}"
            used[name] = match.group(0)
            text = text.replace(f"${{{base}:?set {base} ", f"${{{name}:?set {name} ", 1)
        return text

    return PLACEHOLDER.sub(replace, code) + comment
