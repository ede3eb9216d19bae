"""How one side failed: the root cause, the first failing rank and host, and every failing
code, from the report the bundle saved with it (made by the same analysis), or by analysing
the side again when there is none (plain logs, a bundle saved without reports)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hyperpod_nccl.diff.sides import Side
from hyperpod_nccl.model import Finding, Priority, Report, Status

SAVED_REPORT = "reports/report.json"
REPORT_SCHEMA = "hyperpod-nccl/report/v1"


@dataclass
class Failure:
    how: str  # "saved report" or "analysed now"
    command: str
    root_cause: str | None = None
    title: str | None = None
    first_rank: int | None = None
    hosts: list[str] = field(default_factory=list)
    failing: dict[str, Finding] = field(default_factory=dict)  # code -> FAIL finding
    summary: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "from": self.how,
            "command": self.command,
            "root_cause": self.root_cause,
            "title": self.title,
            "first_failing_rank": self.first_rank,
            "hosts": self.hosts,
            "failing_codes": sorted(self.failing),
        }


def failure_of(side: Side, analysed: Report | None = None) -> Failure:
    """`analysed` is a report already made for this side (plain logs are analysed once)."""
    if analysed is not None:
        return _from_report(analysed.to_dict(), "analysed now")
    if side.snapshot is not None:
        try:
            saved = side.snapshot.get_json(SAVED_REPORT)
        except ValueError:
            saved = None
        if isinstance(saved, dict) and saved.get("schema") == REPORT_SCHEMA:
            return _from_report(saved, "saved report")
        return _from_report(replay(side).to_dict(), "analysed now")
    raise ValueError("a side of plain logs is analysed by the caller")


def replay(side: Side) -> Report:
    """The side's bundle analysed again, as its own command would (`--bundle`)."""
    snapshot = side.snapshot
    assert snapshot is not None
    if side.kind == "diagnose":
        from hyperpod_nccl.api import analyze_snapshot

        return analyze_snapshot(snapshot, bundle=side.path)
    if side.kind == "perf":
        from hyperpod_nccl.bundle.perf import analyze_bundle_perf
        from hyperpod_nccl.perf.analysis import PerfOptions

        return analyze_bundle_perf(snapshot, PerfOptions())
    if side.kind == "probe":
        from hyperpod_nccl.checks.node_report import node_report

        return node_report(snapshot)
    from hyperpod_nccl.bundle.logs import analyze_bundle_logs

    return analyze_bundle_logs(snapshot)


def _from_report(report: dict[str, Any], how: str) -> Failure:
    failure = Failure(how, str(report.get("command") or ""), summary=report.get("summary") or {})
    for raw in report.get("findings") or []:
        if not isinstance(raw, dict):
            continue
        code = str(raw.get("code"))
        ranks = [r for r in raw.get("ranks") or [] if isinstance(r, int)]
        hosts = [str(h) for h in raw.get("hosts") or []]
        if raw.get("root_cause"):
            failure.root_cause = code
            failure.title = str(raw.get("title"))
            failure.first_rank = min(ranks) if ranks else None
            failure.hosts = sorted(hosts)
        if raw.get("status") != "FAIL":
            continue
        try:
            priority = Priority(raw.get("priority"))
        except ValueError:
            priority = Priority.P1
        failure.failing.setdefault(
            code,
            Finding(code, Status.FAIL, priority, str(raw.get("title")), ranks=ranks, hosts=hosts),
        )
    root = report.get("root_cause")
    if failure.root_cause is None and isinstance(root, str):
        failure.root_cause = root  # a WARN named as the root cause (nothing failed)
    return failure
