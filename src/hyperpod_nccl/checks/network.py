"""Network reachability between the job's pods: NetworkPolicies evaluated with Kubernetes
semantics, and the headless Service behind MASTER_ADDR. The security groups between the nodes
are checked in `hyperpod_nccl.checks.security_groups`."""

from __future__ import annotations

import ipaddress

from hyperpod_nccl.checks import check
from hyperpod_nccl.checks.findings import cached, evidence, finding, listed, plural, read_only
from hyperpod_nccl.checks.jobsel import job_scope
from hyperpod_nccl.kube.netpol import NAMESPACE_NAME_LABEL, blocked_between, dns_blocked, endpoint
from hyperpod_nccl.kube.objects import (
    Obj,
    containers,
    env_vars,
    items,
    labels,
    name,
    namespace,
    spec,
)
from hyperpod_nccl.kube.selectors import matches
from hyperpod_nccl.model import Finding, Priority, Status
from hyperpod_nccl.snapshot import Snapshot
from hyperpod_nccl.snapshot.items import list_item


# ---------------------------------------------------------------------- NetworkPolicies
def _namespace_labels(snapshot: Snapshot) -> dict[str, dict[str, str]] | None:
    listing = cached(snapshot, list_item("namespaces"))
    if listing is None:
        return None
    result = {}
    for ns in items(listing):
        found = dict(labels(ns))
        found.setdefault(NAMESPACE_NAME_LABEL, name(ns))
        result[name(ns)] = found
    return result


@check("network.policies", "kubernetes", ["NETWORK_POLICY_BLOCKING"])
def network_policies(snapshot: Snapshot) -> list[Finding]:
    code = "NETWORK_POLICY_BLOCKING"
    groups, skipped = job_scope(
        snapshot,
        [list_item("networkpolicies")],
        code,
        Priority.P0,
        "NetworkPolicies between the job's pods",
    )
    if skipped:
        return skipped
    policies = items(cached(snapshot, list_item("networkpolicies")))
    ns_labels = _namespace_labels(snapshot)
    findings: list[Finding] = []
    for job, pods in groups.items():
        endpoints = [endpoint(p) for p in pods]
        blocked, uncertain = blocked_between(endpoints, policies, ns_labels)
        no_dns = dns_blocked(endpoints, policies, ns_labels)
        if blocked or no_dns:
            lines = [
                f"{b.direction} {b.source.name} -> {b.destination.name}: policies "
                f"{', '.join(b.policies)} allow TCP ports {b.allowed_tcp}"
                for b in blocked
            ] + [
                f"Egress {ep.name} -> kube-dns UDP 53: policies {', '.join(pols)} do not allow DNS"
                for ep, pols in no_dns
            ]
            culprits = sorted(
                {p for b in blocked for p in b.policies} | {p for _, ps in no_dns for p in ps}
            )
            findings.append(
                finding(
                    code,
                    Status.FAIL,
                    Priority.P0,
                    f"NetworkPolicies {listed(culprits)} block traffic between pods of {job}"
                    + (" and DNS lookups" if no_dns else "")
                    + " (NCCL needs every TCP port between ranks)",
                    hosts=sorted(
                        {b.source.name for b in blocked} | {b.destination.name for b in blocked}
                    ),
                    evidence=[evidence(list_item("networkpolicies"), line) for line in lines[:8]],
                    commands=[
                        read_only(
                            "read the policies that select the job's pods",
                            f"kubectl get networkpolicy -n {job.namespace} -o yaml",
                        )
                    ],
                    details={"job": str(job), "policies": culprits, "uncertain": uncertain},
                )
            )
        elif uncertain:
            findings.append(
                finding(
                    code,
                    Status.INCOMPLETE,
                    Priority.P0,
                    f"NetworkPolicies for {job} only partly evaluated: {uncertain[0]}",
                    details={"job": str(job), "uncertain": uncertain},
                )
            )
        else:
            selecting = sorted(
                {
                    name(p)
                    for p in policies
                    if namespace(p) == job.namespace
                    and any(matches(spec(p).get("podSelector") or {}, labels(pod)) for pod in pods)
                }
            )
            findings.append(
                finding(
                    code,
                    Status.PASS,
                    Priority.P0,
                    f"NetworkPolicies allow all TCP between the {plural(len(pods), 'pod')} of {job}"
                    + (
                        f" (policies: {listed(selecting)})"
                        if selecting
                        else " (no policy selects them)"
                    ),
                    details={"job": str(job)},
                )
            )
    return findings


# ---------------------------------------------------------------------- headless Service
def _master_addrs(pods: list[Obj]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for pod in pods:
        for container in containers(pod):
            for key, value in env_vars(container):
                if key == "MASTER_ADDR" and value:
                    found.setdefault(value, []).append(name(pod))
    return found


def _is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def _service_problem(service: Obj | None, svc_name: str, pods: list[Obj], why: str) -> str | None:
    if service is None:
        return f"{why} names Service {svc_name!r}, which does not exist"
    selector = spec(service).get("selector") or {}
    if not selector:
        return None  # endpoints managed by hand; nothing to compare
    if not any(all(labels(p).get(k) == v for k, v in selector.items()) for p in pods):
        return f"Service {svc_name!r} ({why}) selects none of the job's pods"
    return None


@check("network.headless-service", "kubernetes", ["HEADLESS_SERVICE_MISSING"])
def headless_service(snapshot: Snapshot) -> list[Finding]:
    code = "HEADLESS_SERVICE_MISSING"
    groups, skipped = job_scope(
        snapshot,
        [list_item("services")],
        code,
        Priority.P0,
        "Service behind MASTER_ADDR",
    )
    if skipped:
        return skipped
    services = {(namespace(s), name(s)): s for s in items(cached(snapshot, list_item("services")))}
    findings = []
    for job, pods in groups.items():
        problems: list[str] = []
        checked: list[str] = []
        for addr, holders in _master_addrs(pods).items():
            if _is_ip(addr):
                checked.append(f"MASTER_ADDR={addr} (an IP address)")
                continue
            labels_ = addr.rstrip(".").split(".")
            if labels_[0] in {name(p) for p in pods} and len(labels_) >= 2:
                svc_name = labels_[1]  # <pod-hostname>.<subdomain Service>
            else:
                svc_name = labels_[0]
            why = f"MASTER_ADDR={addr} (in {plural(len(holders), 'pod')})"
            problem = _service_problem(services.get((job.namespace, svc_name)), svc_name, pods, why)
            (problems if problem else checked).append(problem or why)
        for subdomain in sorted(
            {str(spec(p).get("subdomain")) for p in pods if spec(p).get("subdomain")}
        ):
            service = services.get((job.namespace, subdomain))
            why = f"spec.subdomain={subdomain}"
            problem = _service_problem(service, subdomain, pods, why)
            if problem is None and service is not None and spec(service).get("clusterIP") != "None":
                problem = f"Service {subdomain!r} ({why}) is not headless, so pod hostnames do not resolve"
            (problems if problem else checked).append(problem or why)
        if problems:
            findings.append(
                finding(
                    code,
                    Status.FAIL,
                    Priority.P0,
                    f"the rendezvous address of {job} does not resolve: " + listed(problems, 3),
                    evidence=[evidence(list_item("services"), p) for p in problems[:5]],
                    commands=[
                        read_only(
                            "list the Services and the job pods' labels",
                            f"kubectl get svc,pods -n {job.namespace} --show-labels",
                        )
                    ],
                    details={"job": str(job)},
                )
            )
        elif checked:
            findings.append(
                finding(
                    code,
                    Status.PASS,
                    Priority.P0,
                    f"rendezvous address of {job} resolves to its pods: " + listed(checked, 3),
                )
            )
        else:
            findings.append(
                finding(
                    code,
                    Status.INFO,
                    Priority.P2,
                    f"{job}: MASTER_ADDR is not in the pod specs (the launcher sets it at run "
                    "time), and no pod sets spec.subdomain; nothing to check",
                )
            )
    return findings
