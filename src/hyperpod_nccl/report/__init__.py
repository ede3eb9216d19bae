"""Renderers for reports: text (terminal), json (the contract), markdown (tickets), html (a
self-contained page to attach to a ticket)."""

from __future__ import annotations

import os
import sys
from typing import TextIO

from hyperpod_nccl.model import Report
from hyperpod_nccl.report.json_report import render_json
from hyperpod_nccl.report.markdown import render_markdown
from hyperpod_nccl.report.show import DEFAULT_SHOW
from hyperpod_nccl.report.text import render_text

FORMATS = ("text", "json", "markdown", "html")


def use_color(stream: TextIO) -> bool:
    """Colour only on a terminal, and never when NO_COLOR is set (https://no-color.org)."""
    if os.environ.get("NO_COLOR"):
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def render(report: Report, fmt: str, stream: TextIO | None = None, show: str = DEFAULT_SHOW) -> str:
    """The report in `fmt`; `show` (fail, warn, all) picks what text and Markdown list."""
    stream = stream or sys.stdout
    if fmt == "json":
        return render_json(report)
    if fmt == "markdown":
        return render_markdown(report, show)
    if fmt == "html":
        from hyperpod_nccl.report.html import render_html

        return render_html(report)
    return render_text(report, color=use_color(stream), show=show)
