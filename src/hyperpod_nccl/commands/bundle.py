"""`hyperpod-nccl bundle summary PATH`: print the support-case summary of a saved bundle."""

from __future__ import annotations

import argparse
import html
import json

from hyperpod_nccl import api
from hyperpod_nccl.commands.options import add_format_options, write_report
from hyperpod_nccl.exit_codes import ExitCode

EXAMPLES = """examples:
  hyperpod-nccl logs job-logs/ --save-bundle case-1234.tar.gz      # make one
  hyperpod-nccl bundle summary case-1234.tar.gz                   # paste into the support case
  hyperpod-nccl bundle summary case-1234.tar.gz -o case-1234.html  # or attach it as a page
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
            "bundle's report when the bundle has no summary. Text and markdown print the "
            "Markdown as it is; json wraps it (hyperpod-nccl/bundle-summary/v1); html is a "
            "self-contained page."
        ),
    )
    # `bundle`, as on the report commands, so that -o can never name the bundle itself.
    summary.add_argument("bundle", metavar="PATH", help="bundle: .tar.gz or directory")
    add_format_options(summary)
    summary.set_defaults(handler=run_summary)


def run_summary(args: argparse.Namespace) -> int:
    summary = api.bundle_summary(args.bundle)
    write_report(render(summary, args.format or "text"), args)
    return ExitCode.OK


def render(summary: api.BundleSummary, fmt: str) -> str:
    if fmt == "json":
        document = {
            "schema": "hyperpod-nccl/bundle-summary/v1",
            "bundle": summary.path,
            "command": summary.command,
            "rebuilt": summary.rebuilt,
            "markdown": summary.markdown,
        }
        return json.dumps(document, indent=2) + "\n"
    if fmt == "html":
        from hyperpod_nccl.report.html import page

        body = (
            f'<h1>hyperpod-nccl bundle summary</h1><p class="meta">{html.escape(summary.path)}'
            f'</p><pre id="summary">{html.escape(summary.markdown)}</pre>'
        )
        return page("hyperpod-nccl bundle summary", body)
    return summary.markdown  # text and markdown: the summary is Markdown already
