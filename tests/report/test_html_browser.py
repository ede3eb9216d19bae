"""Every report command's HTML, rendered by a real headless Chromium at desktop and phone
widths: the root cause first, the cross-rank timeline, collapsible evidence, guide links that
resolve in the page, nothing fetched and nothing wider than the window."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from hyperpod_nccl.cli import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE_LOGS = ROOT / "src" / "hyperpod_nccl" / "examples" / "logs" / "oom-one-rank"
EXAMPLE_BUNDLE = ROOT / "src" / "hyperpod_nccl" / "examples" / "bundles" / "oom-one-rank"
RED = (0xD6, 0x27, 0x28)
DESKTOP, PHONE = (1280, 1800), (390, 1400)

STATE = """
const box = el => { const r = el.getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; };
const rows = [...document.querySelectorAll('#chart-timeline g.trow')];
const marker = g => g.querySelector('.marker');
const cx = g => { const m = marker(g); if (!m) return null; const r = m.getBoundingClientRect(); return r.left + r.width / 2; };
const rootLine = document.querySelector('#timeline-root-line line');
return {
  title: document.title,
  root: document.querySelector('#root-cause').innerText,
  symptoms: [...document.querySelectorAll('#symptoms li code')].map(c => c.textContent),
  rows: rows.map(g => ({label: g.dataset.label, code: g.dataset.code, placed: g.dataset.placed,
                        css: g.getAttribute('class'), x: cx(g), text: g.textContent})),
  rootLineX: rootLine ? rootLine.getBoundingClientRect().left : null,
  findings: [...document.querySelectorAll('#findings tr.finding')].map(r => [r.dataset.code, r.dataset.status]),
  passed: document.querySelectorAll('#passed-findings tr.finding').length,
  evidenceOpen: [...document.querySelectorAll('#findings details')].some(d => d.open),
  guideLinks: [...document.querySelectorAll('#findings a[href^="#guide-"]')].map(a => a.getAttribute('href')),
  guideTargets: [...document.querySelectorAll('#guide details.guide')].map(d => '#' + d.id),
  commands: document.querySelectorAll('#findings pre > code').length,
  order: [...document.querySelectorAll('body > *')].map(e => e.id || e.tagName).slice(0, 6),
  network: performance.getEntriesByType('resource').length,
  overflow: document.documentElement.scrollWidth > window.innerWidth,
  width: window.innerWidth,
};
"""


def _page(tmp_path: Path, name: str, *args: str | Path) -> Path:
    page = tmp_path / f"{name}.html"
    code = main([*(str(a) for a in args), "-o", str(page)])  # the format from the extension
    assert code == 0
    assert page.read_text("utf-8").startswith("<!DOCTYPE html>")
    return page


def _state(browser: Any, page: Path, size: tuple[int, int]) -> dict[str, Any]:
    browser.resize(*size)
    browser.open(page.as_uri())
    state: dict[str, Any] = browser.run(STATE)
    return state


def _red_pixels(browser: Any, decode_png: Any, selector: str) -> int:
    browser.run(f"document.querySelector('{selector}').scrollIntoView(); return true;")
    width, _height, rows = decode_png(browser.screenshot_png())
    channels = len(rows[0]) // width
    return sum(
        1
        for row in rows
        for x in range(0, width * channels, channels)
        if all(abs(row[x + i] - RED[i]) < 14 for i in range(3))
    )


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("pages")
    return {
        "logs": _page(out, "logs", "logs", EXAMPLE_LOGS),
        "diagnose": _page(out, "diagnose", "diagnose", "--bundle", EXAMPLE_BUNDLE),
    }


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_logs_page_puts_the_oom_before_the_timeouts(
    browser: Any, pages: dict[str, Path], size: tuple[int, int]
) -> None:
    state = _state(browser, pages["logs"], size)
    assert state["title"] == "hyperpod-nccl logs report"
    # The root cause and its symptoms come before anything else on the page.
    assert state["order"][:3] == ["H1", "DIV", "root-cause"]
    assert "CONTAINER_OOM" in state["root"] and "rank 2" in state["root"]
    assert sorted(state["symptoms"]) == ["NCCL_TIMEOUT", "RANK_CRASH"]
    rows = {r["label"]: r for r in state["rows"]}
    assert {"rank 0", "rank 1", "rank 2", "rank 3", "ip-10-1-7-41"} <= set(rows)
    # The node's OOM (torchrun's exit -9 at 10:31:02) is the root-cause diamond, and the dashed
    # root-cause line stands on it; the ranks that timed out at 10:41:07 are to its right.
    host = rows["ip-10-1-7-41"]
    assert host["code"] == "CONTAINER_OOM" and host["placed"] == "yes" and "root" in host["css"]
    assert abs(host["x"] - state["rootLineX"]) < 2
    for rank in ("rank 0", "rank 1", "rank 3"):
        assert rows[rank]["code"] == "NCCL_TIMEOUT" and rows[rank]["x"] > host["x"] + 50
    # Rank 2 printed no failure of its own: it never reached the collective.
    assert "never-reached" in rows["rank 2"]["css"]
    assert "never reached ALLREDUCE SeqNum 4181" in rows["rank 2"]["text"]
    assert ["CONTAINER_OOM", "FAIL"] in state["findings"] and not state["evidenceOpen"]
    # Every guide link lands on a section embedded in the page.
    assert "#guide-container-oom" in state["guideLinks"]
    assert set(state["guideLinks"]) <= set(state["guideTargets"])
    assert state["commands"] >= 1  # suggested commands in <pre><code>
    assert state["network"] == 0
    assert state["overflow"] is False and state["width"] <= size[0]


def test_diagnose_page_shows_the_pod_oom_first(browser: Any, pages: dict[str, Path]) -> None:
    state = _state(browser, pages["diagnose"], DESKTOP)
    assert state["title"] == "hyperpod-nccl diagnose report"
    rows = {r["label"]: r for r in state["rows"]}
    oom = rows["llama-pretrain-worker-1"]
    assert oom["code"] == "CONTAINER_OOM" and "root" in oom["css"]
    timeouts = [r for r in state["rows"] if r["code"] == "NCCL_TIMEOUT"]
    assert len(timeouts) >= 6 and all(r["x"] > oom["x"] for r in timeouts)
    # PASS findings are counted and folded away, not listed among the problems.
    assert state["passed"] >= 10
    assert all(status != "PASS" for _, status in state["findings"])
    assert state["network"] == 0 and state["overflow"] is False


def test_the_root_cause_red_is_on_screen_at_both_widths(
    browser: Any, pages: dict[str, Path], decode_png: Any
) -> None:
    """Screenshots, desktop against phone: the same red diamond and timeline are drawn at
    both widths (the phone scrolls the timeline inside its box, not the page)."""
    counts = []
    for size in (DESKTOP, PHONE):
        browser.resize(*size)
        browser.open(pages["logs"].as_uri())
        counts.append(_red_pixels(browser, decode_png, "#timeline"))
    desktop, phone = counts
    assert desktop > 150 and phone > 100  # diamonds, dots and the dashed line


def test_probe_page_renders_its_findings(browser: Any, tmp_path: Path) -> None:
    from hyperpod_nccl.snapshot import Snapshot

    fixtures = ROOT / "tests" / "fixtures" / "probes" / "nvidia-smi"
    text = (fixtures / "smi-q-a100-ecc-remap-pending-xid63.txt").read_text("utf-8")
    snapshot = Snapshot()
    snapshot.put_text("nodes/gpu-7/gpu_ecc.txt", text.split("\n", 1)[1])
    snapshot.put_json("nodes/gpu-7/session.json", {"transport": "test"})
    bundle = snapshot.save(str(tmp_path / "bundle"))
    page = _page(tmp_path, "probe", "probe", "--bundle", bundle)
    state = _state(browser, page, DESKTOP)
    assert state["title"] == "hyperpod-nccl probe report"
    assert any(status == "FAIL" for _, status in state["findings"])
    assert state["network"] == 0 and state["overflow"] is False


def test_a_64_rank_failure_draws_every_rank(browser: Any, tmp_path: Path) -> None:
    """The example job widened to 64 ranks: rank 2's lines as they are, the other ranks'
    from rank 0's with their rank number changed. Every rank gets its row."""
    logs = tmp_path / "logs"
    logs.mkdir()
    for extra in ("dmesg-ip-10-1-7-41.txt", "torchrun-ip-10-1-7-41.log", "rank2.log"):
        shutil.copy(EXAMPLE_LOGS / extra, logs / extra)
    template = (EXAMPLE_LOGS / "rank0.log").read_text("utf-8")
    for rank in range(64):
        if rank != 2:
            text = template.replace("[rank0]", f"[rank{rank}]").replace(
                "[Rank 0]", f"[Rank {rank}]"
            )
            (logs / f"rank{rank}.log").write_text(text, "utf-8")
    page = _page(tmp_path, "wide", "logs", logs)
    state = _state(browser, page, DESKTOP)
    labels = {r["label"] for r in state["rows"]}
    assert {f"rank {n}" for n in range(64)} <= labels
    assert state["overflow"] is False
