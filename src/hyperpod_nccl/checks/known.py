"""What the run knows about the cluster, read once per Snapshot: its name, ARN, region and EKS
cluster, and which instance each name a node goes by belongs to (the instance id itself, the
Kubernetes node, the pods scheduled there, the Slurm node). Findings name instances with it
and suggested commands carry these values instead of placeholders."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hyperpod_nccl.checks.findings import cached, doc, read_only
from hyperpod_nccl.checks.jobsel import PODS, job_groups
from hyperpod_nccl.kube.objects import items, name, namespace, spec
from hyperpod_nccl.model import SuggestedCommand
from hyperpod_nccl.snapshot import Snapshot
from hyperpod_nccl.snapshot.items import CLUSTER, NODES, eks_cluster_name, list_item
from hyperpod_nccl.snapshot.items import SLURM_INSTANCES as INSTANCES_ITEM

K8S_NODE_PREFIX = "hyperpod-"  # HyperPod names a node's Kubernetes node hyperpod-<instance id>


@dataclass(frozen=True)
class Known:
    cluster: str | None
    cluster_arn: str | None
    region: str | None
    eks_name: str | None
    instances: dict[str, str] = field(default_factory=dict)  # a node's names -> instance id
    namespaces: dict[str, str] = field(default_factory=dict)  # pod -> namespace
    node_names: dict[str, str] = field(default_factory=dict)  # instance id -> Kubernetes node

    def instance_of(self, host: str) -> str | None:
        return self.instances.get(host)


def _node_instance(node: dict[str, Any], ids: set[str]) -> str | None:
    node_name = name(node)
    if node_name.removeprefix(K8S_NODE_PREFIX) in ids:
        return node_name.removeprefix(K8S_NODE_PREFIX)
    provider = str(spec(node).get("providerID") or "")
    return next((i for i in ids if provider.endswith(("-" + i, "/" + i))), None)


def known(snapshot: Snapshot) -> Known:
    memo: dict[str, Any] = vars(snapshot).setdefault("_parsed_items", {})
    if "_known" not in memo:
        memo["_known"] = _read(snapshot)
    result: Known = memo["_known"]
    return result


def _read(snapshot: Snapshot) -> Known:
    cluster = doc(snapshot, CLUSTER)
    ids = {
        str(n["InstanceId"])
        for n in doc(snapshot, NODES).get("ClusterNodeSummaries", [])
        if n.get("InstanceId")
    }
    instances = {i: i for i in ids}
    node_names: dict[str, str] = {}
    for node in items(cached(snapshot, list_item("nodes"))):
        instance = _node_instance(node, ids)
        if instance:
            instances[name(node)] = instance
            node_names[instance] = name(node)
    namespaces = {}
    for pod in items(cached(snapshot, PODS)):
        namespaces[name(pod)] = namespace(pod)
        instance = instances.get(str(spec(pod).get("nodeName") or ""))
        if instance:
            instances[name(pod)] = instance
    matched = (cached(snapshot, INSTANCES_ITEM) or {}).get("matched") or {}
    instances.update({str(k): str(v) for k, v in matched.items()})
    meta = snapshot.meta
    return Known(
        cluster=cluster.get("ClusterName") or meta.get("cluster"),
        cluster_arn=cluster.get("ClusterArn") or meta.get("cluster_arn"),
        region=meta.get("region"),
        eks_name=eks_cluster_name(cluster),
        instances=instances,
        namespaces=namespaces,
        node_names=node_names,
    )


def job_pods_by_instance(snapshot: Snapshot) -> dict[str, list[str]]:
    """The training-job pods on each instance (EKS), from the pods' nodeName."""
    if not snapshot.has(PODS):
        return {}
    nodes = known(snapshot).instances
    found: dict[str, list[str]] = {}
    for pods in job_groups(snapshot).values():
        for pod in pods:
            instance = nodes.get(str(spec(pod).get("nodeName") or ""))
            if instance:
                found.setdefault(instance, []).append(name(pod))
    return found


def describe_node(cluster: str | None, instance: str, region: str | None) -> SuggestedCommand:
    """The read-only look at one node every cluster check suggests (listed once when merged)."""
    return read_only(
        "read the node's state as HyperPod reports it (status, message, health checks)",
        f"aws sagemaker describe-cluster-node --cluster-name {cluster} --node-id {instance} "
        f"--region {region}",
    )
