"""The one-pass scanner finds exactly the lines a per-line regex scan finds, whatever the
chunking, with the right line numbers."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from hyperpod_nccl.rules.catalog import load_catalog
from hyperpod_nccl.rules.engine import ScanStats, make_prefilter, scan_stream

CATALOG = load_catalog()
CORPUS = Path(__file__).parents[1] / "fixtures" / "corpus" / "dev.jsonl"


def _corpus_text() -> str:
    rows = [json.loads(line) for line in CORPUS.read_text().splitlines()]
    return "\n".join(r["log"] for r in rows) + "\n"


def _naive(text: str) -> dict[int, set[str]]:
    """Per line, the rules whose regex matches: the slow, obviously right answer."""
    found: dict[int, set[str]] = {}
    for number, line in enumerate(text.split("\n"), start=1):
        ids = {r.id for r in CATALOG.rules if r.regex.search(line)}
        if ids:
            found[number] = ids
    return found


def _scanned(text: str, backend: str, chunk: int) -> dict[int, set[str]]:
    prefilter = make_prefilter(CATALOG.rules, backend)
    found: dict[int, set[str]] = {}
    for hit in scan_stream(io.BytesIO(text.encode()), prefilter, chunk_bytes=chunk):
        ids = {
            CATALOG.rules[i].id for i in hit.rule_indexes if CATALOG.rules[i].regex.search(hit.text)
        }
        if ids:
            found.setdefault(hit.line_no, set()).update(ids)
    return found


@pytest.mark.parametrize("backend", ["hyperscan", "re"])
@pytest.mark.parametrize("chunk", [4096, 65536, 8 * 1024 * 1024])
def test_scan_finds_what_a_line_by_line_scan_finds(backend: str, chunk: int) -> None:
    text = _corpus_text()
    assert _scanned(text, backend, chunk) == _naive(text)


def test_line_numbers_and_counts() -> None:
    text = "ok\nok\nOSError: [Errno 28] No space left on device\nok"  # no final newline
    stats = ScanStats()
    hits = list(scan_stream(io.BytesIO(text.encode()), make_prefilter(CATALOG.rules), stats))
    assert [h.line_no for h in hits] == [3]
    assert stats.lines == 4
    assert stats.bytes == len(text)


def test_a_line_longer_than_the_buffer_is_scanned_in_pieces() -> None:
    line = "x" * 10_000 + " Connection reset by peer " + "y" * 10_000
    text = "first\n" + line + "\nlast OSError: [Errno 28] No space left on device\n"
    stats = ScanStats()
    hits = list(
        scan_stream(
            io.BytesIO(text.encode()), make_prefilter(CATALOG.rules), stats, chunk_bytes=4096
        )
    )
    matched = {
        h.line_no
        for h in hits
        if any(CATALOG.rules[i].regex.search(h.text) for i in h.rule_indexes)
    }
    assert 2 in matched and 3 in matched
    assert stats.long_lines > 0


def test_invalid_utf8_is_decoded_with_replacement() -> None:
    data = b"\xff\xfe garbage \xc3\x28 Connection reset by peer\n"
    hits = list(scan_stream(io.BytesIO(data), make_prefilter(CATALOG.rules)))
    assert len(hits) == 1 and "Connection reset by peer" in hits[0].text


def test_hyperscan_cache_is_keyed_by_rule_positions_too(tmp_path: Path) -> None:
    """A benign rule added early shifts every scanned rule's catalog index while the scanned
    expressions stay the same; a cache keyed by expressions alone served stale ids."""
    from hyperpod_nccl.rules.engine import _cache_file

    same = [b"NCCL WARN", b"Killed"]
    assert _cache_file([1, 2], same, tmp_path) != _cache_file([2, 3], same, tmp_path)
    assert _cache_file([1, 2], same, tmp_path) == _cache_file([1, 2], same, tmp_path)
