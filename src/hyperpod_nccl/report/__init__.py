"""Renderers for reports: text (terminal), json (the contract), markdown (tickets)."""

from __future__ import annotations

import os
import sys
from typing import TextIO

from hyperpod_nccl.model import Report
from hyperpod_nccl.report.json_report import render_json
from hyperpod_nccl.report.markdown import render_markdown
from hyperpod_nccl.report.text import render_text

FORMATS = ("text", "json", "markdown")


def use_color(stream: TextIO) -> bool:
    """Colour only on a terminal, and never when NO_COLOR is set (https://no-color.org)."""
    if os.environ.get("NO_COLOR"):
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def render(report: Report, fmt: str, stream: TextIO | None = None) -> str:
    stream = stream or sys.stdout
    if fmt == "json":
        return render_json(report)
    if fmt == "markdown":
        return render_markdown(report)
    return render_text(report, color=use_color(stream))
