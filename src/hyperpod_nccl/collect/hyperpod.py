"""Collect a HyperPod cluster's AWS state: the cluster, its nodes (all pages), its events in
the window, its security groups and subnets, its instance types, and the EKS cluster behind
it. Independent reads run concurrently on a bounded thread pool.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any

import botocore.exceptions

from hyperpod_nccl.collect.aws import AwsReader, classify_error
from hyperpod_nccl.collect.cloudwatch import collect_cluster_logs
from hyperpod_nccl.collect.options import DiagnoseOptions
from hyperpod_nccl.collect.recorder import Recorder
from hyperpod_nccl.exit_codes import InputError
from hyperpod_nccl.snapshot.items import (
    CLUSTER,
    EKS_CLUSTER,
    EVENTS,
    IDENTITY,
    INSTANCE_TYPES,
    NODE_DETAIL,
    NODES,
    SECURITY_GROUPS,
    SUBNETS,
    eks_cluster_name,
    security_group_ids,
)

PAGE_SIZE = 100
MAX_EVENTS = 5_000
AWS_WORKERS = 8


class ClusterNotFound(InputError):
    """The cluster does not exist in the region; the message lists the ones that do."""


def detect_orchestrator(cluster: dict[str, Any]) -> str:
    """EKS when DescribeCluster names an EKS cluster; otherwise Slurm (clusters created
    before the Orchestrator field existed are Slurm clusters and omit it)."""
    orchestrator = cluster.get("Orchestrator") or {}
    return "eks" if orchestrator.get("Eks") else "slurm"


def subnet_ids(cluster: dict[str, Any]) -> list[str]:
    ids = list((cluster.get("VpcConfig") or {}).get("Subnets") or [])
    for group in cluster.get("InstanceGroups") or []:
        ids.extend((group.get("OverrideVpcConfig") or {}).get("Subnets") or [])
    return sorted(set(ids))


def ec2_instance_types(cluster: dict[str, Any]) -> list[str]:
    """EC2 names of the instance groups' types (`ml.p5.48xlarge` -> `p5.48xlarge`)."""
    types = {g.get("InstanceType", "") for g in cluster.get("InstanceGroups") or []}
    return sorted(t.removeprefix("ml.") for t in types if t)


def _is_not_found(exc: botocore.exceptions.ClientError) -> bool:
    error = exc.response.get("Error", {})
    code = str(error.get("Code", ""))
    message = str(error.get("Message", "")).lower()
    return code in ("ResourceNotFound", "ResourceNotFoundException") or (
        code == "ValidationException" and ("not find" in message or "not found" in message)
    )


def _cluster_names(reader: AwsReader) -> list[str] | None:
    try:
        return sorted(
            summary["ClusterName"]
            for page in reader.paginate("sagemaker", "list_clusters")
            for summary in page.get("ClusterSummaries", [])
        )
    except (botocore.exceptions.ClientError, botocore.exceptions.BotoCoreError):
        return None


def describe_cluster(reader: AwsReader, recorder: Recorder, options: DiagnoseOptions) -> Any:
    """DescribeCluster, or ClusterNotFound listing the region's clusters."""
    try:
        cluster = reader.call("sagemaker", "describe_cluster", ClusterName=options.cluster.value)
    except botocore.exceptions.ClientError as exc:
        if _is_not_found(exc):
            names = _cluster_names(reader)
            where = f"in {options.region}"
            if names is None:
                listing = "the region's clusters could not be listed (sagemaker:ListClusters)"
            elif names:
                listing = "clusters there: " + ", ".join(names[:50])
            else:
                listing = "the region has no HyperPod clusters"
            raise ClusterNotFound(
                f"cluster {options.cluster.value!r} not found {where}; {listing}"
            ) from exc
        recorder.fail(CLUSTER, classify_error(exc, "sagemaker:DescribeCluster"))
        return None
    except botocore.exceptions.BotoCoreError as exc:
        recorder.fail(CLUSTER, classify_error(exc, "sagemaker:DescribeCluster"))
        return None
    recorder.snapshot.put_json(CLUSTER, cluster, source="sagemaker:DescribeCluster")
    return cluster


def _all_nodes(reader: AwsReader, cluster_name: str) -> dict[str, Any]:
    nodes: list[dict[str, Any]] = []
    pages = 0
    for page in reader.paginate(
        "sagemaker",
        "list_cluster_nodes",
        ClusterName=cluster_name,
        PaginationConfig={"PageSize": PAGE_SIZE},
    ):
        pages += 1
        nodes.extend(page.get("ClusterNodeSummaries", []))
    return {"ClusterNodeSummaries": nodes, "Pages": pages}


def _events(reader: AwsReader, cluster_name: str, options: DiagnoseOptions) -> dict[str, Any]:
    events: list[dict[str, Any]] = []
    truncated = False
    for page in reader.paginate(
        "sagemaker",
        "list_cluster_events",
        ClusterName=cluster_name,
        EventTimeAfter=options.window_start,
        EventTimeBefore=options.now,
        SortBy="EventTime",
        SortOrder="Descending",
        PaginationConfig={"PageSize": PAGE_SIZE},
    ):
        events.extend(page.get("Events", []))
        if len(events) >= MAX_EVENTS:
            truncated = True
            break
    return {"Events": events[:MAX_EVENTS], "Truncated": truncated}


def collect_aws(reader: AwsReader, recorder: Recorder, options: DiagnoseOptions) -> Any:
    """Everything diagnose reads from AWS for the cluster. Returns DescribeCluster (or None)."""
    identity = reader.caller_identity()
    recorder.snapshot.put_json(IDENTITY, identity, source="sts:GetCallerIdentity")
    cluster = describe_cluster(reader, recorder, options)
    if cluster is None:
        return None
    name = cluster.get("ClusterName") or options.cluster.value
    eks_name = eks_cluster_name(cluster)
    groups = security_group_ids(cluster)
    subnets = subnet_ids(cluster)
    types = ec2_instance_types(cluster)
    reads: list[tuple[str, str, Callable[[], Any]]] = [
        (NODES, "sagemaker:ListClusterNodes", partial(_all_nodes, reader, name)),
        (EVENTS, "sagemaker:ListClusterEvents", partial(_events, reader, name, options)),
    ]
    if groups:
        reads.append(
            (
                SECURITY_GROUPS,
                "ec2:DescribeSecurityGroups",
                partial(reader.call, "ec2", "describe_security_groups", GroupIds=groups),
            )
        )
    if subnets:
        reads.append(
            (
                SUBNETS,
                "ec2:DescribeSubnets",
                partial(reader.call, "ec2", "describe_subnets", SubnetIds=subnets),
            )
        )
    if types:
        reads.append(
            (
                INSTANCE_TYPES,
                "ec2:DescribeInstanceTypes",
                partial(reader.call, "ec2", "describe_instance_types", InstanceTypes=types),
            )
        )
    if eks_name:
        reads.append(
            (
                EKS_CLUSTER,
                "eks:DescribeCluster",
                partial(reader.call, "eks", "describe_cluster", name=eks_name),
            )
        )
    for node in options.nodes:
        reads.append(
            (
                NODE_DETAIL.format(node=node),
                "sagemaker:DescribeClusterNode",
                partial(
                    reader.call, "sagemaker", "describe_cluster_node", ClusterName=name, NodeId=node
                ),
            )
        )
    with ThreadPoolExecutor(max_workers=AWS_WORKERS, thread_name_prefix="hpn-aws") as pool:
        jobs = [pool.submit(recorder.fetch, item, action, read) for item, action, read in reads]
        jobs.append(pool.submit(collect_cluster_logs, reader, recorder, cluster, eks_name, options))
        for job in jobs:
            job.result()
    return cluster
