"""A code's command templates (codes.yaml `commands:`) filled for one finding: its pods and
nodes, the pids and peer address its evidence shows, the log file it came from. What the
evidence does not say stays a `<placeholder>` for `diagnose` to fill from cluster state, and
becomes a shell expansion (suggest.shell) before it is printed."""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Sequence

from hyperpod_nccl.codes import FIELD, CodeInfo, CommandTemplate
from hyperpod_nccl.model import Finding, SuggestedCommand
from hyperpod_nccl.slurm import hostlists
from hyperpod_nccl.suggest.place import MAX_NAMED, place, pods
from hyperpod_nccl.suggest.shell import WORKER_PID
from hyperpod_nccl.targets import is_instance_id

# Peer addresses as NCCL (`10.1.2.3<45763>`), Gloo/c10d (`10.1.2.3:29500`) and IPv6 (`[fe80::1]:29500`) print them.
_PEER = (
    re.compile(r"\b(\d{1,3}(?:\.\d{1,3}){3})<(\d{1,5})>"),
    re.compile(r"\[([0-9A-Fa-f:]+)\]:(\d{1,5})\b"),
    re.compile(r"\b(\d{1,3}(?:\.\d{1,3}){3}):(\d{1,5})\b"),
)
_SOURCE_LINE = re.compile(r":\d+$")


def instance_of(host: str) -> str:
    """The host's instance id if it is named by one, else a placeholder `diagnose` fills."""
    return host if is_instance_id(host) else f"<instance-id-of-{host}>"


def _peer(finding: Finding) -> tuple[str, str]:
    for ev in finding.evidence:
        for pattern in _PEER:
            if m := pattern.search(ev.text):
                return m.group(1), m.group(2)
    return "<peer-address>", "<port>"


def _logfile(finding: Finding) -> str:
    for ev in finding.evidence:
        path = _SOURCE_LINE.sub("", ev.source)
        if os.path.isfile(path):
            return shlex.quote(path)
    return "<log-file>"


def _values(finding: Finding) -> dict[str, str]:
    hosts = finding.hosts
    nodes = [h for h in hosts if h not in set(pods(hosts))]
    peer, port = _peer(finding)
    return {
        "pods": " ".join(pods(hosts)[:MAX_NAMED]),
        "nodes": " ".join(nodes[:MAX_NAMED]),
        "hostlist": hostlists.compress(nodes) if nodes else "",
        "instances": " ".join(instance_of(h) for h in hosts[:MAX_NAMED]) or "<instance-id>",
        "peer": peer,
        "port": port,
        "logfile": _logfile(finding),
        "pid": WORKER_PID,
    }


def _applies(template: CommandTemplate, finding: Finding) -> bool:
    found = pods(finding.hosts)
    if template.needs == "pods":
        return bool(found)
    if template.needs == "nodes":
        return len(found) < len(finding.hosts)
    if template.needs == "hosts":
        return bool(finding.hosts)
    return True


def _command(
    template: CommandTemplate, values: dict[str, str], hosts: Sequence[str]
) -> SuggestedCommand:
    run = FIELD.sub(lambda m: values[m.group(1)], template.run)
    printed, runs_on = place(run, template.where, hosts)
    return SuggestedCommand(
        purpose=template.purpose,
        command=printed,
        preconditions=template.preconditions,
        blast_radius=template.blast_radius,
        changes_state=template.changes_state,
        runs_on=runs_on,
        while_hanging=template.when == "hanging",
    )


def commands_for(
    finding: Finding, info: CodeInfo, processes: Sequence[tuple[str, int]] = ()
) -> list[SuggestedCommand]:
    """The code's commands for `finding`; `processes` are the (host, pid) its evidence came
    from, so a command about one process names it, on its host."""
    values = _values(finding)
    out: list[SuggestedCommand] = []
    for template in info.commands:
        if not _applies(template, finding):
            continue
        if "{pid}" in template.run and processes:
            for host, pid in processes[:MAX_NAMED]:
                out.append(_command(template, {**values, "pid": str(pid)}, [host]))
        else:
            out.append(_command(template, values, finding.hosts))
    return out
