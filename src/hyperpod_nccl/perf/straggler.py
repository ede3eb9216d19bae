"""STRAGGLER_NODE: a node whose runs are consistently below its peers'.

Runs are compared only with runs of the same shape (a cohort: same collective, node count and
ranks per node). Each run gets one score: its busbw at the largest message sizes that every run
of the cohort measured (performance-testing.md#algbw-vs-busbw: busbw only means something at
large sizes), or the figure of a pair-sweep summary line.

A run's bandwidth is set by its slowest member, so a healthy node can show up in a slow run
because of its partner. The peers' level is therefore the median, over nodes, of each node's
*best* run (every healthy node has at least one run with healthy partners), with the median
absolute deviation (MAD) as the spread. A run is slow when its score is more than 10% below the
peers' level (the guide's heuristic, performance-testing.md#straggler-node) and more than three
scaled MADs below it.

Slow runs are then explained one node at a time: the node whose own median score is below the
slow line and which appears in the most unexplained slow runs is the straggler; its runs count as
explained and the rest is looked at again. Partners of a straggler thereby go free. When two
nodes appear only together (a single round of pairs), no run can tell them apart and both are
reported as one ambiguous slow group.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from hyperpod_nccl.model import Finding, Priority, Status, SuggestedCommand
from hyperpod_nccl.perf.evidence import MAX_EVIDENCE, reference, run_evidence
from hyperpod_nccl.perf.model import Run, RunStatus
from hyperpod_nccl.rules.titles import format_hosts

SLOW_FRACTION = 0.10  # the guide's "more than 10% worse than its peers' median"
MAD_SCALE = 1.4826  # makes the MAD comparable with a standard deviation for normal noise
MAD_MULTIPLE = 3.0
TOP_SIZES = 3  # how many of the largest common sizes make a run's score
MIN_SCORE_BYTES = 64 * 1024 * 1024  # below this no size in common is large enough to compare


@dataclass
class Scored:
    run: Run
    score: float
    sizes: list[int]
    slow: bool = False


@dataclass
class NodeStats:
    host: str
    runs: int
    median: float
    best: float
    slow_runs: int
    verdict: str = "ok"  # ok, straggler, ambiguous, unassessed
    cohort: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "host": self.host,
            "runs": self.runs,
            "median_busbw": round(self.median, 3),
            "best_busbw": round(self.best, 3),
            "slow_runs": self.slow_runs,
            "verdict": self.verdict,
            "cohort": self.cohort,
        }


@dataclass
class CohortResult:
    key: str
    scored: list[Scored]
    reference: float | None = None  # the peers' level
    threshold: float | None = None  # below this a run is slow
    nodes: dict[str, NodeStats] = field(default_factory=dict)
    stragglers: list[str] = field(default_factory=list)
    ambiguous: list[list[str]] = field(default_factory=list)
    skipped: str | None = None  # why this cohort could not be judged


def cohort_key(run: Run) -> str:
    nodes = len(run.hosts)
    if run.summary_busbw is not None:
        return f"summary lines, {nodes} node(s) per run"
    per_node = run.ranks_per_node or 0
    return f"{run.collective}, {nodes} node(s) x {per_node} rank(s)"


def eligible(run: Run) -> str | None:
    """Why a run cannot take part in straggler scoring, or None when it can."""
    if not run.hosts:
        return "no host list (the '# Using devices' block is missing)"
    if run.status is RunStatus.FAILED:
        return "the run failed"
    if run.interleaved:
        return "rows of several runs are interleaved"
    if run.summary_busbw is None and not run.rows:
        return "no result rows"
    return None


def _score(cohort: list[Run]) -> tuple[list[Scored], str | None]:
    if all(r.summary_busbw is not None for r in cohort):
        return [Scored(r, float(r.summary_busbw or 0.0), []) for r in cohort], None
    common = set.intersection(*({row.size for row in r.rows} for r in cohort))
    sizes = sorted((s for s in common if s >= MIN_SCORE_BYTES), reverse=True)[:TOP_SIZES]
    if not sizes:
        largest = max(common, default=0)
        return [], (
            f"the largest message size all runs measured is {largest:,} bytes, below "
            f"{MIN_SCORE_BYTES // 2**20} MiB; busbw there mostly measures latency"
        )
    scored = []
    for run in cohort:
        value = run.busbw_at(sizes)
        if value is not None:
            scored.append(Scored(run, value, sizes))
    return scored, None


def analyse_cohort(key: str, runs: list[Run]) -> CohortResult:
    scored, why = _score(runs)
    result = CohortResult(key, scored, skipped=why)
    if why:
        return result
    by_host: dict[str, list[Scored]] = defaultdict(list)
    for s in scored:
        for host in s.run.hosts:
            by_host[host].append(s)
    if len({tuple(s.run.hosts) for s in scored}) < 2:
        result.skipped = (
            "every run includes the same nodes, so no node can be compared with another; run "
            "single-node or pairwise tests (performance-testing.md#nccl-tests-pairwise)"
        )
        _fill_nodes(result, by_host)
        return result
    bests = [max(s.score for s in runs_of) for runs_of in by_host.values()]
    reference = statistics.median(bests)
    spread = MAD_SCALE * statistics.median(abs(b - reference) for b in bests)
    threshold = reference - max(SLOW_FRACTION * reference, MAD_MULTIPLE * spread)
    result.reference, result.threshold = reference, threshold
    for s in scored:
        s.slow = s.score < threshold
    _fill_nodes(result, by_host)
    _explain(result, by_host, threshold)
    return result


def _fill_nodes(result: CohortResult, by_host: dict[str, list[Scored]]) -> None:
    for host, runs_of in by_host.items():
        scores = [s.score for s in runs_of]
        result.nodes[host] = NodeStats(
            host=host,
            runs=len(runs_of),
            median=statistics.median(scores),
            best=max(scores),
            slow_runs=sum(1 for s in runs_of if s.slow),
            cohort=result.key,
            verdict="ok" if result.reference is not None else "unassessed",
        )


def _explain(result: CohortResult, by_host: dict[str, list[Scored]], threshold: float) -> None:
    explained: set[int] = set()  # ids of runs put down to a straggler already

    def open_runs(host: str) -> list[Scored]:
        return [s for s in by_host[host] if id(s) not in explained]

    decided: set[str] = set()
    while True:
        candidates = []
        for host in by_host:
            if host in decided:
                continue
            mine = open_runs(host)
            if not mine:
                continue
            median = statistics.median(s.score for s in mine)
            slow = [s for s in mine if s.slow]
            if median < threshold and slow:
                candidates.append((len(slow), -median, host, slow))
        if not candidates:
            break
        candidates.sort(reverse=True)
        _, _, host, slow = candidates[0]
        slow_ids = {id(s) for s in slow}
        # Nodes that share exactly the same slow runs cannot be told apart from this host.
        twins = [
            other
            for _, _, other, other_slow in candidates[1:]
            if {id(s) for s in other_slow} == slow_ids
            and {id(s) for s in open_runs(other)} == {id(s) for s in open_runs(host)}
        ]
        if twins:
            group = sorted([host, *twins])
            result.ambiguous.append(group)
            for h in group:
                result.nodes[h].verdict = "ambiguous"
            decided.update(group)
        else:
            result.stragglers.append(host)
            result.nodes[host].verdict = "straggler"
            decided.add(host)
        explained.update(slow_ids)
    for host in by_host:
        if host not in decided and not open_runs(host):
            # Every run of this node was with a straggler: nothing shows how fast it is.
            result.nodes[host].verdict = "unassessed"


def analyse(runs: list[Run]) -> tuple[list[CohortResult], dict[str, str]]:
    """Cohort results, and the runs left out with the reason (by run label)."""
    cohorts: dict[str, list[Run]] = defaultdict(list)
    left_out: dict[str, str] = {}
    for run in runs:
        why = eligible(run)
        if why:
            left_out[run.label] = why
            continue
        cohorts[cohort_key(run)].append(run)
    results = []
    for key, members in cohorts.items():
        if len(members) < 2:
            result = CohortResult(
                key,
                [],
                skipped="only one run of this shape; a straggler needs several runs to compare",
            )
            for host in members[0].hosts:
                result.nodes[host] = NodeStats(
                    host,
                    1,
                    members[0].peak_large_busbw() or 0.0,
                    members[0].peak_large_busbw() or 0.0,
                    0,
                    "unassessed",
                    key,
                )
            results.append(result)
            continue
        results.append(analyse_cohort(key, members))
    return results, left_out


def _pct_below(value: float, reference: float) -> str:
    return f"{(1 - value / reference) * 100:.0f}%" if reference else "?"


def straggler_findings(results: list[CohortResult], left_out: dict[str, str]) -> list[Finding]:
    findings: list[Finding] = []
    assessed = [r for r in results if r.reference is not None]
    for result in assessed:
        ref = result.reference or 0.0
        for host in result.stragglers:
            node = result.nodes[host]
            slow = [s for s in result.scored if host in s.run.hosts and s.slow]
            partners = sorted({h for s in slow for h in s.run.hosts if h != host})
            freed = [p for p in partners if result.nodes[p].verdict == "ok"]
            evidence = [e for s in slow[:MAX_EVIDENCE] for e in run_evidence(s.run)[-1:]]
            title = (
                f"{host} is a straggler: its runs reach a median {node.median:.1f} GB/s busbw, "
                f"{_pct_below(node.median, ref)} below its peers' {ref:.1f} GB/s ({node.slow_runs} of "
                f"{node.runs} run(s) slow; {result.key})"
            )
            if freed:
                title += (
                    f"; its partners {format_hosts(freed)} are at full speed in runs without it"
                )
            findings.append(
                Finding(
                    code="STRAGGLER_NODE",
                    status=Status.FAIL,
                    priority=Priority.P1,
                    title=title,
                    reference=reference("STRAGGLER_NODE"),
                    hosts=[host],
                    evidence=evidence,
                    suggested_commands=_commands(host),
                    details={
                        "cohort": result.key,
                        "node": node.to_dict(),
                        "peers_busbw": round(ref, 3),
                        "slow_below_busbw": round(result.threshold or 0.0, 3),
                        "slow_runs": [s.run.label for s in slow],
                        "partners": partners,
                        "method": "median of each node's best run as the peers' level; slow = >10% and >3 scaled MADs below; slow runs explained node by node",
                    },
                )
            )
        for group in result.ambiguous:
            runs_of = [s for s in result.scored if set(group) <= set(s.run.hosts)]
            findings.append(
                Finding(
                    code="STRAGGLER_NODE",
                    status=Status.WARN,
                    priority=Priority.P1,
                    title=(
                        f"slow run(s) on {format_hosts(group)} ({', '.join(f'{s.score:.1f}' for s in runs_of[:4])} GB/s "
                        f"vs peers' {ref:.1f}); these nodes were only measured together, so which one is slow "
                        "cannot be told: test each with a different partner"
                    ),
                    reference=reference("STRAGGLER_NODE"),
                    hosts=group,
                    evidence=[e for s in runs_of[:MAX_EVIDENCE] for e in run_evidence(s.run)[-1:]],
                    details={
                        "cohort": result.key,
                        "peers_busbw": round(ref, 3),
                        "nodes": [result.nodes[h].to_dict() for h in group],
                    },
                )
            )
    if findings:
        return findings
    if assessed:
        hosts = sorted({h for r in assessed for h in r.nodes})
        refs = ", ".join(f"{r.reference:.1f} GB/s ({r.key})" for r in assessed[:3])
        return [
            Finding(
                code="STRAGGLER_NODE",
                status=Status.PASS,
                priority=Priority.P1,
                title=f"no straggler among {len(hosts)} node(s) compared; peers' level {refs}",
                reference=reference("STRAGGLER_NODE"),
                hosts=hosts,
                details={"cohorts": [r.key for r in assessed]},
            )
        ]
    reasons = [f"{r.key}: {r.skipped}" for r in results if r.skipped]
    reasons += [f"{label}: {why}" for label, why in list(left_out.items())[:20]]
    if not reasons:
        return []
    return [
        Finding(
            code="STRAGGLER_NODE",
            status=Status.SKIPPED,
            priority=Priority.P1,
            title="no straggler check: "
            + reasons[0]
            + (f" (and {len(reasons) - 1} more reasons)" if len(reasons) > 1 else ""),
            reference=reference("STRAGGLER_NODE"),
            details={"reasons": reasons},
        )
    ]


def _commands(host: str) -> list[SuggestedCommand]:
    return [
        SuggestedCommand(
            purpose=f"on {host}: clock slowdown reasons (thermal, power, HW slowdown)",
            command="nvidia-smi -q -d PERFORMANCE",
        ),
        SuggestedCommand(
            purpose=f"on {host}: NVLink error counters",
            command="nvidia-smi nvlink -e",
        ),
        SuggestedCommand(
            purpose=f"keep {host} out of your next Slurm job while you investigate",
            command=f"sbatch --exclude={host} <your-job-script>",
            changes_state=True,
            blast_radius="only the job you submit",
        ),
    ]
