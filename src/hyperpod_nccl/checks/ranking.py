"""Put `diagnose`'s findings together: one finding per failing code (cluster state and logs
merged), the single most likely root cause across both, and the findings about what could
not be looked at (missing IAM permissions, Kubernetes RBAC, node probes).

Cluster-state codes join the log catalog's `explains` relation: a missing security-group
self-reference explains the connection errors and timeouts the logs show, an OOM kill seen
in a pod's status explains its peers' timeouts, and so on. The root cause is a failing code
that no other failing code explains; among several, the deepest tier, then the highest
priority, then the one the logs named, then the earliest.
"""

from __future__ import annotations

from collections import defaultdict

from hyperpod_nccl.checks.common import finding, listed, plural
from hyperpod_nccl.collect.recorder import missing_kind
from hyperpod_nccl.model import Finding, Priority, Status
from hyperpod_nccl.rules.catalog import load_catalog
from hyperpod_nccl.snapshot import Snapshot

_NETWORK_SYMPTOMS = ("NET_UNREACHABLE", "PEER_EXITED", "NCCL_TIMEOUT", "RENDEZVOUS_FAILURE")
_JOB_SYMPTOMS = ("APP_EXCEPTION", "POD_CRASHLOOP", "WATCHDOG_HANG")
# code -> (tier, codes it explains) for codes the log catalog does not define, and extra
# edges for catalog codes whose effects show up in cluster state.
STATE_CODES: dict[str, tuple[int, tuple[str, ...]]] = {
    "CLUSTER_NOT_INSERVICE": (
        0,
        ("NODE_NOT_READY", "HEALTH_CHECK_FAILED", "POD_PENDING_RESOURCES"),
    ),
    "SG_SELF_REFERENCE_MISSING": (
        1,
        (*_NETWORK_SYMPTOMS, *_JOB_SYMPTOMS, "EFA_ERROR", "MASTER_ADDR_DNS", "EFA_TRAFFIC_BLOCKED"),
    ),
    # The rules let TCP through but not EFA: EFA connections fail or hang, or NCCL uses sockets.
    "EFA_TRAFFIC_BLOCKED": (
        1,
        ("EFA_ERROR", "EFA_TCP_FALLBACK", "NCCL_TIMEOUT", "WATCHDOG_HANG", "PEER_EXITED"),
    ),
    "NETWORK_POLICY_BLOCKING": (1, (*_NETWORK_SYMPTOMS, *_JOB_SYMPTOMS, "MASTER_ADDR_DNS")),
    "HEADLESS_SERVICE_MISSING": (1, ("MASTER_ADDR_DNS", *_NETWORK_SYMPTOMS, *_JOB_SYMPTOMS)),
    "EFA_DEVICE_PLUGIN_MISSING": (
        1,
        ("EFA_COUNT_MISMATCH", "EFA_TCP_FALLBACK", "POD_PENDING_RESOURCES", "NCCL_TIMEOUT"),
    ),
    "NVIDIA_DEVICE_PLUGIN_MISSING": (1, ("POD_PENDING_RESOURCES", "GPU_ACCESS_LOST", "CUDA_ERROR")),
    "HEALTH_CHECK_FAILED": (
        2,
        (
            "NODE_NOT_READY",
            "POD_PENDING_RESOURCES",
            "EXTERNAL_SIGNAL",
            "PEER_EXITED",
            "NCCL_TIMEOUT",
        ),
    ),
    # HyperPod could not reboot or replace a faulty node (a cluster event): it stays out.
    "NODE_RECOVERY_FAILED": (
        2,
        (
            "NODE_NOT_READY",
            "POD_PENDING_RESOURCES",
            "EXTERNAL_SIGNAL",
            "PEER_EXITED",
            "NCCL_TIMEOUT",
        ),
    ),
    "NODE_NOT_READY": (
        2,
        ("POD_PENDING_RESOURCES", "EXTERNAL_SIGNAL", "PEER_EXITED", "NCCL_TIMEOUT"),
    ),
    "EFA_COUNT_MISMATCH": (2, ("EFA_TCP_FALLBACK", "NCCL_TIMEOUT")),
    "NCCL_ENV_MISCONFIGURED": (
        2,
        ("EFA_TCP_FALLBACK", "SOCKET_IFNAME", *_NETWORK_SYMPTOMS, "APP_EXCEPTION"),
    ),
    "INIT_CONTAINER_FAILURES": (4, ("POD_CRASHLOOP", *_NETWORK_SYMPTOMS)),
}
EXTRA_EDGES: dict[str, tuple[str, ...]] = {
    "GPU_XID": ("HEALTH_CHECK_FAILED", "NODE_NOT_READY"),
    "GPU_ECC": ("HEALTH_CHECK_FAILED", "NODE_NOT_READY"),
    "NVLINK_ERROR": ("HEALTH_CHECK_FAILED", "NODE_NOT_READY"),
}
# Failing codes that are never the job's root cause: advisories and gaps in our own access.
NOT_ROOT_CAUSES = frozenset(
    {
        "NODE_RECOVERY_DISABLED",
        "K8S_UNREACHABLE",
        "K8S_UNAUTHENTICATED",
        "K8S_WRONG_CONTEXT",
        "K8S_FORBIDDEN",
        "IAM_PERMISSION_MISSING",
        "NODE_CENSUS",
    }
)
_DEFAULT_TIER = 6


def _graph() -> tuple[dict[str, set[str]], dict[str, int]]:
    catalog = load_catalog()
    edges: dict[str, set[str]] = defaultdict(set)
    tiers: dict[str, int] = {}
    for code, info in catalog.codes.items():
        edges[code].update(info.explains)
        tiers[code] = info.tier
    for code, (tier, explains) in STATE_CODES.items():
        edges[code].update(explains)
        tiers.setdefault(code, tier)
    for code, explains in EXTRA_EDGES.items():
        edges[code].update(explains)
    return edges, tiers


def _merge(findings: list[Finding]) -> list[Finding]:
    """One finding per failing code: the first FAIL (cluster state comes before logs) takes the
    evidence of the other FAIL findings of its code, and of WARN findings of its code from the
    other source, such as the NCCL versions the logs show for pods the state check found on
    different images."""
    anchors: dict[str, Finding] = {}
    for f in findings:
        if f.status is Status.FAIL and f.code not in anchors:
            anchors[f.code] = f
            f.details.setdefault("sources", [f.details.get("source", "state")])
    merged: list[Finding] = []
    for f in findings:
        anchor = anchors.get(f.code)
        cross_source = f.details.get("source") != anchor.details.get("source") if anchor else False
        joins = f.status is Status.FAIL or (f.status is Status.WARN and cross_source)
        if anchor is None or f is anchor or not joins:
            merged.append(f)
            continue
        _absorb(anchor, f)
    return merged


def _absorb(kept: Finding, other: Finding) -> None:
    first, second = (
        (other, kept)
        if kept.details.get("source") == "logs" and other.status is Status.FAIL
        else (kept, other)
    )
    kept.title = first.title
    kept.priority = min(kept.priority, other.priority, key=lambda p: p.rank)
    kept.evidence = first.evidence + [e for e in second.evidence if e not in first.evidence]
    kept.hosts = sorted(set(kept.hosts) | set(other.hosts))
    kept.ranks = sorted(set(kept.ranks) | set(other.ranks))
    stamps = [s for s in (kept.first_seen, other.first_seen) if s]
    kept.first_seen = min(stamps) if stamps else None
    kept.suggested_commands = first.suggested_commands + [
        c for c in second.suggested_commands if c not in first.suggested_commands
    ]
    kept.count += other.count
    kept.details["sources"] = sorted(
        set(kept.details["sources"]) | {other.details.get("source", "state")}
    )
    kept.reference = first.reference or second.reference


def rank_root_cause(findings: list[Finding]) -> list[Finding]:
    findings = _merge(findings)
    edges, tiers = _graph()
    failing = {
        f.code: f for f in findings if f.status is Status.FAIL and f.code not in NOT_ROOT_CAUSES
    }
    reach: dict[str, set[str]] = {}
    for code in failing:
        seen: set[str] = set()
        frontier = [code]
        while frontier:
            for target in edges.get(frontier.pop(), ()):
                if target not in seen:
                    seen.add(target)
                    frontier.append(target)
        reach[code] = seen - {code}
    explained = {
        target
        for code, targets in reach.items()
        for target in targets & set(failing)
        if code not in reach.get(target, set())  # mutual explanation explains neither
    }
    candidates = [f for code, f in failing.items() if code not in explained]
    for f in findings:
        was_log_root = f.root_cause
        f.details["log_root_cause"] = was_log_root or f.details.get("log_root_cause", False)
        f.root_cause = False
        f.explains = []
    if not candidates:
        return findings
    candidates.sort(
        key=lambda f: (
            tiers.get(f.code, _DEFAULT_TIER),
            f.priority.rank,
            0 if f.details.get("log_root_cause") else 1,
            f.first_seen or "~",
            f.code,
        )
    )
    root = candidates[0]
    root.root_cause = True
    root.explains = sorted(reach[root.code] & set(failing))
    return findings


def permission_findings(snapshot: Snapshot, findings: list[Finding]) -> list[Finding]:
    """IAM_PERMISSION_MISSING per denied AWS action and K8S_FORBIDDEN per forbidden
    Kubernetes read, each naming the checks it left SKIPPED."""
    blocked_by_item: dict[str, set[str]] = defaultdict(set)
    for f in findings:
        if f.status in (Status.SKIPPED, Status.INCOMPLETE):
            for item in f.details.get("missing", []):
                blocked_by_item[item].add(str(f.details.get("check", f.code)))
    denied: dict[tuple[str, str], set[str]] = defaultdict(set)
    items_of: dict[tuple[str, str], list[str]] = defaultdict(list)
    for name in snapshot.names():
        record = snapshot.items[name]
        if record.status != "missing" or missing_kind(record.reason) != "access_denied":
            continue
        kubernetes = record.source.startswith("kubernetes")
        key = ("K8S_FORBIDDEN" if kubernetes else "IAM_PERMISSION_MISSING", record.source or "?")
        denied[key] |= blocked_by_item.get(name, set())
        items_of[key].append(name)
    result = []
    for (code, action), checks in sorted(denied.items()):
        what = (
            f"Kubernetes RBAC forbids {action.split(':', 1)[-1]}"
            if code == "K8S_FORBIDDEN"
            else f"missing IAM permission {action}"
        )
        result.append(
            finding(
                code,
                Status.WARN,
                Priority.P1,
                f"{what}; skipped: {listed(sorted(checks)) if checks else 'no check (data only)'}",
                check="diagnose.permissions",
                details={
                    "action": action,
                    "blocked_checks": sorted(checks),
                    "items": items_of[(code, action)],
                },
            )
        )
    return result


def coverage_findings(snapshot: Snapshot, probe_item: str) -> list[Finding]:
    """Node probes and the orchestrator: what this run did not cover, said once."""
    result = []
    meta = snapshot.meta
    if meta.get("orchestrator_unknown"):
        result.append(
            finding(
                "ORCHESTRATOR",
                Status.SKIPPED,
                Priority.P1,
                f"orchestrator checks skipped: {meta['orchestrator_unknown']}",
                check="diagnose.orchestrator",
            )
        )
    elif meta.get("orchestrator_detected") and meta.get("orchestrator") != meta.get(
        "orchestrator_detected"
    ):
        result.append(
            finding(
                "ORCHESTRATOR",
                Status.WARN,
                Priority.P1,
                f"--orchestrator {meta.get('orchestrator')} given, but DescribeCluster says "
                f"{meta.get('orchestrator_detected')}",
                check="diagnose.orchestrator",
            )
        )
    if snapshot.has(probe_item):
        return result
    reason = snapshot.why_missing(probe_item) or "not collected"
    targets = (snapshot.get_json("probes/targets.json") or {}).get("targets", [])
    result.append(
        finding(
            "NODE_PROBES",
            Status.INCOMPLETE if missing_kind(reason) == "throttled" else Status.SKIPPED,
            Priority.P2,
            f"on-node probes of {plural(len(targets), 'node')} {reason}",
            check="diagnose.node-probes",
            details={"targets": targets},
        )
    )
    return result
