"""Cluster-level checks from the SageMaker and EC2 APIs: cluster status, automatic node
recovery, the node census over every node and instance-type capabilities (cluster events are
`hyperpod_nccl.checks.cluster_events`)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from hyperpod_nccl.checks import check
from hyperpod_nccl.checks.capabilities import ec2_type, instance_capabilities
from hyperpod_nccl.checks.findings import (
    cached,
    doc,
    evidence,
    finding,
    listed,
    plural,
    read_only,
    unavailable,
)
from hyperpod_nccl.checks.known import describe_node
from hyperpod_nccl.model import Finding, Priority, Status, SuggestedCommand
from hyperpod_nccl.snapshot import Snapshot
from hyperpod_nccl.snapshot.items import CLUSTER, NODES

_BROKEN = ("Failed", "RollingBack", "Deleting")
_NODE_BAD = ("Failure", "NotFound")


def _describe_command(snapshot: Snapshot) -> SuggestedCommand:
    return read_only(
        "read the cluster's status and failure message",
        (
            f"aws sagemaker describe-cluster --cluster-name {snapshot.meta.get('cluster')} "
            f"--region {snapshot.meta.get('region')}"
        ),
    )


@check("cluster.status", "cluster", ["CLUSTER_NOT_INSERVICE"])
def cluster_status(snapshot: Snapshot) -> list[Finding]:
    code = "CLUSTER_NOT_INSERVICE"
    gap = unavailable(snapshot, [CLUSTER], code, Priority.P0, "cluster status")
    if gap:
        return [gap]
    cluster = doc(snapshot, CLUSTER)
    state = str(cluster.get("ClusterStatus", "unknown"))
    name = cluster.get("ClusterName", snapshot.meta.get("cluster"))
    groups = [
        f"{g.get('InstanceGroupName')}: {g.get('Status')}"
        for g in cluster.get("InstanceGroups") or []
        if g.get("Status") and g.get("Status") != "InService"
    ]
    source = CLUSTER
    if state == "InService" and not groups:
        return [
            finding(
                code,
                Status.PASS,
                Priority.P0,
                f"cluster {name} is InService",
            )
        ]
    message = cluster.get("FailureMessage") or ""
    status, priority = (
        (Status.FAIL, Priority.P0) if state in _BROKEN else (Status.WARN, Priority.P1)
    )
    title = f"cluster {name} is {state}"
    if groups:
        title += "; instance groups not InService: " + listed(groups)
    if message:
        title += f" ({message})"
    return [
        finding(
            code,
            status,
            priority,
            title,
            evidence=[evidence(source, f"ClusterStatus={state} FailureMessage={message!r}")],
            commands=[_describe_command(snapshot)],
            details={"cluster_status": state, "instance_groups": groups},
        )
    ]


def _unhealthy_nodes(snapshot: Snapshot) -> list[str]:
    nodes = doc(snapshot, NODES).get("ClusterNodeSummaries", [])
    return [
        str(n.get("InstanceId"))
        for n in nodes
        if (n.get("InstanceStatus") or {}).get("Status") in _NODE_BAD
    ]


@check("cluster.node-recovery", "cluster", ["NODE_RECOVERY_DISABLED"])
def node_recovery(snapshot: Snapshot) -> list[Finding]:
    code = "NODE_RECOVERY_DISABLED"
    gap = unavailable(
        snapshot,
        [CLUSTER],
        code,
        Priority.P2,
        "automatic node recovery",
    )
    if gap:
        return [gap]
    cluster = doc(snapshot, CLUSTER)
    mode = cluster.get("NodeRecovery")
    if mode is None:
        return [
            finding(
                code,
                Status.INCOMPLETE,
                Priority.P2,
                "DescribeCluster did not report NodeRecovery; automatic node recovery not checked",
            )
        ]
    if mode == "Automatic":
        return [
            finding(
                code,
                Status.PASS,
                Priority.P2,
                "automatic node recovery is on (NodeRecovery=Automatic)",
            )
        ]
    unhealthy = _unhealthy_nodes(snapshot)
    status, priority = (Status.FAIL, Priority.P1) if unhealthy else (Status.WARN, Priority.P2)
    title = f"automatic node recovery is off (NodeRecovery={mode})"
    if unhealthy:
        title += f"; {plural(len(unhealthy), 'failed node')} will not be replaced automatically"
    return [
        finding(
            code,
            status,
            priority,
            title,
            hosts=unhealthy,
            evidence=[evidence(CLUSTER, f"NodeRecovery={mode}")],
            commands=[
                SuggestedCommand(
                    purpose="turn on automatic node recovery (changes the cluster; run it yourself)",
                    command=(
                        f"aws sagemaker update-cluster --cluster-name {cluster.get('ClusterName')} "
                        f"--node-recovery Automatic --region {snapshot.meta.get('region')}"
                    ),
                    preconditions="sagemaker:UpdateCluster permission",
                    changes_state=True,
                    blast_radius="cluster-wide setting; HyperPod may then reboot or replace faulty nodes",
                )
            ],
        )
    ]


@check("cluster.nodes", "cluster", ["NODE_CENSUS", "HEALTH_CHECK_FAILED"])
def node_census(snapshot: Snapshot) -> list[Finding]:
    gap = unavailable(snapshot, [NODES], "NODE_CENSUS", Priority.P1, "node census")
    if gap:
        return [gap]
    listed_nodes = doc(snapshot, NODES)
    nodes: list[dict[str, Any]] = listed_nodes.get("ClusterNodeSummaries", [])
    states = Counter((n.get("InstanceStatus") or {}).get("Status", "unknown") for n in nodes)
    by_group = Counter(n.get("InstanceGroupName", "?") for n in nodes)
    findings = [
        finding(
            "NODE_CENSUS",
            Status.INFO,
            Priority.P2,
            f"{plural(len(nodes), 'node')}: "
            + ", ".join(f"{count} {state}" for state, count in sorted(states.items())),
            details={
                "states": dict(states),
                "instance_groups": dict(by_group),
                "pages": listed_nodes.get("Pages"),
            },
        )
    ]
    cluster = cached(snapshot, CLUSTER) or {}
    short = [
        f"{g.get('InstanceGroupName')} has {by_group.get(g.get('InstanceGroupName'), 0)} of "
        f"{g.get('TargetCount')} nodes"
        for g in cluster.get("InstanceGroups") or []
        if isinstance(g.get("TargetCount"), int)
        and by_group.get(g.get("InstanceGroupName"), 0) < g["TargetCount"]
    ]
    if short:
        findings.append(
            finding(
                "NODE_CENSUS",
                Status.WARN,
                Priority.P1,
                "instance groups below their target size: " + listed(short),
            )
        )
    failed = [n for n in nodes if (n.get("InstanceStatus") or {}).get("Status") in _NODE_BAD]
    if failed:
        ids = [str(n.get("InstanceId")) for n in failed]
        findings.append(
            finding(
                "HEALTH_CHECK_FAILED",
                Status.FAIL,
                Priority.P1,
                f"{plural(len(failed), 'node')} in state Failure: {listed(ids)}",
                hosts=ids,
                evidence=[
                    evidence(
                        NODES,
                        f"{n.get('InstanceId')} {n.get('InstanceGroupName')} "
                        f"{(n.get('InstanceStatus') or {}).get('Status')}: "
                        f"{(n.get('InstanceStatus') or {}).get('Message', '')}",
                    )
                    for n in failed[:5]
                ],
                commands=[
                    describe_node(snapshot.meta.get("cluster"), ids[0], snapshot.meta.get("region"))
                ],
            )
        )
    else:
        findings.append(
            finding(
                "HEALTH_CHECK_FAILED",
                Status.PASS,
                Priority.P1,
                f"no node in state Failure among {plural(len(nodes), 'node')}",
            )
        )
    return findings


@check("cluster.instance-types", "cluster", ["INSTANCE_CAPABILITIES"])
def instance_types(snapshot: Snapshot) -> list[Finding]:
    code = "INSTANCE_CAPABILITIES"
    gap = unavailable(
        snapshot,
        [CLUSTER, "aws/ec2/describe_instance_types.json"],
        code,
        Priority.P2,
        "GPU and EFA capabilities of the instance types",
    )
    if gap:
        return [gap]
    caps = instance_capabilities(snapshot) or {}
    groups = doc(snapshot, CLUSTER).get("InstanceGroups") or []
    lines = []
    no_efa = []
    for group in groups:
        kind = ec2_type(str(group.get("InstanceType", "")))
        cap = caps.get(kind)
        if cap is None:
            lines.append(f"{group.get('InstanceGroupName')}: {kind} (unknown to EC2)")
            continue
        efa = f"{cap.max_efa_interfaces} EFA" if cap.efa_supported else "no EFA"
        gpus = f"{cap.gpus}x {cap.gpu_name}" if cap.gpus else "no GPU"
        lines.append(f"{group.get('InstanceGroupName')}: {kind}, {gpus}, {efa}")
        if cap.gpus and not cap.efa_supported and int(group.get("TargetCount") or 0) > 1:
            no_efa.append(f"{group.get('InstanceGroupName')} ({kind})")
    findings = [finding(code, Status.INFO, Priority.P2, "; ".join(lines))]
    if no_efa:
        findings.append(
            finding(
                code,
                Status.WARN,
                Priority.P2,
                "GPU instance groups without EFA: NCCL between their nodes runs over TCP "
                "sockets: " + listed(no_efa),
            )
        )
    return findings
