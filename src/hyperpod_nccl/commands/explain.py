"""`hyperpod-nccl explain CODE|SECTION`: print a section of the remediation guide.

Every finding carries a ``reference`` such as ``debugging-guide.md#container-oom``; this
command prints that section. It accepts the reference itself, a bare anchor
(``container-oom``) or the finding code (``CONTAINER_OOM``). ``--list`` lists every anchor
with its section title.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from typing import TextIO

from hyperpod_nccl import api, kb
from hyperpod_nccl.exit_codes import ExitCode, UsageError

_BOLD = "\033[1m"
_RESET = "\033[0m"
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")

_EPILOG = """examples:
  hyperpod-nccl explain CONTAINER_OOM
  hyperpod-nccl explain debugging-guide.md#container-oom
  hyperpod-nccl explain timeout-sizing
  hyperpod-nccl explain --list

Output is plain Markdown unless standard output is a terminal; NO_COLOR turns styling off."""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "explain",
        help="print the guide section for a finding code or reference",
        description=(
            "Print the section of hyperpod-nccl's remediation guide for a finding code\n"
            "(CONTAINER_OOM), a reference as findings print it\n"
            "(debugging-guide.md#container-oom) or a bare anchor (container-oom)."
        ),
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "topic",
        nargs="?",
        metavar="CODE|SECTION",
        help="finding code, reference (file.md#anchor) or anchor",
    )
    parser.add_argument(
        "--list",
        dest="list_sections",
        action="store_true",
        help="list every anchor with the title of its section",
    )
    parser.add_argument(
        "--format",
        choices=("text", "markdown", "json"),
        default=None,
        help="text (styled on a terminal), markdown (the guide's own text) or json "
        "(reference, title and markdown); default: text",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace, out: TextIO | None = None) -> int:
    stream = out if out is not None else sys.stdout
    fmt = getattr(args, "format", None) or "text"
    if args.list_sections:
        if args.topic:
            raise UsageError("explain: give either CODE|SECTION or --list, not both")
        sections = api.guide_sections()
        if fmt == "json":
            rows = [{"reference": r, "title": s.title} for s in sections for r in s.references]
            stream.write(json.dumps({"schema": "hyperpod-nccl/guide/v1", "sections": rows}) + "\n")
        else:
            stream.write(render_list(sections))
        return ExitCode.OK
    if not args.topic:
        raise UsageError("explain: give a finding code or section (or --list to see them all)")
    section = api.explain(args.topic)
    if fmt == "json":
        document = {
            "schema": "hyperpod-nccl/guide/v1",
            "references": list(section.references),
            "title": section.title,
            "markdown": section.markdown,
        }
        stream.write(json.dumps(document) + "\n")
        return ExitCode.OK
    styled = fmt == "text" and _wants_style(stream)
    stream.write(render_section(section, styled=styled))
    return ExitCode.OK


def _wants_style(stream: TextIO) -> bool:
    """Style only for a terminal, and never when NO_COLOR is set (https://no-color.org)."""
    if os.environ.get("NO_COLOR"):
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def render_section(section: kb.Section, *, styled: bool) -> str:
    """The section's Markdown; on a terminal, headings are bold and lose their ``#``s."""
    text = section.markdown
    if not styled:
        return text
    lines: list[str] = []
    in_fence = False
    for line in text.splitlines():
        if _FENCE.match(line):
            in_fence = not in_fence
            lines.append(line)
            continue
        heading = None if in_fence else _HEADING.match(line)
        if heading:
            lines.append(f"{_BOLD}{heading.group(2)}{_RESET}")
        else:
            lines.append(line)
    return "\n".join(lines) + "\n"


def render_list(sections: list[kb.Section]) -> str:
    """One line per anchor: the reference, then the title of its section."""
    rows = [(ref, s.title) for s in sections for ref in s.references]
    if not rows:
        return ""
    width = max(len(ref) for ref, _ in rows)
    return "".join(f"{ref.ljust(width)}  {title}\n" for ref, title in rows)
