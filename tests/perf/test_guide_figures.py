"""The figures in code are the guide's figures: one table each, checked against the guide's text."""

from __future__ import annotations

import re

from hyperpod_nccl import kb
from hyperpod_nccl.perf import expected
from hyperpod_nccl.perf.evidence import size_text
from hyperpod_nccl.perf.timeout import PAUSE_MARGIN, STEP_MARGIN, TIMEOUT_BANDS, suggested_minutes


def _table_rows(anchor: str) -> list[list[str]]:
    section = kb.resolve(f"performance-testing.md#{anchor}")
    assert section is not None, anchor
    rows = []
    for line in section.markdown.splitlines():
        if line.startswith("|") and not set(line) <= set("|-: "):
            rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows[1:]  # without the header row


def test_expected_bandwidth_table_matches_the_guide() -> None:
    rows = {r[0]: r for r in _table_rows("expected-bandwidth")}
    assert set(rows) == {t.name for t in expected.INSTANCE_TYPES}
    for itype in expected.INSTANCE_TYPES:
        row = rows[itype.name]
        assert row[1] == itype.gpus and row[2] == itype.network, itype.name
        figure = next((f for f in expected.EXPECTED if f.instance_type == itype.name), None)
        if figure is None:
            assert row[3] == "no published figure sourced" and row[4] == "measure a baseline"
            continue
        assert row[3] == f"about {figure.busbw_gbps:g} GB/s at {size_text(figure.at_bytes)}"
        assert row[4] == figure.status
        assert figure.source == expected.GUIDE_SECTION
    section = kb.resolve(expected.GUIDE_SECTION)
    assert section is not None and "Two-node `all_reduce_perf` busbw" in section.markdown


def test_timeout_bands_match_the_guide() -> None:
    rows = _table_rows("timeout-sizing")
    assert [r[1] for r in rows] == [wording for _, _, wording in TIMEOUT_BANDS]
    limits = [
        int(m.group(1)) if (m := re.search(r"(?:up )?to (\d+)$", r[0])) else None for r in rows
    ]
    assert limits == [limit for limit, _, _ in TIMEOUT_BANDS]
    text = kb.resolve("performance-testing.md#timeout-sizing").markdown  # type: ignore[union-attr]
    assert f"{PAUSE_MARGIN:g} × the longest measured single-rank pause" in text
    assert f"{STEP_MARGIN:g} × the 99th-percentile step time" in text
    assert [suggested_minutes(n)[0] for n in (8, 64, 65, 512, 513, 2048, 2049)] == [
        10,
        10,
        15,
        15,
        30,
        30,
        30,
    ]


def test_every_code_we_emit_has_a_guide_section() -> None:
    for code in (
        "STRAGGLER_NODE",
        "LOW_BUSBW",
        "WRONG_RESULTS",
        "TEST_FAILED",
        "TIMEOUT_SIZING",
        "STALLED_RANKS",
        "NCCL_INVALID_USAGE",
        "INPUT_UNREADABLE",
    ):
        reference = kb.reference_for_code(code)
        assert kb.resolve(reference) is not None, code
