"""Suggested commands for log findings, filled in with the hosts, pods and ranks from the
evidence. The tool prints these; it never runs them. Ordered least destructive first:
investigate, then restart or reboot, then replace.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from hyperpod_nccl.model import Finding, SuggestedCommand

_POD = re.compile(r"(?i)^[a-z0-9]([-a-z0-9]*[a-z0-9])?-(?:master|worker|launcher)-\d+$")
MAX_TARGETS = 3


@dataclass(frozen=True)
class Template:
    purpose: str
    command: str  # may use {host}, {pod}, {pid}, {instance}
    needs: str  # "host", "pod", "process" (a host and a pid) or "" (no target)
    preconditions: str = ""
    blast_radius: str = "none: read-only"


_INVESTIGATE_GPU = Template(
    "Read the GPU's error counters and remap state on the node",
    "nvidia-smi -q -d ECC,ROW_REMAPPER,PAGE_RETIREMENT   # run on {host}",
    "host",
    "a shell on the node (SSM session or srun -w {host})",
)
_KERNEL_LOG_XID = Template(
    "List the driver's Xid events on the node",
    "dmesg -T | grep -E 'NVRM: Xid|fallen off the bus'   # run on {host}",
    "host",
    "a shell on the node",
)
_DCGM_DIAG = Template(
    "Run DCGM diagnostics on the idle node",
    "dcgmi diag -r 2   # run on {host}",
    "host",
    "no job running on the node; DCGM installed",
    "the node's GPUs are busy for a few minutes",
)
_REBOOT_NODE = Template(
    "Reboot the node through HyperPod (Slurm: drain it first)",
    "aws sagemaker batch-reboot-cluster-nodes --cluster-name <cluster-name> --node-ids {instance}",
    "host",
    "jobs moved off the node; cluster name and the node's instance ID (hyperpod-nccl diagnose shows both)",
    "the node and every job on it restart",
)
_REPLACE_NODE = Template(
    "Replace the node through HyperPod if the fault returns after a reboot",
    "aws sagemaker batch-replace-cluster-nodes --cluster-name <cluster-name> --node-ids {instance}",
    "host",
    "a reboot did not clear the fault",
    "the instance is terminated and a new one joins; local disk contents are lost",
)
_DESCRIBE_POD = Template(
    "See why the pod's containers ended (state, last state, exit codes, events)",
    "kubectl describe pod {pod}",
    "pod",
    "kubectl access to the job's namespace",
)

TEMPLATES: dict[str, tuple[Template, ...]] = {
    "CONTAINER_OOM": (
        _DESCRIBE_POD,
        Template(
            "Find the kernel's OOM-kill records on the node",
            "dmesg -T | grep -iE 'out of memory|killed process|oom-kill'   # run on {host}",
            "host",
            "a shell on the node",
        ),
    ),
    "GPU_XID": (_KERNEL_LOG_XID, _INVESTIGATE_GPU, _DCGM_DIAG, _REBOOT_NODE, _REPLACE_NODE),
    "GPU_ECC": (_INVESTIGATE_GPU, _KERNEL_LOG_XID, _REBOOT_NODE, _REPLACE_NODE),
    "NVLINK_ERROR": (
        Template(
            "Check NVLink state and error counters",
            "nvidia-smi nvlink -s; nvidia-smi nvlink -e   # run on {host}",
            "host",
            "a shell on the node",
        ),
        Template(
            "Check the fabric manager service (NVSwitch systems)",
            "systemctl status nvidia-fabricmanager   # run on {host}",
            "host",
            "a shell on the node",
        ),
        _REBOOT_NODE,
        _REPLACE_NODE,
    ),
    "GPU_ACCESS_LOST": (
        Template(
            "Confirm the container cannot see its GPUs",
            "nvidia-smi   # run inside the affected container",
            "",
            "",
        ),
        _DESCRIBE_POD,
    ),
    "DRIVER_MISMATCH": (
        Template(
            "Compare the loaded kernel module with the user-space driver",
            "cat /proc/driver/nvidia/version; nvidia-smi   # run on {host}",
            "host",
            "a shell on the node",
        ),
    ),
    "SHM_TOO_SMALL": (
        Template(
            "Check the size and use of /dev/shm where the job runs",
            "df -B1 /dev/shm   # run inside the job's container on {host}",
            "host",
            "a shell in the container",
        ),
    ),
    "MEMLOCK": (
        Template(
            "Check the locked-memory limit the training process really has",
            "grep 'Max locked memory' /proc/$(pgrep -f -o torchrun)/limits   # run on {host}",
            "host",
            "a shell on the node while the job runs",
        ),
    ),
    "NCCL_TIMEOUT": (
        Template(
            "Dump the Python stacks of a rank that is still hanging, to see where it waits",
            "py-spy dump --pid {pid}   # run on {host}",
            "process",
            "the job still hangs; py-spy installed",
        ),
    ),
    "NET_UNREACHABLE": (
        Template(
            "Test that the peer port is reachable from this node",
            "nc -zv -w 5 <peer-address> <port>   # run on {host}",
            "host",
            "a shell on the node",
        ),
    ),
    "MASTER_ADDR_DNS": (
        Template(
            "Resolve the master address from inside the job's container",
            'getent hosts "$MASTER_ADDR"',
            "",
            "a shell in a job container",
        ),
    ),
    "POD_PENDING_RESOURCES": (
        Template(
            "See what the nodes can allocate",
            "kubectl describe nodes | grep -A8 -E 'Allocatable|Allocated resources'",
            "",
            "kubectl access",
        ),
    ),
    "POD_CRASHLOOP": (_DESCRIBE_POD,),
    "POD_IMAGE_PULL": (_DESCRIBE_POD,),
}


def _targets(
    finding: Finding, needs: str, processes: Sequence[tuple[str, int]]
) -> list[tuple[str, str]]:
    """(host or pod, pid) pairs to fill a template with; a placeholder only where the evidence
    did not say."""
    if needs == "process":
        return [(host, str(pid)) for host, pid in processes[:MAX_TARGETS]] or [
            (host, "<pid-of-training-process>")
            for host in (finding.hosts[:MAX_TARGETS] or ["<node>"])
        ]
    if needs == "host":
        hosts = [h for h in finding.hosts if not _POD.match(h)] or finding.hosts
        return [(h, "") for h in hosts[:MAX_TARGETS]] or [("<node>", "")]
    if needs == "pod":
        return [(h, "") for h in finding.hosts if _POD.match(h)][:MAX_TARGETS]
    return [("", "")]


_INSTANCE = re.compile(r"^i-[0-9a-f]{8,17}$")


def _instance(host: str) -> str:
    """The node's EC2 instance ID if the host is named by one, else a placeholder naming it."""
    if _INSTANCE.fullmatch(host):
        return host
    return "<instance-id>" if host.startswith("<") else f"<instance-id-of-{host}>"


def suggested_commands(
    finding: Finding, processes: Sequence[tuple[str, int]] = ()
) -> list[SuggestedCommand]:
    """Commands for `finding`, filled with its hosts, pods and the (host, pid) of the
    processes its evidence came from."""
    commands: list[SuggestedCommand] = []
    for template in TEMPLATES.get(finding.code, ()):
        for target, pid in _targets(finding, template.needs, processes):
            commands.append(
                SuggestedCommand(
                    purpose=template.purpose,
                    command=template.command.format(
                        host=target, pod=target, pid=pid, instance=_instance(target)
                    ),
                    preconditions=template.preconditions.format(host=target),
                    blast_radius=template.blast_radius,
                )
            )
    return commands
