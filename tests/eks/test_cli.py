"""`hyperpod-nccl diagnose` on the command line: argument validation with one-line errors and
exit code 2, collection failures with exit code 1, the JSON contract, --fail-on, and the
README's first command run as a real process."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import Lab
from hyperpod_nccl.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "src" / "hyperpod_nccl" / "examples" / "bundles"
# Every finding carries these fields (contract.md).
_FIELDS = "code status priority title root_cause explains ranks hosts first_seen evidence"
CONTRACT_FIELDS = {*_FIELDS.split(), "reference", "suggested_commands"}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--cluster", "ml_cluster!", "--region", "us-west-2"],
            "invalid cluster name 'ml_cluster!'",
        ),
        (["--cluster", "ml-cluster", "--region", "mars-north-1x"], "invalid region"),
        (
            ["--cluster", "arn:aws:sagemaker:us-gov-west-1:123456789012:cluster/a1b2c3d4e5f6"],
            "belongs to partition aws-us-gov, not aws",
        ),
        (
            [
                "--cluster",
                "arn:aws:sagemaker:us-west-2:123456789012:cluster/a1b2c3d4e5f6",
                "--region",
                "us-east-1",
            ],
            "contradicts the cluster ARN",
        ),
        (
            ["--cluster", "ml-cluster", "--region", "us-west-2", "--since", "2 hours"],
            "invalid --since",
        ),
        (["--cluster", "ml-cluster", "--region", "us-west-2", "--since", "30d"], "at most 14d"),
        (
            ["--cluster", "ml-cluster", "--region", "us-west-2", "--node", "node-7"],
            "invalid node id 'node-7'",
        ),
        (
            ["--cluster", "ml-cluster", "--region", "us-west-2", "--namespace", "Training"],
            "invalid namespace",
        ),
        (
            [
                "--cluster",
                "ml-cluster",
                "--region",
                "us-west-2",
                "--all-nodes",
                "--node",
                "i-0123456789abcdef0",
            ],
            "--all-nodes cannot be combined",
        ),
        (
            ["--cluster", "ml-cluster", "--region", "us-west-2", "--sample-nodes", "0"],
            "--sample-nodes 0",
        ),
        (["--region", "us-west-2", "--orchestrator", "eks"], "--cluster NAME|ARN is required"),
        (["--cluster", "ml-cluster", "--orchestrator", "k8s"], "invalid choice"),
    ],
)
def test_bad_arguments_exit_2_with_one_line(
    args: list[str],
    message: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-west-2")
    code = main(["diagnose", *args])
    err = capsys.readouterr().err
    assert code == 2
    assert message in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_region_comes_from_the_environment_and_govcloud_is_accepted(
    lab: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    env: Lab = lab("healthy")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-gov-west-1")  # the cluster is not there
    code = main(["diagnose", "--cluster", "ml-cluster"])
    err = capsys.readouterr().err
    assert code == 1
    assert "not found in us-gov-west-1" in err
    monkeypatch.setenv("AWS_DEFAULT_REGION", env.world.region)
    assert main(["diagnose", "--cluster", "ml-cluster", "--format", "json"]) == 0


def test_cluster_not_found_exit_1_lists_clusters(
    lab: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    lab("healthy")
    code = main(["diagnose", "--cluster", "no-such-cluster"])
    err = capsys.readouterr().err
    assert code == 1
    assert (
        err.strip()
        == "error: cluster 'no-such-cluster' not found in us-west-2; clusters there: ml-cluster"
    )


def test_missing_credentials_exit_1(
    lab: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    lab("healthy")
    monkeypatch.delenv("AWS_ACCESS_KEY_ID")
    monkeypatch.delenv("AWS_SECRET_ACCESS_KEY")
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    assert main(["diagnose", "--cluster", "ml-cluster"]) == 1
    assert "no AWS credentials found" in capsys.readouterr().err


def test_json_output_keeps_the_contract(lab: Any, capsys: pytest.CaptureFixture[str]) -> None:
    lab("oom-one-rank")
    assert (
        main(["diagnose", "--cluster", "ml-cluster", "--namespace", "training", "--format", "json"])
        == 0
    )
    data = json.loads(capsys.readouterr().out)
    assert data["schema"] == "hyperpod-nccl/report/v1"
    assert data["root_cause"] == "CONTAINER_OOM"
    assert data["issues_found"] == sum(1 for f in data["findings"] if f["status"] == "FAIL")
    for f in data["findings"]:
        assert set(f) >= CONTRACT_FIELDS
        if f["status"] == "FAIL":
            assert f["reference"] and f["reference"].startswith("debugging-guide.md#"), f["code"]


def test_fail_on_turns_a_p0_into_exit_3(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diagnose", "--bundle", str(EXAMPLES / "oom-one-rank"), "--fail-on", "P0"]) == 3
    assert main(["diagnose", "--bundle", str(EXAMPLES / "healthy-eks"), "--fail-on", "P2"]) == 0


def test_readme_first_command_runs_as_a_process(tmp_path: Path) -> None:
    """The README's and --help's first line, from any directory: the bundle is package data."""
    exe = shutil.which("hyperpod-nccl", path=str(Path(sys.executable).parent))
    assert exe, "the console script is not installed in this environment"
    result = subprocess.run(
        [exe, "diagnose", "--example", "oom-one-rank"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[1].startswith(
        "Root cause: CONTAINER_OOM: 1 pod OOM-killed (exit 137): llama-pretrain-worker-1"
    )
    assert lines[-1] == "Issues Found: 3"
