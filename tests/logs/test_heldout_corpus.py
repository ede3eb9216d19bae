"""Held-out real logs (tests/fixtures/corpus/heldout.jsonl: GitHub issues not in dev.jsonl or
extra.jsonl, collected to measure the rules on logs they were not written from) get the right
root cause, alone and spread over rank files among healthy output; healthy ones get no FAIL.
An application-class Xid (13, 31, 43) alone is named as a warning, so these cases do not ask
for a FAIL root cause the way tests/logs/test_corpus.py does."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from logmix import FIXTURES, spread_case

from hyperpod_nccl.api import analyze_logs

CORPUS = FIXTURES / "corpus"


def _cases(name: str) -> list[dict[str, Any]]:
    lines = (CORPUS / name).read_text("utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


CASES = _cases("heldout.jsonl")


def _assert_named(case: dict[str, Any], report: dict[str, Any]) -> None:
    fails = [f["code"] for f in report["findings"] if f["status"] == "FAIL"]
    root = next((f for f in report["findings"] if f["root_cause"]), None)
    assert report["root_cause"] == (None if case["label"] == "HEALTHY" else case["label"]), (
        case["id"],
        case["source"],
        fails,
    )
    if root is None:
        assert fails == [], case["id"]
        return
    # The root cause shows its lines, and is a FAIL unless it is a lone warning Xid.
    assert root["evidence"], case["id"]
    warned_alone = root["code"] == "GPU_XID" and root["status"] == "WARN" and not fails
    assert root["status"] == "FAIL" or warned_alone, case["id"]


def test_heldout_corpus_is_well_formed_and_new() -> None:
    assert [c["id"] for c in CASES] == [f"h{n:03d}" for n in range(1, len(CASES) + 1)]
    seen = {c["source"] for name in ("dev.jsonl", "extra.jsonl") for c in _cases(name)}
    for case in CASES:
        assert case["source"].startswith("https://github.com/"), case["id"]
        assert case["source"] not in seen, (case["id"], case["source"])
        assert case["log"].strip() and case["why"].strip(), case["id"]
        assert case["label"] not in case["also"], case["id"]


def test_heldout_corpus_covers_every_log_code_twice() -> None:
    # The dev corpus holds every code of contract.md's log table, and HEALTHY.
    wanted = {c["label"] for c in _cases("dev.jsonl")}
    labels = [c["label"] for c in CASES]
    counts = {label: labels.count(label) for label in set(labels)}
    assert set(counts) == wanted and len(wanted) == 31
    assert min(counts.values()) >= 2 and counts["HEALTHY"] >= 8, counts
    assert len(CASES) - counts["HEALTHY"] >= 60


@pytest.mark.parametrize("spread", [False, True], ids=["alone", "spread"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['id']}-{c['label']}")
def test_heldout_case(case: dict[str, Any], spread: bool, tmp_path: Path) -> None:
    # Spread: the case's lines dealt over rank files among healthy output (logmix).
    target = tmp_path / f"{case['id']}.log"
    if spread:
        spread_case(case["log"], tmp_path, random.Random(case["id"]))
        target = tmp_path
    else:
        target.write_text(case["log"], "utf-8")
    _assert_named(case, analyze_logs([str(target)]).to_dict())
