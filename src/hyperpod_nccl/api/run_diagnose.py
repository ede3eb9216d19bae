"""`diagnose`: what blocks NCCL on a HyperPod cluster, live and read-only or from a bundle;
and `analyze_snapshot`, its checks over any Snapshot."""

from __future__ import annotations

import time
from typing import Any

from hyperpod_nccl.api.requests import DiagnoseRequest
from hyperpod_nccl.api.runs import (
    Deliver,
    Notify,
    build,
    check_save,
    escalation,
    inputs_of,
    left_out,
    quiet,
)
from hyperpod_nccl.checks.selection import EVERY, Selection, parse_selection
from hyperpod_nccl.codes import load_registry
from hyperpod_nccl.model import NotChecked, Report, Status
from hyperpod_nccl.snapshot import Snapshot
from hyperpod_nccl.suggest.complete import add_missing, finish

DIAGNOSE_AREAS: dict[str | None, tuple[str, ...]] = {
    "eks": ("cluster", "network", "kubernetes", "pods", "env", "versions", "logs", "node"),
    "slurm": ("cluster", "network", "slurm", "logs", "node"),
    None: ("cluster", "network", "logs"),
}


def diagnose(
    request: DiagnoseRequest | None = None,
    /,
    *,
    notify: Notify = quiet,
    deliver: Deliver | None = None,
    **fields: Any,
) -> Report:
    """Diagnose a HyperPod cluster live (read-only), the local Slurm (no cluster named), or
    replay a saved bundle (`bundle`); fields as in DiagnoseRequest, or the request itself.

    `save_bundle` writes an escalation bundle (reports, summary, everything collected),
    redacted unless `redact` is false, identifiers replaced too with `obfuscate`; `deliver`
    gets the report before it is written. Raises UsageError for invalid arguments and
    InputError when nothing can be collected (no or rejected credentials, cluster not found,
    unreadable bundle).
    """
    from hyperpod_nccl.api.diagnose_source import open_snapshot
    from hyperpod_nccl.bundle.escalation import save_requested_bundle

    request = build(DiagnoseRequest, request, fields)
    check_save(request, inputs_of((), request.bundle))
    selection = parse_selection(request.checks, request.skip)  # fails before any collection
    with open_snapshot(request) as snapshot:
        report = analyze_snapshot(
            snapshot, bundle=request.bundle, saved_to=request.save_bundle, selection=selection
        )
        if deliver is not None:
            deliver(report)
        options = escalation(request, request.argv or equivalent_argv(request))
        if options is not None:
            save_requested_bundle(report, snapshot, options, notify)
    return report


def equivalent_argv(request: DiagnoseRequest) -> list[str]:
    """The command line that would make the same run, for the manifest of a bundle saved
    through the API (where sys.argv is some other program's)."""
    argv = ["hyperpod-nccl", "diagnose"]
    flags = {
        "--cluster": request.cluster,
        "--region": request.region,
        "--profile": request.profile,
        "--orchestrator": request.orchestrator,
        "--namespace": request.namespace,
        "--job": request.job,
        "--since": request.since if request.cluster else None,
        "--sample-nodes": request.sample_nodes,
        "--controller-group": request.controller_group,
        "--bundle": request.bundle,
        "--save-bundle": request.save_bundle,
    }
    for flag, value in flags.items():
        if value is not None:
            argv += [flag, str(value)]
    argv += [arg for node in request.nodes for arg in ("--node", node)]
    argv += [arg for name in request.checks for arg in ("--check", name)]
    argv += [arg for name in request.skip for arg in ("--skip", name)]
    argv += ["--all-nodes"] * request.all_nodes + ["--obfuscate"] * request.obfuscate
    argv += ["--no-redact"] * (not request.redact)
    return argv


def analyze_snapshot(
    snapshot: Snapshot,
    *,
    bundle: str | None = None,
    saved_to: str | None = None,
    selection: Selection = EVERY,
) -> Report:
    """Run diagnose's checks over a Snapshot (live or loaded): no network."""
    from hyperpod_nccl.bundle.escalation import ENVIRONMENT, REPORTS, SUMMARY, VERSIONS
    from hyperpod_nccl.checks import run_checks
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
    not_checked += left_out(selection, areas)
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
