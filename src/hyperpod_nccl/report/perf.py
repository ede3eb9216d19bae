"""The perf report in each format: the shared renderers plus tables of nodes, runs and ranks."""

from __future__ import annotations

from typing import Any, TextIO

from hyperpod_nccl.model import Report
from hyperpod_nccl.perf.evidence import size_text
from hyperpod_nccl.report import FORMATS, render
from hyperpod_nccl.report.html import render_html

PERF_FORMATS = FORMATS
MAX_TABLE_ROWS = 40


def _cell(text: str) -> str:
    """Text safe inside a Markdown table cell."""
    return text.replace("|", "\\|").replace("\n", " ")


def _node_rows(report: Report) -> list[dict[str, Any]]:
    nodes = list(report.summary.get("nodes") or [])
    order = {"straggler": 0, "ambiguous": 1, "ok": 2, "unassessed": 3}
    return sorted(nodes, key=lambda n: (order.get(n["verdict"], 9), n["median_busbw"]))


def _run_peak(run: dict[str, Any]) -> str:
    value = run.get("peak_large_busbw")
    return f"{value:.1f}" if isinstance(value, (int, float)) else "-"


def _text_tables(report: Report) -> list[str]:
    out: list[str] = []
    nodes = _node_rows(report)
    if nodes:
        out += ["", "Nodes (busbw at large sizes, GB/s):"]
        out.append(f"  {'host':<32} {'runs':>4} {'median':>9} {'best':>9}  verdict")
        for n in nodes[:MAX_TABLE_ROWS]:
            out.append(
                f"  {n['host']:<32} {n['runs']:>4} {n['median_busbw']:>9.1f} {n['best_busbw']:>9.1f}  {n['verdict']}"
            )
        if len(nodes) > MAX_TABLE_ROWS:
            out.append(f"  ... {len(nodes) - MAX_TABLE_ROWS} more in --format json")
    runs = report.summary.get("runs") or []
    if runs:
        out += ["", "Runs:"]
        for r in runs[:MAX_TABLE_ROWS]:
            hosts = ",".join(r["hosts"]) or "(hosts not listed)"
            largest = size_text(r["rows"][-1][0]) if r["rows"] else "-"
            out.append(
                f"  {r['label']}: {r['collective']} {r['status']} on {hosts}; "
                f"busbw {_run_peak(r)} GB/s at large sizes (largest {largest})"
            )
        if len(runs) > MAX_TABLE_ROWS:
            out.append(f"  ... {len(runs) - MAX_TABLE_ROWS} more in --format json")
    members = report.summary.get("progress") or []
    if members:
        out += ["", "Per-rank progress (last collective reached):"]
        for m in members[:MAX_TABLE_ROWS]:
            out.append(
                f"  {m['group']}: {m['member']}: {m['last_op']} {m['last_seq_text']} ({m['source']})"
            )
    return out


def _markdown_tables(report: Report) -> list[str]:
    out: list[str] = []
    nodes = _node_rows(report)
    if nodes:
        out += ["", "## Nodes", "", "busbw at large sizes, GB/s.", ""]
        out += ["| Host | Runs | Median | Best | Verdict |", "|---|---|---|---|---|"]
        for n in nodes[:MAX_TABLE_ROWS]:
            verdict = f"**{n['verdict']}**" if n["verdict"] != "ok" else "ok"
            out.append(
                f"| {_cell(n['host'])} | {n['runs']} | {n['median_busbw']:.1f} | {n['best_busbw']:.1f} | {verdict} |"
            )
    runs = report.summary.get("runs") or []
    if runs:
        out += [
            "",
            "## Runs",
            "",
            "| Run | Collective | Status | Hosts | busbw at large sizes (GB/s) |",
            "|---|---|---|---|---|",
        ]
        for r in runs[:MAX_TABLE_ROWS]:
            out.append(
                f"| `{_cell(r['label'])}` | {r['collective']} | {r['status']} | {_cell(', '.join(r['hosts']))} | {_run_peak(r)} |"
            )
    members = report.summary.get("progress") or []
    if members:
        out += [
            "",
            "## Per-rank progress",
            "",
            "| Group | Member | Last collective | Seq | Source |",
            "|---|---|---|---|---|",
        ]
        for m in members[:MAX_TABLE_ROWS]:
            out.append(
                f"| {_cell(m['group'])} | {_cell(m['member'])} | {_cell(m['last_op'])} | {m['last_seq_text']} | `{_cell(m['source'])}` |"
            )
    return out


def render_perf(report: Report, fmt: str, stream: TextIO | None = None) -> str:
    if fmt == "html":
        return render_html(report)
    text = render(report, fmt, stream)
    if fmt == "json":
        return text
    extra = _markdown_tables(report) if fmt == "markdown" else _text_tables(report)
    if not extra:
        return text
    if fmt == "markdown":
        return text.rstrip("\n") + "\n" + "\n".join(extra) + "\n"
    # Keep `Issues Found: N` as the last line of the text report.
    body, sep, tail = text.rstrip("\n").rpartition("\n\nIssues Found:")
    if not sep:
        return text + "\n".join(extra) + "\n"
    return body + "\n" + "\n".join(extra) + sep + tail + "\n"
