"""Slurm partitions from `scontrol show partition` (one line per partition with `-o`, or the
multi-line form), and the limits of each that can make the same job fail, wait or be stopped
differently (see debugging-guide.md §73 for what each does).

Pure: text in, records out. Slurm prints either DefMemPerCPU or DefMemPerNode (and MaxMemPerCPU
or MaxMemPerNode), whichever the partition sets, and DefMemPerGPU inside JobDefaults; each
pair is one limit here, so a partition moving from a per-node to a per-CPU default reads as
one change, not as one limit gone and another new.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from hyperpod_nccl.slurm.nodes import SlurmParseError

_KEY = re.compile(r"(?:^|\s)([A-Za-z][A-Za-z0-9_]*)=")

# The limits compared, in the order a reader wants them: can the job run at all, for how long,
# on how many nodes, with how much memory, shared or preempted, by whom, on which nodes.
LIMITS: tuple[str, ...] = (
    "State",
    "MaxTime",
    "DefaultTime",
    "OverTimeLimit",
    "MinNodes",
    "MaxNodes",
    "MaxCPUsPerNode",
    "DefMem",
    "MaxMem",
    "OverSubscribe",
    "PreemptMode",
    "GraceTime",
    "AllowGroups",
    "AllowAccounts",
    "DenyAccounts",
    "AllowQos",
    "DenyQos",
    "QoS",
    "Nodes",
)
# Printed only when set; absent means nobody is denied.
_UNSET_MEANS_NONE = ("DenyAccounts", "DenyQos")
_DEF_MEM = ("DefMemPerCPU", "DefMemPerNode")
_MAX_MEM = ("MaxMemPerCPU", "MaxMemPerNode")


@dataclass(frozen=True)
class SlurmPartition:
    name: str
    fields: dict[str, str] = field(default_factory=dict)

    def job_defaults(self) -> dict[str, str]:
        """JobDefaults=DefCpuPerGPU=4,DefMemPerGPU=2048 as {key: value}; `(null)` is none."""
        raw = self.fields.get("JobDefaults", "")
        pairs = (part.split("=", 1) for part in raw.split(",") if "=" in part)
        return {key.strip(): value.strip() for key, value in pairs}

    def limits(self) -> dict[str, str]:
        """The compared limits as Slurm prints them; a limit this Slurm did not print is left
        out (never guessed), except the Deny lists, which are printed only when set."""
        found: dict[str, str] = {}
        for limit in LIMITS:
            if limit == "DefMem":
                value = self._memory(_DEF_MEM, self.job_defaults().get("DefMemPerGPU"))
            elif limit == "MaxMem":
                value = self._memory(_MAX_MEM, None)
            elif limit in _UNSET_MEANS_NONE:
                value = self.fields.get(limit, "(none)")
            else:
                value = self.fields.get(limit)
            if value is not None:
                found[limit] = value
        return found

    def _memory(self, keys: tuple[str, ...], per_gpu: str | None) -> str | None:
        parts = [f"{key}={self.fields[key]}" for key in keys if key in self.fields]
        if per_gpu is not None:
            parts.append(f"DefMemPerGPU={per_gpu}")
        return " ".join(parts) if parts else None


def parse_show_partitions(output: str) -> list[SlurmPartition]:
    """Partitions from `scontrol show partition` (with or without -o), in Slurm's order.
    Records start at `PartitionName=`."""
    records: list[str] = []
    for line in output.splitlines():
        stripped = line.strip()
        if stripped.startswith("PartitionName="):
            records.append(stripped)
        elif records and stripped:
            records[-1] += " " + stripped
    # scontrol prints this line when slurmctld knows no partition (src/scontrol/info_part.c).
    if not records and output.strip() not in ("", "No partitions in the system"):
        raise SlurmParseError("no PartitionName= records in scontrol show partition output")
    partitions: list[SlurmPartition] = []
    for record in records:
        fields = _fields(record)
        partitions.append(SlurmPartition(fields.pop("PartitionName", ""), fields))
    return partitions


def _fields(record: str) -> dict[str, str]:
    """Key=value pairs; a value may itself hold `=` (TRES=cpu=12,..., JobDefaults=...)."""
    keys = list(_KEY.finditer(record))
    fields: dict[str, str] = {}
    for index, match in enumerate(keys):
        end = keys[index + 1].start() if index + 1 < len(keys) else len(record)
        fields[match.group(1)] = record[match.end() : end].strip()
    return fields
