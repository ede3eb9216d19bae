"""The job pods' environment as NCCL sees it: NCCL and libfabric variables checked by value
(not presence), /dev/shm as a memory-backed emptyDir with its size, and the IPC_LOCK
capability for pods that register memory with EFA.

Variables the launcher sets per process (RANK, LOCAL_RANK, MASTER_ADDR, ...) and values that
come from a reference (valueFrom) are never judged: a missing or unknown value is not an
error.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from hyperpod_nccl.checks import check
from hyperpod_nccl.checks.findings import finding, listed, plural, unavailable
from hyperpod_nccl.checks.jobsel import PODS, job_groups, job_scope
from hyperpod_nccl.kube.objects import (
    EFA_RESOURCE,
    GPU_RESOURCE,
    Obj,
    containers,
    env_vars,
    name,
    pod_request,
    quantity,
    requested,
    spec,
)
from hyperpod_nccl.model import Evidence, Finding, Priority, Status
from hyperpod_nccl.snapshot import Snapshot

_BAD_INTERFACES = ("lo", "docker", "virbr", "veth")
# NCCL caps sockets x threads at 64 per connection (NCCL environment variable docs).
MAX_SOCKETS_TIMES_THREADS = 64
MAX_SOCKET_THREADS = 16
MIN_SHM_BYTES = 1 << 30  # below 1 GiB, 8 local ranks with NCCL's SHM buffers and loaders run short


@dataclass(frozen=True)
class EnvContext:
    pod: str
    efa: bool  # the pod has EFA devices
    host_network: bool
    env: dict[str, str]


@dataclass(frozen=True)
class EnvProblem:
    status: Status
    priority: Priority
    text: str


def _interfaces(value: str) -> tuple[bool, list[str]]:
    """NCCL_SOCKET_IFNAME syntax: a `^` prefix excludes, a `=` prefix matches exactly."""
    exclude = value.startswith("^")
    body = value[1:] if exclude else value
    body = body[1:] if body.startswith("=") else body
    return exclude, [p.strip() for p in body.split(",") if p.strip()]


def _socket_ifname(value: str, ctx: EnvContext) -> EnvProblem | None:
    exclude, names = _interfaces(value)
    if exclude:
        if any("eth0".startswith(n) for n in names) and not ctx.host_network:
            return EnvProblem(
                Status.FAIL,
                Priority.P0,
                f"NCCL_SOCKET_IFNAME={value} excludes eth0, the pod's only network interface",
            )
        return None
    bad = [n for n in names if n.startswith(_BAD_INTERFACES)]
    if bad and len(bad) == len(names):
        return EnvProblem(
            Status.FAIL,
            Priority.P0,
            f"NCCL_SOCKET_IFNAME={value} selects {', '.join(bad)}, which cannot reach other nodes",
        )
    if not ctx.host_network and not any("eth0".startswith(n) or n.startswith("eth") for n in names):
        return EnvProblem(
            Status.WARN,
            Priority.P1,
            f"NCCL_SOCKET_IFNAME={value}, but a pod on the VPC CNI has eth0; {value} may not exist in the pod",
        )
    return None


def _nccl_net(value: str, ctx: EnvContext) -> EnvProblem | None:
    if ctx.efa and value.strip().lower() in ("socket", "ib"):
        return EnvProblem(
            Status.FAIL,
            Priority.P0,
            f"NCCL_NET={value} on a pod with EFA devices: NCCL will not use the aws-ofi-nccl plugin",
        )
    return None


def _fi_provider(value: str, ctx: EnvContext) -> EnvProblem | None:
    if ctx.efa and value.strip().lower() != "efa":
        return EnvProblem(
            Status.FAIL,
            Priority.P0,
            f"FI_PROVIDER={value} on a pod with EFA devices: libfabric will not use EFA",
        )
    return None


def _disabled(label: str) -> Callable[[str, EnvContext], EnvProblem | None]:
    def rule(value: str, ctx: EnvContext) -> EnvProblem | None:
        if value.strip() == "1":
            return EnvProblem(Status.WARN, Priority.P1, label)
        return None

    return rule


def _async_error_handling(variable: str) -> Callable[[str, EnvContext], EnvProblem | None]:
    def rule(value: str, ctx: EnvContext) -> EnvProblem | None:
        if value.strip() == "0":
            return EnvProblem(
                Status.WARN,
                Priority.P1,
                f"{variable}=0: a failed or hung collective is not turned into an error, so the job hangs instead of exiting",
            )
        return None

    return rule


def _debug(value: str, ctx: EnvContext) -> EnvProblem | None:
    if value.strip().upper() == "TRACE":
        return EnvProblem(
            Status.WARN, Priority.P2, "NCCL_DEBUG=TRACE slows every collective; use INFO"
        )
    return None


def _integer(
    variable: str, low: int, high: int | None = None
) -> Callable[[str, EnvContext], EnvProblem | None]:
    def rule(value: str, ctx: EnvContext) -> EnvProblem | None:
        try:
            number = int(value.strip())
        except ValueError:
            return EnvProblem(Status.FAIL, Priority.P1, f"{variable}={value!r} is not an integer")
        if number < low or (high is not None and number > high):
            bounds = f"{low}..{high}" if high is not None else f">= {low}"
            return EnvProblem(Status.FAIL, Priority.P1, f"{variable}={number} is outside {bounds}")
        return None

    return rule


RULES: dict[str, Callable[[str, EnvContext], EnvProblem | None]] = {
    "NCCL_SOCKET_IFNAME": _socket_ifname,
    "NCCL_NET": _nccl_net,
    "FI_PROVIDER": _fi_provider,
    "NCCL_P2P_DISABLE": _disabled(
        "NCCL_P2P_DISABLE=1 sends traffic between local GPUs through host memory instead of NVLink"
    ),
    "NCCL_SHM_DISABLE": _disabled(
        "NCCL_SHM_DISABLE=1 removes the shared-memory transport between local ranks"
    ),
    "NCCL_IB_DISABLE": lambda v, c: None,  # irrelevant with aws-ofi-nccl; never warned about
    "TORCH_NCCL_ASYNC_ERROR_HANDLING": _async_error_handling("TORCH_NCCL_ASYNC_ERROR_HANDLING"),
    "NCCL_ASYNC_ERROR_HANDLING": _async_error_handling("NCCL_ASYNC_ERROR_HANDLING"),
    "NCCL_DEBUG": _debug,
    "NCCL_SOCKET_NTHREADS": _integer("NCCL_SOCKET_NTHREADS", 1, MAX_SOCKET_THREADS),
    "NCCL_NSOCKS_PERTHREAD": _integer("NCCL_NSOCKS_PERTHREAD", 1),
    "NCCL_BUFFSIZE": _integer("NCCL_BUFFSIZE", 1),
    "NCCL_MIN_NCHANNELS": _integer("NCCL_MIN_NCHANNELS", 1),
    "NCCL_MAX_NCHANNELS": _integer("NCCL_MAX_NCHANNELS", 1),
}


def _socket_product(ctx: EnvContext) -> EnvProblem | None:
    try:
        threads = int(ctx.env.get("NCCL_SOCKET_NTHREADS", "1"))
        socks = int(ctx.env.get("NCCL_NSOCKS_PERTHREAD", "1"))
    except ValueError:
        return None
    if threads * socks > MAX_SOCKETS_TIMES_THREADS:
        return EnvProblem(
            Status.FAIL,
            Priority.P1,
            f"NCCL_SOCKET_NTHREADS x NCCL_NSOCKS_PERTHREAD = {threads * socks}, over NCCL's limit of {MAX_SOCKETS_TIMES_THREADS}",
        )
    return None


def container_env(container: Obj) -> dict[str, str]:
    """Literal values only; valueFrom entries are left out (their value is unknown here)."""
    return {k: v for k, v in env_vars(container) if v is not None}


def audit(pod: Obj) -> list[EnvProblem]:
    problems = []
    efa = pod_request(pod, EFA_RESOURCE) > 0
    host_network = bool(spec(pod).get("hostNetwork"))
    for container in containers(pod):
        env = container_env(container)
        ctx = EnvContext(name(pod), efa, host_network, env)
        for variable, value in sorted(env.items()):
            rule = RULES.get(variable)
            found = rule(value, ctx) if rule else None
            if found:
                problems.append(found)
        product = _socket_product(ctx)
        if product:
            problems.append(product)
    return problems


def _summarise(
    code: str,
    check_id: str,
    per_pod: dict[str, list[EnvProblem]],
    audited: int,
    ok_title: str,
    source: str = PODS,
) -> list[Finding]:
    by_text: dict[str, tuple[EnvProblem, list[str]]] = {}
    for pod, problems in per_pod.items():
        for problem in problems:
            by_text.setdefault(problem.text, (problem, []))[1].append(pod)
    if not by_text:
        return [finding(code, Status.PASS, Priority.P1, ok_title, check=check_id)]
    findings = []
    for status_ in (Status.FAIL, Status.WARN, Status.INFO):
        chosen = [(p, pods) for p, pods in by_text.values() if p.status is status_]
        if not chosen:
            continue
        priority = min((p.priority for p, _ in chosen), key=lambda p: p.rank)
        hosts = sorted({pod for _, pods in chosen for pod in pods})
        findings.append(
            finding(
                code,
                status_,
                priority,
                "; ".join(p.text for p, _ in chosen[:3])
                + (f" (+{len(chosen) - 3} more)" if len(chosen) > 3 else "")
                + f" [{plural(len(hosts), 'pod')}]",
                check=check_id,
                hosts=hosts,
                evidence=[
                    Evidence(source, f"{listed(pods, 3)}: {p.text}") for p, pods in chosen[:8]
                ],
                details={"audited_pods": audited},
            )
        )
    return findings


@check("env.nccl", "env", ["NCCL_ENV_MISCONFIGURED"])
def nccl_env(snapshot: Snapshot) -> list[Finding]:
    code = "NCCL_ENV_MISCONFIGURED"
    groups, skipped = job_scope(snapshot, [], code, Priority.P1, "NCCL environment")
    if skipped:
        return skipped
    pods = [p for members in groups.values() for p in members]
    per_pod = {name(p): audit(p) for p in pods}
    return _summarise(
        code,
        "env.nccl",
        per_pod,
        len(pods),
        f"NCCL and libfabric settings of {plural(len(pods), 'job pod')} have sound values",
    )


def _shm_problem(pod: Obj) -> EnvProblem | None:
    volumes = {str(v.get("name")): v for v in spec(pod).get("volumes") or [] if isinstance(v, dict)}
    gpus = pod_request(pod, GPU_RESOURCE)
    for container in containers(pod):
        if not requested(container, GPU_RESOURCE) and gpus:
            continue  # sidecars without GPUs do not run NCCL
        mount = next(
            (m for m in container.get("volumeMounts") or [] if m.get("mountPath") == "/dev/shm"),
            None,
        )
        if mount is None:
            return EnvProblem(
                Status.FAIL,
                Priority.P0 if gpus > 1 else Priority.P1,
                f"container {container.get('name')} has no /dev/shm volume: the runtime's default 64 MiB is too small for NCCL",
            )
        volume = volumes.get(str(mount.get("name"))) or {}
        if volume.get("hostPath"):
            return None
        empty_dir = volume.get("emptyDir")
        if empty_dir is None:
            return EnvProblem(
                Status.WARN,
                Priority.P2,
                f"/dev/shm of {container.get('name')} is not an emptyDir or hostPath",
            )
        if empty_dir.get("medium") != "Memory":
            return EnvProblem(
                Status.WARN,
                Priority.P1,
                f"/dev/shm of {container.get('name')} is a disk-backed emptyDir, not medium: Memory",
            )
        limit = quantity(empty_dir.get("sizeLimit"))
        if limit is not None and limit < MIN_SHM_BYTES:
            return EnvProblem(
                Status.WARN,
                Priority.P1,
                f"/dev/shm of {container.get('name')} is limited to {empty_dir.get('sizeLimit')} (less than 1Gi)",
            )
    return None


@check("env.shm", "env", ["SHM_TOO_SMALL"])
def shm(snapshot: Snapshot) -> list[Finding]:
    code = "SHM_TOO_SMALL"
    groups, skipped = job_scope(snapshot, [], code, Priority.P1, "/dev/shm of job pods")
    if skipped:
        return skipped
    pods = [p for members in groups.values() for p in members]
    per_pod = {name(p): [x for x in [_shm_problem(p)] if x] for p in pods}
    return _summarise(
        code,
        "env.shm",
        per_pod,
        len(pods),
        f"/dev/shm of {plural(len(pods), 'job pod')} is a memory-backed volume",
    )


def _can_lock_memory(container: Obj) -> bool:
    context = container.get("securityContext") or {}
    added = (context.get("capabilities") or {}).get("add") or []
    return bool(context.get("privileged")) or "IPC_LOCK" in added or "ALL" in added


@check("env.memlock", "env", ["MEMLOCK"])
def memlock(snapshot: Snapshot) -> list[Finding]:
    code = "MEMLOCK"
    gap = unavailable(snapshot, [PODS], code, Priority.P2, "IPC_LOCK of EFA pods")
    if gap:
        return [gap]
    efa_pods = [
        p
        for members in job_groups(snapshot).values()
        for p in members
        if pod_request(p, EFA_RESOURCE) > 0
    ]
    if not efa_pods:
        return [
            finding(
                code,
                Status.INFO,
                Priority.P2,
                "no job pod asks for EFA; memlock not relevant",
            )
        ]
    without = [
        name(p)
        for p in efa_pods
        if not any(_can_lock_memory(c) for c in containers(p) if requested(c, EFA_RESOURCE))
    ]
    if not without:
        return [
            finding(
                code,
                Status.PASS,
                Priority.P2,
                f"{plural(len(efa_pods), 'EFA pod')} may lock memory (IPC_LOCK)",
            )
        ]
    # Not a failure by itself: the node's container runtime may already grant an unlimited
    # memlock limit. A node probe (ulimit -l) or a MEMLOCK line in the logs decides.
    return [
        finding(
            code,
            Status.INFO,
            Priority.P2,
            f"{plural(len(without), 'EFA pod')} without IPC_LOCK rely on the node runtime's memlock "
            f"limit: {listed(without, 4)}",
            hosts=without,
        )
    ]
