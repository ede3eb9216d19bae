"""The operations as plain functions returning a Report; the CLI and the MCP server are thin
faces over these."""

from __future__ import annotations

import os
import time
from collections.abc import Sequence

from hyperpod_nccl.inputs import LogInput, expand
from hyperpod_nccl.model import Finding, NotChecked, Priority, Report, Status
from hyperpod_nccl.perf.flight_recorder import looks_like_pickle
from hyperpod_nccl.perf.progress import progress_findings
from hyperpod_nccl.rules.catalog import load_catalog
from hyperpod_nccl.rules.diagnosis import add_external_findings
from hyperpod_nccl.rules.diagnosis import diagnose as diagnose_logs
from hyperpod_nccl.rules.scan import scan_inputs
from hyperpod_nccl.safeio import UnreadableInput, open_regular
from hyperpod_nccl.snapshot import Snapshot


def is_flight_recorder_dump(item: LogInput) -> bool:
    """A PyTorch Flight Recorder dump (a pickle, or its JSON form), read by the per-rank
    progress analysis rather than scanned as text."""
    if item.path is None:
        return False
    try:
        with open_regular(item.path) as handle:
            head = handle.read(4096)
    except (OSError, UnreadableInput):
        return False
    if looks_like_pickle(head):
        return True
    stripped = head.lstrip()
    return stripped.startswith(b"{") and b'"entries"' in head and b'"version"' in head


def analyze_logs(
    paths: Sequence[str], *, backend: str = "auto", workers: int | None = None
) -> Report:
    """Analyse log files, directories, .gz files or `-` (stdin) and name the root cause.
    Big inputs are scanned on all CPUs (`workers`, default: the CPUs available); the findings
    are the same as a serial scan's."""
    started = time.perf_counter()
    catalog = load_catalog()
    inputs, not_checked = expand(paths)
    dumps = [item for item in inputs if is_flight_recorder_dump(item)]
    is_dump = set(dumps)  # a set: `in` over the list was quadratic in the number of files
    scanned = scan_inputs([i for i in inputs if i not in is_dump], catalog, backend, workers)
    not_checked += scanned.not_checked
    read = scanned.inputs_read + len(dumps)
    # Per-rank progress (NCCL COLL lines, flight recorder dumps) needs its own pass; it runs
    # only on the inputs where the one-pass scan saw such evidence.
    progress_paths = [d.name for d in dumps] + sorted(
        s for s in scanned.analysis.facts.progress_sources if os.path.isfile(s)
    )
    progress = progress_findings(progress_paths) if progress_paths else []
    add_external_findings(scanned.analysis, progress, catalog)
    findings = diagnose_logs(scanned.analysis, catalog)
    findings += [f for f in progress if f.code not in catalog.codes]
    sources = scanned.analysis.sources
    summary = {
        "inputs": len(inputs),
        "inputs_read": read,
        "bytes": sum(s.bytes for s in sources),
        "lines": sum(s.lines for s in sources),
        "matched_lines": sum(s.matched_lines for s in sources),
        "engine": scanned.engine,
        "workers": scanned.workers,
        "elapsed_s": round(time.perf_counter() - started, 3),
    }
    if not_checked:
        findings.append(
            Finding(
                code="INPUT_UNREADABLE",
                status=Status.INCOMPLETE,
                priority=Priority.P2,
                title=f"{len(not_checked)} input(s) could not be read in full; findings may be missing",
                reference="debugging-guide.md#input-unreadable",
                details={"inputs": [n.to_dict() for n in not_checked[:100]]},
            )
        )
    if not any(f.status is Status.FAIL for f in findings) and read:
        findings.append(
            Finding(
                code="NO_FAILURE_SIGNATURE",
                status=Status.PASS if not not_checked else Status.INFO,
                priority=Priority.P2,
                title=f"no failure signature in {summary['lines']:,} lines from {read} input(s)",
                reference="debugging-guide.md#no-failure-signature",
            )
        )
    return Report(command="logs", findings=findings, not_checked=not_checked, summary=summary)


# ---------------------------------------------------------------------------------- diagnose
DIAGNOSE_AREAS: dict[str | None, tuple[str, ...]] = {
    "eks": ("cluster", "network", "kubernetes", "pods", "env", "versions", "logs", "node"),
    "slurm": ("cluster", "network", "slurm", "logs", "node"),
    None: ("cluster", "network", "logs"),
}


def diagnose(
    cluster: str | None = None,
    region: str | None = None,
    *,
    profile: str | None = None,
    namespace: str | None = None,
    job: str | None = None,
    orchestrator: str | None = None,
    since: str = "2h",
    sample_nodes: int | None = None,
    all_nodes: bool = False,
    nodes: Sequence[str] = (),
    kubeconfig: str | None = None,
    context: str | None = None,
    controller_group: str | None = None,
    bundle: str | None = None,
    save_bundle: str | None = None,
    obfuscate: bool = False,
    redact: bool = True,
) -> Report:
    """Diagnose a HyperPod cluster live (read-only), or replay a saved bundle with `bundle`.

    `save_bundle` writes an escalation bundle (reports, summary, everything collected),
    redacted unless `redact` is false, identifiers replaced too with `obfuscate`.
    Raises UsageError for invalid arguments and InputError when nothing can be collected
    (no or rejected credentials, cluster not found, unreadable bundle).
    """
    from hyperpod_nccl.diagnose_run import (
        DiagnoseRequest,
        check_save_target,
        equivalent_argv,
        open_snapshot,
        save_escalation,
    )

    request = DiagnoseRequest(
        cluster=cluster,
        region=region,
        profile=profile,
        namespace=namespace,
        job=job,
        orchestrator=orchestrator,
        since=since,
        sample_nodes=sample_nodes,
        all_nodes=all_nodes,
        nodes=tuple(nodes),
        kubeconfig=kubeconfig,
        context=context,
        controller_group=controller_group,
        bundle=bundle,
    )
    if save_bundle is not None:
        check_save_target(save_bundle, obfuscate=obfuscate, redact=redact)
    with open_snapshot(request) as snapshot:
        report = analyze_snapshot(snapshot, bundle=bundle, saved_to=save_bundle)
        if save_bundle is not None:
            argv = equivalent_argv(request, save_bundle, obfuscate)
            save_escalation(
                report, snapshot, save_bundle, obfuscate=obfuscate, redact=redact, argv=argv
            )
    return report


def analyze_snapshot(
    snapshot: Snapshot, *, bundle: str | None = None, saved_to: str | None = None
) -> Report:
    """Run diagnose's checks over a Snapshot (live or loaded): no network."""
    from hyperpod_nccl.bundle.escalation import ENVIRONMENT, REPORTS, SUMMARY, VERSIONS
    from hyperpod_nccl.checks import run_checks
    from hyperpod_nccl.checks.ranking import coverage_findings, permission_findings, rank_root_cause
    from hyperpod_nccl.collect.run import PROBE_RESULTS

    started = time.perf_counter()
    orchestrator = snapshot.meta.get("orchestrator")
    areas = DIAGNOSE_AREAS.get(orchestrator, DIAGNOSE_AREAS[None])
    findings = run_checks(snapshot, areas)
    findings += permission_findings(snapshot, findings)
    findings += coverage_findings(snapshot, PROBE_RESULTS)
    findings = rank_root_cause(findings)
    not_checked = [
        NotChecked(str(f.details.get("check") or f.code), f.title)
        for f in findings
        if f.status in (Status.SKIPPED, Status.INCOMPLETE)
    ]
    # What the run collected, not what an escalation bundle added (reports, summary), so a
    # replay counts the same as the run that saved it.
    added = {SUMMARY, *REPORTS, ENVIRONMENT, VERSIONS}
    records = [r for r in snapshot.items.values() if r.name not in added]
    summary = {
        "cluster": snapshot.meta.get("cluster"),
        "region": snapshot.meta.get("region"),
        "orchestrator": orchestrator,
        "namespace": snapshot.meta.get("namespace"),
        "job": snapshot.meta.get("job"),
        "window_start": snapshot.meta.get("window_start"),
        "window_end": snapshot.meta.get("window_end"),
        "items_collected": sum(1 for r in records if r.status == "collected"),
        "items_missing": sum(1 for r in records if r.status == "missing"),
        "replayed_from": bundle,
        "bundle_saved_to": saved_to,
        "analysis_s": round(time.perf_counter() - started, 3),
    }
    return Report(command="diagnose", findings=findings, not_checked=not_checked, summary=summary)
