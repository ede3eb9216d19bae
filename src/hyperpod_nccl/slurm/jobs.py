"""Slurm jobs from `squeue --json` (22.05 and later layouts) or from squeue's fixed text format
(`SQUEUE_FORMAT`), and why a pending job waits."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from hyperpod_nccl.slurm import hostlists
from hyperpod_nccl.slurm.nodes import SlurmParseError, _load
from hyperpod_nccl.slurm.values import epoch_from_slurm_time, number, text, words

# The fixed squeue text format the collector asks for when --json is unavailable. The job name
# comes last because it is the one field a user can fill with the separator.
SQUEUE_FORMAT = "%i|%T|%r|%V|%D|%u|%P|%R|%j"


@dataclass(frozen=True)
class SlurmJob:
    job_id: str
    state: str  # PENDING, RUNNING, ...
    reason: str = ""  # Slurm's reason code: Priority, Resources, ReqNodeNotAvail, ...
    detail: str = ""  # the longer description, e.g. "ReqNodeNotAvail, UnavailableNodes:node02"
    submit_time: int | None = None
    eligible_time: int | None = None
    nodes: str = ""  # hostlist expression of allocated (or required) nodes
    node_count: int | None = None
    user: str = ""
    name: str = ""
    partition: str = ""
    stdout_path: str = ""

    @property
    def unavailable_nodes(self) -> list[str]:
        """Nodes Slurm says a pending job waits for (`UnavailableNodes:node[02-03]`)."""
        match = _UNAVAILABLE.search(self.detail)
        return _expand(match.group(1)) if match else []


_UNAVAILABLE = re.compile(r"UnavailableNodes:(\S+?)\)?(?:\s|,\s|$)")


def _expand(expression: str) -> list[str]:
    try:
        return hostlists.expand(expression.strip().rstrip(")"))
    except hostlists.HostlistError:
        return [expression]


def parse_squeue_json(document: str | dict[str, Any]) -> list[SlurmJob]:
    data = _load(document, "squeue --json")
    errors = data.get("errors") or []
    if errors:
        first = errors[0] if isinstance(errors[0], dict) else {"error": str(errors[0])}
        message = first.get("description") or first.get("error") or "unspecified error"
        raise SlurmParseError(f"squeue reported an error: {message}")
    jobs = data.get("jobs")
    if not isinstance(jobs, list):
        raise SlurmParseError("squeue --json output has no 'jobs' list")
    return [_job_from_json(item) for item in jobs if isinstance(item, dict)]


def _job_from_json(item: dict[str, Any]) -> SlurmJob:
    state = words(item.get("job_state"))
    array_task = number(item.get("array_task_id"))
    job_id = str(number(item.get("job_id")) or "")
    if array_task is not None and number(item.get("array_job_id")):
        job_id = f"{number(item.get('array_job_id'))}_{array_task}"
    return SlurmJob(
        job_id=job_id,
        state=state[0] if state else "UNKNOWN",
        reason=text(item.get("state_reason")),
        detail=text(item.get("state_description")),
        submit_time=number(item.get("submit_time")) or None,
        eligible_time=number(item.get("eligible_time")) or None,
        nodes=text(item.get("nodes")) or text(item.get("required_nodes")),
        node_count=number(item.get("node_count")),
        user=text(item.get("user_name")),
        name=text(item.get("name")),
        partition=text(item.get("partition")),
        stdout_path=text(item.get("standard_output")),
    )


def parse_squeue_text(output: str) -> list[SlurmJob]:
    """Jobs from `squeue -h -o SQUEUE_FORMAT`."""
    jobs = []
    for number_, line in enumerate(output.splitlines(), 1):
        if not line.strip():
            continue
        parts = line.split("|", 8)
        if len(parts) != 9:
            raise SlurmParseError(f"squeue line {number_} has {len(parts)} fields, not 9")
        job_id, state, reason, submit, count, user, partition, where, name = parts
        pending = state == "PENDING"
        jobs.append(
            SlurmJob(
                job_id=job_id.strip(),
                state=state.strip(),
                # %r may carry the detail too: "ReqNodeNotAvail, UnavailableNodes:node02".
                reason=reason.split(",", 1)[0].strip(),
                # %R is the node list for a running job and "(reason, detail)" for a pending one.
                detail=where.strip().strip("()") if pending else "",
                submit_time=epoch_from_slurm_time(submit),
                nodes="" if pending else where.strip(),
                node_count=int(count) if count.strip().isdigit() else None,
                user=user.strip(),
                name=name,
                partition=partition.strip(),
            )
        )
    return jobs


# Why a pending job waits. Someone must act on these; waiting longer will not help.
BLOCKED_REASONS = {
    "ReqNodeNotAvail": "a node the job requires is down, drained or reserved",
    "NodeDown": "a node the job requires is down",
    "PartitionDown": "its partition is down",
    "PartitionInactive": "its partition is inactive",
    "PartitionNodeLimit": "it asks for more nodes than its partition allows",
    "PartitionTimeLimit": "it asks for more time than its partition allows",
    "BadConstraints": "no node can satisfy its constraints",
    "DependencyNeverSatisfied": "the job it depends on ended in a way that never satisfies it",
    "JobHeldUser": "it is held by its user",
    "JobHeldAdmin": "it is held by an administrator",
    "InvalidAccount": "its account is invalid",
    "InvalidQOS": "its QOS is invalid",
    "launch failed requeued held": "its launch failed; Slurm requeued and held it",
}
# Waiting by design: not a problem however long it lasts.
INTENDED_WAITS = {"BeginTime", "Dependency", "Reservation", "JobArrayTaskLimit"}


def blocked_reason(job: SlurmJob) -> str | None:
    """Why the job cannot start until someone acts, or None when it only waits its turn."""
    for key in (job.reason, job.detail):
        if key in BLOCKED_REASONS:
            return BLOCKED_REASONS[key]
    if job.detail.startswith("launch failed requeued held"):
        return BLOCKED_REASONS["launch failed requeued held"]
    return None
