"""A sixth blind set of real public logs (tests/fixtures/corpus/fresh6.jsonl, issue 18, from
threads none of the other sets draw on) scored alone and spread over rank files among healthy
output, with no rule changed for it: 20/20 both ways (rules as of 5abcedc), no failing log
answered null, no FAIL on a healthy log. Misses, when there are any, are listed here by id, so
that a fix and a regression both fail this test until the list is updated."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from corpus_case import assert_new_corpus, outcome
from logmix import FIXTURES

CORPUS = FIXTURES / "corpus"
CASES = [
    json.loads(line)
    for line in (CORPUS / "fresh6.jsonl").read_text("utf-8").splitlines()
    if line.strip()
]
# Scored blind at 5abcedc: every case right alone and spread, so no misses are listed.
KNOWN_MISSES: set[str] = set()
KNOWN_SPREAD_MISSES = KNOWN_MISSES


def test_fresh6_corpus_is_well_formed_and_new() -> None:
    assert_new_corpus(
        CASES,
        "r",
        # every other set, and so any later one: a thread belongs to one set only
        tuple(p.name for p in sorted(CORPUS.glob("*.jsonl")) if p.name != "fresh6.jsonl"),
        least=20,
        healthy=5,
    )


@pytest.mark.parametrize("spread", [False, True], ids=["alone", "spread"])
@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_fresh6_case(case: dict[str, Any], spread: bool, tmp_path: Path) -> None:
    right, report = outcome(case, tmp_path, spread)
    misses = KNOWN_SPREAD_MISSES if spread else KNOWN_MISSES
    assert right == (case["id"] not in misses), (case["id"], case["label"], report["root_cause"])
    if case["label"] == "HEALTHY":
        assert right, case["id"]  # never a FAIL on a healthy log
