"""HyperPod cluster events in the time window, as findings about the instances they name.

An Error or Warn event is evidence for the node it names, at a priority by what happened:
a failed health check is HEALTH_CHECK_FAILED, a failed reboot or replacement is
NODE_RECOVERY_FAILED, both at P0 when the instance runs pods of the job (its rank's failure
then explains the others' timeouts) and P1 otherwise; other Error events are CLUSTER_EVENTS
failures at P1, other warnings CLUSTER_EVENTS warnings at P2. Error events fail, warnings warn.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Any

from hyperpod_nccl.checks import check
from hyperpod_nccl.checks.findings import (
    doc,
    evidence,
    finding,
    listed,
    plural,
    read_only,
    unavailable,
)
from hyperpod_nccl.checks.known import describe_node, job_pods_by_instance, known
from hyperpod_nccl.model import Finding, Priority, Status, SuggestedCommand
from hyperpod_nccl.snapshot import Snapshot
from hyperpod_nccl.snapshot.items import EVENTS

CHECK = "cluster.events"
CODE = "CLUSTER_EVENTS"
_ERROR = "Error"
_WARN = ("Warn", "Warning")
# What an event says happened, tried in order; the first match decides.
_KINDS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "NODE_RECOVERY_FAILED",
        re.compile(
            r"(?i)\b(?:reboot|replace(?:ment)?|recovery)\w*\b[^.]*?\b(?:failed|unsuccessful)\b"
            r"|\b(?:failed|unable|could not)\b(?: to)?(?: be)? (?:reboot|replace|recover)"
        ),
    ),
    (
        "HEALTH_CHECK_FAILED",
        re.compile(
            r"(?i)health[- ]?checks?\b[^.]*?\b(?:failed|did not (?:run|pass|complete)|"
            r"unsuccessful|unhealthy)|\b(?:failed|unhealthy)\b[^.]*?health[- ]?check"
        ),
    ),
)


@dataclass(frozen=True)
class Event:
    raw: dict[str, Any]
    code: str
    error: bool

    @property
    def instance(self) -> str | None:
        value = self.raw.get("InstanceId")
        return str(value) if value else None

    def line(self) -> str:
        e = self.raw
        where = e.get("InstanceId") or e.get("InstanceGroupName") or e.get("ResourceType") or ""
        return f"{e.get('EventTime')} {e.get('EventLevel')} {where}: {e.get('Description', '')}"


def _kind(description: str) -> str:
    return next((code for code, pattern in _KINDS if pattern.search(description)), CODE)


def _window_text(snapshot: Snapshot) -> str:
    seconds = int(snapshot.meta.get("since_seconds") or 0)
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds and seconds % size == 0:
            return f"in the last {seconds // size}{unit}"
    return f"in the last {seconds}s"


def _priority(code: str, error: bool, under_job: bool) -> tuple[Status, Priority]:
    if code == CODE:
        return (Status.FAIL, Priority.P1) if error else (Status.WARN, Priority.P2)
    if not error:
        return Status.WARN, Priority.P1
    return Status.FAIL, Priority.P0 if under_job else Priority.P1


def _commands(snapshot: Snapshot, instances: list[str]) -> list[SuggestedCommand]:
    # The same form as cluster.nodes' command, so merged findings list it once.
    k = known(snapshot)
    commands = [
        read_only(
            "read the events of the window in full",
            f"aws sagemaker list-cluster-events --cluster-name {k.cluster} "
            f"--event-time-after {snapshot.meta.get('window_start')} --region {k.region}",
        )
    ]
    commands += [describe_node(k.cluster, instance, k.region) for instance in instances[:3]]
    return commands


def _group_finding(
    snapshot: Snapshot, code: str, status: Status, events: list[Event], window: str
) -> Finding:
    k = known(snapshot)
    on_job = job_pods_by_instance(snapshot)
    instances = sorted({e.instance for e in events if e.instance})
    under = [i for i in instances if i in on_job]
    _, priority = _priority(code, status is Status.FAIL, bool(under))
    what = {
        "HEALTH_CHECK_FAILED": "HyperPod health checks failed",
        "NODE_RECOVERY_FAILED": "HyperPod could not reboot or replace",
        CODE: "error cluster events" if status is Status.FAIL else "warning cluster events",
    }[code]
    shown = sorted(events, key=lambda e: str(e.raw.get("EventTime", "")))
    title = f"{what} {window}"
    title += f" on {plural(len(instances), 'instance')}: {listed(instances)}" if instances else ""
    title += f": {str(shown[-1].raw.get('Description', ''))[:160]}"
    if under:
        pods = sorted({p for i in under for p in on_job[i]})
        title += f" (runs job pods {listed(pods, 4)})"
    hosts = instances + [k.node_names[i] for i in instances if i in k.node_names]
    return finding(
        code,
        status,
        priority,
        title,
        hosts=hosts,
        evidence=[evidence(EVENTS, e.line()) for e in shown[-10:]],
        commands=_commands(snapshot, instances),
        first_seen=str(shown[0].raw.get("EventTime")),
        details={
            "events": len(events),
            "job_pods": {i: on_job[i] for i in under},
        },
    )


@check(CHECK, "cluster", [CODE, "HEALTH_CHECK_FAILED", "NODE_RECOVERY_FAILED"])
def cluster_events(snapshot: Snapshot) -> list[Finding]:
    window = _window_text(snapshot)
    gap = unavailable(snapshot, [EVENTS], CODE, Priority.P1, "cluster events")
    if gap:
        return [gap]
    data = doc(snapshot, EVENTS)
    raw: list[dict[str, Any]] = data.get("Events", [])
    levels = Counter(str(e.get("EventLevel") or "Info") for e in raw)
    serious = [
        Event(e, _kind(str(e.get("Description") or "")), e.get("EventLevel") == _ERROR)
        for e in raw
        if e.get("EventLevel") == _ERROR or e.get("EventLevel") in _WARN
    ]
    findings = []
    groups: dict[tuple[str, bool], list[Event]] = defaultdict(list)
    for event in serious:
        groups[(event.code, event.error)].append(event)
    for (code, error), events in sorted(groups.items()):
        status = Status.FAIL if error else Status.WARN
        findings.append(_group_finding(snapshot, code, status, events, window))
    if data.get("Truncated"):
        findings.append(
            finding(
                CODE,
                Status.INCOMPLETE,
                Priority.P1,
                f"more cluster events {window} than were read ({len(raw)}); narrow --since",
                details={"levels": dict(levels)},
            )
        )
    elif not serious:
        findings.append(
            finding(
                CODE,
                Status.PASS,
                Priority.P1,
                f"no error or warning cluster events {window} ({plural(len(raw), 'event')} in all)",
                details={"levels": dict(levels)},
            )
        )
    else:
        errors = sum(1 for e in serious if e.error)
        findings.append(
            finding(
                CODE,
                Status.INFO,
                Priority.P2,
                f"{plural(errors, 'error event')} and {plural(len(serious) - errors, 'warning event')}"
                f" {window} ({plural(len(raw), 'event')} in all)",
                details={"levels": dict(levels)},
            )
        )
    return findings
