"""What a node's Slurm state means for training jobs, and what its reason string tells.

Each node gets exactly one condition, the most telling one, so a node is named once in a report:
a node that is DOWN because its slurmd stopped answering is NOT_RESPONDING, not also DOWN.
Precedence: FAIL (on HyperPod the request to reboot or replace) > NOT_RESPONDING > DOWN >
INVALID > DRAIN > MAINTENANCE (planned: maintenance reservation, reboot, power saving).
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass

from hyperpod_nccl.slurm.nodes import SlurmNode


class Condition(str, enum.Enum):
    FAIL = "FAIL"
    NOT_RESPONDING = "NOT_RESPONDING"
    DOWN = "DOWN"
    INVALID = "INVALID"
    DRAIN = "DRAIN"
    MAINTENANCE = "MAINTENANCE"
    OK = "OK"


_PLANNED_FLAGS = {
    "MAINTENANCE",
    "MAINT",
    "REBOOT_REQUESTED",
    "REBOOT_ISSUED",
    "POWERED_DOWN",
    "POWERING_DOWN",
    "POWERING_UP",
    "POWER_DOWN",
    "PLANNED",
}


def condition_of(node: SlurmNode) -> Condition:
    flags = node.flags
    if "FAIL" in flags:
        return Condition.FAIL
    if "NOT_RESPONDING" in flags or node.base == "UNKNOWN":
        return Condition.NOT_RESPONDING
    if node.base in ("DOWN", "ERROR"):
        return Condition.DOWN
    if "INVALID_REG" in flags or "INVALID" in flags or "INVAL" in flags:
        return Condition.INVALID
    if "DRAIN" in flags:
        return Condition.DRAIN
    if flags & _PLANNED_FLAGS:
        return Condition.MAINTENANCE
    return Condition.OK


def sinfo_word(node: SlurmNode) -> str:
    """The state as `sinfo -o %T` prints it (drained, draining, failing, down*), for titles."""
    busy = node.base in ("ALLOCATED", "MIXED") or "COMPLETING" in node.flags
    flags = node.flags
    if "FAIL" in flags:
        word = "failing" if busy else "fail"
    elif "DRAIN" in flags and node.base not in ("DOWN",):
        word = "draining" if busy else "drained"
    elif "INVALID_REG" in flags:
        word = "inval"
    else:
        word = node.base.lower()
    return word + ("*" if "NOT_RESPONDING" in flags else "")


@dataclass(frozen=True)
class ReasonMeaning:
    """What a reason string says, in our words, and what it suggests doing."""

    summary: str
    hyperpod_action: str | None = None  # "reboot" or "replace" when HyperPod is acting on it
    hardware_suspect: bool = False


_REASONS: list[tuple[re.Pattern[str], ReasonMeaning]] = [
    (
        re.compile(r"^\s*Action:Reboot\b", re.I),
        ReasonMeaning(
            "HyperPod was asked to reboot this instance (state FAIL, reason Action:Reboot); it "
            "returns the node to service when the reboot completes",
            hyperpod_action="reboot",
        ),
    ),
    (
        re.compile(r"^\s*Action:Replace\b", re.I),
        ReasonMeaning(
            "HyperPod was asked to replace this instance (state FAIL, reason Action:Replace); a "
            "new instance takes the node's place and the old one's volumes are lost",
            hyperpod_action="replace",
        ),
    ),
    (
        re.compile(r"not responding", re.I),
        ReasonMeaning(
            "slurmctld gets no answer from the node's slurmd: the instance is stopped, hung or "
            "unreachable, or slurmd is not running"
        ),
    ),
    (
        re.compile(r"kill task failed", re.I),
        ReasonMeaning(
            "a job's processes did not exit after SIGKILL within UnkillableStepTimeout, so Slurm "
            "drained the node; usually a process stuck in the kernel (GPU driver, file system)",
            hardware_suspect=True,
        ),
    ),
    (
        re.compile(r"gres/gpu count reported lower than configured", re.I),
        ReasonMeaning(
            "slurmd found fewer GPUs than slurm.conf declares: a GPU is missing (fallen off the "
            "bus, driver not loaded) or gres.conf does not match the hardware",
            hardware_suspect=True,
        ),
    ),
    (
        re.compile(r"unexpectedly rebooted", re.I),
        ReasonMeaning(
            "the node rebooted without Slurm asking (kernel panic, hardware reset, auto-repair); "
            "jobs on it were lost"
        ),
    ),
    (
        re.compile(r"\b(prolog|epilog)\b.*\b(error|fail)", re.I),
        ReasonMeaning("the Prolog or Epilog script failed on this node, so Slurm took it out"),
    ),
    (
        re.compile(r"batch job complete failure", re.I),
        ReasonMeaning("slurmd could not complete a batch job on this node (often a lost node)"),
    ),
    (
        re.compile(r"^\s*Low (RealMemory|CPUs|socket|TmpDisk)", re.I),
        ReasonMeaning(
            "the node registered with fewer resources than slurm.conf declares (configuration "
            "mismatch, or memory or CPUs lost)"
        ),
    ),
    (
        re.compile(r"reboot ASAP|reboot requested", re.I),
        ReasonMeaning("a Slurm reboot was requested (scontrol reboot); the node returns after it"),
    ),
]


def interpret_reason(reason: str) -> ReasonMeaning | None:
    for pattern, meaning in _REASONS:
        if pattern.search(reason):
            return meaning
    return None
