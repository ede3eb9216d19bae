"""`perf`: nccl-tests results, flight recorder dumps and NCCL COLL logs: slow nodes, low or
wrong results, ranks that did not reach a collective."""

from __future__ import annotations

from typing import Any

from hyperpod_nccl.api.requests import PerfRequest
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
from hyperpod_nccl.bundle.perf import PerfSession
from hyperpod_nccl.exit_codes import UsageError
from hyperpod_nccl.model import Report
from hyperpod_nccl.perf.analysis import PerfOptions

NOTHING_TO_ANALYSE = "no nccl-tests output, flight recorder dump or NCCL COLL lines in the inputs"


def perf(
    request: PerfRequest | None = None,
    /,
    *,
    notify: Notify = quiet,
    deliver: Deliver | None = None,
    **fields: Any,
) -> Report:
    """Analyse the inputs (or a bundle's), save a bundle when asked, return the Report.

    `deliver` gets the report before the bundle is written. Raises UsageError for invalid
    requests, InputError for a missing path (with `refuse_missing`) or an unreadable bundle,
    and NothingRead (carrying the report) when inputs were given but none could be read or
    none holds anything perf analyses. With only `world_size`, the report is the suggested
    collective timeout.
    """
    request = build(PerfRequest, request, fields)
    if request.bundle and request.paths:
        raise UsageError("perf: give PATHs or --bundle PATH, not both")
    if not request.paths and not request.world_size and not request.bundle:
        raise UsageError("perf: give at least one PATH (or --world-size for a timeout suggestion)")
    inputs = inputs_of(request.paths, request.bundle)
    check_save(request, inputs)
    if request.refuse_missing:  # after the usage checks: a conflict is exit 2, a typo exit 1
        check_inputs_exist("perf", inputs, redact=request.redact)
    options = PerfOptions(
        request.instance_type, request.transport, request.expected_busbw, request.world_size
    )
    save = request.save_bundle is not None
    with PerfSession(request.paths, request.bundle, save=save) as session:
        report = session.analyze_perf(options)
        if deliver is not None:
            deliver(report)
        session.save_bundle(report, escalation(request), notify)
    if inputs:
        summary = report.summary
        if summary.get("inputs_read", 0) == 0:
            raise NothingRead(NONE_READ, report)
        stalled = any(f.code == "STALLED_RANKS" for f in report.findings)
        if not summary.get("runs_found") and not summary.get("progress") and not stalled:
            raise NothingRead(NOTHING_TO_ANALYSE, report)
    return report
