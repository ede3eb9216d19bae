"""Pod states that stop a training job: OOM kills (in `state.terminated` and in
`lastState.terminated`, exit 137), crashes by signal, application exits, CrashLoopBackOff,
image pulls, init-container failures, evictions, and Pending pods with the scheduler's
reason (insufficient GPUs or EFA, taints, affinity)."""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass

from hyperpod_nccl.checks import check
from hyperpod_nccl.checks.findings import (
    cached,
    finding,
    listed,
    plural,
    read_only,
    unavailable,
)
from hyperpod_nccl.checks.jobsel import PODS, job_groups
from hyperpod_nccl.kube.objects import (
    Obj,
    condition,
    container_statuses,
    items,
    name,
    namespace,
    status,
)
from hyperpod_nccl.model import Evidence, Finding, Priority, Status, SuggestedCommand
from hyperpod_nccl.snapshot import Snapshot
from hyperpod_nccl.snapshot.items import list_item

EVENTS = list_item("events")
SYSTEM_NAMESPACES = ("kube-system", "aws-hyperpod")
_PULL = ("ImagePullBackOff", "ErrImagePull", "InvalidImageName", "ErrImageNeverPull")
_CREATE = ("CreateContainerConfigError", "CreateContainerError", "RunContainerError")
_SIGNAL_EXITS = {139: "SIGSEGV", 134: "SIGABRT", 135: "SIGBUS", 136: "SIGFPE", 132: "SIGILL"}
_SCHEDULER_REASONS = (
    (re.compile(r"Insufficient nvidia\.com/gpu"), "not enough free GPUs"),
    (re.compile(r"Insufficient vpc\.amazonaws\.com/efa"), "not enough free EFA devices"),
    (re.compile(r"Insufficient memory"), "not enough memory"),
    (re.compile(r"Insufficient cpu"), "not enough CPU"),
    (re.compile(r"untolerated taint"), "node taints the pod does not tolerate"),
    (
        re.compile(r"didn't match Pod's node affinity/selector|node\(s\) didn't match"),
        "node selector or affinity matches no free node",
    ),
    (
        re.compile(r"unbound immediate PersistentVolumeClaims|volume node affinity"),
        "volumes cannot be bound",
    ),
)
TITLES = {
    "CONTAINER_OOM": "OOM-killed (exit 137)",
    "RANK_CRASH": "killed by a signal",
    "APP_EXCEPTION": "exited with an error",
    "EXTERNAL_SIGNAL": "stopped from outside (SIGTERM, eviction)",
    "POD_CRASHLOOP": "restarting in CrashLoopBackOff",
    "POD_IMAGE_PULL": "cannot pull their image",
    "INIT_CONTAINER_FAILURES": "have failing init containers",
    "POD_PENDING_RESOURCES": "cannot be scheduled",
}
PRIORITY = {
    "CONTAINER_OOM": Priority.P0,
    "RANK_CRASH": Priority.P0,
    "APP_EXCEPTION": Priority.P0,
    "EXTERNAL_SIGNAL": Priority.P1,
    "POD_CRASHLOOP": Priority.P0,
    "POD_IMAGE_PULL": Priority.P0,
    "INIT_CONTAINER_FAILURES": Priority.P0,
    "POD_PENDING_RESOURCES": Priority.P0,
}


@dataclass(frozen=True)
class PodProblem:
    code: str
    pod: str
    namespace: str
    text: str
    when: str | None = None


def _terminated(pod: Obj, cstatus: Obj, init: bool) -> list[PodProblem]:
    found = []
    where = f"{namespace(pod)}/{name(pod)}/{cstatus.get('name')}" + (" (init)" if init else "")
    for which in ("state", "lastState"):
        term = (cstatus.get(which) or {}).get("terminated")
        if not term:
            continue
        code_ = int(term.get("exitCode") or 0)
        reason = str(term.get("reason") or "")
        if code_ == 0 and reason != "OOMKilled":
            continue
        label = "" if which == "state" else "previous run "
        text = f"{where}: {label}terminated reason={reason or '-'} exitCode={code_}"
        if term.get("message"):
            text += f" message={str(term['message'])[:160]!r}"
        if init:
            kind = "INIT_CONTAINER_FAILURES"
        elif reason == "OOMKilled" or code_ == 137:
            kind = "CONTAINER_OOM"
        elif code_ in _SIGNAL_EXITS:
            kind = "RANK_CRASH"
            text += f" ({_SIGNAL_EXITS[code_]})"
        elif code_ == 143:
            kind = "EXTERNAL_SIGNAL"
        else:
            kind = "APP_EXCEPTION"
        found.append(PodProblem(kind, name(pod), namespace(pod), text, term.get("finishedAt")))
    return found


def _waiting(pod: Obj, cstatus: Obj, init: bool) -> list[PodProblem]:
    wait = (cstatus.get("state") or {}).get("waiting") or {}
    reason = str(wait.get("reason") or "")
    where = f"{namespace(pod)}/{name(pod)}/{cstatus.get('name')}" + (" (init)" if init else "")
    text = f"{where}: waiting reason={reason} restarts={cstatus.get('restartCount', 0)}"
    if wait.get("message"):
        text += f" message={str(wait['message'])[:200]!r}"
    if reason in _PULL:
        return [PodProblem("POD_IMAGE_PULL", name(pod), namespace(pod), text)]
    if reason == "CrashLoopBackOff" or reason in _CREATE:
        kind = "INIT_CONTAINER_FAILURES" if init else "POD_CRASHLOOP"
        return [PodProblem(kind, name(pod), namespace(pod), text)]
    return []


def _scheduler_message(pod: Obj, events: dict[tuple[str, str], str]) -> str:
    scheduled = condition(pod, "PodScheduled") or {}
    message = events.get((namespace(pod), name(pod))) or str(scheduled.get("message") or "")
    return message or "no scheduler message"


def pod_problems(pod: Obj, events: dict[tuple[str, str], str]) -> list[PodProblem]:
    problems: list[PodProblem] = []
    st = status(pod)
    if st.get("reason") in ("Evicted", "Preempting", "DeadlineExceeded", "Terminated"):
        problems.append(
            PodProblem(
                "EXTERNAL_SIGNAL",
                name(pod),
                namespace(pod),
                f"{namespace(pod)}/{name(pod)}: {st.get('reason')}: {str(st.get('message', ''))[:200]}",
            )
        )
    if st.get("reason") == "UnexpectedAdmissionError":
        problems.append(
            PodProblem(
                "POD_PENDING_RESOURCES",
                name(pod),
                namespace(pod),
                f"{namespace(pod)}/{name(pod)}: the node could not allocate its devices: "
                f"{str(st.get('message', ''))[:200]}",
            )
        )
    if (
        st.get("phase") == "Pending"
        and (condition(pod, "PodScheduled") or {}).get("status") == "False"
    ):
        message = _scheduler_message(pod, events)
        why = [label for pattern, label in _SCHEDULER_REASONS if pattern.search(message)]
        problems.append(
            PodProblem(
                "POD_PENDING_RESOURCES",
                name(pod),
                namespace(pod),
                f"{namespace(pod)}/{name(pod)}: Pending ({'; '.join(why) or 'unschedulable'}): {message[:240]}",
            )
        )
    for init in (True, False):
        for cstatus in container_statuses(pod, init):
            problems.extend(_terminated(pod, cstatus, init))
            problems.extend(_waiting(pod, cstatus, init))
    return problems


def _scheduling_events(snapshot: Snapshot) -> dict[tuple[str, str], str]:
    latest: dict[tuple[str, str], tuple[str, str]] = {}
    for event in items(cached(snapshot, EVENTS)):
        if event.get("reason") != "FailedScheduling":
            continue
        involved = event.get("involvedObject") or {}
        key = (str(involved.get("namespace") or namespace(event)), str(involved.get("name")))
        stamp = str(event.get("lastTimestamp") or event.get("eventTime") or "")
        if key not in latest or stamp >= latest[key][0]:
            latest[key] = (stamp, str(event.get("message") or ""))
    return {k: v[1] for k, v in latest.items()}


def _scope(snapshot: Snapshot) -> tuple[list[Obj], set[str]]:
    """Job pods (and system pods) when a job is in scope, else every pod listed."""
    groups = job_groups(snapshot)
    job_pods = [p for pods in groups.values() for p in pods]
    all_pods = items(cached(snapshot, PODS))
    if not job_pods:
        return all_pods, set()
    job_names = {(namespace(p), name(p)) for p in job_pods}
    system = [
        p
        for p in all_pods
        if namespace(p) in SYSTEM_NAMESPACES and (namespace(p), name(p)) not in job_names
    ]
    return job_pods + system, {f"{ns}/{n}" for ns, n in job_names}


def _commands(code: str, problems: list[PodProblem]) -> list[SuggestedCommand]:
    first = problems[0]
    commands = [
        read_only(
            "see the pod's state, last termination and events",
            f"kubectl describe pod {first.pod} -n {first.namespace}",
        )
    ]
    if code in (
        "CONTAINER_OOM",
        "RANK_CRASH",
        "APP_EXCEPTION",
        "POD_CRASHLOOP",
        "INIT_CONTAINER_FAILURES",
    ):
        commands.append(
            read_only(
                "read the log of the run that died",
                f"kubectl logs {first.pod} -n {first.namespace} --all-containers --previous",
            )
        )
    return commands


@check(
    "pods.status",
    "pods",
    [*TITLES.keys(), "POD_FAILURES"],
)
def pod_status(snapshot: Snapshot) -> list[Finding]:
    gap = unavailable(snapshot, [PODS], "POD_FAILURES", Priority.P0, "pod states")
    if gap:
        return [gap]
    pods, job_pod_names = _scope(snapshot)
    events = _scheduling_events(snapshot)
    by_code: dict[str, list[PodProblem]] = defaultdict(list)
    for pod in pods:
        for problem in pod_problems(pod, events):
            by_code[problem.code].append(problem)
    if not by_code:
        return [
            finding(
                "POD_FAILURES",
                Status.PASS,
                Priority.P0,
                f"no failed, crashing, OOM-killed or unschedulable pod among {plural(len(pods), 'pod')}",
            )
        ]
    findings = []
    for code, problems in sorted(by_code.items()):
        pod_names = sorted({p.pod for p in problems})
        in_job = not job_pod_names or any(
            f"{p.namespace}/{p.pod}" in job_pod_names for p in problems
        )
        stamps = sorted(p.when for p in problems if p.when)
        findings.append(
            finding(
                code,
                Status.FAIL,
                PRIORITY[code] if in_job else Priority.P1,
                f"{plural(len(pod_names), 'pod')} {TITLES[code]}: {listed(pod_names, 6)}",
                hosts=pod_names,
                evidence=[Evidence(PODS, p.text) for p in problems[:8]],
                commands=_commands(code, problems),
                first_seen=stamps[0] if stamps else None,
                details={"pods": pod_names},
            )
        )
    return findings
