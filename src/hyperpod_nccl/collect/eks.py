"""Collect a HyperPod EKS cluster's Kubernetes state: nodes, pods, services, events,
NetworkPolicies, DaemonSets, training jobs, and the logs of the job's pods (current and
previous container, every container), fetched concurrently with a bound.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from hyperpod_nccl.collect.k8s import (
    UPDATE_KUBECONFIG,
    KubeAccessError,
    Kubeconfig,
    KubeReader,
    choose_context,
)
from hyperpod_nccl.collect.options import DiagnoseOptions
from hyperpod_nccl.kube.jobs import group_job_pods
from hyperpod_nccl.kube.objects import (
    Obj,
    container_statuses,
    containers,
    items,
    name,
    namespace,
    status,
)
from hyperpod_nccl.snapshot import Snapshot
from hyperpod_nccl.snapshot.items import ACCESS, LOG_ROOT, LOGS_INDEX, list_item

# kind -> (namespaced to --namespace when given, field selector)
LISTS: dict[str, tuple[bool, str | None]] = {
    "nodes": (False, None),
    "namespaces": (False, None),
    "pods": (True, None),
    "services": (True, None),
    "events": (True, "type!=Normal"),
    "networkpolicies": (True, None),
    "daemonsets": (False, None),
    "jobs": (True, None),
    "pytorchjobs": (True, None),
    "mpijobs": (True, None),
    "hyperpodpytorchjobs": (True, None),
}
LIST_WORKERS = 8
LOG_LIMIT_BYTES = 32 * 1024 * 1024
_ACCESS_LABEL = {
    "no_config": "NoKubeconfig",
    "wrong_context": "WrongContext",
    "unreachable": "Unreachable",
    "unauthenticated": "Unauthenticated",
    "forbidden": "Forbidden",
    "not_found": "NotFound",
}


def log_item(ns: str, pod: str, container: str, previous: bool) -> str:
    """Logs are filed under the pod's name so the log engine attributes lines to the pod."""
    middle = f"{container}/previous" if previous else container
    return f"{LOG_ROOT}{ns}/{middle}/{pod}.log"


@dataclass(frozen=True)
class LogRequest:
    namespace: str
    pod: str
    container: str
    previous: bool

    @property
    def item(self) -> str:
        return log_item(self.namespace, self.pod, self.container, self.previous)


def _reason(exc: KubeAccessError) -> str:
    label = _ACCESS_LABEL.get(exc.kind, "Error")
    message = exc.message
    return message if message.startswith(label + ":") else f"{label}: {message}"


def _connect(
    snapshot: Snapshot, options: DiagnoseOptions, eks: Obj | None, eks_name: str | None
) -> KubeReader | None:
    fix = UPDATE_KUBECONFIG.replace("<region>", options.region)
    if eks_name:
        fix = fix.replace("<eks-cluster>", eks_name)
    eks_cluster = (eks or {}).get("cluster") or {}
    try:
        kubeconfig = Kubeconfig.load(options.kubeconfig)
        context, note = choose_context(
            kubeconfig, options.context, eks_cluster.get("endpoint"), eks_cluster.get("arn"), fix
        )
        reader = KubeReader.connect(kubeconfig, context, refresh=fix)
        version = reader.version()
    except KubeAccessError as exc:
        snapshot.put_json(
            ACCESS,
            {"ok": False, "kind": exc.kind, "message": exc.message, "fix": exc.fix or fix},
        )
        for kind in LISTS:
            snapshot.missing(list_item(kind), _reason(exc), source="kubernetes")
        snapshot.missing(LOGS_INDEX, _reason(exc), source="kubernetes")
        return None
    snapshot.put_json(
        ACCESS,
        {
            "ok": True,
            "context": context.name,
            "server": reader.server,
            "note": note,
            "version": version.get("gitVersion"),
            "eks_cluster": eks_cluster.get("arn") or eks_name,
        },
        source="kubernetes",
    )
    return reader


def _list(snapshot: Snapshot, reader: KubeReader, kind: str, scope: str | None) -> Any:
    namespaced, field_selector = LISTS[kind]
    ns = scope if namespaced else None
    try:
        listing = reader.list(kind, ns, field_selector=field_selector)
    except KubeAccessError as exc:
        snapshot.missing(list_item(kind), _reason(exc), source=f"kubernetes:list {kind}")
        return None
    snapshot.put_json(list_item(kind), listing, source=f"kubernetes:list {kind}")
    return listing


def _restarted(pod: Obj, container: str, init: bool) -> bool:
    for state in container_statuses(pod, init):
        if state.get("name") == container:
            return bool(state.get("restartCount")) or "terminated" in (state.get("lastState") or {})
    return False


def _started(pod: Obj, container: str, init: bool) -> bool:
    """A container that never started has no log to read (the API answers 400)."""
    for state in container_statuses(pod, init):
        if state.get("name") == container:
            current = state.get("state") or {}
            return (
                "running" in current or "terminated" in current or _restarted(pod, container, init)
            )
    return False


def log_requests(pods: list[Obj]) -> list[LogRequest]:
    """Every container of every pod (init containers too), current and previous log."""
    requests: list[LogRequest] = []
    for pod in pods:
        for init in (True, False):
            for container in containers(pod, init):
                cname = str(container.get("name", ""))
                if not _started(pod, cname, init):
                    continue
                requests.append(LogRequest(namespace(pod), name(pod), cname, False))
                if _restarted(pod, cname, init):
                    requests.append(LogRequest(namespace(pod), name(pod), cname, True))
    return requests


def _troubled(pod: Obj) -> bool:
    if status(pod).get("phase") == "Failed":
        return True
    return any(
        s.get("restartCount") or "terminated" in (s.get("lastState") or {})
        for init in (True, False)
        for s in container_statuses(pod, init)
    )


def log_pods(pods: list[Obj], options: DiagnoseOptions, hyperpod_jobs: frozenset[str]) -> list[Obj]:
    """The job's pods; without --job, every training job's pods, else pods in trouble."""
    groups = group_job_pods(pods, options.job, hyperpod_jobs)
    selected = [p for members in groups.values() for p in members]
    if selected or options.job:
        return selected
    return [p for p in pods if _troubled(p)]


def _fetch_log(snapshot: Snapshot, reader: KubeReader, request: LogRequest, tail: int) -> str:
    try:
        text = reader.pod_log(
            request.namespace,
            request.pod,
            request.container,
            previous=request.previous,
            tail_lines=tail,
            limit_bytes=LOG_LIMIT_BYTES,
        )
    except KubeAccessError as exc:
        snapshot.missing(request.item, _reason(exc), source="kubernetes:pods/log")
        return "missing"
    snapshot.put_text(request.item, text, source="kubernetes:pods/log")
    return "collected"


def collect_logs(
    snapshot: Snapshot,
    reader: KubeReader,
    pods: list[Obj],
    options: DiagnoseOptions,
    hyperpod_jobs: frozenset[str],
) -> None:
    requests = log_requests(log_pods(pods, options, hyperpod_jobs))
    skipped = max(0, len(requests) - options.max_log_containers)
    requests = requests[: options.max_log_containers]
    with ThreadPoolExecutor(max_workers=options.log_workers, thread_name_prefix="hpn-log") as pool:
        outcomes = list(
            pool.map(
                lambda r: _fetch_log(snapshot, reader, r, options.log_tail_lines),
                requests,
            )
        )
    snapshot.put_json(
        LOGS_INDEX,
        {
            "tail_lines": options.log_tail_lines,
            "limit_bytes": LOG_LIMIT_BYTES,
            "not_fetched_over_limit": skipped,
            "logs": [
                {
                    "namespace": r.namespace,
                    "pod": r.pod,
                    "container": r.container,
                    "previous": r.previous,
                    "item": r.item,
                    "status": outcome,
                }
                for r, outcome in zip(requests, outcomes, strict=True)
            ],
        },
        source="kubernetes",
    )


def collect_kubernetes(
    snapshot: Snapshot,
    options: DiagnoseOptions,
    eks: Obj | None,
    eks_name: str | None,
    on_reader: Callable[[KubeReader], None] | None = None,
) -> None:
    reader = _connect(snapshot, options, eks, eks_name)
    if reader is None:
        return
    if on_reader is not None:
        on_reader(reader)
    with ThreadPoolExecutor(max_workers=LIST_WORKERS, thread_name_prefix="hpn-k8s") as pool:
        futures = {
            kind: pool.submit(_list, snapshot, reader, kind, options.namespace) for kind in LISTS
        }
        listings = {kind: future.result() for kind, future in futures.items()}
    pods = items(listings["pods"])
    hyperpod_jobs = frozenset(name(j) for j in items(listings["hyperpodpytorchjobs"]))
    if listings["pods"] is None:
        snapshot.missing(LOGS_INDEX, "not fetched: the pods could not be listed")
        return
    collect_logs(snapshot, reader, pods, options, hyperpod_jobs)
