"""The cross-rank timeline: the first failure of each rank and host on one time axis.

Events come from the report: the first failing line of each rank and host the log scan kept
(``summary["timeline"]``, see rules/firsts.py) and, for findings about observed state (a pod
OOM-killed at a time the API gives), their ``first_seen`` on each host they name. The ranks
that never reached the collective the others timed out in come from STALLED_RANKS.

The axis is the clock the lines carry: full timestamps (UTC) when there are any, glog's
year-less clock (PyTorch) otherwise, else the order the lines were read. When both full and
glog times are present, glog times are placed with the year that puts them nearest the full
ones, read as UTC, and marked approximate; lines with no time on the axis are listed in a
"no time" column rather than guessed.
"""

from __future__ import annotations

import html
import statistics
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

from hyperpod_nccl.model import Report, Status
from hyperpod_nccl.rules.attribution import parse_glog_text

MAX_ROWS = 200
RED = "#d62728"
ORANGE = "#e67e00"
GREY = "#9aa0a6"
BLUE = "#1f77b4"


@dataclass
class Mark:
    code: str
    status: str
    source: str
    text: str
    x: float | None  # on the axis; None: no time on this axis
    when: str  # as shown
    approximate: bool = False
    order: int = 0


@dataclass
class Row:
    label: str
    kind: str  # "rank" or "host"
    host: str | None = None
    mark: Mark | None = None
    root: bool = False
    never_reached: str | None = None
    candidates: list[Mark] = field(default_factory=list)


@dataclass
class Timeline:
    axis: str  # "utc", "glog" or "order"
    rows: list[Row]
    root_x: float | None
    note: str
    cut: int = 0


def _epoch(text: str) -> float | None:
    try:
        stamp = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    if stamp.tzinfo is None:
        stamp = stamp.replace(tzinfo=timezone.utc)
    return stamp.timestamp()


def _glog_to_epoch(clock: float, near: float) -> float:
    """A year-less glog clock as epoch seconds, in the year that puts it nearest `near`."""
    days, rest = divmod(int(clock), 86400)
    month, day = divmod(days, 31)
    year = datetime.fromtimestamp(near, timezone.utc).year
    best: float | None = None
    for y in (year - 1, year, year + 1):
        try:
            base = datetime(y, month + 1, day + 1, tzinfo=timezone.utc)
        except ValueError:
            continue
        value = (base + timedelta(seconds=rest + clock - int(clock))).timestamp()
        if best is None or abs(value - near) < abs(best - near):
            best = value
    return best if best is not None else near


def _raw_events(report: Report) -> list[dict[str, Any]]:
    events = [e for e in report.summary.get("timeline") or [] if isinstance(e, dict)]
    for f in report.findings:
        if f.status not in (Status.FAIL, Status.WARN) or not f.first_seen:
            continue
        if _epoch(f.first_seen) is None:
            continue
        for host in f.hosts[:64]:
            events.append(
                {
                    "rank": None,
                    "host": host,
                    "code": f.code,
                    "status": f.status.value,
                    "time": f.first_seen,
                    "clock": None,
                    "order": 1 << 60,
                    "source": f.evidence[0].source if f.evidence else f.code,
                    "text": f.evidence[0].text if f.evidence else f.title,
                }
            )
    return events


def build_timeline(report: Report) -> Timeline | None:
    events = _raw_events(report)
    stalled = [
        f
        for f in report.findings
        if f.code == "STALLED_RANKS" and f.status in (Status.FAIL, Status.WARN) and f.ranks
    ]
    if not events and not stalled:
        return None
    absolute = [t for e in events if e.get("time") and (t := _epoch(str(e["time"]))) is not None]
    clocks = [
        c for e in events if e.get("clock") and (c := parse_glog_text(str(e["clock"]))) is not None
    ]
    axis = "utc" if absolute else "glog" if clocks else "order"
    near = statistics.median(absolute) if absolute else 0.0
    rows: dict[tuple[str, object], Row] = {}
    for e in events:
        x: float | None = None
        approximate = False
        when = ""
        if axis == "utc":
            if e.get("time"):
                x = _epoch(str(e["time"]))
                when = str(e["time"])
            elif e.get("clock") and (c := parse_glog_text(str(e["clock"]))) is not None:
                x, approximate = _glog_to_epoch(c, near), True
                when = f"{e['clock']} (glog clock, year and zone assumed)"
        elif axis == "glog":
            if e.get("clock"):
                x = parse_glog_text(str(e["clock"]))
                when = f"{e['clock']} (glog clock, no year)"
        else:
            x = float(e.get("order") or 0)
            when = "no clock in the line"
        mark = Mark(
            code=str(e.get("code")),
            status=str(e.get("status")),
            source=str(e.get("source")),
            text=str(e.get("text") or ""),
            x=x,
            when=when or "no time on this axis",
            approximate=approximate,
            order=int(e.get("order") or 0),
        )
        rank, host = e.get("rank"), e.get("host")
        if isinstance(rank, int):
            key: tuple[str, object] = ("rank", rank)
            label = f"rank {rank}"
        elif host:
            key, label = ("host", str(host)), str(host)
        else:
            continue
        row = rows.setdefault(key, Row(label, key[0], host=str(host) if host else None))
        row.candidates.append(mark)
    for f in stalled:
        op = f.details.get("op")
        seq = f.details.get("seq")
        what = (
            f"never reached {op + ' ' if op else ''}SeqNum {seq}"
            if seq is not None
            else ("fell behind the others")
        )
        for rank in f.ranks:
            row = rows.setdefault(("rank", rank), Row(f"rank {rank}", "rank"))
            row.never_reached = what
    root = report.root_cause
    for (kind, ident), row in rows.items():
        placed = [m for m in row.candidates if m.x is not None]
        if placed:
            row.mark = min(placed, key=lambda m: (m.x, m.order))
        elif row.candidates:
            row.mark = min(row.candidates, key=lambda m: m.order)
        if root is not None and (
            (row.mark is not None and row.mark.code == root.code)
            or (kind == "rank" and ident in root.ranks)
            or (kind == "host" and ident in root.hosts)
        ):
            row.root = True
    ordered = sorted(
        rows.values(),
        key=lambda r: (
            0 if r.kind == "rank" else 1,
            int(r.label.split()[1]) if r.kind == "rank" else 0,
            r.label,
        ),
    )
    # The dashed line stands at the root cause's own first line; failing that, at the first
    # failure of a rank or host it names.
    placed_roots = [r.mark for r in ordered if r.root and r.mark and r.mark.x is not None]
    own = [m.x for m in placed_roots if root is not None and m.code == root.code]
    root_xs = [x for x in own if x is not None] or [m.x for m in placed_roots if m.x is not None]
    notes = {
        "utc": "Times in UTC.",
        "glog": "Times from glog's clock (PyTorch), which prints no year or zone.",
        "order": "The lines carry no clock: events are placed in the order they were read.",
    }
    note = notes[axis]
    if any(r.mark and r.mark.approximate for r in ordered):
        note += (
            " Lines with only glog's year-less clock are placed with the year nearest the other "
            "events, read as UTC (marked ~)."
        )
    return Timeline(
        axis=axis,
        rows=ordered[:MAX_ROWS],
        root_x=min(root_xs) if root_xs else None,
        note=note,
        cut=max(0, len(ordered) - MAX_ROWS),
    )


# ---- drawing -------------------------------------------------------------------------------


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _tick_text(axis: str, value: float, span: float) -> str:
    if axis == "order":
        return f"#{int(value)}"
    if axis == "utc":
        stamp = datetime.fromtimestamp(value, timezone.utc)
        return stamp.strftime("%H:%M:%S" if span < 86400 else "%m-%d %H:%M")
    seconds = int(value) % 86400
    return f"{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


def _color(mark: Mark) -> str:
    return RED if mark.status == "FAIL" else ORANGE if mark.status == "WARN" else BLUE


def render_timeline(report: Report) -> str:
    timeline = build_timeline(report)
    if timeline is None:
        return ""
    rows = timeline.rows
    xs = [r.mark.x for r in rows if r.mark is not None and r.mark.x is not None]
    label_w, gutter, right, top, row_h = 230, 70, 270, 34, 20
    width = 1020
    plot_left = label_w + gutter
    plot_w = width - plot_left - right
    height = top + len(rows) * row_h + 36
    low, high = (min(xs), max(xs)) if xs else (0.0, 1.0)
    if high - low < 1e-9:
        low, high = low - 1, high + 1
    pad = (high - low) * 0.04
    low, high = low - pad, high + pad

    def px(value: float) -> float:
        return plot_left + (value - low) / (high - low) * plot_w

    parts = [
        f'<svg id="chart-timeline" xmlns="http://www.w3.org/2000/svg" width="{width}" '
        f'height="{height}" viewBox="0 0 {width} {height}" role="img" '
        'aria-label="first failure of each rank and host on one time axis">'
    ]
    for i in range(6):
        value = low + (high - low) * i / 5
        x = px(value)
        parts.append(
            f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{top - 6}" y2="{height - 30}" stroke="#eee"/>'
            f'<text class="tick" x="{x:.1f}" y="{height - 14}" font-size="11" text-anchor="middle">'
            f"{_e(_tick_text(timeline.axis, value, high - low))}</text>"
        )
    parts.append(
        f'<text x="{label_w + gutter / 2}" y="{top - 12}" font-size="11" text-anchor="middle" '
        'fill="#5f6368">no time</text>'
    )
    if timeline.root_x is not None:
        x = px(timeline.root_x)
        parts.append(
            f'<g id="timeline-root-line"><line x1="{x:.1f}" x2="{x:.1f}" y1="{top - 8}" '
            f'y2="{height - 30}" stroke="{RED}" stroke-dasharray="5,4" stroke-width="1.5"/>'
            f'<text x="{x + 4:.1f}" y="{top - 12}" font-size="11" fill="{RED}">root cause</text></g>'
        )
    for i, row in enumerate(rows):
        y = top + i * row_h + row_h / 2
        label = row.label + (f" · {row.host}" if row.kind == "rank" and row.host else "")
        label = label if len(label) <= 34 else "…" + label[-33:]
        css = ["trow", row.kind]
        if row.root:
            css.append("root")
        if row.never_reached:
            css.append("never-reached")
        mark = row.mark
        data = (
            f' data-label="{_e(row.label)}" data-code="{_e(mark.code if mark else "")}"'
            f' data-placed="{"yes" if mark is not None and mark.x is not None else "no"}"'
        )
        parts.append(f'<g class="{" ".join(css)}"{data}>')
        if i % 2:
            parts.append(
                f'<rect x="0" y="{y - row_h / 2:.1f}" width="{width}" height="{row_h}" fill="#fafafa"/>'
            )
        weight = ' font-weight="700"' if row.root else ""
        parts.append(
            f'<text x="{label_w - 6}" y="{y + 4:.1f}" font-size="12" text-anchor="end"{weight}>'
            f"{_e(label)}</text>"
        )
        tail = plot_left + plot_w + 6
        if mark is not None:
            x = px(mark.x) if mark.x is not None else label_w + gutter / 2
            color = _color(mark)
            tip = f"{row.label}: {mark.code} at {mark.when}\n{mark.source}: {mark.text}"
            if row.root and mark.code == (report.root_cause.code if report.root_cause else ""):
                shape = (
                    f'<path class="marker root" d="M{x:.1f},{y - 8:.1f} L{x + 8:.1f},{y:.1f} '
                    f'L{x:.1f},{y + 8:.1f} L{x - 8:.1f},{y:.1f} Z" fill="{RED}" stroke="#000" '
                    'stroke-width="1"/>'
                )
            else:
                shape = f'<circle class="marker" cx="{x:.1f}" cy="{y:.1f}" r="5" fill="{color}"/>'
            parts.append(f"<g><title>{_e(tip)}</title>{shape}</g>")
            code_text = ("~" if mark.approximate else "") + mark.code
            if mark.x is not None:
                # The code beside its marker: to the right when it fits, else to the left.
                right_side = x + 10 + 7 * len(code_text) < tail
                parts.append(
                    f'<text class="code" x="{x + 10 if right_side else x - 10:.1f}" '
                    f'y="{y + 4:.1f}" font-size="11" fill="#3c4043" '
                    f'text-anchor="{"start" if right_side else "end"}">{_e(code_text)}</text>'
                )
        if row.never_reached:
            parts.append(
                f'<text class="never" x="{tail:.1f}" y="{y + 4:.1f}" font-size="11" fill="{RED}">'
                f"{_e(row.never_reached)}</text>"
            )
        parts.append("</g>")
    parts.append("</svg>")
    table_rows = "".join(
        f'<tr class="{"root" if r.root else ""}"><td>{_e(r.label)}</td><td>{_e(r.host or "")}</td>'
        f"<td>{_e(r.mark.when if r.mark else '')}</td><td><code>{_e(r.mark.code if r.mark else '')}</code>"
        + (" <strong>(root cause)</strong>" if r.root else "")
        + f"</td><td>{_e(r.never_reached or '')}</td>"
        f"<td><code>{_e(r.mark.source if r.mark else '')}</code></td></tr>"
        for r in rows
    )
    cut = (
        f'<p class="note">{timeline.cut} more ranks and hosts not drawn.</p>'
        if timeline.cut
        else ""
    )
    return (
        '<section id="timeline"><h2>Timeline: who failed first</h2>'
        '<p class="note">The first failing line of each rank and host. The root cause is the red '
        "diamond and the dashed line; ranks that never reached the collective the others timed "
        f"out in are named on the right. {_e(timeline.note)}</p>"
        f'<div class="chart scroll timeline">{"".join(parts)}</div>{cut}'
        "<details><summary>the timeline as a table</summary>"
        '<table id="timeline-table"><thead><tr><th>Rank or host</th><th>Host</th><th>First failure at</th>'
        f"<th>Code</th><th>Collective</th><th>Line</th></tr></thead><tbody>{table_rows}</tbody></table>"
        "</details></section>"
    )
