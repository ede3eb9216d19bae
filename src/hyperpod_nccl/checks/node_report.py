"""Turn a Snapshot holding node probe results into a Report: the node checks' findings, every
node that could not be probed as a not-checked entry, and a summary that counts every FAIL by
node."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from hyperpod_nccl.checks import CheckSpec, run_checks
from hyperpod_nccl.checks.node_results import nodes_in, reached
from hyperpod_nccl.codes import load_registry
from hyperpod_nccl.model import NotChecked, Report, Status
from hyperpod_nccl.snapshot import Snapshot
from hyperpod_nccl.snapshot.items import node_session
from hyperpod_nccl.suggest.complete import complete

AREA = "node"


def node_findings_summary(report: Report) -> dict[str, Any]:
    by_node: Counter[str] = Counter()
    for f in report.findings:
        if f.status is Status.FAIL:
            by_node.update(f.hosts or ["(cluster)"])
    return {
        "failures": len(report.failures),
        "failures_by_node": dict(sorted(by_node.items())),
        "nodes_with_failures": len(by_node),
    }


def node_report(
    snapshot: Snapshot, command: str = "probe", wants: Callable[[CheckSpec], bool] | None = None
) -> Report:
    """The node checks' report; `wants` (the user's --check/--skip) picks which run."""
    nodes = nodes_in(snapshot)
    unreachable = {
        n: snapshot.why_missing(node_session(n)) or "not probed"
        for n in nodes
        if not reached(snapshot, n)
    }
    report = Report(
        command=command,
        findings=run_checks(snapshot, areas=[AREA], wants=wants),
        not_checked=[NotChecked(f"node {n}", reason) for n, reason in sorted(unreachable.items())],
    )
    complete(report.findings, load_registry())
    run = snapshot.meta.get("node_probe") or {}
    report.summary = {
        "nodes": len(nodes),
        "reached": len(nodes) - len(unreachable),
        "unreachable": len(unreachable),
        "transport": run.get("transport"),
        "elapsed_s": run.get("elapsed_s"),
        **node_findings_summary(report),
    }
    return report
