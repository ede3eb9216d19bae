"""A live collection for `diagnose`: AWS first, then the orchestrator's side (Kubernetes for
EKS; for Slurm the controller's view, locally or over SSM), then node probes over SSM
(`hyperpod_nccl.collect.probes.probe_nodes` with the SSM transport), for either orchestrator.

Everything lands in one Snapshot whose `meta` fixes the run's context (cluster, region,
orchestrator, time window), so a saved bundle replays to the same findings.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hyperpod_nccl.collect.aws import AwsReader
from hyperpod_nccl.collect.eks import collect_kubernetes
from hyperpod_nccl.collect.hyperpod import (
    collect_aws,
    detect_orchestrator,
)
from hyperpod_nccl.collect.k8s import KubeReader
from hyperpod_nccl.collect.options import DiagnoseOptions
from hyperpod_nccl.collect.probes import probe_nodes
from hyperpod_nccl.collect.recorder import Recorder
from hyperpod_nccl.collect.slurm_ssm import (
    INSTANCES_ITEM,
    collect_slurm_for_diagnose,
    non_compute_groups,
)
from hyperpod_nccl.collect.transports.base import TransportError
from hyperpod_nccl.collect.transports.ssm import SsmTarget, SsmTransport
from hyperpod_nccl.kube.objects import items, spec
from hyperpod_nccl.snapshot import Snapshot
from hyperpod_nccl.snapshot.items import (
    EKS_CLUSTER,
    NODES,
    PROBE_RESULTS,
    PROBE_TARGETS,
    eks_cluster_name,
    list_item,
)

PROBE_TARGETS = PROBE_TARGETS


@dataclass
class CollectContext:
    """What an orchestrator collector or the node prober gets to work with."""

    snapshot: Snapshot
    options: DiagnoseOptions
    aws: AwsReader
    cluster: dict[str, Any] | None
    hooks: dict[str, Any] = field(default_factory=dict)


def _collect_eks(ctx: CollectContext) -> None:
    cluster = ctx.cluster or {}
    on_reader: Callable[[KubeReader], None] | None = ctx.hooks.get("on_kube_reader")
    collect_kubernetes(
        ctx.snapshot,
        ctx.options,
        ctx.snapshot.get_json(EKS_CLUSTER),
        eks_cluster_name(cluster),
        on_reader,
    )


def _collect_slurm(ctx: CollectContext) -> None:
    """Slurm state from the local Slurm commands or, through SSM, from the controller node
    (`hyperpod_nccl.collect.slurm_ssm`), and which instance backs each Slurm node in trouble."""
    collect_slurm_for_diagnose(ctx)


ORCHESTRATOR_COLLECTORS: dict[str, Callable[[CollectContext], None]] = {
    "eks": _collect_eks,
    "slurm": _collect_slurm,
}


def probe_targets(
    snapshot: Snapshot, options: DiagnoseOptions, cluster: dict[str, Any] | None = None
) -> list[str]:
    """Nodes to probe: --node, --all-nodes, or a sample led by unhealthy nodes, then the
    instances of Slurm nodes in trouble and the nodes running the job's pods. On Slurm the
    sample leaves out the controller and login groups (CPU nodes; --node reaches them)."""
    listed = snapshot.get_json(NODES) or {}
    nodes = [n for n in listed.get("ClusterNodeSummaries", []) if n.get("InstanceId")]
    if options.nodes:
        return list(options.nodes)
    ids = [str(n["InstanceId"]) for n in nodes]
    if options.all_nodes:
        return ids
    unhealthy = [
        str(n["InstanceId"])
        for n in nodes
        if (n.get("InstanceStatus") or {}).get("Status") not in ("Running", None)
    ]
    busy = []
    for pod in items(snapshot.get_json(list_item("pods"))):
        node = str(spec(pod).get("nodeName") or "")
        instance = node.removeprefix("hyperpod-")
        if instance in ids:
            busy.append(instance)
    trouble = list((snapshot.get_json(INSTANCES_ITEM) or {}).get("matched", {}).values())
    if snapshot.meta.get("orchestrator") == "slurm":
        skip = non_compute_groups(cluster or {}, nodes, options.controller_group)
        ids = [str(n["InstanceId"]) for n in nodes if n.get("InstanceGroupName") not in skip]
    ordered = list(dict.fromkeys(unhealthy + [str(t) for t in trouble] + busy + ids))
    return ordered[: options.sample_nodes]


def _ssm_targets(ctx: CollectContext, nodes: list[str]) -> dict[str, SsmTarget]:
    arn = str((ctx.cluster or {}).get("ClusterArn", ""))
    listed = ctx.snapshot.get_json(NODES) or {}
    groups = {
        str(n.get("InstanceId")): str(n.get("InstanceGroupName"))
        for n in listed.get("ClusterNodeSummaries", [])
    }
    return {node: SsmTarget.from_cluster_arn(arn, groups.get(node, ""), node) for node in nodes}


def _probe_nodes(ctx: CollectContext) -> None:
    """Node probes over SSM; the transport checks for session-manager-plugin before any
    session starts, and without it every node is recorded as not probed, with the reason."""
    targets = probe_targets(ctx.snapshot, ctx.options, ctx.cluster)
    ctx.snapshot.put_json(PROBE_TARGETS, {"targets": targets}, source="diagnose")
    if not targets:
        ctx.snapshot.missing(PROBE_RESULTS, "not run: no node to probe")
        return
    try:
        transport = SsmTransport(
            _ssm_targets(ctx, targets), region=ctx.options.region, profile=ctx.options.profile
        )
    except TransportError as exc:
        ctx.snapshot.missing(PROBE_RESULTS, f"not run: {exc}")
        return
    summary = probe_nodes(ctx.snapshot, transport, targets)
    ctx.snapshot.put_json(PROBE_RESULTS, summary.to_dict(), source="ssm")


def collect(
    options: DiagnoseOptions,
    aws: AwsReader | None = None,
    hooks: dict[str, Any] | None = None,
) -> Snapshot:
    """Collect everything `diagnose` needs; CredentialsError/ClusterNotFound propagate."""
    aws = aws or AwsReader(options.region, options.profile, max_attempts=options.aws_max_attempts)
    snapshot = Snapshot(
        meta={
            "command": "diagnose",
            "cluster": options.cluster.value,
            "region": options.region,
            "namespace": options.namespace,
            "job": options.job,
            "since_seconds": int(options.since.total_seconds()),
            "window_start": options.window_start.isoformat(),
            "window_end": options.now.isoformat(),
        }
    )
    try:
        recorder = Recorder(snapshot)
        cluster = collect_aws(aws, recorder, options)
        detected = detect_orchestrator(cluster) if cluster else None
        orchestrator = options.orchestrator or detected
        snapshot.meta.update(
            {
                "cluster": (cluster or {}).get("ClusterName") or options.cluster.value,
                "cluster_arn": (cluster or {}).get("ClusterArn"),
                "orchestrator": orchestrator,
                "orchestrator_detected": detected,
            }
        )
        ctx = CollectContext(snapshot, options, aws, cluster, dict(hooks or {}))
        if orchestrator is None:
            snapshot.meta["orchestrator_unknown"] = (
                "DescribeCluster failed, so the orchestrator is unknown; pass --orchestrator"
            )
        else:
            ORCHESTRATOR_COLLECTORS[orchestrator](ctx)
        _probe_nodes(ctx)
    except BaseException:
        snapshot.close()
        raise
    return snapshot
