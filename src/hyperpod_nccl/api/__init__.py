"""The operations as plain functions, one per command: each takes its request (a frozen
dataclass in api/requests.py, or the same fields as keywords) and returns a Report (or the
guide's section, the bundle's summary). The CLI (commands/) and the MCP server
(mcp_server/) parse their arguments into requests, call these and render what they return.

Nothing here prints: lines meant for a person go to `notify`, the report to `deliver` as
soon as it is ready (before a bundle is written).
"""

from __future__ import annotations

from hyperpod_nccl.api.bundles import BundleSummary, bundle_summary
from hyperpod_nccl.api.guide import explain, guide_sections
from hyperpod_nccl.api.requests import (
    DEFAULT_SAMPLE_NODES,
    DiagnoseRequest,
    LogsRequest,
    PerfRequest,
    ProbeRequest,
    SaveOptions,
)
from hyperpod_nccl.api.run_diagnose import DIAGNOSE_AREAS, analyze_snapshot, diagnose
from hyperpod_nccl.api.run_logs import logs
from hyperpod_nccl.api.run_perf import perf
from hyperpod_nccl.api.run_probe import CatalogEntry, is_probe_id, probe, probe_catalog
from hyperpod_nccl.api.runs import NONE_READ, NothingRead
from hyperpod_nccl.log_analysis import analyze_logs, is_flight_recorder_dump

__all__ = [
    "DEFAULT_SAMPLE_NODES",
    "DIAGNOSE_AREAS",
    "NONE_READ",
    "BundleSummary",
    "CatalogEntry",
    "DiagnoseRequest",
    "LogsRequest",
    "NothingRead",
    "PerfRequest",
    "ProbeRequest",
    "SaveOptions",
    "analyze_logs",
    "analyze_snapshot",
    "bundle_summary",
    "diagnose",
    "explain",
    "guide_sections",
    "is_flight_recorder_dump",
    "is_probe_id",
    "logs",
    "perf",
    "probe",
    "probe_catalog",
]
