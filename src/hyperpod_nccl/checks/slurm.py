"""Slurm checks: controller and munge, node states, pending jobs, limit propagation, task plugin,
job-script environment, RemoveIPC and job output. They read only the `slurm/` items that
`hyperpod_nccl.collect.slurm` wrote (and SageMaker node lists under `aws/` when present)."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from hyperpod_nccl.checks import check
from hyperpod_nccl.model import Evidence, Finding, Priority, Status, SuggestedCommand
from hyperpod_nccl.slurm import suggestions
from hyperpod_nccl.slurm.conditions import Condition, condition_of, interpret_reason, sinfo_word
from hyperpod_nccl.slurm.config import (
    ScriptVariable,
    memlock_propagation,
    parse_show_config,
    script_paths,
    script_variables,
)
from hyperpod_nccl.slurm.instances import ClusterInstance, instances_from_documents, map_nodes
from hyperpod_nccl.slurm.jobs import (
    INTENDED_WAITS,
    SlurmJob,
    blocked_reason,
    parse_squeue_json,
    parse_squeue_text,
)
from hyperpod_nccl.slurm.logind import remove_ipc
from hyperpod_nccl.slurm.nodes import (
    SlurmNode,
    SlurmParseError,
    parse_scontrol_nodes,
    parse_sinfo_json,
)
from hyperpod_nccl.slurm.values import iso_from_epoch
from hyperpod_nccl.snapshot import Snapshot

AREA = "slurm"
# A job waiting its turn longer than this is reported (its reason may still be ordinary).
PENDING_LONG_S = 3600
MAX_EVIDENCE = 50


def _ref(anchor: str) -> str:
    return f"debugging-guide.md#{anchor}"


def _record(snapshot: Snapshot, name: str) -> dict[str, Any] | None:
    data = snapshot.get_json(name)
    return data if isinstance(data, dict) else None


def _incomplete(
    code: str, what: str, why: str, anchor: str, item: str, priority: Priority = Priority.P2
) -> Finding:
    return Finding(
        code=code,
        status=Status.INCOMPLETE,
        priority=priority,
        title=f"{what} not checked: {why}",
        reference=_ref(anchor),
        details={"item": item},
    )


def _missing(code: str, what: str, snapshot: Snapshot, name: str, anchor: str) -> Finding:
    return _incomplete(code, what, snapshot.why_missing(name) or "not collected", anchor, name)


def _host(snapshot: Snapshot) -> str:
    context = _record(snapshot, "slurm/context.json") or {}
    return str(context.get("host") or "")


# --------------------------------------------------------------------------- controller


_CONTROLLER = re.compile(r"Slurmctld\((\w+)\) at (\S+) is (UP|DOWN)")


@check("slurm.controller", AREA, ["SLURMCTLD_DOWN", "SLURM_COMMAND_TIMEOUT"])
def controller(snapshot: Snapshot) -> list[Finding]:
    """Is slurmctld answering? (`scontrol ping`)"""
    ping = _record(snapshot, "slurm/ping.json")
    if ping is None:
        return [
            _missing("SLURMCTLD_DOWN", "slurmctld", snapshot, "slurm/ping.json", "slurmctld-down")
        ]
    source = f"slurm/ping.json ({' '.join(ping['argv'])} on {ping['host']})"
    output = (ping.get("stdout") or "") + (ping.get("stderr") or "")
    evidence = [Evidence(source, line.strip()) for line in output.splitlines() if line.strip()][:5]
    if ping.get("timed_out"):
        return [
            Finding(
                code="SLURM_COMMAND_TIMEOUT",
                status=Status.INCOMPLETE,
                priority=Priority.P1,
                title=(
                    f"slurmctld did not answer `scontrol ping` within {ping['elapsed_s']:.0f} s; "
                    "node, job and configuration checks could not run"
                ),
                reference=_ref("slurm-command-timeout"),
                hosts=[ping["host"]],
                evidence=evidence,
                suggested_commands=[_ping_command()],
            )
        ]
    controllers = _CONTROLLER.findall(ping.get("stdout") or "")
    up = [c for c in controllers if c[2] == "UP"]
    if up:  # a backup controller that is down does not stop scheduling
        return [
            Finding(
                code="SLURMCTLD_DOWN",
                status=Status.PASS,
                priority=Priority.P0,
                title=f"slurmctld answers on {', '.join(c[1] for c in up)}",
                reference=_ref("slurmctld-down"),
                evidence=evidence,
            )
        ]
    down_hosts = [c[1] for c in controllers if c[2] == "DOWN"]
    what = ", ".join(f"{c[0]} at {c[1]}" for c in controllers if c[2] == "DOWN")
    return [
        Finding(
            code="SLURMCTLD_DOWN",
            status=Status.FAIL,
            priority=Priority.P0,
            title=(
                f"slurmctld does not answer ({what or 'scontrol ping failed'}): no jobs start "
                "and running jobs cannot start new steps"
            ),
            reference=_ref("slurmctld-down"),
            hosts=down_hosts,
            evidence=evidence,
            suggested_commands=[
                _ping_command(),
                SuggestedCommand(
                    purpose="read why slurmctld stopped (on the controller node)",
                    command="systemctl status slurmctld; journalctl -u slurmctld --since -1h | tail -50",
                    preconditions="a shell on the controller node",
                    blast_radius="none (read-only)",
                ),
            ],
        )
    ]


def _ping_command() -> SuggestedCommand:
    return SuggestedCommand(
        purpose="ask slurmctld again",
        command="scontrol ping",
        preconditions="none (read-only)",
        blast_radius="none",
    )


@check("slurm.munge", AREA, ["SLURM_MUNGE_FAILED"])
def munge(snapshot: Snapshot) -> list[Finding]:
    """Can this host create a munge credential? Every Slurm message is signed with one."""
    record = _record(snapshot, "slurm/munge.json")
    if record is None:
        return [
            _missing(
                "SLURM_MUNGE_FAILED", "munge", snapshot, "slurm/munge.json", "slurm-munge-failed"
            )
        ]
    source = f"slurm/munge.json (munge -n on {record['host']})"
    if record.get("rc") == 0 and (record.get("stdout") or "").startswith("MUNGE:"):
        return [
            Finding(
                code="SLURM_MUNGE_FAILED",
                status=Status.PASS,
                priority=Priority.P0,
                title=f"munge creates credentials on {record['host']}",
                reference=_ref("slurm-munge-failed"),
            )
        ]
    message = (record.get("stderr") or record.get("stdout") or "").strip()
    if record.get("timed_out"):
        message = f"munge -n did not answer within {record['elapsed_s']:.0f} s"
    elif record.get("rc") is None:
        message = f"munge could not start: {message or 'not installed'}"
    return [
        Finding(
            code="SLURM_MUNGE_FAILED",
            status=Status.FAIL,
            priority=Priority.P0,
            title=(
                f"munge cannot create a credential on {record['host']}: Slurm commands and "
                "daemons there cannot authenticate"
            ),
            reference=_ref("slurm-munge-failed"),
            hosts=[record["host"]],
            evidence=[Evidence(source, line) for line in message.splitlines()[:5]],
            suggested_commands=[
                SuggestedCommand(
                    purpose="check munged and the key on this host",
                    command="systemctl status munge; ls -l /etc/munge/munge.key; munge -n | unmunge",
                    preconditions="a shell on the host",
                    blast_radius="none (read-only)",
                )
            ],
        )
    ]


# --------------------------------------------------------------------------- nodes


T = TypeVar("T")


def _load_first(
    snapshot: Snapshot, candidates: Sequence[tuple[str, Callable[[str], T]]]
) -> tuple[T | None, str, str]:
    """Parse the first candidate item collected: (parsed, item name, why it is missing)."""
    for name, parse in candidates:
        text = snapshot.get_text(name)
        if text is not None:
            try:
                return parse(text), name, ""
            except SlurmParseError as exc:
                return None, name, str(exc)
    # The fallback's reason says more when it was tried; else the preferred form's reason.
    why = snapshot.why_missing(candidates[-1][0])
    if why == "not collected":
        why = snapshot.why_missing(candidates[0][0]) or why
    return None, candidates[0][0], why or "not collected"


def load_nodes(snapshot: Snapshot) -> tuple[list[SlurmNode] | None, str, str]:
    """(nodes, item they came from, why they are missing)."""
    return _load_first(
        snapshot,
        [
            ("slurm/sinfo.json", parse_sinfo_json),
            ("slurm/scontrol_show_node.txt", parse_scontrol_nodes),
        ],
    )


def load_instances(snapshot: Snapshot) -> list[ClusterInstance]:
    """HyperPod instances from any SageMaker node list or node description in the snapshot."""
    documents = (
        snapshot.get_json(name)
        for name in snapshot.collected("aws/")
        if name.endswith(".json") and "node" in name.lower()
    )
    return instances_from_documents(documents)


def _cluster_name(snapshot: Snapshot) -> str | None:
    for key in ("cluster", "cluster_name"):
        if isinstance(snapshot.meta.get(key), str):
            return str(snapshot.meta[key])
    return None


_CONDITION_FINDING: dict[Condition, tuple[str, Status, Priority, str, str]] = {
    # condition: code, status, priority, what it means (title), guide anchor
    Condition.NOT_RESPONDING: (
        "SLURM_NODE_NOT_RESPONDING",
        Status.FAIL,
        Priority.P0,
        "not responding: slurmctld cannot reach their slurmd, and jobs on them are lost",
        "slurm-node-not-responding",
    ),
    Condition.DOWN: (
        "SLURM_NODE_DOWN",
        Status.FAIL,
        Priority.P0,
        "DOWN: no jobs run there",
        "slurm-node-down",
    ),
    Condition.FAIL: (
        "SLURM_NODE_FAIL",
        Status.FAIL,
        Priority.P1,
        "FAIL/FAILING: taken out of service (on HyperPod, to be rebooted or replaced)",
        "slurm-node-fail",
    ),
    Condition.INVALID: (
        "SLURM_NODE_INVALID",
        Status.FAIL,
        Priority.P1,
        "INVAL: they registered with less than slurm.conf declares",
        "slurm-node-invalid",
    ),
    Condition.DRAIN: (
        "SLURM_NODE_DRAIN",
        Status.FAIL,
        Priority.P1,
        "draining or drained: no new jobs start there",
        "slurm-node-drain",
    ),
    Condition.MAINTENANCE: (
        "SLURM_NODE_MAINTENANCE",
        Status.INFO,
        Priority.P2,
        "in planned maintenance, rebooting or powered down",
        "slurm-node-maintenance",
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
        return [_incomplete("SLURM_NODE_STATE", what, why, "slurm-procedures", source, Priority.P1)]
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
                reference=_ref("slurm-procedures"),
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
    code, status, priority, meaning, anchor = _CONDITION_FINDING[condition]
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
        reference=_ref(anchor),
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


# --------------------------------------------------------------------------- jobs


def load_jobs(snapshot: Snapshot) -> tuple[list[SlurmJob] | None, str, str]:
    return _load_first(
        snapshot,
        [("slurm/squeue.json", parse_squeue_json), ("slurm/squeue.txt", parse_squeue_text)],
    )


def _collected_at(snapshot: Snapshot) -> int | None:
    context = _record(snapshot, "slurm/context.json") or {}
    value = context.get("collected_at")
    return int(value) if isinstance(value, (int, float)) else None


@check("slurm.pending_jobs", AREA, ["SLURM_JOB_PENDING"])
def pending_jobs(snapshot: Snapshot) -> list[Finding]:
    """Pending jobs that cannot start until someone acts, or that waited unusually long."""
    jobs, source, why = load_jobs(snapshot)
    if jobs is None:
        return [_incomplete("SLURM_JOB_PENDING", "pending jobs", why, "slurm-job-pending", source)]
    now = _collected_at(snapshot)
    pending = [j for j in jobs if j.state == "PENDING"]
    blocked: list[tuple[SlurmJob, str]] = []
    waiting: list[tuple[SlurmJob, int]] = []
    for job in pending:
        why_blocked = blocked_reason(job)
        if why_blocked:
            blocked.append((job, why_blocked))
            continue
        if job.reason in INTENDED_WAITS or now is None:
            continue
        since = job.eligible_time or job.submit_time
        if since and now - since >= PENDING_LONG_S:
            waiting.append((job, now - since))
    findings = []
    if blocked:
        hosts = sorted({n for job, _ in blocked for n in job.unavailable_nodes})
        findings.append(
            Finding(
                code="SLURM_JOB_PENDING",
                status=Status.FAIL,
                priority=Priority.P1,
                title=(
                    f"{len(blocked)} pending job{'s' if len(blocked) != 1 else ''} cannot start "
                    f"until someone acts: "
                    + "; ".join(f"job {j.job_id}: {w}" for j, w in blocked[:3])
                ),
                reference=_ref("slurm-job-pending"),
                hosts=hosts,
                evidence=[
                    Evidence(
                        source,
                        f"job {j.job_id} ({j.name}, {j.user}) PENDING ({j.detail or j.reason})",
                    )
                    for j, _ in blocked[:MAX_EVIDENCE]
                ],
                suggested_commands=_pending_commands([j for j, _ in blocked], hosts),
                count=len(blocked),
                details={"jobs": [_job_details(j, w, now) for j, w in blocked]},
            )
        )
    if waiting:
        findings.append(
            Finding(
                code="SLURM_JOB_PENDING",
                status=Status.WARN,
                priority=Priority.P2,
                title=(
                    f"{len(waiting)} job{'s' if len(waiting) != 1 else ''} pending for over "
                    f"{PENDING_LONG_S // 3600} h: "
                    + "; ".join(
                        f"job {j.job_id} {age // 60} min ({j.reason})" for j, age in waiting[:3]
                    )
                ),
                reference=_ref("slurm-job-pending"),
                evidence=[
                    Evidence(
                        source,
                        f"job {j.job_id} ({j.name}, {j.user}) PENDING {age // 60} min: {j.reason}",
                    )
                    for j, age in waiting[:MAX_EVIDENCE]
                ],
                suggested_commands=_pending_commands([j for j, _ in waiting], []),
                count=len(waiting),
                details={"jobs": [_job_details(j, j.reason, now) for j, _ in waiting]},
            )
        )
    if not findings:
        findings.append(
            Finding(
                code="SLURM_JOB_PENDING",
                status=Status.PASS,
                priority=Priority.P2,
                title=(
                    f"no job is blocked or pending over {PENDING_LONG_S // 3600} h "
                    f"({len(pending)} pending, {len(jobs)} listed)"
                ),
                reference=_ref("slurm-job-pending"),
            )
        )
    return findings


def _job_details(job: SlurmJob, why: str, now: int | None) -> dict[str, Any]:
    since = job.eligible_time or job.submit_time
    return {
        "job_id": job.job_id,
        "name": job.name,
        "user": job.user,
        "partition": job.partition,
        "reason": job.reason,
        "detail": job.detail,
        "why": why,
        "submitted": iso_from_epoch(job.submit_time),
        "pending_s": (now - since) if now and since else None,
        "waits_for_nodes": job.unavailable_nodes,
    }


def _pending_commands(jobs: list[SlurmJob], hosts: list[str]) -> list[SuggestedCommand]:
    first = jobs[0].job_id.split("_")[0]
    commands = [
        SuggestedCommand(
            purpose="read the job's requirements and Slurm's reason",
            command=f"scontrol show job {first}; squeue -j {first} -o '%i %T %r %R'",
            preconditions="none (read-only)",
            blast_radius="none",
        )
    ]
    if hosts:
        commands.append(suggestions.inspect(hosts))
    return commands


# --------------------------------------------------------------------------- configuration


def _config(snapshot: Snapshot) -> dict[str, str] | None:
    text = snapshot.get_text("slurm/config.txt")
    return parse_show_config(text) if text is not None else None


@check("slurm.memlock_propagation", AREA, ["SLURM_MEMLOCK_NOT_PROPAGATED"])
def memlock(snapshot: Snapshot) -> list[Finding]:
    """Does the compute node's locked-memory limit reach jobs, or the submitting shell's?"""
    settings = _config(snapshot)
    code, anchor = "SLURM_MEMLOCK_NOT_PROPAGATED", "slurm-memlock-not-propagated"
    if settings is None:
        return [_missing(code, "memlock propagation", snapshot, "slurm/config.txt", anchor)]
    propagation = memlock_propagation(settings)
    shown = (
        f"PropagateResourceLimits={propagation.limits or 'ALL (default)'}, "
        f"PropagateResourceLimitsExcept={propagation.except_ or '(unset)'}"
    )
    evidence = [Evidence("slurm/config.txt (scontrol show config)", shown)]
    if not propagation.propagated:
        return [
            Finding(
                code=code,
                status=Status.PASS,
                priority=Priority.P1,
                title=f"jobs keep the compute node's locked-memory limit ({shown})",
                reference=_ref(anchor),
                evidence=evidence,
            )
        ]
    context = _record(snapshot, "slurm/context.json") or {}
    limits = context.get("submit_rlimit_memlock")
    fix = SuggestedCommand(
        purpose="stop copying the submit shell's memlock limit into jobs (slurm.conf on the controller)",
        command=(
            "add 'PropagateResourceLimitsExcept=MEMLOCK' to slurm.conf, then: scontrol reconfigure"
        ),
        preconditions="compute nodes' slurmd runs with memlock unlimited (systemd LimitMEMLOCK=infinity)",
        blast_radius="jobs started afterwards; running jobs keep their limits",
    )
    check_cmd = SuggestedCommand(
        purpose="see the limit a job really gets",
        command="srun -N1 bash -c 'ulimit -l'",
        preconditions="a free node",
        blast_radius="a one-task job",
    )
    if isinstance(limits, dict) and limits.get("soft") is not None:
        soft_kib = int(limits["soft"]) // 1024
        return [
            Finding(
                code=code,
                status=Status.FAIL,
                priority=Priority.P1,
                title=(
                    f"jobs submitted from {context.get('host')} get its locked-memory limit of "
                    f"{soft_kib} KiB, not the compute node's: Slurm propagates MEMLOCK ({shown}); "
                    "RDMA (EFA) memory registration needs unlimited"
                ),
                reference=_ref(anchor),
                hosts=[str(context.get("host"))],
                evidence=[
                    *evidence,
                    Evidence("slurm/context.json", f"submit shell memlock soft={soft_kib} KiB"),
                ],
                suggested_commands=[check_cmd, fix],
            )
        ]
    unlimited_here = isinstance(limits, dict)
    return [
        Finding(
            code=code,
            status=Status.WARN,
            priority=Priority.P2 if unlimited_here else Priority.P1,
            title=(
                "Slurm copies the submitting shell's locked-memory limit into jobs "
                f"({shown}); "
                + (
                    f"it is unlimited on {context.get('host')}, but a job submitted from a shell "
                    "with a lower limit gets that lower limit"
                    if unlimited_here
                    else "a low limit on the submit host reaches every job"
                )
            ),
            reference=_ref(anchor),
            evidence=evidence,
            suggested_commands=[check_cmd, fix],
        )
    ]


@check("slurm.task_plugin", AREA, ["SLURM_TASK_PLUGIN"])
def task_plugin(snapshot: Snapshot) -> list[Finding]:
    """Does Slurm bind tasks to CPUs and confine them to their GPUs?"""
    settings = _config(snapshot)
    code, anchor = "SLURM_TASK_PLUGIN", "slurm-task-plugin"
    if settings is None:
        return [_missing(code, "TaskPlugin", snapshot, "slurm/config.txt", anchor)]
    value = settings.get("TaskPlugin", "")
    plugins = {p.strip() for p in value.split(",") if p.strip()}
    evidence = [
        Evidence("slurm/config.txt (scontrol show config)", f"TaskPlugin = {value or '(null)'}")
    ]
    if plugins & {"task/affinity", "task/cgroup"}:
        return [
            Finding(
                code=code,
                status=Status.PASS,
                priority=Priority.P2,
                title=f"TaskPlugin={value}: Slurm binds or confines job tasks",
                reference=_ref(anchor),
                evidence=evidence,
            )
        ]
    return [
        Finding(
            code=code,
            status=Status.WARN,
            priority=Priority.P2,
            title=(
                f"TaskPlugin={value or 'unset'}: Slurm neither binds tasks to CPUs nor confines "
                "them to their allocated GPUs (task/affinity, task/cgroup); tasks may share "
                "GPUs or sit on the far NUMA node"
            ),
            reference=_ref(anchor),
            evidence=evidence,
        )
    ]


@check("slurm.script_environment", AREA, ["SLURM_PROLOG_ENV"])
def script_environment(snapshot: Snapshot) -> list[Finding]:
    """NCCL_*/FI_* variables the prolog/epilog scripts set, and whether they reach the tasks."""
    settings = _config(snapshot)
    code, anchor = "SLURM_PROLOG_ENV", "slurm-prolog-env"
    if settings is None:
        return [_missing(code, "prolog and epilog scripts", snapshot, "slurm/config.txt", anchor)]
    unread: list[str] = []
    variables = []
    for setting, paths in script_paths(settings).items():
        for path in paths:
            name = f"slurm/scripts{path}"
            content = snapshot.get_text(name)
            if content is None:
                unread.append(f"{setting} {path}: {snapshot.why_missing(name)}")
                continue
            variables += script_variables(setting, path, content)
    findings = []
    reaching = [v for v in variables if v.reaches_tasks]
    lost = [v for v in variables if not v.reaches_tasks]
    if reaching:
        listed = ", ".join(f"{v.name}={v.value}" for v in reaching)
        title = f"the TaskProlog sets {listed} in every task, overriding what the job itself sets"
        findings.append(_variables_finding(Status.INFO, title, reaching))
    if lost:
        scripts = ", ".join(sorted({v.setting for v in lost}))
        listed = ", ".join(f"{v.name}={v.value}" for v in lost)
        title = (
            f"{scripts} sets {listed}, which never reaches the job's tasks (only lines a "
            "TaskProlog prints as `export NAME=value` do)"
        )
        findings.append(_variables_finding(Status.WARN, title, lost))
    if unread:
        findings.append(
            Finding(
                code=code,
                status=Status.INCOMPLETE,
                priority=Priority.P2,
                title=f"{len(unread)} job script(s) could not be read: {'; '.join(unread[:3])}",
                reference=_ref(anchor),
                details={"unread": unread},
            )
        )
    if not findings:
        findings.append(
            Finding(
                code=code,
                status=Status.PASS,
                priority=Priority.P2,
                title="no Slurm job script sets NCCL_* or FI_* variables",
                reference=_ref(anchor),
            )
        )
    return findings


def _variables_finding(status: Status, title: str, variables: list[ScriptVariable]) -> Finding:
    return Finding(
        code="SLURM_PROLOG_ENV",
        status=status,
        priority=Priority.P2,
        title=title,
        reference=_ref("slurm-prolog-env"),
        evidence=[Evidence(f"{v.path}:{v.line}", v.text) for v in variables][:MAX_EVIDENCE],
        details={"variables": {v.name: v.value for v in variables}},
    )


# --------------------------------------------------------------------------- RemoveIPC


def _compute_hosts(snapshot: Snapshot) -> set[str] | None:
    nodes, _, _ = load_nodes(snapshot)
    if nodes is None:
        return None
    return {h for n in nodes for h in (n.name, n.hostname, n.address) if h}


@check("slurm.removeipc", AREA, ["SLURM_REMOVEIPC"])
def removeipc(snapshot: Snapshot) -> list[Finding]:
    """systemd-logind's RemoveIPC on the hosts read: `yes` deletes jobs' shared memory."""
    code, anchor = "SLURM_REMOVEIPC", "slurm-removeipc"
    names = [n for n in snapshot.names("slurm/logind/") if n.endswith(".json")]
    if not names:
        return [_missing(code, "RemoveIPC", snapshot, "slurm/logind/", anchor)]
    compute = _compute_hosts(snapshot)
    findings = []
    for name in names:
        record = _record(snapshot, name)
        if record is None:
            findings.append(_missing(code, "RemoveIPC", snapshot, name, anchor))
            continue
        host = str(record.get("host"))
        if snapshot.has(f"nodes/{host}/removeipc.txt"):
            continue  # the node probe's check (node.removeipc) reports this host
        if record.get("errors"):
            problems = "; ".join(f"{p}: {why}" for p, why in record["errors"].items())
            findings.append(
                Finding(
                    code=code,
                    status=Status.INCOMPLETE,
                    priority=Priority.P2,
                    title=f"RemoveIPC on {host} not checked: {problems}",
                    reference=_ref(anchor),
                    hosts=[host],
                )
            )
            continue
        effective = remove_ipc(record.get("files") or {})
        where = effective.source or "the default (no RemoveIPC line in logind.conf or its drop-ins)"
        evidence = [
            Evidence(effective.source or name, effective.text or "RemoveIPC unset: yes by default")
        ]
        runs_jobs = compute is None or host in compute
        if not effective.enabled:
            findings.append(
                Finding(
                    code=code,
                    status=Status.PASS,
                    priority=Priority.P1,
                    title=f"RemoveIPC=no on {host} ({where})",
                    reference=_ref(anchor),
                    hosts=[host],
                    evidence=evidence,
                )
            )
        elif runs_jobs:
            findings.append(
                Finding(
                    code=code,
                    status=Status.FAIL,
                    priority=Priority.P1,
                    title=(
                        f"RemoveIPC=yes on Slurm node {host} (from {where}): systemd-logind can "
                        "delete a job's shared memory (/dev/shm/nccl-*) when its user's last "
                        "login session ends, crashing NCCL"
                    ),
                    reference=_ref(anchor),
                    hosts=[host],
                    evidence=evidence,
                    suggested_commands=[
                        SuggestedCommand(
                            purpose="see the setting logind uses (on the node)",
                            command="systemd-analyze cat-config systemd/logind.conf | grep -i RemoveIPC",
                            preconditions="a shell on the node",
                            blast_radius="none (read-only)",
                        ),
                        SuggestedCommand(
                            purpose="keep logind away from job IPC (on every compute node, and in the lifecycle scripts)",
                            command=(
                                "sudo mkdir -p /etc/systemd/logind.conf.d && printf '[Login]\\nRemoveIPC=no\\n' "
                                "| sudo tee /etc/systemd/logind.conf.d/90-slurm-removeipc.conf && "
                                "sudo systemctl restart systemd-logind"
                            ),
                            preconditions="root on the node",
                            blast_radius="systemd-logind restarts; running jobs continue",
                        ),
                    ],
                )
            )
        else:
            findings.append(
                Finding(
                    code=code,
                    status=Status.SKIPPED,
                    priority=Priority.P2,
                    title=(
                        f"RemoveIPC=yes on {host}, which runs no Slurm jobs; the compute nodes "
                        "were not read (run on a compute node, or use the node probes)"
                    ),
                    reference=_ref(anchor),
                    hosts=[host],
                    evidence=evidence,
                )
            )
    return findings


# --------------------------------------------------------------------------- job output


def _job_groups(snapshot: Snapshot) -> dict[str, list[str]]:
    groups: dict[str, list[str]] = defaultdict(list)
    for name in snapshot.names("slurm/job_output/"):
        group = name.split("/")[2]
        groups[group].append(name)
    return groups


@check("slurm.job_output", AREA, ["SLURM_JOB_OUTPUT"])
def job_output(snapshot: Snapshot) -> list[Finding]:
    """Job output files through the log rules, root-caused across all ranks of a job."""
    from hyperpod_nccl.api import analyze_logs  # the log engine is heavy; load it only here

    findings: list[Finding] = []
    for group, names in sorted(_job_groups(snapshot).items()):
        collected = [n for n in names if snapshot.has(n)]
        label = "given job output" if group == "given" else f"job {group}"
        for name in names:
            if not snapshot.has(name):
                findings.append(
                    Finding(
                        code="SLURM_JOB_OUTPUT",
                        status=Status.INCOMPLETE,
                        priority=Priority.P2,
                        title=f"{label}: {snapshot.items[name].source or name} not read: {snapshot.why_missing(name)}",
                        reference=_ref("input-unreadable"),
                    )
                )
        if not collected:
            continue
        paths = {str(snapshot.path_of(n)): snapshot.items[n].source or n for n in collected}
        report = analyze_logs(list(paths))
        for finding in report.findings:
            finding.title = f"{label}: {finding.title}"
            finding.evidence = [_renamed(e, paths) for e in finding.evidence]
            finding.details = {**finding.details, "job": group}
            findings.append(finding)
    return findings


def _renamed(evidence: Evidence, paths: dict[str, str]) -> Evidence:
    for temporary, original in paths.items():
        if evidence.source.startswith(temporary):
            original = original.split(" (last ")[0]
            return Evidence(original + evidence.source[len(temporary) :], evidence.text)
    return evidence
