"""`diagnose` without --cluster on a Slurm host, against the real Slurm, and its bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from slurmlab import sh

from hyperpod_nccl.api import diagnose
from hyperpod_nccl.collect.slurm_local import NO_SLURM_HERE
from hyperpod_nccl.exit_codes import InputError
from hyperpod_nccl.report import render


def test_local_slurm_diagnosis_names_the_down_node_and_says_aws_was_not_checked(
    live_slurm: list[str], tmp_path: Path
) -> None:
    sh("scontrol", "update", "nodename=node03", "state=down", "reason=hardware failure: PSU")
    bundle = tmp_path / "case.tar.gz"
    document = json.loads(render(diagnose(save_bundle=str(bundle)), "json", None))
    assert document["summary"]["orchestrator"] == "slurm"
    assert document["issues_found"] == len(
        [f for f in document["findings"] if f["status"] == "FAIL"]
    )
    down = next(f for f in document["findings"] if f["code"] == "SLURM_NODE_DOWN")
    assert down["hosts"] == ["node03"] and down["status"] == "FAIL"
    assert down["reference"] == "debugging-guide.md#slurm-node-down"
    checked_later = {n["check"].split(".")[0] for n in document["not_checked"]}
    assert "cluster" in checked_later  # the AWS side, reported as not checked
    # The saved bundle replays to the same findings with no Slurm and no AWS.
    replayed = json.loads(render(diagnose(bundle=str(bundle)), "json", None))
    assert [(f["code"], f["status"], f["hosts"]) for f in replayed["findings"]] == [
        (f["code"], f["status"], f["hosts"]) for f in document["findings"]
    ]


def test_no_slurm_commands_and_no_cluster_is_a_clear_input_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # a PATH without sinfo, scontrol, squeue
    with pytest.raises(InputError) as raised:
        diagnose()
    assert str(raised.value) == NO_SLURM_HERE
    assert "\n" not in NO_SLURM_HERE
