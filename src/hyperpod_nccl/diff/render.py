"""A diff report as text, JSON (`hyperpod-nccl/diff/v1`), Markdown or HTML.

The findings are printed in their ranked order (most likely cause of BAD's failure first),
not re-sorted by status. What is printed is redacted and, for the terminal formats, free of
control sequences, as every other command's output (report.display).
"""

from __future__ import annotations

import html
import json

from hyperpod_nccl import __version__
from hyperpod_nccl.diff.report import DiffReport, SideInfo
from hyperpod_nccl.model import Finding, Report, Status
from hyperpod_nccl.report.display import for_display
from hyperpod_nccl.report.html import _CSS, _badge
from hyperpod_nccl.report.markdown import _fence, cell

FORMATS = ("text", "json", "markdown", "html")
MAX_EVIDENCE = 8


def displayed(report: DiffReport, *, redact: bool, terminal: bool) -> DiffReport:
    """The copy to print: secrets redacted, control sequences removed (see report.display)."""
    sides = {"good": report.good.to_dict(), "bad": report.bad.to_dict()}
    shown = for_display(
        Report("diff", report.findings, report.not_checked, {**report.summary, "_sides": sides}),
        redact=redact,
        terminal=terminal,
    )
    summary = dict(shown.summary)
    clean = summary.pop("_sides", sides)
    return DiffReport(
        good=SideInfo(**clean["good"]),
        bad=SideInfo(**clean["bad"]),
        findings=shown.findings,
        not_checked=shown.not_checked,
        summary=summary,
    )


def render(report: DiffReport, fmt: str) -> str:
    if fmt == "json":
        return json.dumps(report.to_dict(), indent=2, ensure_ascii=False) + "\n"
    if fmt == "markdown":
        return render_markdown(report)
    if fmt == "html":
        return render_html(report)
    return render_text(report)


def _side_line(side: SideInfo) -> str:
    failure = side.failure
    if not failure.get("root_cause"):
        state = "no failure" if not failure.get("failing_codes") else "failures, no root cause"
    else:
        state = f"root cause {failure['root_cause']}"
        if failure.get("first_failing_rank") is not None:
            state += f", first failing rank {failure['first_failing_rank']}"
        if failure.get("hosts"):
            state += " on " + ", ".join(failure["hosts"][:3])
    return f"{side.path} ({side.kind}): {state}"


def _cause_line(report: DiffReport) -> str:
    root = report.root_cause
    if root is not None:
        return (
            f"Most likely cause of BAD's failure: {root.code} (explains {', '.join(root.explains)})"
        )
    if not report.differences:
        return "No difference found"
    return "No difference explains a failure of BAD"


def render_text(report: DiffReport) -> str:
    out = [
        "hyperpod-nccl diff",
        f"GOOD: {_side_line(report.good)}",
        f"BAD:  {_side_line(report.bad)}",
        _cause_line(report),
        "",
    ]
    for f in report.findings:
        pointer = f" -> see {f.reference}" if f.reference and f.status is not Status.INFO else ""
        out.append(f"[{f.status.value}] {f.priority.value} {f.code}: {f.title}{pointer}")
        if f.root_cause:
            out.append("       MOST LIKELY CAUSE")
        if f.explains:
            out.append("       explains in BAD: " + ", ".join(f.explains))
        for ev in f.evidence[:MAX_EVIDENCE]:
            out.append(f"       {ev.source}: {ev.text}")
        if len(f.evidence) > MAX_EVIDENCE:
            out.append(f"       ... {len(f.evidence) - MAX_EVIDENCE} more in --format json")
    if report.not_checked:
        out += ["", "Not compared:"] + [f"  - {n.check}: {n.reason}" for n in report.not_checked]
    compared = ", ".join(report.summary.get("compared") or []) or "nothing"
    out += ["", f"Compared: {compared}", f"Differences: {len(report.differences)}"]
    return "\n".join(out) + "\n"


def render_markdown(report: DiffReport) -> str:
    out = [
        "# hyperpod-nccl diff report",
        "",
        f"- **GOOD:** {cell(_side_line(report.good))}",
        f"- **BAD:** {cell(_side_line(report.bad))}",
        "",
        f"**{cell(_cause_line(report))}**",
        "",
    ]
    if report.findings:
        out += ["| # | Status | Priority | Code | Difference | Explains in BAD | Guide |"]
        out += ["|---|---|---|---|---|---|---|"]
        for n, f in enumerate(report.findings, 1):
            mark = " (most likely cause)" if f.root_cause else ""
            guide = f"`{f.reference}`" if f.reference else ""
            explains = ", ".join(f"`{c}`" for c in f.explains)
            out.append(
                f"| {n} | {f.status.value} | {f.priority.value} | `{f.code}`{mark} "
                f"| {cell(f.title)} | {explains} | {guide} |"
            )
        for f in report.findings:
            if f.evidence:
                lines = "\n".join(f"{e.source}: {e.text}" for e in f.evidence)
                out += ["", f"## {f.code}", "", _fence(lines)]
    if report.not_checked:
        out += ["", "## Not compared", ""]
        out += [f"- `{cell(n.check)}`: {cell(n.reason)}" for n in report.not_checked]
    return "\n".join(out) + "\n"


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _row(n: int, f: Finding) -> str:
    mark = " <strong>(most likely cause)</strong>" if f.root_cause else ""
    lines = "\n".join(f"{e.source}: {e.text}" for e in f.evidence)
    evidence = (
        f"<details><summary>changes ({len(f.evidence)})</summary><pre>{_e(lines)}</pre></details>"
        if f.evidence
        else ""
    )
    guide = f"<code>{_e(f.reference)}</code>" if f.reference else ""
    return (
        f'<tr class="finding" data-code="{_e(f.code)}" data-status="{f.status.value}">'
        f"<td>{n}</td><td>{_badge(f.status)}</td><td>{f.priority.value}</td>"
        f"<td><code>{_e(f.code)}</code>{mark}</td><td>{_e(f.title)}{evidence}</td>"
        f"<td>{_e(', '.join(f.explains))}</td><td>{guide}</td></tr>"
    )


def render_html(report: DiffReport) -> str:
    """One self-contained page (inline CSS, no script, a CSP that forbids every fetch)."""
    root = report.root_cause
    cause = (
        f'<div class="root" id="root-cause">{_e(_cause_line(report))}</div>'
        if root is not None
        else f'<div class="root none" id="root-cause">{_e(_cause_line(report))}</div>'
    )
    rows = "".join(_row(n, f) for n, f in enumerate(report.findings, 1))
    table = (
        '<table id="findings"><thead><tr><th>#</th><th>Status</th><th>Priority</th><th>Code</th>'
        f"<th>Difference</th><th>Explains in BAD</th><th>Guide</th></tr></thead><tbody>{rows}</tbody></table>"
        if rows
        else '<p class="note">No difference.</p>'
    )
    not_compared = ""
    if report.not_checked:
        items = "".join(
            f"<li><code>{_e(n.check)}</code>: {_e(n.reason)}</li>" for n in report.not_checked
        )
        not_compared = f'<section id="not-checked"><h2>Not compared</h2><ul>{items}</ul></section>'
    body = (
        "<h1>hyperpod-nccl diff report</h1>"
        f'<div class="meta">hyperpod-nccl {_e(__version__)}; differences: '
        f'<span id="differences-found">{len(report.differences)}</span>. Read-only and offline.</div>'
        f'<ul class="meta"><li>GOOD: {_e(_side_line(report.good))}</li>'
        f"<li>BAD: {_e(_side_line(report.bad))}</li></ul>"
        f'{cause}<h2 id="findings-heading">Differences, most likely cause first</h2>{table}{not_compared}'
    )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">"
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>hyperpod-nccl diff report</title><style>{_CSS}</style></head>"
        f"<body>{body}</body></html>\n"
    )
