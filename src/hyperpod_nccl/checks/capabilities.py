"""What each instance type of the cluster offers NCCL: GPUs and EFA interfaces, from EC2's
DescribeInstanceTypes (collected), keyed by the EC2 name (`p5.48xlarge`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hyperpod_nccl.checks.findings import cached
from hyperpod_nccl.snapshot import Snapshot
from hyperpod_nccl.snapshot.items import INSTANCE_TYPES


@dataclass(frozen=True)
class Capabilities:
    instance_type: str
    gpus: int
    gpu_name: str
    efa_supported: bool
    max_efa_interfaces: int


def _parse(entry: dict[str, Any]) -> Capabilities:
    gpu_info = entry.get("GpuInfo") or {}
    gpus = gpu_info.get("Gpus") or []
    network = entry.get("NetworkInfo") or {}
    return Capabilities(
        instance_type=str(entry.get("InstanceType", "")),
        gpus=sum(int(g.get("Count") or 0) for g in gpus),
        gpu_name=", ".join(str(g.get("Name")) for g in gpus if g.get("Name")),
        efa_supported=bool(network.get("EfaSupported")),
        max_efa_interfaces=int((network.get("EfaInfo") or {}).get("MaximumEfaInterfaces") or 0),
    )


def instance_capabilities(snapshot: Snapshot) -> dict[str, Capabilities] | None:
    """By EC2 instance type; None when DescribeInstanceTypes was not collected."""
    data = cached(snapshot, INSTANCE_TYPES)
    if data is None:
        return None
    found = (_parse(e) for e in data.get("InstanceTypes", []) if isinstance(e, dict))
    return {c.instance_type: c for c in found}


def ec2_type(instance_type: str) -> str:
    return instance_type.removeprefix("ml.")
