"""Hyperscan and the pure-Python engine give the same verdict on every line: every line of
every corpus (real public logs), each also pasted behind a backtick, a quote marker, an
indent and in CRLF, and the same text hard-wrapped at 80 columns."""

from __future__ import annotations

import io
import json

import pytest
from logmix import CORPORA

from hyperpod_nccl.rules.analyzer import LogAnalyzer
from hyperpod_nccl.rules.catalog import load_catalog
from hyperpod_nccl.rules.engine import hyperscan_available


def _lines() -> list[str]:
    lines: list[str] = []
    for corpus in CORPORA:
        for row in corpus.read_text("utf-8").splitlines():
            if row.strip():
                lines += [line for line in json.loads(row)["log"].splitlines() if line.strip()]
    return lines


LINES = _lines()


def _variants(lines: list[str]) -> dict[str, bytes]:
    def joined(shaped: list[str], end: str = "\n") -> bytes:
        return end.join(shaped).encode("utf-8", "replace") + end.encode()

    wrapped = [line[i : i + 80] for line in lines for i in range(0, max(len(line), 1), 80)]
    return {
        "clean": joined(lines),
        "backtick": joined([f"`{line}" for line in lines]),
        "quoted": joined([f"> {line}" for line in lines]),
        "indented": joined([f"    {line}" for line in lines]),
        "crlf": joined(lines, "\r\n"),
        "wrapped": joined(wrapped),
    }


@pytest.mark.skipif(not hyperscan_available(), reason="checked by test_paste_shapes")
@pytest.mark.parametrize("shape", list(_variants(["x"])))
def test_both_engines_agree_on_every_corpus_line(shape: str) -> None:
    catalog = load_catalog()
    data = _variants(LINES)[shape]
    fast = LogAnalyzer(catalog, backend="hyperscan").line_verdicts(io.BytesIO(data))
    pure = LogAnalyzer(catalog, backend="re").line_verdicts(io.BytesIO(data))
    assert len(LINES) > 2000
    assert fast, "no line matched any rule"
    differ = {
        n: (fast.get(n), pure.get(n)) for n in set(fast) | set(pure) if fast.get(n) != pure.get(n)
    }
    assert differ == {}


def test_a_pasted_shape_keeps_the_clean_lines_verdicts() -> None:
    catalog = load_catalog()
    analyzer = LogAnalyzer(catalog, backend="re")
    shapes = _variants(LINES)
    clean = analyzer.line_verdicts(io.BytesIO(shapes["clean"]))
    for shape in ("backtick", "quoted", "indented", "crlf"):
        assert analyzer.line_verdicts(io.BytesIO(shapes[shape])) == clean, shape
