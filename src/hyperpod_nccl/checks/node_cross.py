"""Cross-node comparison: the same fact on every probed node, reported as one finding that names
the nodes that differ from the rest (driver, NCCL, EFA installer, EFA device count, GPU count,
MTU, CUDA). The value most nodes share is taken as the reference; ties name every group."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass

from hyperpod_nccl.checks import check
from hyperpod_nccl.checks.findings import reference
from hyperpod_nccl.checks.node_efa import efa_device_count
from hyperpod_nccl.checks.node_results import name_list, parsed, reached_nodes
from hyperpod_nccl.model import Finding, Priority, Status
from hyperpod_nccl.probes.parsers import gpu as gpu_parser
from hyperpod_nccl.probes.parsers import host as host_parser
from hyperpod_nccl.snapshot import Snapshot

AREA = "node"


def _driver(s: Snapshot, n: str) -> str | None:
    inv = parsed(s, n, "gpu_inventory", gpu_parser.parse_smi_table)
    return inv.driver_version if inv else None


def _cuda_driver_api(s: Snapshot, n: str) -> str | None:
    inv = parsed(s, n, "gpu_inventory", gpu_parser.parse_smi_table)
    return inv.cuda_version if inv else None


def _gpu_count(s: Snapshot, n: str) -> str | None:
    inv = parsed(s, n, "gpu_inventory", gpu_parser.parse_smi_table)
    return str(len(inv.gpus)) if inv and not inv.error else None


def _nccl(s: Snapshot, n: str) -> str | None:
    procs = parsed(s, n, "processes", host_parser.parse_processes) or []
    loaded = sorted({p.nccl_version for p in procs if p.role == "training" and p.nccl_version})
    if loaded:
        return "/".join(loaded)
    versions = parsed(s, n, "versions", host_parser.parse_versions)
    return "/".join(versions.nccl) if versions and versions.nccl else None


def _efa_installer(s: Snapshot, n: str) -> str | None:
    versions = parsed(s, n, "versions", host_parser.parse_versions)
    return versions.efa_installer if versions else None


def _efa_count(s: Snapshot, n: str) -> str | None:
    count = efa_device_count(s, n)
    return None if count is None else str(count)


def _mtu(s: Snapshot, n: str) -> str | None:
    links = parsed(s, n, "net_links", host_parser.parse_ip_link)
    if links is None:
        return None
    primary = host_parser.primary_interfaces(links)
    return ",".join(sorted({str(i.mtu) for i in primary})) or None


@dataclass(frozen=True)
class Fact:
    name: str
    read: Callable[[Snapshot, str], str | None]
    code: str
    status: Status
    priority: Priority
    why: str


FACTS = (
    Fact(
        "NVIDIA driver",
        _driver,
        "DRIVER_MISMATCH",
        Status.FAIL,
        Priority.P1,
        "mixed drivers change NCCL's behaviour and can break fabric manager and NVLS",
    ),
    Fact(
        "NCCL version",
        _nccl,
        "NCCL_VERSION_MISMATCH",
        Status.FAIL,
        Priority.P0,
        "ranks on different NCCL versions can hang or fail in init",
    ),
    Fact(
        "GPU count",
        _gpu_count,
        "NODE_CONFIG_DRIFT",
        Status.FAIL,
        Priority.P0,
        "a node with fewer GPUs lost one",
    ),
    Fact(
        "EFA device count",
        _efa_count,
        "EFA_COUNT_MISMATCH",
        Status.FAIL,
        Priority.P0,
        "a node with fewer EFA devices lost interfaces; NCCL's rings run at its speed",
    ),
    Fact(
        "EFA installer",
        _efa_installer,
        "NODE_CONFIG_DRIFT",
        Status.WARN,
        Priority.P1,
        "different libfabric and EFA drivers behave differently under load",
    ),
    Fact(
        "MTU",
        _mtu,
        "NODE_CONFIG_DRIFT",
        Status.WARN,
        Priority.P1,
        "mixed MTUs fragment or drop socket traffic between nodes",
    ),
    Fact(
        "CUDA version supported by the driver",
        _cuda_driver_api,
        "DRIVER_MISMATCH",
        Status.WARN,
        Priority.P2,
        "follows the driver; differs only when drivers differ",
    ),
)


def _compare(snapshot: Snapshot, nodes: list[str], fact: Fact) -> Finding | None:
    values: dict[str, list[str]] = defaultdict(list)
    for node in nodes:
        value = fact.read(snapshot, node)
        if value is not None:
            values[value].append(node)
    seen = sum(len(v) for v in values.values())
    if seen < 2:
        return None
    if len(values) == 1:
        ((value, group),) = values.items()
        return Finding(
            code=fact.code,
            status=Status.PASS,
            priority=Priority.P2,
            title=f"{fact.name} is the same on all {seen} nodes that report it: {value}",
            reference=reference(fact.code),
            hosts=sorted(group),
            details={"fact": fact.name, "values": {value: sorted(group)}},
        )
    ranked = sorted(values.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    majority_value, majority = ranked[0]
    tie = len(ranked[1][1]) == len(majority)
    outliers = (
        sorted(n for v, group in ranked[1:] for n in group)
        if not tie
        else sorted(n for _, group in ranked for n in group)
    )
    spread = "; ".join(f"{v} on {len(g)} ({name_list(sorted(g))})" for v, g in ranked)
    title = (
        f"{fact.name} differs across nodes: {spread}"
        if tie
        else f"{fact.name} differs on {len(outliers)} node(s) ({name_list(outliers)}) from the {majority_value} of the other {len(majority)}: {spread}"
    )
    return Finding(
        code=fact.code,
        status=fact.status,
        priority=fact.priority,
        title=f"{title}; {fact.why}",
        reference=reference(fact.code),
        hosts=outliers,
        details={
            "fact": fact.name,
            "majority": None if tie else majority_value,
            "values": {v: sorted(g) for v, g in ranked},
        },
    )


@check("node.cross_node", AREA, sorted({f.code for f in FACTS}))
def check_cross_node(snapshot: Snapshot) -> list[Finding]:
    nodes = reached_nodes(snapshot)
    if len(nodes) < 2:
        return []
    return [f for fact in FACTS if (f := _compare(snapshot, nodes, fact)) is not None]
