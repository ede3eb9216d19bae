"""Real logs beyond the dev corpus (tests/fixtures/corpus/extra.jsonl: other jobs, other
PyTorch, NCCL, aws-ofi-nccl, libfabric, driver, Slurm and Kubernetes versions) get the right
root cause, alone and spread over rank files among healthy output; healthy ones get no FAIL."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from logmix import FIXTURES, spread_case

from hyperpod_nccl.api import analyze_logs

EXTRA = FIXTURES / "corpus" / "extra.jsonl"
CASES = [json.loads(line) for line in EXTRA.read_text("utf-8").splitlines() if line.strip()]


def _assert_named(case: dict[str, Any], report: dict[str, Any]) -> None:
    fails = [f["code"] for f in report["findings"] if f["status"] == "FAIL"]
    if case["label"] == "HEALTHY":
        assert (report["root_cause"], fails) == (None, []), case["id"]
    else:
        assert report["root_cause"] == case["label"], (case["id"], case["source"], fails)


def test_extra_corpus_is_well_formed() -> None:
    ids = [c["id"] for c in CASES]
    assert len(ids) == len(set(ids))
    for case in CASES:
        assert case["source"].startswith("https://github.com/"), case["id"]
        assert case["log"].strip() and case["why"].strip(), case["id"]
        assert case["label"] not in case["also"], case["id"]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['id']}-{c['label']}")
def test_extra_case_alone(case: dict[str, Any], tmp_path: Path) -> None:
    path = tmp_path / f"{case['id']}.log"
    path.write_text(case["log"], "utf-8")
    _assert_named(case, analyze_logs([str(path)]).to_dict())


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['id']}-{c['label']}")
def test_extra_case_spread_in_healthy_noise(case: dict[str, Any], tmp_path: Path) -> None:
    spread_case(case["log"], tmp_path, random.Random(case["id"]))
    _assert_named(case, analyze_logs([str(tmp_path)]).to_dict())
