"""`logs`: name the root cause of a failed job from its logs, or from a saved bundle."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from typing import Any

from hyperpod_nccl.api.requests import LogsRequest
from hyperpod_nccl.api.runs import (
    NONE_READ,
    Deliver,
    NothingRead,
    Notify,
    build,
    check_inputs_exist,
    check_save,
    escalation,
    inputs_of,
    quiet,
)
from hyperpod_nccl.bundle.logs import LogSession, log_items
from hyperpod_nccl.exit_codes import UsageError
from hyperpod_nccl.model import Report
from hyperpod_nccl.rules.meter import ByteMeter
from hyperpod_nccl.snapshot import Snapshot

Progress = Callable[[], AbstractContextManager[ByteMeter | None]]


def logs(
    request: LogsRequest | None = None,
    /,
    *,
    progress: Progress | None = None,
    notify: Notify = quiet,
    deliver: Deliver | None = None,
    **fields: Any,
) -> Report:
    """Analyse the logs `paths` name (or a bundle's), save a bundle when asked, return the
    Report.

    `progress` gives the byte meter of the scan (a progress bar), closed before the report is
    delivered; `deliver` gets the report before the bundle is written, so a bundle that
    cannot be written does not hold the report back. Raises UsageError for invalid requests,
    InputError for a missing path (with `refuse_missing`) or an unreadable bundle, and
    NothingRead (carrying the report) when no input could be read.
    """
    request = build(LogsRequest, request, fields)
    if bool(request.paths) == bool(request.bundle):
        raise UsageError(
            "logs: give log PATHs or --bundle PATH (one of the two), or --example NAME"
        )
    inputs = inputs_of(request.paths, request.bundle)
    check_save(request, inputs)
    if request.refuse_missing:  # after the usage checks: a conflict is exit 2, a typo exit 1
        check_inputs_exist("logs", inputs, redact=request.redact)
    save = request.save_bundle is not None
    with LogSession(request.paths, request.bundle, save=save) as session:
        try:
            replay = session.diagnose_bundle
            if replay is not None and request.bundle is not None:
                notify(
                    f"hyperpod-nccl logs: {request.bundle} is a diagnose bundle: its logs are "
                    "analysed with the cluster state it holds (the same as 'hyperpod-nccl "
                    "diagnose --bundle')"
                )
                report = _replay_diagnose(replay, request.bundle)
            else:
                with (progress or nullcontext)() as meter:
                    report = session.analyze(backend=request.engine, meter=meter)
        except RuntimeError as exc:  # the engine asked for is not installed
            raise UsageError(str(exc)) from exc
        if deliver is not None:
            deliver(report)
        session.save_bundle(report, escalation(request), notify)
    if report.summary.get("inputs_read", 0) == 0:
        raise NothingRead(NONE_READ, report)
    return report


def _replay_diagnose(snapshot: Snapshot, bundle: str) -> Report:
    """A diagnose bundle's logs are half its story: the pod states, nodes and security groups
    beside them may hold the cause (an OOMKilled pod explains its peers' timeouts). Its logs
    are analysed with its cluster state, as `diagnose --bundle` does, so both commands name
    the same root cause."""
    from hyperpod_nccl.api.run_diagnose import analyze_snapshot

    report = analyze_snapshot(snapshot, bundle=bundle)
    report.command = "logs"
    report.summary["analysed_as"] = "diagnose"
    report.summary.setdefault("inputs_read", len(log_items(snapshot)))
    return report
