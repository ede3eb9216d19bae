"""The analyses behind the MCP tools, as plain synchronous functions over hyperpod_nccl.api:
each returns the Report's contract JSON or raises AnticipatedError with one line.

Nothing here runs a command or changes anything: the api functions only read (files,
bundles, and for a live diagnosis the Describe/List/Get calls its guarded clients allow and
the read-only Slurm queries its allow-listed runner accepts).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hyperpod_nccl.api import analyze_logs, diagnose
from hyperpod_nccl.mcp_server.errors import AnticipatedError, one_line
from hyperpod_nccl.mcp_server.inputs import relabel, require_input, with_pasted_text
from hyperpod_nccl.model import NotChecked, Report
from hyperpod_nccl.perf.analysis import PerfOptions, analyze_perf
from hyperpod_nccl.perf.expected import INSTANCE_TYPES
from hyperpod_nccl.report.display import display_line, for_display

INSTANCE_TYPE_NAMES = tuple(t.name for t in INSTANCE_TYPES)

# Each call runs in a process of its own (see isolation.py): the log engine hands its work
# to forked workers through a module global, which two analyses in one process would share.

# How many unreadable inputs an error message names before "and N more".
MAX_REASONS = 3


def _unreadable(not_checked: Sequence[NotChecked], pasted: str) -> str:
    reasons = [display_line(f"{n.check}: {n.reason}") for n in not_checked[:MAX_REASONS]]
    more = len(not_checked) - MAX_REASONS
    text = "; ".join(reasons) + (f"; and {more} more" if more > 0 else "")
    return str(relabel(text, pasted))


def _document(report: Report, pasted: str, redact: bool) -> dict[str, Any]:
    """The report's JSON for the agent, secrets redacted as in the CLI's output unless the
    call asked otherwise (`redact: false`, the CLI's --no-redact)."""
    document: dict[str, Any] = relabel(
        for_display(report, redact=redact, terminal=False).to_dict(), pasted
    )
    return document


def logs(
    paths: Sequence[str],
    text: str | None,
    text_name: str | None,
    engine: str,
    *,
    redact: bool = True,
) -> dict[str, Any]:
    """`hyperpod-nccl logs` as JSON."""
    require_input(paths, text)
    with with_pasted_text(paths, text, text_name) as (inputs, pasted):
        try:
            report = analyze_logs(inputs, backend=engine)
        except RuntimeError as exc:  # the engine asked for is not installed
            raise AnticipatedError(one_line(str(exc))) from exc
        if not report.summary.get("inputs_read"):
            raise AnticipatedError(
                "none of the inputs could be read: " + _unreadable(report.not_checked, pasted)
            )
        return _document(report, pasted, redact)


def perf(
    paths: Sequence[str],
    text: str | None,
    text_name: str | None,
    options: PerfOptions,
    *,
    redact: bool = True,
) -> dict[str, Any]:
    """`hyperpod-nccl perf` as JSON."""
    if not paths and text is None and not options.world_size:
        raise AnticipatedError(
            "give nccl-tests output in 'paths' or 'text' (or world_size for a timeout suggestion)"
        )
    if options.instance_type is not None and options.instance_type not in INSTANCE_TYPE_NAMES:
        raise AnticipatedError(
            f"unknown instance_type {options.instance_type!r}; known: {', '.join(INSTANCE_TYPE_NAMES)}"
        )
    with with_pasted_text(paths, text, text_name) as (inputs, pasted):
        report = analyze_perf(inputs, options)
        summary = report.summary
        if inputs and not summary.get("inputs_read"):
            raise AnticipatedError(
                "none of the inputs could be read: " + _unreadable(report.not_checked, pasted)
            )
        stalled = any(f.code == "STALLED_RANKS" for f in report.findings)
        if inputs and not summary.get("runs_found") and not summary.get("progress") and not stalled:
            raise AnticipatedError(
                "no nccl-tests output, flight recorder dump or NCCL COLL lines in the inputs"
            )
        return _document(report, pasted, redact)


def diagnose_cluster(*, redact: bool = True, **options: Any) -> dict[str, Any]:
    """`hyperpod-nccl diagnose --cluster ...` (or the local Slurm without one) as JSON."""
    return _document(diagnose(**options), "", redact)


def diagnose_bundle(path: str, *, redact: bool = True) -> dict[str, Any]:
    """`hyperpod-nccl diagnose --bundle PATH` as JSON."""
    if not path.strip():
        raise AnticipatedError("give the path of a bundle saved by diagnose --save-bundle")
    return _document(diagnose(bundle=path), "", redact)
