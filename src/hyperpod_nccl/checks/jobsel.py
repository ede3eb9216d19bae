"""The job pods the Kubernetes checks look at, read from the Snapshot once per check."""

from __future__ import annotations

from typing import Any

from hyperpod_nccl.checks.findings import cached, finding, unavailable
from hyperpod_nccl.kube.jobs import JobKey, group_job_pods
from hyperpod_nccl.kube.objects import Obj, items, name
from hyperpod_nccl.model import Finding, Priority, Status
from hyperpod_nccl.snapshot import Snapshot
from hyperpod_nccl.snapshot.items import list_item

PODS = list_item("pods")


def job_groups(snapshot: Snapshot) -> dict[JobKey, list[Obj]]:
    """Pods of the job named with --job, or of every training job in scope (worked out once
    per Snapshot; the checks only read the result)."""
    memo: dict[str, Any] = vars(snapshot).setdefault("_parsed_items", {})
    if "_job_groups" not in memo:
        hyperpod = frozenset(
            name(j) for j in items(cached(snapshot, list_item("hyperpodpytorchjobs")))
        )
        job = snapshot.meta.get("job")
        memo["_job_groups"] = group_job_pods(items(cached(snapshot, PODS)), job, hyperpod)
    groups: dict[JobKey, list[Obj]] = memo["_job_groups"]
    return groups


def no_job_pods_title(snapshot: Snapshot) -> str:
    job = snapshot.meta.get("job")
    where = snapshot.meta.get("namespace") or "any namespace"
    return f"no pods of job {job!r} in {where}" if job else f"no training-job pods in {where}"


def job_scope(
    snapshot: Snapshot,
    needed: list[str],
    code: str,
    priority: Priority,
    what: str,
    *,
    check: str | None = None,
) -> tuple[dict[JobKey, list[Obj]], list[Finding]]:
    """The job pods to check, or the SKIPPED finding saying why there are none to check."""
    gap = unavailable(snapshot, [PODS, *needed], code, priority, what, check=check)
    if gap:
        return {}, [gap]
    groups = job_groups(snapshot)
    if not groups:
        title = f"{what} not checked: {no_job_pods_title(snapshot)}"
        return {}, [finding(code, Status.SKIPPED, priority, title, check=check)]
    return groups, []
