"""Host checks on probed nodes: reachability, limits and /dev/shm of the training processes,
RemoveIPC, stale NCCL segments, host firewall, PCIe ACS, NUMA, MTU, versions, NCCL RAS.

Limits and /dev/shm are read from the processes that have libnccl loaded (the training ranks),
because a container or a Slurm step sees its own: the shell a probe runs in is not the job.
Only when no training process runs do they come from the container runtime or slurmd (what
new jobs inherit), and last from the probe's own shell, each labelled as such.
"""

from __future__ import annotations

from collections import defaultdict

from hyperpod_nccl.checks import check
from hyperpod_nccl.checks.findings import reference
from hyperpod_nccl.checks.node_efa import efa_device_count
from hyperpod_nccl.checks.node_results import (
    NodeResults,
    human_size,
    name_list,
    nodes_in,
    output,
    parsed,
    reached,
    why_missing,
)
from hyperpod_nccl.model import Evidence, Finding, Priority, Status, SuggestedCommand
from hyperpod_nccl.probes.parsers import firewall as fw_parser
from hyperpod_nccl.probes.parsers import gpu as gpu_parser
from hyperpod_nccl.probes.parsers import host as host_parser
from hyperpod_nccl.probes.parsers import pci as pci_parser
from hyperpod_nccl.probes.parsers import ras as ras_parser
from hyperpod_nccl.snapshot import Snapshot
from hyperpod_nccl.snapshot.items import node_item, node_session

AREA = "node"
# Docker's default /dev/shm is 64 MiB, the size behind NCCL's "Error while creating shared
# memory segment" in NVIDIA/nccl#342 and pytorch/torchtitan#853 (16 MiB); NVIDIA's container
# guides start containers with --shm-size=1g.
SHM_FAIL_BYTES = 64 * 1024**2
SHM_WARN_BYTES = 1024**3
SHM_FULL_FRACTION = 0.9


@check("node.reachability", AREA, ["NODE_UNREACHABLE"])
def check_reachability(snapshot: Snapshot) -> list[Finding]:
    """One INCOMPLETE finding per distinct reason, naming every node it applies to; SKIPPED
    when the transport could not run at all here (no session was tried)."""
    blocked = (snapshot.meta.get("node_probe") or {}).get("preflight")
    by_reason: dict[str, list[str]] = defaultdict(list)
    for node in nodes_in(snapshot):
        if not reached(snapshot, node):
            reason = snapshot.why_missing(node_session(node)) or "not probed"
            by_reason[reason].append(node)
    return [
        Finding(
            code="NODE_UNREACHABLE",
            status=Status.SKIPPED if blocked and reason == blocked else Status.INCOMPLETE,
            priority=Priority.P1,
            title=f"{len(nodes)} node(s) not probed ({name_list(sorted(nodes))}): {reason}",
            reference=reference("NODE_UNREACHABLE"),
            hosts=sorted(nodes),
            details={"reason": reason, "nodes": sorted(nodes)},
        )
        for reason, nodes in sorted(by_reason.items())
    ]


def _processes(snapshot: Snapshot, node: str) -> list[host_parser.ProcessInfo] | None:
    return parsed(snapshot, node, "processes", host_parser.parse_processes)


def _describe(procs: list[host_parser.ProcessInfo]) -> str:
    role = procs[0].role
    names = ", ".join(sorted({p.comm for p in procs if p.comm}))
    if role == "training":
        return f"{len(procs)} training process(es) ({names})"
    if role == "runtime":
        return f"{names} (no training process running; new jobs inherit these)"
    return "the probe's own shell (no training process, container runtime or slurmd found)"


def _pick(procs: list[host_parser.ProcessInfo]) -> list[host_parser.ProcessInfo]:
    for role in ("training", "runtime", "self"):
        chosen = [p for p in procs if p.role == role and p.limits]
        if chosen:
            return chosen
    return []


@check("node.limits", AREA, ["MEMLOCK"])
def check_limits(snapshot: Snapshot) -> list[Finding]:
    results = NodeResults("MEMLOCK", "memlock and stack limits")
    for node in results.each_reached(snapshot):
        procs = _processes(snapshot, node)
        if procs is None:
            results.skip(node, why_missing(snapshot, node, "processes"))
            continue
        chosen = _pick(procs)
        if not chosen:
            results.skip(node, "no readable /proc/<pid>/limits")
            continue
        whose = _describe(chosen)
        finite = [p for p in chosen if p.memlock is not None and p.memlock.soft is not None]
        stacks = sorted({human_size(p.stack.soft) for p in chosen if p.stack is not None})
        if finite:
            rdma = bool(efa_device_count(snapshot, node))
            worst = min(p.memlock.soft for p in finite if p.memlock and p.memlock.soft is not None)
            results.problem(
                node,
                Status.FAIL if rdma else Status.WARN,
                Priority.P0 if rdma else Priority.P2,
                f"locked-memory limit {human_size(worst)} (not unlimited) for {whose}"
                + (
                    "; EFA memory registration needs it unlimited"
                    if rdma
                    else "; matters once RDMA (EFA, InfiniBand) is used"
                ),
                evidence=[
                    (
                        node_item(node, "processes"),
                        f"pid {p.pid} {p.comm}: Max locked memory soft {p.memlock.soft if p.memlock else '?'}",
                    )
                    for p in finite[:3]
                ],
                commands=[
                    SuggestedCommand(
                        "confirm inside the job",
                        "cat /proc/<training-pid>/limits | grep -i locked",
                    )
                ],
                details={"pids": [p.pid for p in finite], "stack": stacks},
            )
            continue
        results.ok(node, f"memlock unlimited, stack {'/'.join(stacks) or 'n/a'} for {whose}")
    return results.emit()


@check("node.shm", AREA, ["SHM_TOO_SMALL"])
def check_shm(snapshot: Snapshot) -> list[Finding]:
    results = NodeResults("SHM_TOO_SMALL", "/dev/shm size")
    for node in results.each_reached(snapshot):
        procs = [p for p in (_processes(snapshot, node) or []) if p.role == "training"]
        candidates: list[tuple[str, int, float | None]] = []  # (whose, bytes, used fraction)
        for p in procs:
            if p.shm_bytes is not None:
                used = p.shm_df.used_fraction if p.shm_df else None
                candidates.append((f"pid {p.pid} ({p.comm})", p.shm_bytes, used))
        if not candidates:
            shm = parsed(snapshot, node, "shm", host_parser.parse_shm)
            if shm is None or shm.df is None or shm.df.size is None:
                results.skip(
                    node,
                    why_missing(snapshot, node, "shm")
                    if shm is None
                    else "df printed no /dev/shm size",
                )
                continue
            candidates.append(
                ("the host (no training process running)", shm.df.size, shm.df.used_fraction)
            )
        whose, size, used = min(candidates, key=lambda c: c[1])
        src = f"nodes/{node}/{'processes' if procs else 'shm'}.txt"
        if size <= SHM_FAIL_BYTES:
            results.problem(
                node,
                Status.FAIL,
                Priority.P1,
                f"/dev/shm of {whose} is {human_size(size)} ({size} bytes): NCCL's shared-memory transport and DataLoader workers fail at this size",
                evidence=[(src, f"/dev/shm size {size} bytes")],
                details={"bytes": size, "whose": whose},
            )
        elif size < SHM_WARN_BYTES:
            results.problem(
                node,
                Status.WARN,
                Priority.P2,
                f"/dev/shm of {whose} is {human_size(size)} ({size} bytes), under 1 GiB",
                evidence=[(src, f"/dev/shm size {size} bytes")],
                details={"bytes": size, "whose": whose},
            )
        elif used is not None and used >= SHM_FULL_FRACTION:
            results.problem(
                node,
                Status.WARN,
                Priority.P1,
                f"/dev/shm of {whose} is {used:.0%} full ({human_size(size)})",
                evidence=[(src, f"/dev/shm {used:.0%} used of {size} bytes")],
                details={"bytes": size, "used_fraction": round(used, 3), "whose": whose},
            )
        else:
            results.ok(node, f"{human_size(size)} for {whose}")
    return results.emit()


@check("node.stale_shm", AREA, ["STALE_SHARED_MEMORY"])
def check_stale_shm(snapshot: Snapshot) -> list[Finding]:
    results = NodeResults("STALE_SHARED_MEMORY", "leftover NCCL segments in /dev/shm")
    for node in results.each_reached(snapshot):
        shm = parsed(snapshot, node, "shm", host_parser.parse_shm)
        procs = _processes(snapshot, node)
        if shm is None or procs is None:
            results.skip(node, why_missing(snapshot, node, "shm" if shm is None else "processes"))
            continue
        running = [p for p in procs if p.role == "training"]
        if running:
            results.ok(
                node, f"a job is running ({len(running)} NCCL processes): its segments are in use"
            )
        elif shm.nccl_files:
            total = sum(f.size for f in shm.nccl_files)
            results.problem(
                node,
                Status.WARN,
                Priority.P2,
                f"{len(shm.nccl_files)} NCCL segment(s) ({human_size(total)}) left in /dev/shm with no NCCL process running",
                evidence=[
                    (node_item(node, "shm"), f"{f.name} {f.size} bytes owner {f.owner}")
                    for f in shm.nccl_files[:3]
                ],
                commands=[
                    SuggestedCommand(
                        "list them with owners and ages",
                        "ls -la --time-style=full-iso /dev/shm/nccl-*",
                    )
                ],
                details={"files": len(shm.nccl_files), "bytes": total},
            )
        else:
            results.ok(node, "no NCCL segments and no job running")
    return results.emit()


@check("node.removeipc", AREA, ["SLURM_REMOVEIPC"])
def check_removeipc(snapshot: Snapshot) -> list[Finding]:
    results = NodeResults("SLURM_REMOVEIPC", "systemd-logind RemoveIPC")
    for node, setting in results.each(snapshot, "removeipc", host_parser.parse_removeipc):
        slurm = "slurmd" in (
            parsed(snapshot, node, "host_info", host_parser.parse_daemons) or set()
        )
        if not setting.systemd:
            results.ok(node, "no systemd-logind on this host")
        elif setting.value and slurm:
            results.problem(
                node,
                Status.FAIL,
                Priority.P1,
                f"RemoveIPC=yes ({setting.source}) on a Slurm node: logind deletes a user's shared memory when their last session ends, under a running job",
                evidence=[(node_item(node, "removeipc"), f"RemoveIPC=yes ({setting.source})")],
                commands=[
                    SuggestedCommand(
                        "show the effective logind settings",
                        "systemd-analyze cat-config systemd/logind.conf | grep -i removeipc",
                    )
                ],
            )
        elif setting.value:
            results.ok(
                node,
                f"RemoveIPC=yes ({setting.source}) but no slurmd: jobs do not run in login sessions here",
            )
        else:
            results.ok(node, f"RemoveIPC=no ({setting.source})")
    return results.emit()


@check("node.firewall", AREA, ["HOST_FIREWALL"])
def check_firewall(snapshot: Snapshot) -> list[Finding]:
    results = NodeResults("HOST_FIREWALL", "host firewall rules on NCCL's ports")
    for node, fw in results.each(snapshot, "firewall", fw_parser.parse_firewall):
        if fw.error:
            results.skip(node, f"iptables unreadable: {fw.error}")
            continue
        ports = ", ".join(f"{lo}-{hi}" if lo != hi else str(lo) for lo, hi in fw.nccl_ports())
        blocking = fw_parser.blocking_rules(fw)
        policies = fw_parser.dropping_policies(fw)
        src = node_item(node, "firewall")
        if blocking:
            results.problem(
                node,
                Status.FAIL,
                Priority.P0,
                f"{len(blocking)} DROP/REJECT rule(s) can match NCCL's ports ({ports}): {blocking[0].raw[:120]}",
                evidence=[(src, r.raw) for r in blocking[:5]],
                commands=[
                    SuggestedCommand(
                        "list rules with counters to see if they match traffic",
                        "sudo iptables -L -n -v --line-numbers",
                    )
                ],
                details={"rules": [r.raw for r in blocking], "ports": ports},
            )
        elif policies:
            results.problem(
                node,
                Status.WARN,
                Priority.P1,
                f"default policy DROP on {', '.join(policies)}: NCCL's ports ({ports}) are closed unless a rule accepts them",
                evidence=[(src, f"-P {c} {fw.policies[c]}") for c in policies],
            )
        else:
            drops = sum(1 for r in fw.rules if r.drops)
            results.ok(node, f"{drops} DROP/REJECT rule(s), none on NCCL's ports ({ports})")
    return results.emit()


@check("node.pci_acs", AREA, ["GPU_P2P_BLOCKED"])
def check_pci_acs(snapshot: Snapshot) -> list[Finding]:
    results = NodeResults("GPU_P2P_BLOCKED", "PCIe ACS redirect on bridges")
    for node, acs in results.each(snapshot, "pci_acs", pci_parser.parse_acs):
        if acs.root is False:
            results.skip(node, "lspci shows ACS capabilities only to root")
            continue
        bridges = acs.redirecting_bridges
        has_gpu = output(snapshot, node, "gpu_inventory") is not None
        if bridges and has_gpu:
            results.problem(
                node,
                Status.FAIL,
                Priority.P1,
                f"ACS request/completion redirect enabled on {len(bridges)} PCIe bridge(s) ({', '.join(b.address for b in bridges[:4])}): GPU peer-to-peer goes through the root complex",
                evidence=[
                    (
                        node_item(node, "pci_acs"),
                        f"{b.address} {b.description[:60]} ReqRedir+ / CmpltRedir+",
                    )
                    for b in bridges[:3]
                ],
                details={"bridges": [b.address for b in bridges]},
            )
        elif bridges:
            results.ok(
                node, f"ACS redirect on {len(bridges)} bridge(s), but no NVIDIA GPU on this node"
            )
        else:
            results.ok(node, f"{len(acs.ports)} ACS-capable port(s), none redirecting")
    return results.emit()


@check("node.ras", AREA, ["NCCL_RAS"])
def check_ras(snapshot: Snapshot) -> list[Finding]:
    """RAS reports on the whole job, so the same problem seen from several nodes is one finding
    naming all of them."""
    results = NodeResults("NCCL_RAS", "NCCL RAS job status")
    seen: dict[tuple[str, str], list[str]] = defaultdict(list)
    lines: dict[tuple[str, str], list[str]] = {}
    for node, ras in results.each(snapshot, "nccl_ras", ras_parser.parse_ras):
        if not ras.listener:
            results.skip(
                node, "no NCCL job with RAS on this node (nothing listens on localhost:28028)"
            )
            continue
        if ras.error and not ras.groups:
            results.skip(node, f"RAS query failed: {ras.error}")
            continue
        problems = ras.problems
        if not problems:
            results.ok(node, f"{len(ras.groups)} communicator group(s), no errors")
        for issue in problems:
            key = (issue.kind, " / ".join(issue.lines[:2]))
            seen[key].append(node)
            lines[key] = issue.lines
    out = results.emit()
    for (kind, summary), nodes in sorted(seen.items()):
        fail = kind in ("DEAD", "INCOMPLETE", "ERROR", "ABORT")
        out.append(
            Finding(
                code="NCCL_RAS",
                status=Status.FAIL if fail else Status.WARN,
                priority=Priority.P0 if fail else Priority.P1,
                title=f"NCCL RAS reports {kind}: {summary}"
                + (
                    " (repeat the query: a momentary mismatch is normal)"
                    if kind == "MISMATCH"
                    else ""
                ),
                reference=reference("NCCL_RAS"),
                hosts=sorted(nodes),
                evidence=[
                    Evidence(f"nodes/{nodes[0]}/nccl_ras.txt", ln)
                    for ln in lines[(kind, summary)][:5]
                ],
                details={"kind": kind, "reported_by": sorted(nodes)},
            )
        )
    return out


@check("node.numa", AREA, ["NODE_INVENTORY"])
def check_numa(snapshot: Snapshot) -> list[Finding]:
    results = NodeResults("NODE_INVENTORY", "NUMA layout")
    for node in results.each_reached(snapshot):
        numa = parsed(snapshot, node, "numa", host_parser.parse_numa)
        if numa is None or numa.nodes is None:
            results.skip(
                node,
                why_missing(snapshot, node, "numa")
                if numa is None
                else "lscpu printed no NUMA lines",
            )
            continue
        topo = parsed(snapshot, node, "gpu_topology", gpu_parser.parse_topology)
        gpus = ""
        if topo is not None and topo.numa:
            per: dict[str, list[str]] = defaultdict(list)
            for g, n in topo.numa.items():
                per[n].append(g)
            gpus = "; GPUs per NUMA node " + ", ".join(
                f"{n}: {len(g)}" for n, g in sorted(per.items())
            )
        balancing = (
            ""
            if numa.balancing is None
            else f", automatic NUMA balancing {'on' if numa.balancing else 'off'}"
        )
        results.ok(node, f"{numa.nodes} NUMA node(s){balancing}{gpus}")
    return results.emit(Status.INFO)


@check("node.mtu", AREA, ["NODE_INVENTORY"])
def check_mtu(snapshot: Snapshot) -> list[Finding]:
    results = NodeResults("NODE_INVENTORY", "network interfaces and MTU")
    for node, links in results.each(snapshot, "net_links", host_parser.parse_ip_link):
        primary = host_parser.primary_interfaces(links)
        if not primary:
            results.skip(node, "no interface is up besides loopback and container plumbing")
            continue
        results.ok(node, ", ".join(f"{i.name} mtu {i.mtu}" for i in primary[:6]))
    return results.emit(Status.INFO)


@check("node.versions", AREA, ["NCCL_VERSION_MISMATCH", "NODE_INVENTORY"])
def check_versions(snapshot: Snapshot) -> list[Finding]:
    """The NCCL a job actually loaded is read from the training processes; two versions in one
    node's ranks is a mismatch by itself."""
    results = NodeResults("NODE_INVENTORY", "NCCL, CUDA, EFA installer and libfabric versions")
    for node in results.each_reached(snapshot):
        versions = parsed(snapshot, node, "versions", host_parser.parse_versions)
        procs = [p for p in (_processes(snapshot, node) or []) if p.role == "training"]
        if versions is None and not procs:
            results.skip(node, why_missing(snapshot, node, "versions"))
            continue
        loaded = sorted({p.nccl_version for p in procs if p.nccl_version})
        if len(loaded) > 1:
            results.problem(
                node,
                Status.FAIL,
                Priority.P0,
                f"training processes on this node load different NCCL versions: {', '.join(loaded)}",
                code="NCCL_VERSION_MISMATCH",
                evidence=[
                    (node_item(node, "processes"), f"pid {p.pid}: {p.nccl_lib} {p.nccl_version}")
                    for p in procs[:4]
                ],
            )
            continue
        parts = []
        if loaded:
            parts.append(f"NCCL {loaded[0]} (loaded by the job)")
        elif versions and versions.nccl:
            parts.append(f"NCCL {'/'.join(versions.nccl)} (host library)")
        if versions:
            for label, value in (
                ("CUDA", versions.cuda),
                ("EFA installer", versions.efa_installer),
                ("libfabric", versions.libfabric),
            ):
                if value:
                    parts.append(f"{label} {value}")
        results.ok(node, ", ".join(parts) or "no NCCL, CUDA toolkit or EFA installer on the host")
    return results.emit(Status.INFO)


@check("node.fabric_manager", AREA, ["DRIVER_MISMATCH"])
def check_fabric_manager(snapshot: Snapshot) -> list[Finding]:
    """NVSwitch systems (p4d, p5, p5e) run nvidia-fabricmanager, which NVIDIA packages per
    driver release: a fabric manager of another release than the loaded driver does not start,
    and CUDA then fails with error 802 (`system not yet initialized`). The same failure in a
    log is DRIVER_MISMATCH (rule fabric-manager-driver-mismatch), so the check uses that code.
    Nodes without a fabric manager are not NVSwitch systems or have none installed: not
    checked, and said so."""
    results = NodeResults("DRIVER_MISMATCH", "fabric manager and driver versions")
    for node in results.each_reached(snapshot):
        versions = parsed(snapshot, node, "versions", host_parser.parse_versions)
        smi = parsed(snapshot, node, "gpu_inventory", gpu_parser.parse_smi_table)
        if versions is None or smi is None:
            missing = "versions" if versions is None else "gpu_inventory"
            results.skip(node, why_missing(snapshot, node, missing))
            continue
        manager, driver = versions.fabric_manager, smi.driver_version
        if not manager:
            results.skip(node, "no nv-fabricmanager on the node (only NVSwitch systems need one)")
            continue
        if not driver:
            results.skip(node, "nvidia-smi printed no driver version")
            continue
        if manager != driver:
            results.problem(
                node,
                Status.FAIL,
                Priority.P0,
                f"fabric manager {manager} with NVIDIA driver {driver}: a fabric manager of "
                "another release does not start, and CUDA fails with 'system not yet initialized'",
                evidence=[
                    (node_item(node, "versions"), f"Fabric Manager version is : {manager}"),
                    (node_item(node, "gpu_inventory"), f"Driver Version: {driver}"),
                ],
                details={"fabric_manager": manager, "driver": driver},
            )
            continue
        results.ok(node, f"fabric manager {manager} = driver")
    return results.emit()
