"""STRAGGLER_NODE on real and derived pair sweeps: the slow node is named, its partners are not."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any


def test_real_pair_sweep_names_the_slow_node_not_its_partners(cli: Any, perf: Any) -> None:
    result = cli(
        "perf", perf.nccl_tests / "two-node-pair-sweep-slow-node-se02gn644.txt", "--format", "json"
    )
    assert result.code == 0
    fails = [f for f in result.findings("STRAGGLER_NODE") if f["status"] == "FAIL"]
    assert [f["hosts"] for f in fails] == [["se02gn644"]]
    straggler = fails[0]
    assert straggler["priority"] == "P1" and straggler["root_cause"] is True
    assert straggler["reference"] == "performance-testing.md#straggler-node"
    assert straggler["details"]["partners"] == ["se02gn641", "se02gn699"]
    # The one slow pair whose members never ran with anyone else cannot be split.
    warns = [f for f in result.findings("STRAGGLER_NODE") if f["status"] == "WARN"]
    assert [f["hosts"] for f in warns] == [["se02gn284", "se02gn678"]]
    verdicts = {n["host"]: n["verdict"] for n in result.json()["summary"]["nodes"]}
    assert verdicts == {
        "se02gn644": "straggler",
        "se02gn284": "ambiguous",
        "se02gn678": "ambiguous",
        "se02gn699": "ok",
        "se02gn641": "ok",
        "se02gn632": "ok",
        "se02gn404": "ok",
    }


def test_derived_eight_node_sweep(cli: Any, perf: Any) -> None:
    result = cli("perf", perf.pair_sweep, "--format", "json")
    findings = result.findings("STRAGGLER_NODE")
    assert [(f["status"], f["hosts"]) for f in findings] == [("FAIL", ["ip-10-1-0-16"])]
    details = findings[0]["details"]
    assert details["partners"] == ["ip-10-1-0-13", "ip-10-1-0-15", "ip-10-1-0-17"]
    assert len(details["slow_runs"]) == 3
    # The peers' level is the healthy busbw at the largest sizes; the straggler is ~58% of it.
    assert 170 < details["peers_busbw"] < 185
    assert details["node"]["median_busbw"] / details["peers_busbw"] < 0.65
    assert result.json()["root_cause"] == "STRAGGLER_NODE"


def test_same_sweep_in_one_log_gives_the_same_answer(cli: Any, perf: Any) -> None:
    result = cli("perf", perf.pair_sweep_log, "--format", "json")
    fails = [f for f in result.findings("STRAGGLER_NODE") if f["status"] == "FAIL"]
    assert [f["hosts"] for f in fails] == [["ip-10-1-0-16"]]


def test_sweep_without_the_slow_node_passes(cli: Any, perf: Any, tmp_path: Path) -> None:
    for log in perf.pair_sweep.iterdir():
        if "ip-10-1-0-16" not in log.name:
            shutil.copy(log, tmp_path / log.name)
    result = cli("perf", tmp_path, "--format", "json")
    (finding,) = result.findings("STRAGGLER_NODE")
    assert finding["status"] == "PASS"
    assert len(finding["hosts"]) == 7
    assert result.json()["issues_found"] == 0


def test_one_round_of_pairs_cannot_tell_which_node(cli: Any, perf: Any, tmp_path: Path) -> None:
    for log in perf.pair_sweep.glob("round1-*"):
        shutil.copy(log, tmp_path / log.name)
    result = cli("perf", tmp_path, "--format", "json")
    (finding,) = result.findings("STRAGGLER_NODE")
    assert finding["status"] == "WARN"
    assert finding["hosts"] == ["ip-10-1-0-13", "ip-10-1-0-16"]
    assert "cannot be told" in finding["title"]


def test_runs_on_the_same_nodes_cannot_single_out_a_node(
    cli: Any, perf: Any, tmp_path: Path
) -> None:
    log = perf.pair_sweep / "round1-pair1-ip-10-1-0-11-ip-10-1-0-18.log"
    for i in range(3):
        shutil.copy(log, tmp_path / f"repeat{i}.log")
    result = cli("perf", tmp_path, "--format", "json")
    (finding,) = result.findings("STRAGGLER_NODE")
    assert finding["status"] == "SKIPPED"
    assert "same nodes" in finding["title"]


def test_runs_without_a_host_list_are_left_out_with_the_reason(cli: Any, perf: Any) -> None:
    result = cli(
        "perf",
        perf.nccl_tests / "p5-48xlarge-2node-efa-allreduce-slurm-healthy-noheader.txt",
        "--format",
        "json",
    )
    (finding,) = result.findings("STRAGGLER_NODE")
    assert finding["status"] == "SKIPPED"
    assert "no host list" in finding["title"]
