"""`hyperpod-nccl bundle summary PATH`: print the support-case summary of a saved bundle."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from hyperpod_nccl.bundle.escalation import ENVIRONMENT, REPORTS, SUMMARY, VERSIONS
from hyperpod_nccl.bundle.summary import render_summary
from hyperpod_nccl.exit_codes import ExitCode, InputError
from hyperpod_nccl.snapshot import BundleError, Snapshot

EXAMPLES = """examples:
  hyperpod-nccl logs job-logs/ --save-bundle case-1234.tar.gz      # make one
  hyperpod-nccl bundle summary case-1234.tar.gz                   # paste into the support case
  hyperpod-nccl logs --bundle case-1234.tar.gz                    # re-analyse it offline

A bundle is read safely: members with absolute paths, '..', links, device files or sizes over
the limits are refused (exit 1) before anything is extracted from them.
"""


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser(
        "bundle",
        help="work with saved escalation bundles (print the support-case summary)",
        description="Read a bundle written by --save-bundle.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    summary = actions.add_parser(
        "summary",
        help="print the support-case summary (Markdown) of a bundle",
        description=(
            "Print the bundle's support-case summary in Markdown: cluster, region, "
            "orchestrator, failure window, exact error strings, affected instances, nodes, "
            "pods and ranks, findings, and what was already ruled out. Rebuilt from the "
            "bundle's report when the bundle has no summary."
        ),
    )
    summary.add_argument("path", metavar="PATH", help="bundle: .tar.gz or directory")
    summary.set_defaults(handler=run_summary)


def run_summary(args: argparse.Namespace) -> int:
    try:
        snapshot = Snapshot.load(args.path)
    except BundleError as exc:
        raise InputError(str(exc)) from exc
    try:
        text = snapshot.get_text(SUMMARY) or _rebuilt_summary(snapshot, args.path)
    finally:
        snapshot.close()
    sys.stdout.write(text)
    return ExitCode.OK


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
