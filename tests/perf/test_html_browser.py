"""The HTML report rendered by a real headless Chromium: what a person opening the file sees."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

STRAGGLER_RED = (0xD6, 0x27, 0x28)


@pytest.fixture(scope="module")
def sweep_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from hyperpod_nccl.cli import main

    root = Path(__file__).parent.parent / "fixtures" / "perf"
    page = tmp_path_factory.mktemp("html") / "sweep.html"
    code = main(
        [
            "perf",
            str(root / "pair-sweep-8node"),
            str(root / "flight-recorder"),
            "--format",
            "html",
            "-o",
            str(page),
        ]
    )
    assert code == 0
    return page


def test_page_renders_findings_charts_and_progress(browser: Any, sweep_page: Path) -> None:
    browser.open(sweep_page.as_uri())
    state = browser.run(
        """
        const box = el => { const r = el.getBoundingClientRect(); return [r.width, r.height]; };
        const nodeBar = document.querySelector('#chart-nodes g.bar.straggler');
        return {
          title: document.title,
          root: document.querySelector('#root-cause').innerText,
          issues: document.querySelector('#issues-found').innerText,
          findings: [...document.querySelectorAll('#findings tr.finding')].map(r => [r.dataset.code, r.dataset.status]),
          busbwChart: box(document.querySelector('#chart-busbw')),
          redSeries: [...document.querySelectorAll('#chart-busbw g.series.straggler')].map(g => g.dataset.hosts),
          redSeriesBox: box(document.querySelector('#chart-busbw g.series.straggler polyline')),
          redStroke: getComputedStyle(document.querySelector('#chart-busbw g.series.straggler polyline')).stroke,
          nodeBars: document.querySelectorAll('#chart-nodes g.bar').length,
          stragglerBar: nodeBar.dataset.label,
          stragglerFill: getComputedStyle(nodeBar.querySelector('rect')).fill,
          stragglerBarBox: box(nodeBar.querySelector('rect')),
          behind: [...document.querySelectorAll('#progress g.bar.behind')].map(g => g.textContent),
          legend: document.querySelector('.legend').innerText,
          network: performance.getEntriesByType('resource').length,
          overflow: document.documentElement.scrollWidth > window.innerWidth,
        };
        """
    )
    assert state["title"] == "hyperpod-nccl perf report"
    assert "STRAGGLER_NODE" in state["root"] and "ip-10-1-0-16" in state["root"]
    assert state["issues"] == "1"
    assert ["STRAGGLER_NODE", "FAIL"] in state["findings"] and ["STALLED_RANKS", "WARN"] in state[
        "findings"
    ]
    assert state["busbwChart"][0] > 600 and state["busbwChart"][1] > 300
    assert sorted(state["redSeries"]) == [
        "ip-10-1-0-13,ip-10-1-0-16",
        "ip-10-1-0-15,ip-10-1-0-16",
        "ip-10-1-0-16,ip-10-1-0-17",
    ]
    assert state["redSeriesBox"][0] > 300  # the line spans the size axis
    assert state["redStroke"] == "rgb(214, 39, 40)"
    assert state["nodeBars"] == 8
    assert state["stragglerBar"] == "ip-10-1-0-16"
    assert state["stragglerFill"] == "rgb(214, 39, 40)"
    assert state["stragglerBarBox"][0] > 50
    assert (
        len(state["behind"]) == 1
        and "rank 2" in state["behind"][0]
        and "1 behind" in state["behind"][0]
    )
    assert "(straggler)" in state["legend"]
    assert state["network"] == 0  # nothing fetched: the file is self-contained
    assert state["overflow"] is False


def test_straggler_red_is_on_screen(browser: Any, sweep_page: Path, decode_png: Any) -> None:
    """Pixels, not markup: the highlighted lines and bar are drawn in the straggler red."""
    browser.open(sweep_page.as_uri())
    browser.run("document.querySelector('#nodes').scrollIntoView(); return true;")
    width, height, rows = decode_png(browser.screenshot_png())
    assert width >= 1000 and height >= 600
    channels = len(rows[0]) // width
    red = sum(
        1
        for row in rows
        for x in range(0, width * channels, channels)
        if abs(row[x] - STRAGGLER_RED[0]) < 12
        and abs(row[x + 1] - STRAGGLER_RED[1]) < 12
        and abs(row[x + 2] - STRAGGLER_RED[2]) < 12
    )
    assert red > 2000  # the straggler's node bar alone is ~180 x 18 px


def test_report_without_perf_data_still_renders(browser: Any, tmp_path: Path) -> None:
    from hyperpod_nccl.cli import main

    page = tmp_path / "timeout.html"
    assert main(["perf", "--world-size", "4096", "--format", "html", "-o", str(page)]) == 0
    browser.open(page.as_uri())
    state = browser.run(
        "return {rows: document.querySelectorAll('#findings tr.finding').length,"
        " charts: document.querySelectorAll('svg').length, root: document.querySelector('#root-cause').innerText};"
    )
    assert state == {"rows": 1, "charts": 0, "root": "Root cause: none found"}


def test_long_host_names_stay_distinct_and_opcounts_in_hex(browser: Any, tmp_path: Path) -> None:
    from hyperpod_nccl.cli import main

    log = (
        Path(__file__).parent.parent
        / "fixtures"
        / "perf"
        / "progress"
        / "coll-opcount-trace-128rank-allreduce-timeout-ranks-split-139d-139e.txt"
    )
    page = tmp_path / "coll.html"
    assert main(["perf", str(log), "--format", "html", "-o", str(page)]) == 0
    browser.open(page.as_uri())
    bars = browser.run(
        "return [...document.querySelectorAll('#progress g.bar')].map(g => [g.getAttribute('class'), g.textContent]);"
    )
    labels = [text for _, text in bars]
    assert len(set(labels)) == 4  # the labels keep the distinguishing end of each host name
    (behind,) = [text for css, text in bars if "behind" in css]
    assert "fqztx:615 [2]" in behind and "opCount 0x139d (1 behind)" in behind
