"""`bundle summary`: the support-case summary of a saved escalation bundle."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from hyperpod_nccl.bundle.escalation import ENVIRONMENT, REPORTS, SUMMARY, VERSIONS
from hyperpod_nccl.bundle.summary import render_summary
from hyperpod_nccl.exit_codes import InputError
from hyperpod_nccl.snapshot import BundleError, Snapshot


@dataclass(frozen=True)
class BundleSummary:
    path: str  # the bundle, as given
    markdown: str
    rebuilt: bool  # the bundle had no summary.md: rebuilt from its saved report
    command: str | None  # the command that saved the bundle


def bundle_summary(path: str) -> BundleSummary:
    """The summary the bundle holds, else one rebuilt from its report. InputError (exit 1)
    for a bundle that cannot be read or holds neither."""
    try:
        snapshot = Snapshot.load(path)
    except BundleError as exc:
        raise InputError(str(exc)) from exc
    try:
        text = snapshot.get_text(SUMMARY)
        rebuilt = not text
        if not text:
            text = _rebuilt_summary(snapshot, path)
        command = snapshot.meta.get("command")
    finally:
        snapshot.close()
    return BundleSummary(path, text, rebuilt, str(command) if command else None)


def _rebuilt_summary(snapshot: Snapshot, path: str) -> str:
    """For bundles saved without a summary (e.g. a plain `diagnose --save-bundle`)."""
    try:
        report: Any = snapshot.get_json(REPORTS[1])
    except ValueError as exc:
        raise InputError(f"{path}: {REPORTS[1]} is not valid JSON") from exc
    if not isinstance(report, dict):
        raise InputError(f"{path}: the bundle holds no summary and no report to build one from")
    manifest = snapshot.manifest()
    return render_summary(
        report,
        snapshot.meta,
        _json_or_empty(snapshot, ENVIRONMENT),
        _json_or_empty(snapshot, VERSIONS),
        manifest["items"],
    )


def _json_or_empty(snapshot: Snapshot, name: str) -> dict[str, Any]:
    try:
        data = snapshot.get_json(name)
    except json.JSONDecodeError:
        return {}
    return data if isinstance(data, dict) else {}
