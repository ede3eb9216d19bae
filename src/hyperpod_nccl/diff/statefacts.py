"""Facts from the cluster state a bundle holds: the job's pods (environment, images, EFA
requests), the instance groups and their nodes (types, instance ids, health labels), the
security groups and NetworkPolicies, the Slurm configuration and partitions, the versions the
node probes read, and the bus bandwidth `perf` measured.

Security-group rules are named by what they allow and whom (`the group itself`, another
instance group, a CIDR), never by group id: the same rule in a recreated group is no change.
"""

from __future__ import annotations

import json
from typing import Any

from hyperpod_nccl.checks.jobsel import job_groups
from hyperpod_nccl.diff.facts import Facts
from hyperpod_nccl.diff.sides import stable_name
from hyperpod_nccl.kube.objects import (
    container_statuses,
    containers,
    env_vars,
    items,
    labels,
    name,
    namespace,
    requested,
    spec,
)
from hyperpod_nccl.probes.parsers import gpu as gpu_parser
from hyperpod_nccl.probes.parsers import host as host_parser
from hyperpod_nccl.slurm.config import parse_show_config
from hyperpod_nccl.slurm.nodes import SlurmParseError, parse_sinfo_json
from hyperpod_nccl.slurm.partitions import LIMITS, parse_show_partitions
from hyperpod_nccl.snapshot import Snapshot
from hyperpod_nccl.snapshot.items import (
    SLURM_CONFIG,
    SLURM_PARTITIONS,
    SLURM_PING,
    SLURM_SHOW_NODE,
    SLURM_SINFO,
    node_item,
)
from hyperpod_nccl.units import size_text

PODS = "k8s/pods.json"
NODES = "k8s/nodes.json"
NETPOLS = "k8s/networkpolicies.json"
CLUSTER = "aws/sagemaker/describe_cluster.json"
CLUSTER_NODES = "aws/sagemaker/list_cluster_nodes.json"
SECURITY_GROUPS = "aws/ec2/describe_security_groups.json"
SLURM_CONFIG = SLURM_CONFIG
SINFO = SLURM_SINFO
HEALTH_LABELS = (
    "sagemaker.amazonaws.com/node-health-status",
    "sagemaker.amazonaws.com/deep-health-check-status",
)
EFA = "vpc.amazonaws.com/efa"
_ENV_FAMILIES = ("NCCL_", "FI_", "TORCH", "CUDA_", "OFI_NCCL_", "PYTORCH_", "NVIDIA_")
# Items every Slurm collection records (collected or missing): the side is a Slurm one.
_SLURM_STATE = (SLURM_PING, SLURM_CONFIG, SLURM_SINFO, SLURM_SHOW_NODE)
# scontrol show config lines that change by themselves (boot time, next job id, pids).
_SLURM_VOLATILE = frozenset(
    {"BOOT_TIME", "NEXT_JOB_ID", "SLURM_CONF", "SLURMCTLD_PID", "SLURMD_PID", "HASH_VAL"}
)


def _json(snapshot: Snapshot, item: str) -> Any:
    try:
        return snapshot.get_json(item)
    except ValueError:
        return None


def read_state(snapshot: Snapshot, facts: Facts) -> None:
    _pods(snapshot, facts)
    _groups(snapshot, facts)
    _nodes(snapshot, facts)
    _security_groups(snapshot, facts)
    _network_policies(snapshot, facts)
    _slurm(snapshot, facts)
    _probes(snapshot, facts)


def _pods(snapshot: Snapshot, facts: Facts) -> None:
    if not snapshot.has(PODS):
        return
    for pods in job_groups(snapshot).values():
        for pod in pods:
            scope = stable_name(name(pod))
            statuses = {str(s.get("name")): s for s in container_statuses(pod)}
            for container in containers(pod):
                cname = str(container.get("name"))
                where = f"{scope}/{cname}"
                for var, value in env_vars(container):
                    if var.startswith(_ENV_FAMILIES):
                        shown = stable_name(value) if value is not None else "(from a reference)"
                        facts.add("env", var, where, shown, f"{PODS}: {namespace(pod)}/{name(pod)}")
                image = str(container.get("image") or "")
                image_id = str(statuses.get(cname, {}).get("imageID") or "")
                digest = image_id.split("@", 1)[1] if "@" in image_id else ""
                facts.add("image", cname, scope, f"{image}@{digest}" if digest else image, PODS)
                efa = requested(container, EFA)
                facts.add("efa_request", f"{cname} {EFA}", scope, f"{efa:g}", PODS)


def _groups(snapshot: Snapshot, facts: Facts) -> None:
    cluster = _json(snapshot, CLUSTER)
    if not isinstance(cluster, dict):
        return
    for group in cluster.get("InstanceGroups") or []:
        gname = str(group.get("InstanceGroupName"))
        facts.add("instance_type", gname, "cluster", str(group.get("InstanceType")), CLUSTER)


def _nodes(snapshot: Snapshot, facts: Facts) -> None:
    listing = _json(snapshot, CLUSTER_NODES)
    if isinstance(listing, dict):
        facts.cover("nodes")
        for node in listing.get("ClusterNodeSummaries") or []:
            instance = str(node.get("InstanceId"))
            group = str(node.get("InstanceGroupName"))
            facts.add("nodes", group, instance, str(node.get("InstanceType")), CLUSTER_NODES)
            state = str((node.get("InstanceStatus") or {}).get("Status"))
            facts.add("node_health", "instance status", instance, state, CLUSTER_NODES)
    for node in items(_json(snapshot, NODES)):
        node_labels = labels(node)
        host = name(node)
        instance = host.removeprefix("hyperpod-") if host.startswith("hyperpod-i-") else host
        for label in HEALTH_LABELS:
            if label in node_labels:
                facts.add("node_health", label, instance, node_labels[label], NODES)
        unschedulable = "cordoned" if spec(node).get("unschedulable") else "schedulable"
        facts.add("node_health", "Kubernetes scheduling", instance, unschedulable, NODES)


def _security_groups(snapshot: Snapshot, facts: Facts) -> None:
    cluster = _json(snapshot, CLUSTER)
    described = _json(snapshot, SECURITY_GROUPS)
    if not isinstance(cluster, dict) or not isinstance(described, dict):
        return
    facts.cover("security_group")
    groups = {str(g.get("GroupId")): g for g in described.get("SecurityGroups") or []}
    base = cluster.get("VpcConfig") or {}
    users: dict[str, list[str]] = {}
    for group in cluster.get("InstanceGroups") or []:
        override = group.get("OverrideVpcConfig") or {}
        for sg in override.get("SecurityGroupIds") or base.get("SecurityGroupIds") or []:
            users.setdefault(str(sg), []).append(str(group.get("InstanceGroupName")))
    for sg, members in users.items():
        role = ", ".join(sorted(members))
        described_group = groups.get(sg)
        if described_group is None:
            continue
        for key, direction, word in (
            ("IpPermissions", "inbound", "from"),
            ("IpPermissionsEgress", "outbound", "to"),
        ):
            for perm in described_group.get(key) or []:
                for peer in _peers(perm, sg, users):
                    rule = f"{role} {direction}: {_traffic(perm)} {word} {peer}"
                    facts.add(
                        "security_group", rule, "cluster", "present", f"{SECURITY_GROUPS}: {sg}"
                    )


def _traffic(perm: dict[str, Any]) -> str:
    proto = str(perm.get("IpProtocol"))
    if proto == "-1":
        return "all traffic"
    low, high = perm.get("FromPort"), perm.get("ToPort")
    ports = (
        "all ports"
        if low in (None, -1) or (low == 0 and high == 65535)
        else (f"port {low}" if low == high else f"ports {low}-{high}")
    )
    return f"{proto} {ports}"


def _peers(perm: dict[str, Any], sg: str, users: dict[str, list[str]]) -> list[str]:
    found = []
    for pair in perm.get("UserIdGroupPairs") or []:
        other = str(pair.get("GroupId"))
        if other == sg:
            found.append("the group itself")
        elif other in users:
            found.append("the group of " + ", ".join(sorted(users[other])))
        else:
            found.append(f"security group {other}")
    found += [str(r.get("CidrIp")) for r in perm.get("IpRanges") or []]
    found += [str(r.get("CidrIpv6")) for r in perm.get("Ipv6Ranges") or []]
    found += [f"prefix list {p.get('PrefixListId')}" for p in perm.get("PrefixListIds") or []]
    return found


def _network_policies(snapshot: Snapshot, facts: Facts) -> None:
    listing = _json(snapshot, NETPOLS)
    if listing is None:
        return
    facts.cover("network_policy")
    for policy in items(listing):
        key = f"{namespace(policy)}/{name(policy)}"
        body = json.dumps(spec(policy), sort_keys=True, separators=(",", ":"))
        facts.add("network_policy", key, "cluster", body, NETPOLS)


def _slurm(snapshot: Snapshot, facts: Facts) -> None:
    text = snapshot.get_text(SLURM_CONFIG)
    if text is not None:
        facts.cover("slurm_config")
        for key, value in parse_show_config(text).items():
            if key not in _SLURM_VOLATILE:
                facts.add("slurm_config", key, "cluster", value, SLURM_CONFIG)
    _partition_limits(snapshot, facts)
    sinfo = snapshot.get_text(SINFO)
    if sinfo is None:
        return
    try:
        nodes = parse_sinfo_json(sinfo)
    except SlurmParseError:
        return
    facts.cover("slurm_partition")
    members: dict[str, int] = {}
    for node in nodes:
        for partition in node.partitions:
            members[partition] = members.get(partition, 0) + 1
    for partition, count in members.items():
        facts.add("slurm_partition", f"{partition} nodes", "cluster", str(count), SINFO)


def _partition_limits(snapshot: Snapshot, facts: Facts) -> None:
    """Each partition's limits, on a side that holds Slurm state. Where the item is absent
    (a bundle from before it was collected, or slurmctld did not answer) the side says why,
    so the diff reports the limits as not compared instead of finding them equal."""
    aspect = "slurm_partition_limits"
    text = snapshot.get_text(SLURM_PARTITIONS)
    if text is None:
        if SLURM_PARTITIONS in snapshot.items:
            facts.lack(aspect, f"{SLURM_PARTITIONS}: {snapshot.why_missing(SLURM_PARTITIONS)}")
        elif any(name in snapshot.items for name in _SLURM_STATE):
            facts.lack(
                aspect, f"the bundle has no {SLURM_PARTITIONS} (made before it was collected)"
            )
        return
    try:
        partitions = parse_show_partitions(text)
    except SlurmParseError as exc:
        facts.lack(aspect, f"{SLURM_PARTITIONS}: {exc}")
        return
    facts.cover(aspect)
    for partition in partitions:
        for limit, value in partition.limits().items():
            item = f"{partition.name} {limit}"
            facts.add(aspect, item, "cluster", value, SLURM_PARTITIONS)
            # Listed partition by partition, each in LIMITS' order (State first).
            facts.order[(aspect, item)] = f"{partition.name}\0{LIMITS.index(limit):02d}"


def _probes(snapshot: Snapshot, facts: Facts) -> None:
    """Versions the node probes read, per node (GPU driver, CUDA, NCCL, EFA stack, fabric
    manager), and whether a node's fabric manager is its driver's version: NVIDIA builds one
    fabric manager per driver release and it must match the installed driver (the note atop
    NVIDIA's fabric-manager packaging repositories), so a driver updated without it is the
    change that matters, whatever the versions were."""
    nodes = sorted({n.split("/")[1] for n in snapshot.names("nodes/") if n.count("/") >= 2})
    for node in nodes:
        source = f"nodes/{node}"
        smi = snapshot.get_text(node_item(node, "gpu_inventory"))
        driver = None
        if smi is not None:
            inventory = gpu_parser.parse_smi_table(smi)
            driver = inventory.driver_version
            if inventory.driver_version:
                facts.add("version", "NVIDIA driver", node, inventory.driver_version, source)
            if inventory.cuda_version:
                facts.add("version", "CUDA (driver)", node, inventory.cuda_version, source)
        text = snapshot.get_text(node_item(node, "versions"))
        if text is None:
            continue
        versions = host_parser.parse_versions(text)
        for item, value in (
            ("NCCL", "/".join(versions.nccl)),
            ("CUDA", versions.cuda),
            ("EFA installer", versions.efa_installer),
            ("aws-ofi-nccl", versions.ofi_nccl),
            ("libfabric", versions.libfabric),
            ("fabric manager", versions.fabric_manager),
        ):
            if value:
                facts.add("version", item, node, value, source)
        if versions.fabric_manager and driver:
            matched = (
                "the driver's version"
                if versions.fabric_manager == driver
                else f"{versions.fabric_manager} with driver {driver}"
            )
            facts.add("version", "fabric manager against the driver", node, matched, source)


def read_perf(summary: dict[str, Any], facts: Facts, source: str) -> None:
    """Bus bandwidth per collective and message size (the median over runs), and per node."""
    by_size: dict[str, list[float]] = {}
    for run in summary.get("runs") or []:
        collective = str(run.get("collective") or "collective")
        for size, out_of_place, in_place, _wrong in run.get("rows") or []:
            value = out_of_place if out_of_place is not None else in_place
            # Small messages measure latency, which wanders run to run; bandwidth is the
            # figure from 1 MiB up.
            if isinstance(value, (int, float)) and isinstance(size, int) and size >= 1 << 20:
                by_size.setdefault(f"{collective} {size_text(size)}", []).append(float(value))
    for item, values in by_size.items():
        values.sort()
        facts.number("busbw", item, values[len(values) // 2], source)
    for node in summary.get("nodes") or []:
        median = node.get("median_busbw")
        if isinstance(median, (int, float)) and node.get("host"):
            facts.number("busbw_node", str(node["host"]), float(median), source)
