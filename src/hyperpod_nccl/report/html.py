"""The HTML report of every report command: one self-contained file (inline CSS and SVG, no
script, no network).

A Content-Security-Policy meta tag forbids every fetch, so the page looks the same on a laptop
without network access as on the machine that wrote it. Charts are SVG drawn here:

- busbw against message size for each run (a node or a pair), the runs that include a
  straggler in red; pair-sweep summary lines become one bar per pair;
- each node's median busbw at large sizes against its peers' level and the slow line;
- per-rank progress: how far each rank got in each group, the ones behind in red;
- for every command, the cross-rank timeline (report/timeline.py): the first failure of each
  rank and host on one time axis, the root cause marked.

The root cause and its symptoms come first, then the problems (evidence and suggested
commands collapsible), what was not checked, the checks that passed (collapsed), and the guide
sections the findings point at, embedded so that every guide link works offline.

Perf data comes from ``report.summary`` (``runs``, ``nodes``, ``cohorts``, ``progress``, as
``hyperpod_nccl.perf.analysis`` writes them); any report renders, with the charts it has data for.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from typing import Any

from hyperpod_nccl import __version__
from hyperpod_nccl.model import Finding, Report, Status
from hyperpod_nccl.report.commands import CommandGroup, command_groups
from hyperpod_nccl.report.show import one_per_code
from hyperpod_nccl.units import size_text

RED = "#d62728"
ORANGE = "#e67e00"
BLUE = "#1f77b4"
GREY = "#9aa0a6"
GREEN = "#2ca02c"
PALETTE = ("#1f77b4", "#17becf", "#2ca02c", "#9467bd", "#8c564b", "#7f7f7f", "#bcbd22", "#e377c2")
STATUS_COLORS = {
    Status.FAIL: RED,
    Status.WARN: ORANGE,
    Status.INCOMPLETE: "#8e44ad",
    Status.SKIPPED: "#8e44ad",
    Status.INFO: "#2471a3",
    Status.PASS: GREEN,
}
MAX_SERIES = 40
MAX_BARS = 120
MAX_PROGRESS_ROWS = 200

_CSS = """
body{font-family:-apple-system,"Segoe UI",Roboto,"DejaVu Sans",Arial,sans-serif;margin:24px;color:#202124;max-width:1200px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #dadce0;padding-bottom:4px}
.meta{color:#5f6368;font-size:13px}.root{font-size:15px;margin:12px 0;padding:10px 12px;border-left:4px solid #d62728;background:#fdecea}
.root.none{border-color:#2ca02c;background:#e6f4ea}
table{border-collapse:collapse;width:100%;font-size:13px}th,td{border-bottom:1px solid #e8eaed;padding:6px 8px;text-align:left;vertical-align:top}
th{background:#f8f9fa}.badge{display:inline-block;min-width:46px;text-align:center;color:#fff;border-radius:3px;padding:1px 6px;font-weight:600;font-size:12px}
code,pre{font-family:"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:12px}pre{background:#f8f9fa;padding:8px;overflow-x:auto;white-space:pre-wrap}
details{margin:4px 0}summary{cursor:pointer;color:#1a73e8}
.chart{margin:8px 0 16px}.chart svg{max-width:100%;height:auto;background:#fff;border:1px solid #e8eaed}
.legend{font-size:12px;color:#3c4043}.legend span{display:inline-block;margin-right:14px}
.swatch{display:inline-block;width:12px;height:12px;margin-right:4px;vertical-align:-2px}
.note{color:#5f6368;font-size:12px}
.scroll{overflow-x:auto}td.what{min-width:14em;overflow-wrap:anywhere}
td code{overflow-wrap:anywhere}#symptoms ul{margin:4px 0 0 18px;padding:0}
.guide pre{max-height:24em;overflow:auto}.changes-state{color:#d62728;font-weight:600}
#timeline-table td{font-size:12px}a{color:#1a73e8}
.timeline svg{min-width:640px}
@media (max-width:700px){body{margin:10px}th,td{padding:4px}
#findings thead,#passed-findings thead{display:none}
#findings tr,#passed-findings tr{display:block;border-bottom:1px solid #dadce0;padding:6px 0}
#findings td,#passed-findings td{display:inline-block;border:0;padding:2px 6px}
#findings td.what,#passed-findings td.what{display:block}}
"""


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _badge(status: Status) -> str:
    return f'<span class="badge status-{status.value.lower()}" style="background:{STATUS_COLORS[status]}">{status.value}</span>'


MAX_LABEL = 34


def _short(label: str) -> str:
    """Long labels keep their end: host names differ in their last characters."""
    return label if len(label) <= MAX_LABEL else "…" + label[-(MAX_LABEL - 1) :]


def _nice_ticks(top: float, count: int = 5) -> list[float]:
    if top <= 0:
        return [0.0]
    raw = top / count
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    return [i * step for i in range(int(top / step) + 1)]


# ---- findings ---------------------------------------------------------------------------

MAX_EVIDENCE_HTML = 50
MAX_GUIDE_SECTIONS = 40


def _anchor(reference: str | None) -> str | None:
    """The in-page id of a guide section embedded at the end of the page."""
    if not reference or "#" not in reference:
        return None
    return "guide-" + reference.rsplit("#", 1)[1]


def _command_html(g: CommandGroup) -> str:
    """Commands of one purpose: the purpose, whether they only read or change state (and
    their blast radius), what must hold first, then the commands in a <pre><code> block."""
    label = f'<span class="changes-state">{_e(g.label)}</span>' if g.changes_state else _e(g.label)
    needs = f' <span class="note">needs: {_e(g.preconditions)}</span>' if g.preconditions else ""
    commands = _e("\n".join(g.commands))
    return f'<li>{_e(g.purpose)} <span class="note">({label})</span>{needs}<pre><code>{commands}</code></pre></li>'


def _finding_row(f: Finding) -> str:
    hosts = ", ".join(f.hosts[:8]) + (" ..." if len(f.hosts) > 8 else "")
    ranks = ", ".join(map(str, f.ranks[:16])) + (" ..." if len(f.ranks) > 16 else "")
    target = _anchor(f.reference)
    guide = (
        f'<a href="#{_e(target)}"><code>{_e(f.reference)}</code></a>'
        if target
        else (f"<code>{_e(f.reference)}</code>" if f.reference else "")
    )
    root = " <strong>(root cause)</strong>" if f.root_cause else ""
    if not f.root_cause and f.explained_by and f.status in (Status.FAIL, Status.WARN):
        root = (
            ' <span class="note">symptom of '
            + ", ".join(f'<a href="#finding-{_e(c)}">{_e(c)}</a>' for c in f.explained_by)
            + "</span>"
        )
    more = []
    if f.first_seen:
        more.append(f'<div class="note">first seen {_e(f.first_seen)}</div>')
    if f.evidence:
        shown = f.evidence[:MAX_EVIDENCE_HTML]
        lines = "\n".join(f"{ev.source}: {ev.text}" for ev in shown)
        left = len(f.evidence) - len(shown)
        extra = f'<p class="note">{left} more in --format json</p>' if left else ""
        more.append(
            f"<details><summary>evidence ({len(f.evidence)})</summary><pre>{_e(lines)}</pre>{extra}</details>"
        )
    if f.suggested_commands:
        cmds = "".join(_command_html(g) for g in command_groups(f.suggested_commands))
        more.append(
            "<details><summary>suggested commands (printed, never run)</summary>"
            f"<ul>{cmds}</ul></details>"
        )
    return (
        f'<tr class="finding" id="finding-{_e(f.code)}" data-code="{_e(f.code)}" data-status="{f.status.value}">'
        f"<td>{_badge(f.status)}</td><td>{f.priority.value}</td><td><code>{_e(f.code)}</code>{root}</td>"
        f'<td class="what">{_e(f.title)}{"".join(more)}</td><td>{_e(hosts)}</td><td>{_e(ranks)}</td><td>{guide}</td></tr>'
    )


_HEAD = (
    "<thead><tr><th>Status</th><th>Priority</th><th>Code</th><th>Finding</th>"
    "<th>Hosts</th><th>Ranks</th><th>Guide</th></tr></thead>"
)


def _findings_table(report: Report) -> str:
    # One row per code: the rows' ids (`finding-CODE`) are link targets and must be unique.
    findings = one_per_code(report.sorted_findings())
    problems = "".join(_finding_row(f) for f in findings if f.status is not Status.PASS)
    passed = [f for f in findings if f.status is Status.PASS]
    out = (
        f'<div class="scroll"><table id="findings">{_HEAD}<tbody>{problems}</tbody></table></div>'
        if problems
        else '<p class="note">No problems found.</p>'
    )
    if passed:
        rows = "".join(_finding_row(f) for f in passed)
        out += (
            f'<details id="passed"><summary>{len(passed)} check(s) passed</summary>'
            f'<div class="scroll"><table id="passed-findings">{_HEAD}<tbody>{rows}</tbody></table></div></details>'
        )
    return out


def _root_box(report: Report) -> str:
    root = report.root_cause
    if root is None:
        return (
            '<div class="root none" id="root-cause"><strong>Root cause:</strong> none found</div>'
        )
    where = []
    if root.ranks:
        noun = "rank" if len(root.ranks) == 1 else "ranks"
        where.append(f"{noun} " + ", ".join(map(str, root.ranks[:16])))
    if root.hosts:
        where.append(", ".join(root.hosts[:8]))
    symptoms = [f for f in report.sorted_findings() if root.code in f.explained_by]
    listed = "".join(
        f'<li><a href="#finding-{_e(f.code)}"><code>{_e(f.code)}</code></a>: {_e(f.title)}</li>'
        for f in symptoms
    )
    target = _anchor(root.reference)
    guide = f' <a href="#{_e(target)}">guide: {_e(root.reference)}</a>' if target else ""
    return (
        f'<div class="root" id="root-cause"><strong>Root cause:</strong> <code>{_e(root.code)}</code>: '
        f"{_e(root.title)}"
        + (f'<div class="note">on {_e("; ".join(where))}</div>' if where else "")
        + guide
        + (
            f'<div id="symptoms"><strong>Its symptoms</strong> ({len(symptoms)}):<ul>{listed}</ul></div>'
            if symptoms
            else ""
        )
        + "</div>"
    )


def _guide_sections(report: Report) -> str:
    """The guide sections the findings point at, embedded so that the page needs nothing else."""
    from hyperpod_nccl import kb

    seen: dict[str, str] = {}
    for f in report.sorted_findings():
        target = _anchor(f.reference)
        if target and target not in seen and f.status is not Status.PASS and f.reference:
            seen[target] = f.reference
    parts = []
    for target, reference in list(seen.items())[:MAX_GUIDE_SECTIONS]:
        section = kb.resolve(reference)
        if section is None:
            continue
        # <details>: compact; browsers open one when a link targets it.
        parts.append(
            f'<details class="guide" id="{_e(target)}"><summary>{_e(section.title)}</summary>'
            f'<p class="note"><code>hyperpod-nccl explain {_e(reference)}</code></p>'
            f"<pre>{_e(section.own_markdown or section.markdown)}</pre></details>"
        )
    if not parts:
        return ""
    return '<section id="guide"><h2>Guide sections</h2>' + "".join(parts) + "</section>"


# ---- busbw against message size -------------------------------------------------------


def _hosts_by_verdict(report: Report, verdict: str) -> set[str]:
    return {n["host"] for n in report.summary.get("nodes") or [] if n.get("verdict") == verdict}


def _run_color(
    run: dict[str, Any], stragglers: set[str], ambiguous: set[str], index: int
) -> tuple[str, str]:
    hosts = set(run.get("hosts") or [])
    if hosts & stragglers:
        return RED, "straggler"
    if hosts & ambiguous:
        return ORANGE, "ambiguous"
    return PALETTE[index % len(PALETTE)], "normal"


def _run_name(run: dict[str, Any]) -> str:
    hosts = run.get("hosts") or []
    return " + ".join(hosts) if hosts else str(run.get("label"))


def _series_points(run: dict[str, Any]) -> list[tuple[float, float]]:
    points = []
    for size, oop, ip, *_ in run.get("rows") or []:
        values = [v for v in (oop, ip) if isinstance(v, (int, float))]
        if size and size > 0 and values:
            points.append((float(size), sum(values) / len(values)))
    return points


def _busbw_chart(report: Report) -> str:
    runs = [r for r in report.summary.get("runs") or [] if _series_points(r)]
    if not runs:
        return ""
    stragglers = _hosts_by_verdict(report, "straggler")
    ambiguous = _hosts_by_verdict(report, "ambiguous")
    # Highlighted runs first so that they are never the ones cut.
    runs.sort(key=lambda r: 0 if set(r.get("hosts") or []) & (stragglers | ambiguous) else 1)
    shown = runs[:MAX_SERIES]
    all_points = [p for r in shown for p in _series_points(r)]
    xs = [math.log2(p[0]) for p in all_points]
    x_min, x_max = min(xs), max(xs)
    if x_max == x_min:
        x_min, x_max = x_min - 1, x_max + 1
    y_top = max(p[1] for p in all_points) * 1.1 or 1.0
    width, height, left, right, top, bottom = 860, 420, 64, 20, 20, 48
    plot_w, plot_h = width - left - right, height - top - bottom

    def px(size: float) -> float:
        return left + (math.log2(size) - x_min) / (x_max - x_min) * plot_w

    def py(value: float) -> float:
        return top + plot_h - value / y_top * plot_h

    parts = [
        f'<svg id="chart-busbw" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="bus bandwidth against message size">'
    ]
    for tick in _nice_ticks(y_top / 1.1):
        y = py(tick)
        parts.append(
            f'<line x1="{left}" x2="{width - right}" y1="{y:.1f}" y2="{y:.1f}" stroke="#eee"/>'
        )
        parts.append(
            f'<text x="{left - 6}" y="{y + 4:.1f}" font-size="11" text-anchor="end">{tick:g}</text>'
        )
    step = max(1, math.ceil((x_max - x_min) / 12))
    for exp in range(math.ceil(x_min), math.floor(x_max) + 1, step):
        x = px(2.0**exp)
        parts.append(
            f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{top}" y2="{top + plot_h}" stroke="#f3f3f3"/>'
        )
        parts.append(
            f'<text x="{x:.1f}" y="{top + plot_h + 16}" font-size="11" text-anchor="middle">{size_text(2**exp)}</text>'
        )
    parts.append(f'<line x1="{left}" x2="{left}" y1="{top}" y2="{top + plot_h}" stroke="#5f6368"/>')
    parts.append(
        f'<line x1="{left}" x2="{width - right}" y1="{top + plot_h}" y2="{top + plot_h}" stroke="#5f6368"/>'
    )
    parts.append(
        f'<text x="{left + plot_w / 2}" y="{height - 8}" font-size="12" text-anchor="middle">message size (bytes, log scale)</text>'
    )
    parts.append(
        f'<text x="14" y="{top + plot_h / 2}" font-size="12" text-anchor="middle" transform="rotate(-90 14 {top + plot_h / 2})">busbw (GB/s)</text>'
    )
    legend = []
    # Draw normal series first and highlighted ones last, on top.
    ordered = sorted(
        enumerate(shown),
        key=lambda item: 1 if set(item[1].get("hosts") or []) & (stragglers | ambiguous) else 0,
    )
    for index, run in ordered:
        color, kind = _run_color(run, stragglers, ambiguous, index)
        points = " ".join(f"{px(s):.1f},{py(v):.1f}" for s, v in _series_points(run))
        stroke = 3 if kind != "normal" else 1.5
        name = _run_name(run)
        parts.append(
            f'<g class="series {kind}" data-run="{_e(run.get("label"))}" data-hosts="{_e(",".join(run.get("hosts") or []))}">'
            f"<title>{_e(name)}: {_e(run.get('collective'))}</title>"
            f'<polyline fill="none" stroke="{color}" stroke-width="{stroke}" points="{points}"/></g>'
        )
        legend.append((kind, color, name))
    parts.append("</svg>")
    legend.sort(key=lambda item: {"straggler": 0, "ambiguous": 1}.get(item[0], 2))
    legend_html = "".join(
        f'<span class="legend-item {kind}"><span class="swatch" style="background:{color}"></span>{_e(name)}'
        + (" (straggler)" if kind == "straggler" else " (ambiguous)" if kind == "ambiguous" else "")
        + "</span>"
        for kind, color, name in legend[:MAX_SERIES]
    )
    cut = (
        f'<p class="note">{len(runs) - len(shown)} more runs not drawn.</p>'
        if len(runs) > len(shown)
        else ""
    )
    return (
        '<section id="busbw"><h2>Bus bandwidth against message size</h2>'
        '<p class="note">One line per run (a node, a pair or a group of nodes); runs that include a '
        "straggler in red. Compare runs at large sizes, where busbw levels off.</p>"
        f'<div class="chart">{"".join(parts)}</div><div class="legend">{legend_html}</div>{cut}</section>'
    )


# ---- bars: one per pair (summary lines) or per node --------------------------------------


def _bar_chart(
    chart_id: str,
    bars: Sequence[tuple[str, float, str, str]],
    lines: Sequence[tuple[float, str, str]],
    unit: str = "GB/s",
    value_texts: Sequence[str] | None = None,
    axis: bool = True,
) -> str:
    """Horizontal bars (label, value, color, css class) with vertical reference lines."""
    bars = list(bars)[:MAX_BARS]
    if not bars:
        return ""
    label_w, right, top, bar_h, gap = 220, 70, 24, 18, 6
    width = 860
    plot_w = width - label_w - right
    height = top + len(bars) * (bar_h + gap) + 30
    top_value = max([v for _, v, _, _ in bars] + [v for v, _, _ in lines]) * 1.1 or 1.0

    def px(value: float) -> float:
        return label_w + value / top_value * plot_w

    parts = [
        f'<svg id="{chart_id}" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img">'
    ]
    for tick in _nice_ticks(top_value / 1.1) if axis else []:
        x = px(tick)
        parts.append(
            f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{top - 6}" y2="{height - 24}" stroke="#f1f1f1"/>'
        )
        parts.append(
            f'<text x="{x:.1f}" y="{height - 10}" font-size="11" text-anchor="middle">{tick:g}</text>'
        )
    for i, (label, value, color, css) in enumerate(bars):
        shown = value_texts[i] if value_texts else f"{value:.1f}"
        y = top + i * (bar_h + gap)
        parts.append(
            f'<g class="bar {css}" data-label="{_e(label)}" data-value="{value:.3f}">'
            f"<title>{_e(label)}: {value:.2f} {unit}</title>"
            f'<text x="{label_w - 6}" y="{y + bar_h - 5}" font-size="12" text-anchor="end">{_e(_short(label))}</text>'
            f'<rect x="{label_w}" y="{y}" width="{max(px(value) - label_w, 1):.1f}" height="{bar_h}" fill="{color}"/>'
            f'<text x="{px(value) + 4:.1f}" y="{y + bar_h - 5}" font-size="11">{_e(shown)}</text></g>'
        )
    for i, (value, color, name) in enumerate(lines):
        x = px(value)
        # Labels alternate sides of their line so that close lines stay readable.
        anchor, dx = ("end", -3) if i % 2 else ("start", 3)
        parts.append(
            f'<g class="refline" data-value="{value:.3f}"><line x1="{x:.1f}" x2="{x:.1f}" y1="{top - 10}" '
            f'y2="{height - 24}" stroke="{color}" stroke-dasharray="5,4" stroke-width="1.5"/>'
            f'<text x="{x + dx:.1f}" y="{top - 12}" font-size="11" fill="{color}" text-anchor="{anchor}">{_e(name)}</text></g>'
        )
    parts.append("</svg>")
    return f'<div class="chart">{"".join(parts)}</div>'


def _pair_chart(report: Report) -> str:
    runs = [r for r in report.summary.get("runs") or [] if r.get("summary_busbw") is not None]
    if not runs:
        return ""
    stragglers = _hosts_by_verdict(report, "straggler")
    ambiguous = _hosts_by_verdict(report, "ambiguous")
    bars = []
    for r in sorted(runs, key=lambda r: r["summary_busbw"]):
        color, kind = _run_color(r, stragglers, ambiguous, 0)
        if kind == "normal":
            color = BLUE
        bars.append((_run_name(r), float(r["summary_busbw"]), color, kind))
    return (
        '<section id="pairs"><h2>Bus bandwidth per pair</h2><p class="note">One bar per pair-sweep result; pairs '
        "that include a straggler in red.</p>"
        + _bar_chart("chart-pairs", bars, _reference_lines(report))
        + "</section>"
    )


def _reference_lines(report: Report) -> list[tuple[float, str, str]]:
    lines = []
    for c in (report.summary.get("cohorts") or [])[:1]:
        if c.get("peers_busbw"):
            lines.append((float(c["peers_busbw"]), GREEN, f"peers {c['peers_busbw']:.1f}"))
        if c.get("slow_below_busbw"):
            lines.append(
                (float(c["slow_below_busbw"]), ORANGE, f"slow below {c['slow_below_busbw']:.1f}")
            )
    return lines


def _node_chart(report: Report) -> str:
    nodes = [
        n
        for n in report.summary.get("nodes") or []
        if n.get("verdict") != "unassessed" or n.get("runs")
    ]
    if not nodes:
        return ""
    colors = {"straggler": RED, "ambiguous": ORANGE, "ok": BLUE, "unassessed": GREY}
    bars = [
        (n["host"], float(n["median_busbw"]), colors.get(n["verdict"], GREY), n["verdict"])
        for n in sorted(nodes, key=lambda n: n["median_busbw"])
    ]
    return (
        '<section id="nodes"><h2>Nodes</h2><p class="note">Each node\'s median busbw at large sizes over the runs '
        "it took part in, against its peers' level and the slow line (10% below; see "
        "performance-testing.md#straggler-node). Stragglers in red, nodes that could not be told apart "
        "in orange, nodes only measured with a straggler in grey.</p>"
        + _bar_chart("chart-nodes", bars, _reference_lines(report))
        + "</section>"
    )


# ---- per-rank progress ------------------------------------------------------------------


def _progress_view(report: Report) -> str:
    members = list(report.summary.get("progress") or [])[:MAX_PROGRESS_ROWS]
    if not members:
        return ""
    groups: dict[str, list[dict[str, Any]]] = {}
    for m in members:
        groups.setdefault(str(m["group"]), []).append(m)
    sections: list[str] = []
    for name, rows in groups.items():
        lead = max(int(m["last_seq"]) for m in rows)
        low = min(int(m["last_seq"]) for m in rows)
        # Scale so that a lag of one collective is visible even at large sequence numbers.
        floor = max(0, low - max(1, (lead - low) * 2))
        bars = []
        texts = []
        for m in rows:
            seq = int(m["last_seq"])
            behind = seq < lead
            color, css = (RED, "behind") if behind else (GREEN, "reached")
            bars.append((f"{m['member']}: {m['last_op']}", float(seq - floor), color, css))
            texts.append(
                str(m.get("last_seq_text", f"#{seq}"))
                + (f" ({lead - seq} behind)" if behind else "")
            )
        chart = _bar_chart(
            f"chart-progress-{len(sections)}",
            bars,
            [],
            unit=f"collectives after #{floor}",
            value_texts=texts,
            axis=False,
        )
        sections.append(f'<h3 class="progress-group">{_e(name)}</h3>{chart}')
    return (
        '<section id="progress"><h2>Per-rank progress</h2><p class="note">The last collective each rank reached '
        "(enqueued), per communicator or process group; ranks behind the others in red. Bars start at "
        "a common earlier collective so that small lags show.</p>"
        + "".join(sections)
        + "</section>"
    )


def _meta(report: Report) -> str:
    s = report.summary
    parts = []
    if "inputs_read" in s:
        parts.append(f"{s.get('inputs_read', 0)} input(s)")
        if s.get("lines"):
            parts.append(f"{s['lines']:,} lines")
    if report.command == "perf":
        parts.append(f"{s.get('runs_found', 0)} nccl-tests run(s)")
    for key in ("cluster", "region", "orchestrator", "job"):
        if s.get(key):
            parts.append(f"{key} {s[key]}")
    if s.get("nodes_probed") is not None:
        parts.append(f"{s['nodes_probed']} node(s) probed")
    return "; ".join(parts)


def _perf_charts(report: Report) -> list[str]:
    """The charts of perf's summary; other commands' summaries share some key names
    (`nodes` is a count for probe), so only perf reports draw them."""
    if report.command != "perf":
        return []
    return [_busbw_chart(report), _pair_chart(report), _node_chart(report), _progress_view(report)]


def render_html(report: Report) -> str:
    from hyperpod_nccl.report.timeline import render_timeline

    fails = sum(1 for f in report.findings if f.status is Status.FAIL)
    not_checked = ""
    if report.not_checked:
        items = "".join(
            f"<li><code>{_e(n.check)}</code>: {_e(n.reason)}</li>" for n in report.not_checked[:200]
        )
        not_checked = f'<section id="not-checked"><h2>Not checked</h2><ul>{items}</ul></section>'
    meta = _meta(report)
    body = "".join(
        [
            f"<h1>hyperpod-nccl {_e(report.command)} report</h1>",
            f'<div class="meta">hyperpod-nccl {_e(__version__)}; {_e(meta)}; issues found: '
            f'<span id="issues-found">{fails}</span>. Read-only: suggested commands are printed, never run.</div>',
            _root_box(report),
            render_timeline(report),
            '<h2 id="findings-heading">Findings</h2>',
            _findings_table(report),
            not_checked,
            *_perf_charts(report),
            _guide_sections(report),
        ]
    )
    return page(f"hyperpod-nccl {report.command} report", body)


def page(title: str, body: str) -> str:
    """A self-contained page: inline CSS, and a Content-Security-Policy that forbids every
    fetch. `body` is HTML; `title` is text."""
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">"
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_e(title)}</title><style>{_CSS}</style></head>"
        f"<body>{body}</body></html>\n"
    )
