"""Where a suggested command runs, written into the command line itself: a node's shell (the
hosts named in a trailing comment), the training container (through `kubectl exec` when the
finding names pods), a machine with the Slurm client, or here. Several hosts give one line,
never one copy per host."""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence

# Pod names of training operators: Kubeflow's JOB-master-N / -worker-N / -launcher-N, HyperPod's JOB-pod-N.
POD = re.compile(r"(?i)^[a-z0-9]([-a-z0-9]*[a-z0-9])?-(?:master|worker|launcher|pod)-\d+$")
WHERE = ("here", "node", "container", "slurm")
MAX_NAMED = 4  # hosts named in a comment; the rest are counted
_SHELL_SYNTAX = re.compile(r"[|;&<>()$`*?\[\]{}'\"\\]")


def pods(hosts: Sequence[str]) -> list[str]:
    return [h for h in hosts if POD.match(h)]


def _names(hosts: Sequence[str]) -> str:
    shown = ", ".join(hosts[:MAX_NAMED])
    more = len(hosts) - MAX_NAMED
    return shown + (f" and {more} more" if more > 0 else "")


def _in_pod(command: str, pod_names: Sequence[str]) -> str:
    if not _SHELL_SYNTAX.search(command):
        inner = command
    elif not re.search(r'["$`\\]', command):
        inner = f'sh -c "{command}"'  # easier to read than shlex's quoting of inner quotes
    else:
        inner = f"sh -c {shlex.quote(command)}"
    if len(pod_names) == 1:
        return f"kubectl exec {pod_names[0]} -- {inner}"
    names = " ".join(pod_names[:MAX_NAMED])
    return f'for pod in {names}; do kubectl exec "$pod" -- {inner}; done'


def place(command: str, where: str, hosts: Sequence[str]) -> tuple[str, str]:
    """The command as printed and its `runs_on`, for a finding about `hosts` (nodes or pods)."""
    if where not in WHERE:
        raise ValueError(f"where must be one of {WHERE}, not {where!r}")
    nodes = [h for h in hosts if not POD.match(h)]
    pod_names = pods(hosts)
    if where == "here":
        return command, ""
    if where == "slurm":
        return command, "a node with the Slurm client (login or head node)"
    if where == "container":
        if pod_names:
            return _in_pod(command, pod_names), "pod " + _names(pod_names)
        target = f"the training container on {_names(nodes)}" if nodes else "the training container"
        return f"{command}   # run in {target}", target
    if nodes:
        return f"{command}   # run on {_names(nodes)}", _names(nodes)
    if pod_names:
        target = f"the node of pod {_names(pod_names)}"
        how = f"kubectl get pod {' '.join(pod_names[:MAX_NAMED])} -o wide"
        return f"{command}   # run on {target} ({how})", target
    return f"{command}   # run on each node of the job", "each node of the job"
