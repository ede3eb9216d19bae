"""The operations as plain functions returning a Report; the CLI and the MCP server are thin
faces over these."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from hyperpod_nccl.checks.selection import EVERY, Selection, parse_selection
from hyperpod_nccl.codes import load_registry
from hyperpod_nccl.log_analysis import analyze_logs as analyze_logs
from hyperpod_nccl.log_analysis import is_flight_recorder_dump as is_flight_recorder_dump
from hyperpod_nccl.model import NotChecked, Report, Status
from hyperpod_nccl.snapshot import Snapshot
from hyperpod_nccl.suggest.complete import add_missing, finish

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
    checks: Sequence[str] = (),
    skip: Sequence[str] = (),
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
    selection = parse_selection(checks, skip)  # a bad name fails before any collection
    if save_bundle is not None:
        check_save_target(save_bundle, obfuscate=obfuscate, redact=redact)
    with open_snapshot(request) as snapshot:
        report = analyze_snapshot(
            snapshot, bundle=bundle, saved_to=save_bundle, selection=selection
        )
        if save_bundle is not None:
            argv = equivalent_argv(request, save_bundle, obfuscate)
            save_escalation(
                report, snapshot, save_bundle, obfuscate=obfuscate, redact=redact, argv=argv
            )
    return report


def analyze_snapshot(
    snapshot: Snapshot,
    *,
    bundle: str | None = None,
    saved_to: str | None = None,
    selection: Selection = EVERY,
) -> Report:
    """Run diagnose's checks over a Snapshot (live or loaded): no network."""
    from hyperpod_nccl.bundle.escalation import ENVIRONMENT, REPORTS, SUMMARY, VERSIONS
    from hyperpod_nccl.checks import load_checks, run_checks
    from hyperpod_nccl.checks.fill import fill_commands
    from hyperpod_nccl.checks.ranking import coverage_findings, permission_findings, rank_root_cause
    from hyperpod_nccl.snapshot.items import PROBE_RESULTS

    started = time.perf_counter()
    orchestrator = snapshot.meta.get("orchestrator")
    areas = DIAGNOSE_AREAS.get(orchestrator, DIAGNOSE_AREAS[None])
    findings = run_checks(snapshot, areas, selection.wants)
    findings += permission_findings(snapshot, findings)
    findings += coverage_findings(snapshot, PROBE_RESULTS)
    registry = load_registry()
    add_missing(findings, registry)
    fill_commands(findings, snapshot)  # before ranking merges findings and their hosts
    findings = rank_root_cause(findings)
    finish(findings, registry)
    # Skipped and partial checks, and findings that say why a whole area was not looked at
    # (no Kubernetes access), with the fix in the reason.
    not_checked = [
        NotChecked(
            str(f.details.get("check") or f.code), str(f.details.get("not_checked") or f.title)
        )
        for f in findings
        if f.status in (Status.SKIPPED, Status.INCOMPLETE) or f.details.get("not_checked")
    ]
    in_scope = [s for s in load_checks().values() if s.area in areas]
    if left_out := selection.left_out(in_scope):
        not_checked.append(
            NotChecked(
                "--check/--skip",
                f"{len(left_out)} check(s) not run as asked: "
                + ", ".join(left_out[:12])
                + (" ..." if len(left_out) > 12 else ""),
            )
        )
    # What the run collected, not what an escalation bundle added (reports, summary), so a
    # replay counts the same as the run that saved it.
    added = {SUMMARY, *REPORTS, ENVIRONMENT, VERSIONS}
    records = [r for r in snapshot.items.values() if r.name not in added]
    timeline: list[Any] = []
    for f in findings:  # the log scan's first failing lines, for the cross-rank timeline
        if f.code == "LOGS_SCANNED" and isinstance(f.details.get("timeline"), list):
            timeline += f.details.pop("timeline")
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
        "timeline": timeline,
    }
    return Report(command="diagnose", findings=findings, not_checked=not_checked, summary=summary)
