"""Real outputs captured on a GPU machine (torch 2.11, NCCL 2.28.9, H200) and on CPU (torch
2.13, gloo) with tools/capture/; provenance in tests/fixtures/captured/SOURCES.md."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hyperpod_nccl.api import analyze_logs

CAPTURED = Path(__file__).parents[1] / "fixtures" / "captured"
LABELS = [
    entry
    for entry in json.loads((CAPTURED / "labels.json").read_text())
    if not entry["file"].endswith((".pkl", ".json"))  # Flight Recorder dumps: perf's progress view
]


@pytest.mark.parametrize("entry", LABELS, ids=lambda e: e["file"])
def test_captured_log_gets_its_label(entry: dict[str, Any]) -> None:
    report = analyze_logs([str(CAPTURED / entry["file"])]).to_dict()
    expected = None if entry["label"] == "HEALTHY" else entry["label"]
    fails = [f["code"] for f in report["findings"] if f["status"] == "FAIL"]
    assert report["root_cause"] == expected, (entry["why"], fails)
    if expected is None:
        assert fails == []


def test_modern_watchdog_timeout_names_rank_seq_and_op() -> None:
    report = analyze_logs(
        [str(CAPTURED / "gpu" / "watchdog-timeout-allreduce-1rank.log")]
    ).to_dict()
    timeout = next(f for f in report["findings"] if f["code"] == "NCCL_TIMEOUT")
    assert timeout["root_cause"] and timeout["ranks"] == [0]
    assert "ALLREDUCE (SeqNum 2)" in timeout["title"]
    crash = next(f for f in report["findings"] if f["code"] == "RANK_CRASH")
    assert not crash["root_cause"]  # the SIGABRT is the watchdog taking the process down


def test_unresolvable_master_is_a_dns_problem_not_a_network_one() -> None:
    report = analyze_logs([str(CAPTURED / "cpu" / "master-addr-dns-torchrun-static.log")]).to_dict()
    assert report["root_cause"] == "MASTER_ADDR_DNS"
    dns = next(f for f in report["findings"] if f["code"] == "MASTER_ADDR_DNS")
    assert "no-such-master.invalid" in dns["title"]
    assert "NET_UNREACHABLE" in dns["explains"]


def test_ipv6_warning_alone_is_benign(tmp_path: Path) -> None:
    # The same real warning as in the DNS capture, but the job then starts normally.
    warning = (CAPTURED / "cpu" / "master-addr-dns-torchrun-static.log").read_text().splitlines()[0]
    assert "IPv6 network addresses" in warning
    healthy = (CAPTURED / "cpu" / "gloo-healthy-2ranks.log").read_text()
    log = tmp_path / "job.log"
    log.write_text(warning + "\n" + healthy)
    report = analyze_logs([str(log)]).to_dict()
    assert report["root_cause"] is None and report["issues_found"] == 0
