"""Put `diagnose`'s findings together: one finding per failing code (cluster state and logs
merged), the root cause across both by the one ranker (hyperpod_nccl.root_cause) over the
code registry's cause graph, and the findings about what could not be looked at (missing
IAM permissions, Kubernetes RBAC, node probes)."""

from __future__ import annotations

from collections import defaultdict

from hyperpod_nccl import root_cause
from hyperpod_nccl.checks.findings import finding, listed, plural
from hyperpod_nccl.model import Finding, Priority, Status
from hyperpod_nccl.snapshot import Snapshot, missing_kind
from hyperpod_nccl.snapshot.items import PROBE_TARGETS


def _merge(findings: list[Finding]) -> list[Finding]:
    """One finding per failing code: the first FAIL (cluster state comes before logs) takes the
    evidence of the other FAIL findings of its code, and of WARN and INFO findings of its code
    from the other source, such as the NCCL versions the logs show (information alone: banners
    do not place them in one job) for pods the state check found on different images."""
    anchors: dict[str, Finding] = {}
    for f in findings:
        if f.status is Status.FAIL and f.code not in anchors:
            anchors[f.code] = f
            f.details.setdefault("sources", [f.details.get("source", "state")])
    merged: list[Finding] = []
    for f in findings:
        anchor = anchors.get(f.code)
        cross_source = f.details.get("source") != anchor.details.get("source") if anchor else False
        joins = f.status is Status.FAIL or (f.status in (Status.WARN, Status.INFO) and cross_source)
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
    kept.basis = kept.basis.merged(other.basis)
    kept.details["sources"] = sorted(
        set(kept.details["sources"]) | {other.details.get("source", "state")}
    )
    kept.reference = first.reference or second.reference


def rank_root_cause(findings: list[Finding]) -> list[Finding]:
    """Merge per code, then name the root cause with the one ranker and cause graph."""
    return root_cause.rank(_merge(findings))


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
    targets = (snapshot.get_json(PROBE_TARGETS) or {}).get("targets", [])
    kind = missing_kind(reason)
    # The probes' permission is the one that is not read-only, so the user is told which
    # checks it buys (operations-reference.md#node-probe-iam-policy).
    needs = (
        "; the node checks need the opt-in node-probe permission, ssm:StartSession "
        "(operations-reference.md#node-probe-iam-policy)"
        if kind == "access_denied"
        else ""
    )
    result.append(
        finding(
            "NODE_PROBES",
            Status.INCOMPLETE if kind == "throttled" else Status.SKIPPED,
            Priority.P2,
            f"on-node probes of {plural(len(targets), 'node')} {reason}{needs}",
            check="diagnose.node-probes",
            details={
                "targets": targets,
                "needs_permission": "ssm:StartSession (operations-reference.md#node-probe-iam-policy)",
                "areas_needing_it": ["node"],
            },
        )
    )
    return result
