"""Local Slurm diagnosis (head node, no --cluster) against the real Slurm, and its bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from slurmlab import sh

from hyperpod_nccl.exit_codes import InputError
from hyperpod_nccl.report import render
from hyperpod_nccl.slurm.diagnose import NO_SLURM_HERE, collect_local_slurm, slurm_report
from hyperpod_nccl.snapshot import Snapshot


def test_a_down_node_is_the_root_cause_and_aws_is_reported_not_checked(
    live_slurm: list[str], tmp_path: Path
) -> None:
    sh("scontrol", "update", "nodename=node03", "state=down", "reason=hardware failure: PSU")
    snapshot = collect_local_slurm()
    report = slurm_report(snapshot, [])
    document = report.to_dict()
    assert document["root_cause"] == "SLURM_NODE_DOWN"
    assert document["issues_found"] == len(
        [f for f in document["findings"] if f["status"] == "FAIL"]
    )
    down = next(f for f in document["findings"] if f["code"] == "SLURM_NODE_DOWN")
    assert down["hosts"] == ["node03"]
    assert down["reference"] == "debugging-guide.md#slurm-node-down"
    # A saved bundle replays to the same findings without Slurm.
    bundle = snapshot.save(str(tmp_path / "bundle.tar.gz"))
    replayed = slurm_report(Snapshot.load(str(bundle))).to_dict()
    assert [(f["code"], f["status"], f["hosts"]) for f in replayed["findings"]] == [
        (f["code"], f["status"], f["hosts"]) for f in document["findings"]
    ]
    json.loads(render(report, "json", None))


def test_no_slurm_commands_and_no_cluster_is_a_clear_input_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # a PATH without sinfo, scontrol, squeue
    with pytest.raises(InputError) as raised:
        collect_local_slurm()
    assert str(raised.value) == NO_SLURM_HERE
    assert "\n" not in NO_SLURM_HERE
