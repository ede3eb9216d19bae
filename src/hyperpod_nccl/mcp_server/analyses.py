"""The analyses behind the MCP tools, as plain synchronous functions over hyperpod_nccl.api:
each returns the Report's contract JSON or raises AnticipatedError with one line.

Nothing here runs a command or changes anything: the api functions only read (files,
bundles, and for a live diagnosis the Describe/List/Get calls its guarded clients allow and
the read-only Slurm queries its allow-listed runner accepts).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from hyperpod_nccl import api
from hyperpod_nccl.api import NONE_READ, DiagnoseRequest, LogsRequest, NothingRead, PerfRequest
from hyperpod_nccl.mcp_server.errors import AnticipatedError, one_line
from hyperpod_nccl.mcp_server.inputs import relabel, require_input, with_pasted_text
from hyperpod_nccl.model import NotChecked, Report
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


def _nothing_read(exc: NothingRead, pasted: str) -> AnticipatedError:
    if str(exc) == NONE_READ:
        return AnticipatedError(f"{NONE_READ}: " + _unreadable(exc.report.not_checked, pasted))
    return AnticipatedError(one_line(str(exc)))


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
            report = api.logs(LogsRequest(paths=inputs, engine=engine))
        except NothingRead as exc:
            raise _nothing_read(exc, pasted) from exc
        return _document(report, pasted, redact)


def perf(
    paths: Sequence[str],
    text: str | None,
    text_name: str | None,
    request: PerfRequest,
    *,
    redact: bool = True,
) -> dict[str, Any]:
    """`hyperpod-nccl perf` as JSON; `request` without its paths (they are `paths` and the
    pasted text)."""
    if not paths and text is None and not request.world_size:
        raise AnticipatedError(
            "give nccl-tests output in 'paths' or 'text' (or world_size for a timeout suggestion)"
        )
    if request.instance_type is not None and request.instance_type not in INSTANCE_TYPE_NAMES:
        raise AnticipatedError(
            f"unknown instance_type {request.instance_type!r}; known: {', '.join(INSTANCE_TYPE_NAMES)}"
        )
    with with_pasted_text(paths, text, text_name) as (inputs, pasted):
        try:
            report = api.perf(dataclasses.replace(request, paths=inputs))
        except NothingRead as exc:
            raise _nothing_read(exc, pasted) from exc
        return _document(report, pasted, redact)


def diagnose_cluster(request: DiagnoseRequest, *, redact: bool = True) -> dict[str, Any]:
    """`hyperpod-nccl diagnose --cluster ...` (or the local Slurm without one) as JSON."""
    return _document(api.diagnose(request), "", redact)


def diagnose_bundle(path: str, *, redact: bool = True) -> dict[str, Any]:
    """`hyperpod-nccl diagnose --bundle PATH` as JSON."""
    if not path.strip():
        raise AnticipatedError("give the path of a bundle saved by diagnose --save-bundle")
    return _document(api.diagnose(DiagnoseRequest(bundle=path)), "", redact)
