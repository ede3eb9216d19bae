"""The collected logs (pod logs of the job, current and previous containers, and the
CloudWatch lines Logs Insights returned) scanned with the same rule catalog and cross-rank
reasoning as `hyperpod-nccl logs`. Evidence points at the bundle item and line."""

from __future__ import annotations

from hyperpod_nccl.checks import check
from hyperpod_nccl.checks.findings import finding, plural
from hyperpod_nccl.model import Finding, Priority, Status
from hyperpod_nccl.rules.analyzer import LogAnalyzer
from hyperpod_nccl.rules.catalog import load_catalog
from hyperpod_nccl.rules.diagnosis import diagnose
from hyperpod_nccl.snapshot import Snapshot
from hyperpod_nccl.snapshot.items import LOG_PREFIX, LOG_ROOT, LOGS_INDEX, QUERY

CHECK = "logs.scan"


def log_items(snapshot: Snapshot) -> list[str]:
    return list(snapshot.collected(LOG_ROOT)) + list(snapshot.collected(LOG_PREFIX))


def _coverage(snapshot: Snapshot) -> list[Finding]:
    """What could not be read: pod logs that failed, logs over the limit, a query that ended
    early. A gap here means a root cause may be missing from the findings."""
    gaps = []
    index = snapshot.get_json(LOGS_INDEX)
    if index is None:
        if snapshot.meta.get("orchestrator") == "eks":  # Slurm clusters have no pods
            gaps.append(f"pod logs: {snapshot.why_missing(LOGS_INDEX)}")
    else:
        failed = [e for e in index.get("logs", []) if e.get("status") != "collected"]
        if failed:
            reasons = {snapshot.why_missing(e["item"]) for e in failed}
            gaps.append(
                f"{plural(len(failed), 'pod log')} not read ({'; '.join(sorted(r or '?' for r in reasons))[:200]})"
            )
        if index.get("not_fetched_over_limit"):
            gaps.append(
                f"{index['not_fetched_over_limit']} container logs over the limit were not fetched"
            )
    if not snapshot.has(QUERY):
        gaps.append(f"CloudWatch logs: {snapshot.why_missing(QUERY)}")
    if not gaps:
        return []
    return [
        finding(
            "LOGS_INCOMPLETE",
            Status.INCOMPLETE,
            Priority.P2,
            "some logs were not scanned: " + "; ".join(gaps),
            details={"gaps": gaps},
        )
    ]


@check(CHECK, "logs", ["LOGS_INCOMPLETE", "LOGS_SCANNED", "NO_FAILURE_SIGNATURE", "STALLED_RANKS"])
def scan_logs(snapshot: Snapshot) -> list[Finding]:
    names = log_items(snapshot)
    coverage = _coverage(snapshot)
    if not names:
        return [
            *coverage,
            finding(
                "NO_FAILURE_SIGNATURE",
                Status.SKIPPED,
                Priority.P2,
                "no pod or CloudWatch log was collected, so none was scanned",
            ),
        ]
    catalog = load_catalog()
    analyzer = LogAnalyzer(catalog)
    for item in names:
        path = snapshot.path_of(item)
        if path is None:
            continue
        with open(path, "rb") as stream:
            analyzer.scan(item, stream)
    findings = diagnose(analyzer.result, catalog)
    sources = analyzer.result.sources
    lines = sum(s.lines for s in sources)
    cloudwatch = [s for s in sources if s.name.startswith(LOG_PREFIX)]
    findings.append(
        finding(
            "LOGS_SCANNED",
            Status.INFO,
            Priority.P2,
            f"scanned {lines:,} lines: {plural(len(sources) - len(cloudwatch), 'pod log')}, "
            f"{plural(len(cloudwatch), 'CloudWatch stream')}",
            details={
                "items": {s.name: {"lines": s.lines, "matched": s.matched_lines} for s in sources},
                # lifted into the report's summary by api.analyze_snapshot
                "timeline": analyzer.result.firsts.events(analyzer.result.facts.comm_ranks),
            },
        )
    )
    if not any(f.status is Status.FAIL for f in findings):
        findings.append(
            finding(
                "NO_FAILURE_SIGNATURE",
                Status.PASS if not coverage else Status.INFO,
                Priority.P2,
                f"no failure signature in {lines:,} lines from {plural(len(names), 'log')}",
            )
        )
    for f in findings:
        f.details.setdefault("check", CHECK)
        f.details.setdefault("source", "logs")
    return [*findings, *coverage]
