"""Which HyperPod instance backs each Slurm node.

On HyperPod a Slurm node is named after its instance's private DNS host name (`ip-10-1-2-3`),
so SageMaker's ListClusterNodes / DescribeClusterNode results (`PrivateDnsHostname`,
`PrivatePrimaryIp`) map node names to instance IDs, which HyperPod's reboot and replace APIs
take.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from hyperpod_nccl.slurm.nodes import SlurmNode


@dataclass(frozen=True)
class ClusterInstance:
    instance_id: str
    group: str = ""
    status: str = ""  # InstanceStatus.Status: Running, Failure, Pending, ShuttingDown, ...
    dns_name: str = ""
    private_ip: str = ""


def instances_from_documents(documents: Iterable[Any]) -> list[ClusterInstance]:
    """Instances from any ListClusterNodes or DescribeClusterNode responses among documents."""
    found: dict[str, ClusterInstance] = {}
    for document in documents:
        if not isinstance(document, dict):
            continue
        entries = list(document.get("ClusterNodeSummaries") or [])
        if isinstance(document.get("NodeDetails"), dict):
            entries.append(document["NodeDetails"])
        for entry in entries:
            instance = _instance(entry)
            if instance is None:
                continue
            known = found.get(instance.instance_id)
            # DescribeClusterNode has the address fields; keep whichever record has more.
            if known is None or (not known.dns_name and instance.dns_name):
                found[instance.instance_id] = instance
    return sorted(found.values(), key=lambda i: i.instance_id)


def _instance(entry: Any) -> ClusterInstance | None:
    if not isinstance(entry, dict) or not isinstance(entry.get("InstanceId"), str):
        return None
    status = entry.get("InstanceStatus") or {}
    return ClusterInstance(
        instance_id=entry["InstanceId"],
        group=str(entry.get("InstanceGroupName") or ""),
        status=str(status.get("Status") or "") if isinstance(status, dict) else "",
        dns_name=str(entry.get("PrivateDnsHostname") or ""),
        private_ip=str(entry.get("PrivatePrimaryIp") or ""),
    )


def map_nodes(
    nodes: Iterable[SlurmNode], instances: Iterable[ClusterInstance]
) -> dict[str, ClusterInstance]:
    """Slurm node name -> instance, matched on short DNS name, then on private IP."""
    by_name: dict[str, ClusterInstance] = {}
    by_ip: dict[str, ClusterInstance] = {}
    for instance in instances:
        if instance.dns_name:
            by_name[instance.dns_name.split(".")[0].lower()] = instance
        if instance.private_ip:
            by_ip[instance.private_ip] = instance
    mapping: dict[str, ClusterInstance] = {}
    for node in nodes:
        for key in (node.name, node.hostname):
            if key and key.split(".")[0].lower() in by_name:
                mapping[node.name] = by_name[key.split(".")[0].lower()]
                break
        else:
            if node.address in by_ip:
                mapping[node.name] = by_ip[node.address]
    return mapping
