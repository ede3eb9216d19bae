"""Differences as findings, most likely cause of BAD's failure first.

Each change gets a code by what changed (codes.yaml, area `diff`); the changes of one code are
one finding. The findings go through root_cause.rank together with BAD's failures that GOOD
did not have: a difference explains the failures its code reaches in the registry's `explains`
graph, so a dropped self-reference rule explains EFA_TRAFFIC_BLOCKED and EFA_TCP_FALLBACK,
and a new node explains NET_UNREACHABLE. A difference that explains one of BAD's failures is
a FAIL, one that explains none a WARN; logging variables and the failure summary are INFO.
Order: the one that explains BAD's root cause, then those that explain any failure, then by
the code's tier (smaller is a deeper cause) and priority.
"""

from __future__ import annotations

import dataclasses

from hyperpod_nccl import root_cause
from hyperpod_nccl.codes import load_registry
from hyperpod_nccl.diff.compare import Change
from hyperpod_nccl.diff.describe import describe, scopes_of
from hyperpod_nccl.diff.failure import Failure
from hyperpod_nccl.model import Evidence, Finding, Priority, Status

_VERSION_CODES = {
    "NCCL": "DIFF_NCCL_VERSION",
    "CUDA (NCCL build)": "DIFF_NCCL_VERSION",  # from NCCL's own banner: another NCCL build
    "aws-ofi-nccl": "DIFF_NETWORK_STACK_VERSION",
    "libfabric": "DIFF_NETWORK_STACK_VERSION",
    "EFA installer": "DIFF_NETWORK_STACK_VERSION",
    "PyTorch": "DIFF_PYTORCH_VERSION",
}
_ASPECT_CODES = {
    "image": "DIFF_IMAGE",
    "efa_request": "DIFF_EFA_REQUEST",
    "instance_type": "DIFF_INSTANCE_TYPE",
    "nodes": "DIFF_NODE_SET",
    "node_health": "DIFF_NODE_HEALTH",
    "security_group": "DIFF_SECURITY_GROUP",
    "network_policy": "DIFF_NETWORK_POLICY",
    "slurm_config": "DIFF_SLURM_CONFIG",
    "slurm_partition": "DIFF_SLURM_PARTITION",
    "slurm_partition_limits": "DIFF_SLURM_PARTITION",
    "nccl_topology": "DIFF_NCCL_TOPOLOGY",
    "nccl_transport": "DIFF_NCCL_TRANSPORT",
    "busbw": "DIFF_BUSBW",
    "busbw_node": "DIFF_BUSBW",
}
# Variables that change only what is logged.
_DEBUG_ENV = frozenset(
    {
        "NCCL_DEBUG",
        "NCCL_DEBUG_SUBSYS",
        "NCCL_DEBUG_FILE",
        "NCCL_DEBUG_TIMESTAMP_FORMAT",
        "TORCH_CPP_LOG_LEVEL",
        "TORCH_DISTRIBUTED_DEBUG",
        "TORCH_SHOW_CPP_STACKTRACES",
        "TORCH_NCCL_TRACE_BUFFER_SIZE",
        "FI_LOG_LEVEL",
        "FI_LOG_PROV",
        "OFI_NCCL_LOG_LEVEL",
    }
)
# Variables of NCCL's network layer and libfabric: how (and whether) the fabric is used.
_NET_ENV_PREFIXES = (
    "FI_",
    "OFI_NCCL_",
    "NCCL_NET",
    "NCCL_SOCKET_",
    "NCCL_IB_",
    "NCCL_P2P_NET",
    "NCCL_CROSS_NIC",
    "NCCL_PROTO",
    "NCCL_NSOCKS",
    "NCCL_COLLNET",
)
_INFO_CODES = frozenset({"DIFF_DEBUG_ENV", "DIFF_FAILURE"})


def code_for(change: Change) -> str:
    if change.aspect == "version":
        return _VERSION_CODES.get(change.item, "DIFF_DRIVER_VERSION")
    if change.aspect in ("env", "env.log"):
        if change.item in _DEBUG_ENV:
            return "DIFF_DEBUG_ENV"
        return "DIFF_NET_ENV" if change.item.startswith(_NET_ENV_PREFIXES) else "DIFF_NCCL_ENV"
    return _ASPECT_CODES[change.aspect]


def findings_for(changes: list[Change], good: Failure, bad: Failure) -> list[Finding]:
    """The ranked findings: differences first (most likely cause of BAD's failure at the
    top), then how the failures themselves differ."""
    registry = load_registry()
    grouped: dict[str, list[Change]] = {}
    for change in changes:
        grouped.setdefault(code_for(change), []).append(change)
    findings = [_finding(code, group) for code, group in grouped.items()]
    # BAD's failures that GOOD did not have are what the differences may explain.
    new = {c: f for c, f in bad.failing.items() if c not in good.failing}
    symptoms = [dataclasses.replace(f, explained_by=[], explains=[]) for f in new.values()]
    candidates = [f for f in findings if f.code not in _INFO_CODES]
    root_cause.rank([*candidates, *symptoms], registry)
    for finding in findings:
        finding.root_cause = False
        explained = sorted(s.code for s in symptoms if finding.code in s.explained_by)
        finding.explains = explained
        finding.explained_by = []
        if finding.code in _INFO_CODES:
            finding.status = Status.INFO
        elif not explained:
            finding.status = Status.WARN

    def order(f: Finding) -> tuple[int, int, int, int, str]:
        explains_root = bad.root_cause is not None and bad.root_cause in f.explains
        status = {Status.FAIL: 0, Status.WARN: 1}.get(f.status, 2)
        return (not explains_root, status, registry.tier(f.code), f.priority.rank, f.code)

    findings.sort(key=order)
    if findings and findings[0].status is Status.FAIL:
        findings[0].root_cause = True
    failure = _failure_finding(good, bad, new)
    return findings + ([failure] if failure is not None else [])


def _finding(code: str, changes: list[Change]) -> Finding:
    registry = load_registry()
    info = registry[code]
    lines = [describe(c) for c in changes]
    shown = "; ".join(lines[:3]) + (f"; and {len(lines) - 3} more" if len(lines) > 3 else "")
    hosts = sorted({s.split("/")[0] for c in changes for s in scopes_of(c)})
    return Finding(
        code=code,
        status=Status.FAIL,
        priority=info.priority,
        title=f"{info.title}: {shown}",
        reference=info.reference,
        hosts=hosts[:64],
        evidence=[
            Evidence(c.source or c.aspect, line) for c, line in zip(changes, lines, strict=True)
        ],
        count=len(changes),
        details={"changes": [c.to_dict() for c in changes]},
    )


def _failure_finding(good: Failure, bad: Failure, new: dict[str, Finding]) -> Finding | None:
    same_root = good.root_cause == bad.root_cause and good.first_rank == bad.first_rank
    if same_root and not new and set(good.failing) == set(bad.failing):
        return None
    gone = sorted(set(good.failing) - set(bad.failing))
    parts = [f"GOOD: {_failure_text(good)}", f"BAD: {_failure_text(bad)}"]
    if new:
        parts.append("failing only in BAD: " + ", ".join(sorted(new)))
    if gone:
        parts.append("failing only in GOOD: " + ", ".join(gone))
    return Finding(
        code="DIFF_FAILURE",
        status=Status.INFO,
        priority=Priority.P2,
        title="; ".join(parts),
        reference=load_registry()["DIFF_FAILURE"].reference,
        ranks=[bad.first_rank] if bad.first_rank is not None else [],
        hosts=bad.hosts[:16],
        details={"good": good.to_dict(), "bad": bad.to_dict(), "new_failures": sorted(new)},
    )


def _failure_text(failure: Failure) -> str:
    if failure.root_cause is None:
        return "no failure" if not failure.failing else "failures, no root cause named"
    where = []
    if failure.first_rank is not None:
        where.append(f"first failing rank {failure.first_rank}")
    if failure.hosts:
        where.append(
            "on " + ", ".join(failure.hosts[:3]) + (" ..." if len(failure.hosts) > 3 else "")
        )
    return f"root cause {failure.root_cause}" + (f" ({', '.join(where)})" if where else "")
