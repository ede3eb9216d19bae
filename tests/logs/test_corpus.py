"""Every real failure log in the public corpus gets the right root cause, alone and spread
over per-rank files among healthy output; healthy logs never get a FAIL."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from logmix import corpus, noise, spread_case

from hyperpod_nccl.api import analyze_logs

CASES = corpus()


def _expected(case: dict[str, Any]) -> str | None:
    return None if case["label"] == "HEALTHY" else str(case["label"])


def _check(case: dict[str, Any], report: dict[str, Any]) -> None:
    expected = _expected(case)
    fails = [f["code"] for f in report["findings"] if f["status"] == "FAIL"]
    assert report["root_cause"] == expected, (case["id"], case["source"], fails)
    if expected is None:
        assert fails == [], (case["id"], fails)
    else:
        root = next(f for f in report["findings"] if f["root_cause"])
        assert root["status"] == "FAIL" and root["evidence"], case["id"]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['id']}-{c['label']}")
def test_case_alone(case: dict[str, Any], tmp_path: Path) -> None:
    path = tmp_path / f"{case['id']}.log"
    path.write_text(str(case["log"]))
    _check(case, analyze_logs([str(path)]).to_dict())


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['id']}-{c['label']}")
def test_case_spread_over_rank_files_in_healthy_noise(case: dict[str, Any], tmp_path: Path) -> None:
    rng = random.Random(case["id"])
    spread_case(str(case["log"]), tmp_path, rng)
    _check(case, analyze_logs([str(tmp_path)]).to_dict())


@pytest.mark.parametrize(
    "case", [c for c in CASES if c["label"] != "HEALTHY"][:12], ids=lambda c: c["id"]
)
def test_pure_python_engine_agrees(case: dict[str, Any], tmp_path: Path) -> None:
    path = tmp_path / "job.log"
    path.write_text(str(case["log"]))
    fast = analyze_logs([str(path)], backend="hyperscan").to_dict()
    slow = analyze_logs([str(path)], backend="re").to_dict()
    assert slow["root_cause"] == fast["root_cause"] == _expected(case)
    assert [f["code"] for f in slow["findings"]] == [f["code"] for f in fast["findings"]]


def test_healthy_noise_alone_has_no_failure(tmp_path: Path) -> None:
    rng = random.Random(7)
    for rank in range(8):
        (tmp_path / f"rank{rank}.log").write_text("\n".join(noise(rng, 5000)) + "\n")
    # Pieces of different jobs with different NCCL versions: at most a warning.
    report = analyze_logs([str(tmp_path)]).to_dict()
    assert report["root_cause"] is None
    assert report["issues_found"] == 0
    assert [f["status"] for f in report["findings"] if f["code"] == "NO_FAILURE_SIGNATURE"] == [
        "PASS"
    ]
