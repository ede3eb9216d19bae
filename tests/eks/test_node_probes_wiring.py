"""diagnose hands node probes to the SSM transport with the right targets, and starts no
session when session-manager-plugin is missing. The AWS CLI is a stub that records its
arguments (no SSM endpoint can run here); everything else is the real run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import Lab, by_code
from hyperpod_nccl.model import Status

FAILED_NODE = "i-00005a3c7e9b1d201"


def _stub(directory: Path, name: str, body: str) -> None:
    path = directory / name
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)


def _tools(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, plugin: bool) -> Path:
    tools = tmp_path / "bin"
    tools.mkdir()
    calls = tmp_path / "aws-calls"
    _stub(tools, "aws", f'echo "$@" >> {calls}\n')
    if plugin:
        _stub(tools, "session-manager-plugin", "exit 0\n")
    monkeypatch.setenv("PATH", str(tools))
    return calls


def test_no_session_is_started_without_session_manager_plugin(
    lab: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env: Lab = lab("node-trouble")
    calls = _tools(tmp_path, monkeypatch, plugin=False)
    report = env.diagnose(sample_nodes=2)
    assert not calls.exists()  # the AWS CLI was never asked to start a session
    skipped = by_code(report)["NODE_UNREACHABLE"][0]
    assert skipped.status is Status.SKIPPED and "session-manager-plugin" in skipped.title
    # The sample puts the node HyperPod reports failed first.
    assert skipped.hosts[0] == FAILED_NODE or FAILED_NODE in skipped.hosts
    assert len(skipped.hosts) == 2


def test_sessions_target_the_nodes_chosen(
    lab: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env: Lab = lab("node-trouble")
    calls = _tools(tmp_path, monkeypatch, plugin=True)
    bundle = tmp_path / "b"
    env.diagnose(nodes=[FAILED_NODE], save_bundle=str(bundle))
    argv = calls.read_text().split()
    assert argv[:4] == [
        "ssm",
        "start-session",
        "--target",
        f"sagemaker-cluster:a1b2c3d4e5f6_worker-group-1-{FAILED_NODE}",
    ]
    assert "AWS-StartNonInteractiveCommand" in argv and argv[-2:] == ["--region", "us-west-2"]
    targets = json.loads((bundle / "probes/targets.json").read_text())["targets"]
    assert targets == [FAILED_NODE]
    node = json.loads(
        (bundle / f"aws/sagemaker/describe_cluster_node/{FAILED_NODE}.json").read_text()
    )
    assert node["NodeDetails"]["InstanceStatus"]["Status"] == "Failure"
