"""Kubernetes-side checks of a HyperPod EKS cluster: API access, node readiness and HyperPod
health labels, the EFA and NVIDIA device plugins, and EFA devices asked for by job pods."""

from __future__ import annotations

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
from hyperpod_nccl.checks.jobsel import PODS, job_groups
from hyperpod_nccl.kube.objects import (
    EFA_RESOURCE,
    GPU_RESOURCE,
    Obj,
    condition,
    containers,
    items,
    labels,
    name,
    pod_request,
    quantity,
    spec,
    status,
)
from hyperpod_nccl.model import Finding, Priority, Status, SuggestedCommand
from hyperpod_nccl.snapshot import Snapshot
from hyperpod_nccl.snapshot.items import ACCESS, NODES, list_item

HEALTH_LABEL = "sagemaker.amazonaws.com/node-health-status"
DEEP_HEALTH_LABEL = "sagemaker.amazonaws.com/deep-health-check-status"
FAULT_LABELS = ("sagemaker.amazonaws.com/fault-types", "sagemaker.amazonaws.com/fault-reasons")
INSTANCE_TYPE_LABEL = "node.kubernetes.io/instance-type"
NODES_ITEM = list_item("nodes")
DAEMONSETS = list_item("daemonsets")
_ACCESS_CODES = {
    "no_config": "K8S_WRONG_CONTEXT",
    "wrong_context": "K8S_WRONG_CONTEXT",
    "unreachable": "K8S_UNREACHABLE",
    "unauthenticated": "K8S_UNAUTHENTICATED",
    "forbidden": "K8S_UNAUTHENTICATED",
}


@check(
    "kubernetes.access",
    "kubernetes",
    ["K8S_UNREACHABLE", "K8S_UNAUTHENTICATED", "K8S_WRONG_CONTEXT"],
)
def access(snapshot: Snapshot) -> list[Finding]:
    """Whether this run could read the cluster's Kubernetes API. A missing, refused or
    misdirected kubeconfig is about this machine, not the cluster: a P1 WARN and a not-checked
    entry with the command that fixes access, never a FAIL."""
    info = cached(snapshot, ACCESS)
    if info is None:
        return [
            finding(
                "K8S_UNREACHABLE",
                Status.SKIPPED,
                Priority.P1,
                f"Kubernetes not checked: {snapshot.why_missing(ACCESS)}",
            )
        ]
    if info.get("ok"):
        note = f"; {info['note']}" if info.get("note") else ""
        return [
            finding(
                "K8S_WRONG_CONTEXT",
                Status.PASS if not info.get("note") else Status.INFO,
                Priority.P1,
                f"Kubernetes API {info.get('server')} (context {info.get('context')}, "
                f"{info.get('version')}) is the cluster's EKS cluster{note}",
            )
        ]
    code = _ACCESS_CODES.get(str(info.get("kind")), "K8S_UNREACHABLE")
    fix = str(info.get("fix") or "")
    # The collector's advice is prose that may end in the one command it can name.
    refresh = fix[fix.find(_REFRESH) :] if _REFRESH in fix else ""
    advice = fix[: fix.find(_REFRESH)].rstrip(" :").removesuffix(" or refresh") if refresh else fix
    return [
        finding(
            code,
            Status.WARN,
            Priority.P1,
            f"Kubernetes checks not run: {info.get('message')}",
            commands=[
                SuggestedCommand(
                    purpose="point this machine's kubeconfig at the cluster's EKS cluster, then "
                    "run diagnose again",
                    command=refresh,
                    preconditions=advice,
                    changes_state=True,
                    blast_radius="writes your local kubeconfig only",
                )
            ]
            if refresh
            else [],
            details={
                "kind": info.get("kind"),
                "not_checked": f"every Kubernetes check: {info.get('message')}"
                + (f"; to fix: {fix}" if fix else ""),
            },
        )
    ]


_REFRESH = "aws eks update-kubeconfig"


def _job_nodes(snapshot: Snapshot) -> set[str]:
    return {
        str(spec(p).get("nodeName"))
        for pods in job_groups(snapshot).values()
        for p in pods
        if spec(p).get("nodeName")
    }


@check("kubernetes.nodes", "kubernetes", ["NODE_NOT_READY", "HEALTH_CHECK_FAILED"])
def nodes_ready(snapshot: Snapshot) -> list[Finding]:
    gap = unavailable(
        snapshot,
        [NODES_ITEM],
        "NODE_NOT_READY",
        Priority.P0,
        "node readiness",
    )
    if gap:
        return [gap]
    nodes = items(cached(snapshot, NODES_ITEM))
    job_nodes = _job_nodes(snapshot) if snapshot.has(PODS) else set()
    not_ready = []
    unhealthy = []
    for node in nodes:
        ready = condition(node, "Ready")
        if ready is None or ready.get("status") != "True":
            reason = (ready or {}).get("reason", "no Ready condition")
            not_ready.append((name(node), f"{reason}: {(ready or {}).get('message', '')}".strip()))
        node_labels = labels(node)
        health = node_labels.get(HEALTH_LABEL)
        deep = node_labels.get(DEEP_HEALTH_LABEL)
        if (health and health != "Schedulable") or deep == "Failed":
            faults = "; ".join(node_labels[k] for k in FAULT_LABELS if node_labels.get(k))
            unhealthy.append(
                (name(node), f"{HEALTH_LABEL}={health} {DEEP_HEALTH_LABEL}={deep} {faults}".strip())
            )
    findings = []
    if not_ready:
        names = [n for n, _ in not_ready]
        hits_job = sorted(set(names) & job_nodes)
        findings.append(
            finding(
                "NODE_NOT_READY",
                Status.FAIL,
                Priority.P0 if hits_job else Priority.P1,
                f"{plural(len(names), 'node')} not Ready: {listed(names)}"
                + (f" (running job pods: {listed(hits_job)})" if hits_job else ""),
                hosts=names,
                evidence=[evidence(NODES_ITEM, f"{n}: {why}") for n, why in not_ready[:5]],
                commands=[
                    read_only(
                        "see the node's conditions and recent events",
                        f"kubectl describe node {names[0]}",
                    )
                ],
            )
        )
    else:
        findings.append(
            finding(
                "NODE_NOT_READY",
                Status.PASS,
                Priority.P0,
                f"all {plural(len(nodes), 'node')} are Ready",
            )
        )
    if unhealthy:
        names = [n for n, _ in unhealthy]
        hits_job = sorted(set(names) & job_nodes)
        findings.append(
            finding(
                "HEALTH_CHECK_FAILED",
                Status.FAIL,
                Priority.P0 if hits_job else Priority.P1,
                f"HyperPod health checks flag {plural(len(names), 'node')}: {listed(names)}",
                hosts=names,
                evidence=[evidence(NODES_ITEM, f"{n}: {why}") for n, why in unhealthy[:5]],
                commands=[
                    read_only(
                        "read the health labels of the nodes",
                        f"kubectl get nodes -L {HEALTH_LABEL},{DEEP_HEALTH_LABEL}",
                    )
                ],
            )
        )
    elif any(HEALTH_LABEL in labels(n) for n in nodes):
        findings.append(
            finding(
                "HEALTH_CHECK_FAILED",
                Status.PASS,
                Priority.P0,
                "every labelled node is Schedulable by HyperPod's health checks",
            )
        )
    return findings


@check("kubernetes.node-census", "kubernetes", ["NODE_NOT_READY"])
def node_census(snapshot: Snapshot) -> list[Finding]:
    """HyperPod instances that never joined Kubernetes cannot run pods."""
    gap = unavailable(
        snapshot,
        [NODES, NODES_ITEM],
        "NODE_NOT_READY",
        Priority.P1,
        "HyperPod nodes registered in Kubernetes",
    )
    if gap:
        return [gap]
    instances = {
        str(n.get("InstanceId"))
        for n in doc(snapshot, NODES).get("ClusterNodeSummaries", [])
        if (n.get("InstanceStatus") or {}).get("Status") == "Running"
    }
    k8s_names = {name(n) for n in items(cached(snapshot, NODES_ITEM))}
    missing = sorted(
        i for i in instances if i not in k8s_names and f"hyperpod-{i}" not in k8s_names
    )
    if not missing:
        return [
            finding(
                "NODE_NOT_READY",
                Status.PASS,
                Priority.P1,
                f"every Running HyperPod node ({len(instances)}) is registered in Kubernetes",
            )
        ]
    return [
        finding(
            "NODE_NOT_READY",
            Status.WARN,
            Priority.P1,
            f"{plural(len(missing), 'Running HyperPod node')} not registered in Kubernetes: {listed(missing)}",
            hosts=missing,
        )
    ]


def _daemonset(snapshot: Snapshot, words: tuple[str, ...]) -> list[Obj]:
    found = []
    for ds in items(cached(snapshot, DAEMONSETS)):
        images = " ".join(str(c.get("image", "")) for c in containers(_template(ds)))
        text = f"{name(ds)} {images}".lower()
        if all(w in text for w in words):
            found.append(ds)
    return found


def _template(ds: Obj) -> Obj:
    template = spec(ds).get("template")
    return template if isinstance(template, dict) else {}


def _ready_text(ds: Obj) -> tuple[int, int, str]:
    st = status(ds)
    desired = int(st.get("desiredNumberScheduled") or 0)
    ready = int(st.get("numberReady") or 0)
    return desired, ready, f"{ds['metadata'].get('namespace')}/{name(ds)} {ready}/{desired} ready"


def _node_type(node: Obj) -> str:
    return ec2_type(labels(node).get(INSTANCE_TYPE_LABEL, ""))


@check("kubernetes.efa-device-plugin", "kubernetes", ["EFA_DEVICE_PLUGIN_MISSING"])
def efa_device_plugin(snapshot: Snapshot) -> list[Finding]:
    code = "EFA_DEVICE_PLUGIN_MISSING"
    gap = unavailable(
        snapshot,
        [DAEMONSETS, NODES_ITEM],
        code,
        Priority.P0,
        "EFA device plugin",
    )
    if gap:
        return [gap]
    known = instance_capabilities(snapshot)
    caps = known or {}
    nodes = items(cached(snapshot, NODES_ITEM))
    # A node that advertises EFA devices has them, whatever DescribeInstanceTypes said (or if
    # it was not collected): the same nodes kubernetes.efa-requests checks.
    efa_nodes = [
        n
        for n in nodes
        if (caps.get(_node_type(n)) and caps[_node_type(n)].efa_supported)
        or quantity(status(n).get("allocatable", {}).get(EFA_RESOURCE))
    ]
    pods = items(cached(snapshot, PODS)) if snapshot.has(PODS) else []
    wanting = [p for p in pods if pod_request(p, EFA_RESOURCE) > 0]
    plugins = _daemonset(snapshot, ("efa", "device-plugin"))
    if not efa_nodes and not wanting:
        return [
            finding(
                code,
                Status.INFO,
                Priority.P2,
                "no EFA-capable node and no pod asking for EFA; EFA device plugin not needed"
                + ("" if known is not None else " (instance types unknown)"),
            )
        ]
    if not plugins:
        return [
            finding(
                code,
                Status.FAIL,
                Priority.P0,
                f"no EFA device-plugin DaemonSet, yet {plural(len(efa_nodes), 'EFA-capable node')} "
                f"and {plural(len(wanting), 'pod')} asking for {EFA_RESOURCE}",
                commands=[
                    read_only(
                        "look for the plugin in every namespace",
                        "kubectl get daemonset -A | grep -i efa",
                    )
                ],
            )
        ]
    desired, ready, text = _ready_text(plugins[0])
    silent = [
        name(n)
        for n in efa_nodes
        if not quantity(status(n).get("allocatable", {}).get(EFA_RESOURCE))
    ]
    if ready < desired or silent:
        parts = []
        if ready < desired:
            parts.append(text)
        if silent:
            parts.append(
                f"{plural(len(silent), 'EFA-capable node')} advertise no {EFA_RESOURCE}: {listed(silent)}"
            )
        return [
            finding(
                code,
                Status.FAIL,
                Priority.P0 if wanting else Priority.P1,
                "EFA device plugin not serving every node: " + "; ".join(parts),
                hosts=silent,
                evidence=[evidence(DAEMONSETS, text)],
                commands=[
                    read_only(
                        "see why plugin pods are not ready",
                        (
                            f"kubectl get pods -n {plugins[0]['metadata'].get('namespace')} -o wide "
                            "| grep -i efa"
                        ),
                    )
                ],
            )
        ]
    return [
        finding(
            code,
            Status.PASS,
            Priority.P0,
            f"EFA device plugin {text}; every EFA-capable node advertises {EFA_RESOURCE}",
        )
    ]


@check("kubernetes.nvidia-device-plugin", "kubernetes", ["NVIDIA_DEVICE_PLUGIN_MISSING"])
def nvidia_device_plugin(snapshot: Snapshot) -> list[Finding]:
    code = "NVIDIA_DEVICE_PLUGIN_MISSING"
    gap = unavailable(
        snapshot,
        [DAEMONSETS, NODES_ITEM],
        code,
        Priority.P0,
        "NVIDIA device plugin",
    )
    if gap:
        return [gap]
    caps = instance_capabilities(snapshot)
    nodes = items(cached(snapshot, NODES_ITEM))
    short = []
    gpu_nodes = 0
    for node in nodes:
        cap = (caps or {}).get(_node_type(node))
        expected = cap.gpus if cap else 0
        allocatable = quantity(status(node).get("allocatable", {}).get(GPU_RESOURCE)) or 0
        if expected or allocatable:
            gpu_nodes += 1
        if expected and allocatable < expected:
            short.append(f"{name(node)} ({int(allocatable)} of {expected})")
    plugins = _daemonset(snapshot, ("nvidia", "device-plugin"))
    if not gpu_nodes:
        return [
            finding(
                code,
                Status.INFO,
                Priority.P2,
                "no GPU node found" + ("" if caps is not None else " (instance types unknown)"),
            )
        ]
    problems = []
    if not plugins:
        problems.append("no NVIDIA device-plugin DaemonSet")
    else:
        desired, ready, text = _ready_text(plugins[0])
        if ready < desired:
            problems.append(text)
    if short:
        problems.append(f"nodes with fewer allocatable GPUs than the instance has: {listed(short)}")
    if problems:
        return [
            finding(
                code,
                Status.FAIL,
                Priority.P0,
                "; ".join(problems),
                hosts=[s.split(" ")[0] for s in short],
                commands=[
                    read_only(
                        "compare each node's allocatable GPUs",
                        (
                            "kubectl get nodes -o custom-columns="
                            "NAME:.metadata.name,GPU:.status.allocatable.nvidia\\.com/gpu"
                        ),
                    )
                ],
            )
        ]
    return [
        finding(
            code,
            Status.PASS,
            Priority.P0,
            f"NVIDIA device plugin serves {plural(gpu_nodes, 'GPU node')} with every GPU allocatable",
        )
    ]


@check("kubernetes.efa-requests", "kubernetes", ["EFA_COUNT_MISMATCH"])
def efa_requests(snapshot: Snapshot) -> list[Finding]:
    """Job pods that take a whole EFA node's GPUs should take its EFA devices too; without
    them NCCL has no EFA and falls back to TCP sockets."""
    code = "EFA_COUNT_MISMATCH"
    gap = unavailable(
        snapshot,
        [PODS, NODES_ITEM],
        code,
        Priority.P1,
        "EFA devices of job pods",
    )
    if gap:
        return [gap]
    nodes = {name(n): n for n in items(cached(snapshot, NODES_ITEM))}
    problems = []
    checked = 0
    for job, pods in job_groups(snapshot).items():
        if len(pods) < 2:
            continue  # one pod: NCCL stays inside the node
        for pod in pods:
            node = nodes.get(str(spec(pod).get("nodeName")))
            if node is None:
                continue
            available = quantity(status(node).get("allocatable", {}).get(EFA_RESOURCE)) or 0
            if not available:
                continue
            checked += 1
            asked = pod_request(pod, EFA_RESOURCE)
            gpus_node = quantity(status(node).get("allocatable", {}).get(GPU_RESOURCE)) or 0
            takes_node = gpus_node and pod_request(pod, GPU_RESOURCE) >= gpus_node
            if asked == 0 or (takes_node and asked < available):
                problems.append(
                    f"{name(pod)} ({job.name}) asks for {int(asked)} of {int(available)} EFA on {name(node)}"
                )
    if problems:
        none_asked = any(" asks for 0 " in p for p in problems)
        return [
            finding(
                code,
                Status.FAIL,
                Priority.P0 if none_asked else Priority.P1,
                f"job pods on EFA nodes do not ask for all the node's {EFA_RESOURCE}: "
                + listed(problems, 4)
                + (" (with none, NCCL falls back to TCP sockets)" if none_asked else ""),
                evidence=[evidence(PODS, p) for p in problems[:6]],
            )
        ]
    if not checked:
        return [
            finding(
                code,
                Status.INFO,
                Priority.P2,
                "no multi-pod job on EFA nodes to check",
            )
        ]
    return [
        finding(
            code,
            Status.PASS,
            Priority.P1,
            f"{plural(checked, 'job pod')} on EFA nodes ask for the node's EFA devices",
        )
    ]
