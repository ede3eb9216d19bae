"""Configuration checks: locked-memory propagation, task plugin, variables in job scripts."""

from __future__ import annotations

from hyperpod_nccl.checks import check
from hyperpod_nccl.checks.findings import reference
from hyperpod_nccl.checks.slurm_data import (
    AREA,
    MAX_EVIDENCE,
    json_item,
    missing,
)
from hyperpod_nccl.model import Evidence, Finding, Priority, Status, SuggestedCommand
from hyperpod_nccl.slurm.config import (
    ScriptVariable,
    memlock_propagation,
    parse_show_config,
    script_paths,
    script_variables,
)
from hyperpod_nccl.snapshot import Snapshot
from hyperpod_nccl.snapshot.items import SLURM_CONFIG, SLURM_CONTEXT


def _config(snapshot: Snapshot) -> dict[str, str] | None:
    text = snapshot.get_text(SLURM_CONFIG)
    return parse_show_config(text) if text is not None else None


@check("slurm.memlock_propagation", AREA, ["SLURM_MEMLOCK_NOT_PROPAGATED"])
def memlock(snapshot: Snapshot) -> list[Finding]:
    """Does the compute node's locked-memory limit reach jobs, or the submitting shell's?"""
    settings = _config(snapshot)
    code = "SLURM_MEMLOCK_NOT_PROPAGATED"
    if settings is None:
        return [missing(code, "memlock propagation", snapshot, SLURM_CONFIG)]
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
                reference=reference(code),
                evidence=evidence,
            )
        ]
    context = json_item(snapshot, SLURM_CONTEXT) or {}
    limits = context.get("submit_rlimit_memlock")
    fix = SuggestedCommand(
        purpose="stop copying the submit shell's memlock limit into jobs (slurm.conf on the controller)",
        # An edit, then the reload: the setting's line differs by site, so no sed rewrite.
        command=(
            'sudoedit "$(scontrol show config | awk \'$1 == "SLURM_CONF" {print $3}\')" '
            "&& sudo scontrol reconfigure   # add PropagateResourceLimitsExcept=MEMLOCK"
        ),
        preconditions="compute nodes' slurmd runs with memlock unlimited (systemd LimitMEMLOCK=infinity)",
        changes_state=True,
        blast_radius="jobs started afterwards; running jobs keep their limits",
    )
    check_cmd = SuggestedCommand(
        purpose="see the limit a job really gets",
        command="srun -N1 bash -c 'ulimit -l'",
        preconditions="a free node",
        changes_state=True,
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
                reference=reference(code),
                hosts=[str(context.get("host"))],
                evidence=[
                    *evidence,
                    Evidence(SLURM_CONTEXT, f"submit shell memlock soft={soft_kib} KiB"),
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
            reference=reference(code),
            evidence=evidence,
            suggested_commands=[check_cmd, fix],
        )
    ]


@check("slurm.task_plugin", AREA, ["SLURM_TASK_PLUGIN"])
def task_plugin(snapshot: Snapshot) -> list[Finding]:
    """Does Slurm bind tasks to CPUs and confine them to their GPUs?"""
    settings = _config(snapshot)
    code = "SLURM_TASK_PLUGIN"
    if settings is None:
        return [missing(code, "TaskPlugin", snapshot, SLURM_CONFIG)]
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
                reference=reference(code),
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
            reference=reference(code),
            evidence=evidence,
        )
    ]


@check("slurm.script_environment", AREA, ["SLURM_PROLOG_ENV"])
def script_environment(snapshot: Snapshot) -> list[Finding]:
    """NCCL_*/FI_* variables the prolog/epilog scripts set, and whether they reach the tasks."""
    settings = _config(snapshot)
    code = "SLURM_PROLOG_ENV"
    if settings is None:
        return [missing(code, "prolog and epilog scripts", snapshot, SLURM_CONFIG)]
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
                reference=reference(code),
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
                reference=reference(code),
            )
        )
    return findings


def _variables_finding(status: Status, title: str, variables: list[ScriptVariable]) -> Finding:
    return Finding(
        code="SLURM_PROLOG_ENV",
        status=status,
        priority=Priority.P2,
        title=title,
        reference=reference("SLURM_PROLOG_ENV"),
        evidence=[Evidence(f"{v.path}:{v.line}", v.text) for v in variables][:MAX_EVIDENCE],
        details={"variables": {v.name: v.value for v in variables}},
    )
