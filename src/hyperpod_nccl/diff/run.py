"""A diff from start to end: open both sides, read their facts and failures, compare, rank."""

from __future__ import annotations

import time

from hyperpod_nccl.codes import load_registry
from hyperpod_nccl.diff.compare import compare
from hyperpod_nccl.diff.facts import Facts
from hyperpod_nccl.diff.failure import Failure, failure_of
from hyperpod_nccl.diff.logfacts import LogReading
from hyperpod_nccl.diff.rank import findings_for
from hyperpod_nccl.diff.report import DiffReport, SideInfo
from hyperpod_nccl.diff.sides import Side, open_side
from hyperpod_nccl.diff.statefacts import read_perf, read_state
from hyperpod_nccl.model import NotChecked, Report
from hyperpod_nccl.suggest.complete import complete

_ASPECT_WORDS = {
    "version": "component versions",
    "env": "environment of the job's containers",
    "env.log": "environment as the logs print it",
    "image": "container images",
    "efa_request": "EFA devices the pods ask for",
    "instance_type": "instance types",
    "nodes": "node set",
    "node_health": "node health",
    "security_group": "security-group rules",
    "network_policy": "NetworkPolicies",
    "slurm_config": "Slurm configuration",
    "slurm_partition": "Slurm partitions",
    "slurm_partition_limits": "Slurm partition limits",
    "nccl_topology": "what NCCL built",
    "nccl_transport": "NCCL transports",
    "busbw": "bus bandwidth per message size",
    "busbw_node": "bus bandwidth per node",
}


def read_side(side: Side) -> tuple[Facts, Failure, list[NotChecked]]:
    facts = Facts()
    reading = LogReading(facts)
    for source in side.logs:
        reading.read(source)
    analysed: Report | None = None
    if side.snapshot is not None:
        read_state(side.snapshot, facts)
        failure = failure_of(side)
        if side.kind == "perf":
            read_perf(failure.summary, facts, f"{side.path}: perf report")
    else:
        from hyperpod_nccl.log_analysis import analyze_logs

        analysed = analyze_logs(side.paths)
        failure = failure_of(side, analysed)
        if reading.perf_output:
            from hyperpod_nccl.perf.analysis import analyze_perf

            read_perf(analyze_perf(side.paths).summary, facts, f"{side.path}: nccl-tests output")
    unread = [NotChecked(f"{side.role} {scope}", why) for scope, why in reading.unread]
    return facts, failure, unread


def _not_compared(good: Facts, bad: Facts, one_sided: list[str]) -> list[NotChecked]:
    """An aspect one side shows and the other lacks, or one both sides should hold and lack
    (an item older bundles do not have), is said not compared, with why where it is known."""
    notes = []
    for aspect in sorted({*one_sided, *good.lacking, *bad.lacking}):
        if aspect in good.covered and aspect in bad.covered:
            continue
        why = "; ".join(
            f"{role}: {facts.lacking[aspect]}"
            for role, facts in (("GOOD", good), ("BAD", bad))
            if aspect in facts.lacking
        )
        if aspect in one_sided:
            holder = "GOOD" if aspect in good.covered else "BAD"
            reason = f"only {holder} shows them, so they were not compared"
        else:
            reason = "neither side shows them, so they were not compared"
        notes.append(
            NotChecked(f"diff: {_ASPECT_WORDS[aspect]}", reason + (f" ({why})" if why else ""))
        )
    return notes


def diff_paths(good_path: str, bad_path: str) -> DiffReport:
    """Compare GOOD with BAD. Raises InputError (one line) when a side cannot be read."""
    started = time.perf_counter()
    good = open_side("GOOD", good_path)
    try:
        bad = open_side("BAD", bad_path)
    except BaseException:
        good.close()
        raise
    try:
        good_facts, good_failure, good_unread = read_side(good)
        bad_facts, bad_failure, bad_unread = read_side(bad)
    finally:
        good.close()
        bad.close()
    changes, one_sided = compare(good_facts, bad_facts)
    findings = findings_for(changes, good_failure, bad_failure)
    complete(findings, load_registry())
    not_checked = good_unread + bad_unread
    not_checked += _not_compared(good_facts, bad_facts, one_sided)
    return DiffReport(
        good=SideInfo(good_path, good.kind, good_failure.to_dict(), good_facts.summary()),
        bad=SideInfo(bad_path, bad.kind, bad_failure.to_dict(), bad_facts.summary()),
        findings=findings,
        not_checked=not_checked,
        summary={
            "changes": len(changes),
            "compared": sorted(_ASPECT_WORDS[a] for a in good_facts.covered & bad_facts.covered),
            "elapsed_s": round(time.perf_counter() - started, 3),
        },
    )
