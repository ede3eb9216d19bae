"""The operations as plain functions, one per command: each takes its request (a frozen
dataclass in api/requests.py, or the same fields as keywords) and returns a Report (or the
guide's section, the bundle's summary). The CLI (commands/) and the MCP server
(mcp_server/) parse their arguments into requests, call these and render what they return.

Nothing here prints: lines meant for a person go to `notify`, the report to `deliver` as
soon as it is ready (before a bundle is written).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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

# Each name's module, imported on first use (PEP 562): `logs` need not load the bundle writer,
# the probe catalog and perf (about 0.1 s of a start-up that is most of a small log's run).
_HOMES = {
    "BundleSummary": "bundles",
    "bundle_summary": "bundles",
    "explain": "guide",
    "guide_sections": "guide",
    "DEFAULT_SAMPLE_NODES": "requests",
    "DiagnoseRequest": "requests",
    "LogsRequest": "requests",
    "PerfRequest": "requests",
    "ProbeRequest": "requests",
    "SaveOptions": "requests",
    "DIAGNOSE_AREAS": "run_diagnose",
    "analyze_snapshot": "run_diagnose",
    "diagnose": "run_diagnose",
    "logs": "run_logs",
    "perf": "run_perf",
    "CatalogEntry": "run_probe",
    "is_probe_id": "run_probe",
    "probe": "run_probe",
    "probe_catalog": "run_probe",
    "NONE_READ": "runs",
    "NothingRead": "runs",
    "analyze_logs": "hyperpod_nccl.log_analysis",
    "is_flight_recorder_dump": "hyperpod_nccl.log_analysis",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module = importlib.import_module(home if "." in home else f"{__name__}.{home}")
    value = getattr(module, name)
    globals()[name] = value
    return value


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
