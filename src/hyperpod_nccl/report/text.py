"""The terminal report: `[FAIL] P0 CODE: title -> guide section`, evidence, suggestions, and
`Issues Found: N` where N is the number of FAIL lines shown."""

from __future__ import annotations

from hyperpod_nccl.model import Finding, Report, Status
from hyperpod_nccl.report.commands import command_groups
from hyperpod_nccl.report.show import DEFAULT_SHOW, hidden_line, split
from hyperpod_nccl.units import size_text

_COLORS = {
    Status.FAIL: "\033[1;31m",
    Status.WARN: "\033[1;33m",
    Status.INFO: "\033[36m",
    Status.PASS: "\033[32m",
    Status.SKIPPED: "\033[35m",
    Status.INCOMPLETE: "\033[35m",
}
_RESET = "\033[0m"
_BOLD = "\033[1m"
MAX_EVIDENCE_SHOWN = 3


def _tag(status: Status, color: bool) -> str:
    tag = f"[{status.value}]"
    return f"{_COLORS[status]}{tag}{_RESET}" if color else tag


def _headline(report: Report) -> str:
    s = report.summary
    parts = [f"hyperpod-nccl {report.command}"]
    if "inputs_read" in s:
        lines = s.get("lines", 0)
        parts.append(
            f"{s['inputs_read']} input(s), {lines:,} lines ({size_text(int(s.get('bytes', 0)))}) scanned"
            + (f" with {s['engine']}" if s.get("engine") else "")
        )
    for key in ("cluster", "region", "orchestrator"):
        if s.get(key):
            parts.append(f"{key} {s[key]}")
    return ": ".join(parts[:2]) + ("; " + ", ".join(parts[2:]) if len(parts) > 2 else "")


def _finding_lines(finding: Finding, color: bool, root: Finding | None) -> list[str]:
    pointer = f" -> see {finding.reference}" if finding.reference else ""
    head = f"{_tag(finding.status, color)} {finding.priority.value} {finding.code}: {finding.title}"
    if finding.status is Status.FAIL:
        head += pointer
    lines = [head]
    facts = []
    if finding.root_cause:
        facts.append("ROOT CAUSE")
    elif finding.status in (Status.FAIL, Status.WARN) and finding.explained_by:
        facts.append("symptom; explained by " + ", ".join(finding.explained_by))
    if finding.first_seen:
        facts.append(f"first seen {finding.first_seen}")
    if finding.count > 1:
        facts.append(f"{finding.count} lines")
    if facts:
        lines.append("       " + " | ".join(facts))
    if finding.root_cause and finding.explains:
        lines.append("       explains: " + ", ".join(finding.explains))
    for ev in finding.evidence[:MAX_EVIDENCE_SHOWN]:
        lines.append(f"       {ev.source}: {ev.text}")
    if len(finding.evidence) > MAX_EVIDENCE_SHOWN:
        more = len(finding.evidence) - MAX_EVIDENCE_SHOWN
        noun = "line" if more == 1 else "lines"
        lines.append(f"       ... {more} more evidence {noun} in --format json")
    if finding.suggested_commands:
        lines.append("       suggested commands (printed, never run; run them yourself):")
        for group in command_groups(finding.suggested_commands):
            lines.append(f"         # {group.purpose} [{group.label}]")
            if group.preconditions:
                lines.append(f"         #   needs: {group.preconditions}")
            lines.extend(f"         {command}" for command in group.commands)
    if (
        finding.status is not Status.FAIL
        and finding.reference
        and finding.status is not Status.PASS
    ):
        lines.append(f"       see {finding.reference}")
    return lines


def render_text(report: Report, color: bool = False, show: str = DEFAULT_SHOW) -> str:
    out = [_headline(report)]
    root = report.root_cause
    if root is not None:
        label = f"{_BOLD}Root cause{_RESET}" if color else "Root cause"
        out.append(f"{label}: {root.code}: {root.title}")
    else:
        out.append("Root cause: none found")
    out.append("")
    findings = report.sorted_findings()
    listed, hidden = split(findings, show)
    for finding in listed:
        out.extend(_finding_lines(finding, color, root))
    if (line := hidden_line(hidden)) is not None:
        out.append(line)
    if report.not_checked:
        out.append("")
        out.append("Not checked:")
        for item in report.not_checked:
            out.append(f"  - {item.check}: {item.reason}")
    fails = sum(1 for f in findings if f.status is Status.FAIL)
    out.append("")
    out.append(f"Issues Found: {fails}")
    return "\n".join(out) + "\n"
