"""The Markdown report, for pasting into a ticket or a pull request."""

from __future__ import annotations

import re

from hyperpod_nccl.model import Report, Status
from hyperpod_nccl.report.commands import command_groups
from hyperpod_nccl.report.show import DEFAULT_SHOW, hidden_line, split


def cell(text: str) -> str:
    """Text made safe for one Markdown table cell."""
    return text.replace("|", "\\|").replace("\n", " ")


def _fence(text: str) -> str:
    # A fence longer than any backtick run inside keeps the block intact.
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    ticks = "`" * max(3, longest + 3)
    return f"{ticks}\n{text}\n{ticks}"


def render_markdown(report: Report, show: str = DEFAULT_SHOW) -> str:
    root = report.root_cause
    every = report.sorted_findings()
    fails = sum(1 for f in every if f.status is Status.FAIL)
    findings, hidden = split(every, show)
    out = [f"# hyperpod-nccl {report.command} report", ""]
    if root is not None:
        out.append(f"**Root cause:** `{root.code}`: {root.title}")
        if root.explains:
            out += ["", "**Explains:** " + ", ".join(f"`{c}`" for c in root.explains)]
    else:
        out.append("**Root cause:** none found")
    out += ["", f"**Issues found:** {fails}", ""]
    if findings:
        out += [
            "| Status | Priority | Code | Finding | Ranks | Hosts | Guide |",
            "|---|---|---|---|---|---|---|",
        ]
        for f in findings:
            ranks = ", ".join(map(str, f.ranks[:16])) + (" ..." if len(f.ranks) > 16 else "")
            hosts = ", ".join(f.hosts[:8]) + (" ..." if len(f.hosts) > 8 else "")
            guide = f"`{f.reference}`" if f.reference else ""
            mark = " (root cause)" if f.root_cause else ""
            if not f.root_cause and f.explained_by:
                mark = " (explained by " + ", ".join(f"`{c}`" for c in f.explained_by) + ")"
            out.append(
                f"| {f.status.value} | {f.priority.value} | `{f.code}`{mark} | {cell(f.title)} "
                f"| {ranks} | {cell(hosts)} | {guide} |"
            )
    if (line := hidden_line(hidden)) is not None:
        out += ["", line]
    for f in findings:
        if f.status is not Status.FAIL and not f.evidence:
            continue
        out += ["", f"## {f.status.value} {f.code}", "", cell(f.title), ""]
        if f.root_cause and f.explains:
            out.append("Root cause; explains: " + ", ".join(f"`{c}`" for c in f.explains))
        elif f.explained_by:
            out.append("Symptom; explained by: " + ", ".join(f"`{c}`" for c in f.explained_by))
        if f.first_seen:
            out.append(f"First seen: {f.first_seen}")
        if f.evidence:
            out += [
                "",
                "Evidence:",
                "",
                _fence("\n".join(f"{e.source}: {e.text}" for e in f.evidence)),
            ]
        if f.suggested_commands:
            out += ["", "Suggested commands (run them yourself; the tool never does):", ""]
            for group in command_groups(f.suggested_commands):
                label = f"**{group.label}**" if group.changes_state else group.label
                out.append(f"- {group.purpose} ({label})")
                if group.preconditions:
                    out.append(f"  Needs: {group.preconditions}")
                out += ["", _fence("\n".join(group.commands)), ""]
    if report.not_checked:
        out += ["", "## Not checked", ""]
        out += [f"- `{cell(n.check)}`: {cell(n.reason)}" for n in report.not_checked]
    return "\n".join(out).rstrip() + "\n"
