"""The node-state check: every node's state, reason, who set it and when, one finding per
condition, with HyperPod instance IDs when the SageMaker node list is in the snapshot."""

from __future__ import annotations

from collections import defaultdict

from hyperpod_nccl.checks import check
from hyperpod_nccl.checks.findings import reference
from hyperpod_nccl.checks.slurm_data import (
    AREA,
    MAX_EVIDENCE,
    guide_section,
    incomplete,
    load_nodes,
)
from hyperpod_nccl.model import Evidence, Finding, Priority, Status, SuggestedCommand
from hyperpod_nccl.slurm import suggestions
from hyperpod_nccl.slurm.conditions import Condition, condition_of, interpret_reason, sinfo_word
from hyperpod_nccl.slurm.instances import ClusterInstance, instances_from_documents, map_nodes
from hyperpod_nccl.slurm.nodes import (
    SlurmNode,
)
from hyperpod_nccl.slurm.values import iso_from_epoch
from hyperpod_nccl.snapshot import Snapshot


def load_instances(snapshot: Snapshot) -> list[ClusterInstance]:
    """HyperPod instances from any SageMaker node list or node description in the snapshot."""
    documents = (
        snapshot.get_json(name)
        for name in snapshot.collected("aws/")
        if name.endswith(".json") and "node" in name.lower()
    )
    return instances_from_documents(documents)


def _cluster_name(snapshot: Snapshot) -> str | None:
    cluster = snapshot.meta.get("cluster")
    return cluster if isinstance(cluster, str) else None


_CONDITION_FINDING: dict[Condition, tuple[str, Status, Priority, str]] = {
    # condition: code, status, priority, what it means (title); the guide section is the code's
    Condition.NOT_RESPONDING: (
        "SLURM_NODE_NOT_RESPONDING",
        Status.FAIL,
        Priority.P0,
        "not responding: slurmctld cannot reach their slurmd, and jobs on them are lost",
    ),
    Condition.DOWN: (
        "SLURM_NODE_DOWN",
        Status.FAIL,
        Priority.P0,
        "DOWN: no jobs run there",
    ),
    Condition.FAIL: (
        "SLURM_NODE_FAIL",
        Status.FAIL,
        Priority.P1,
        "FAIL/FAILING: taken out of service (on HyperPod, to be rebooted or replaced)",
    ),
    Condition.INVALID: (
        "SLURM_NODE_INVALID",
        Status.FAIL,
        Priority.P1,
        "INVAL: they registered with less than slurm.conf declares",
    ),
    Condition.DRAIN: (
        "SLURM_NODE_DRAIN",
        Status.FAIL,
        Priority.P1,
        "draining or drained: no new jobs start there",
    ),
    Condition.MAINTENANCE: (
        "SLURM_NODE_MAINTENANCE",
        Status.INFO,
        Priority.P2,
        "in planned maintenance, rebooting or powered down",
    ),
}


@check(
    "slurm.node_states",
    AREA,
    [
        "SLURM_NODE_STATE",
        "SLURM_NODE_NOT_RESPONDING",
        "SLURM_NODE_DOWN",
        "SLURM_NODE_FAIL",
        "SLURM_NODE_INVALID",
        "SLURM_NODE_DRAIN",
        "SLURM_NODE_MAINTENANCE",
    ],
)
def node_states(snapshot: Snapshot) -> list[Finding]:
    """Every node's state, with its reason, who set it and when; one finding per condition."""
    nodes, source, why = load_nodes(snapshot)
    if nodes is None:
        what = "Slurm node states"
        return [
            incomplete(
                "SLURM_NODE_STATE",
                what,
                why,
                source,
                Priority.P1,
                section=guide_section("slurm-procedures"),
            )
        ]
    instances = map_nodes(nodes, load_instances(snapshot))
    cluster = _cluster_name(snapshot)
    grouped: dict[Condition, list[SlurmNode]] = defaultdict(list)
    for node in nodes:
        grouped[condition_of(node)].append(node)
    findings = [
        _node_finding(condition, grouped[condition], source, instances, cluster)
        for condition in _CONDITION_FINDING
        if grouped.get(condition)
    ]
    healthy = len(grouped.get(Condition.OK, []))
    if not any(f.status is Status.FAIL for f in findings):
        findings.append(
            Finding(
                code="SLURM_NODE_STATE",
                status=Status.PASS,
                priority=Priority.P1,
                title=f"all {healthy} of {len(nodes)} Slurm nodes in service are schedulable",
                reference=guide_section("slurm-procedures"),
                details={"nodes": len(nodes), "schedulable": healthy},
            )
        )
    return findings


def _node_finding(
    condition: Condition,
    nodes: list[SlurmNode],
    source: str,
    instances: dict[str, ClusterInstance],
    cluster: str | None,
) -> Finding:
    code, status, priority, meaning = _CONDITION_FINDING[condition]
    names = [n.name for n in nodes]
    details = []
    evidence = []
    hardware = False
    hyperpod_actions = set()
    for node in nodes:
        interpreted = interpret_reason(node.reason)
        hardware |= bool(interpreted and interpreted.hardware_suspect)
        if interpreted and interpreted.hyperpod_action:
            hyperpod_actions.add(interpreted.hyperpod_action)
        since = iso_from_epoch(node.reason_time)
        instance = instances.get(node.name)
        details.append(
            {
                "node": node.name,
                "state": node.state_text,
                "reason": node.reason,
                "reason_set_by": node.reason_user or None,
                "since": since,
                "meaning": interpreted.summary if interpreted else None,
                "instance_id": instance.instance_id if instance else None,
                "instance_group": instance.group if instance else None,
                "instance_status": instance.status if instance else None,
            }
        )
        who = f" [{node.reason_user}@{since}]" if node.reason_user or since else ""
        evidence.append(
            Evidence(
                source,
                f"{node.name} {sinfo_word(node)} ({node.state_text}): {node.reason or 'no reason given'}{who}",
            )
        )
    if hardware and priority is Priority.P1:
        priority = Priority.P0
    reasons = sorted({n.reason for n in nodes if n.reason})
    title = f"{len(nodes)} Slurm node{'s' if len(nodes) != 1 else ''} {suggestions.node_list(names)} {meaning}"
    if reasons:
        title += f"; reason{'s' if len(reasons) > 1 else ''}: {'; '.join(reasons[:3])}"
        title += " ..." if len(reasons) > 3 else ""
    times = [n.reason_time for n in nodes if n.reason_time]
    return Finding(
        code=code,
        status=status,
        priority=priority,
        title=title,
        reference=reference(code),
        hosts=names,
        first_seen=iso_from_epoch(min(times)) if times else None,
        evidence=evidence[:MAX_EVIDENCE],
        suggested_commands=_node_commands(condition, names, instances, cluster, hyperpod_actions),
        count=len(nodes),
        details={"nodes": details},
    )


def _node_commands(
    condition: Condition,
    names: list[str],
    instances: dict[str, ClusterInstance],
    cluster: str | None,
    hyperpod_actions: set[str],
) -> list[SuggestedCommand]:
    commands = [suggestions.inspect(names)]
    if condition is Condition.FAIL and hyperpod_actions:
        commands.append(suggestions.watch_hyperpod(names, instances, cluster))
    elif condition is Condition.NOT_RESPONDING:
        commands += [
            suggestions.slurmd_status(names),
            suggestions.hyperpod_reboot(names, instances, cluster),
        ]
    elif condition is Condition.MAINTENANCE:
        pass
    else:
        if condition is not Condition.DRAIN:
            commands.append(suggestions.drain(names, "investigating"))
        commands += [
            suggestions.resume(names),
            suggestions.hyperpod_reboot(names, instances, cluster),
        ]
    return commands
