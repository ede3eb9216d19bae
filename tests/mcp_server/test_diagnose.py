"""diagnose_cluster and diagnose_bundle over MCP, against the real test Slurm
(scripts/services.d/10-slurm.sh) and bundles it produces: a live, read-only diagnosis with
progress, and a saved bundle replayed to the report the CLI printed when it saved it."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcpclient import REPO, Server

from hyperpod_nccl.collect.slurm_local import NO_SLURM_HERE

EXAMPLE_BUNDLES = REPO / "src" / "hyperpod_nccl" / "examples" / "bundles"
DIAGNOSE_JSON = [sys.executable, "-m", "hyperpod_nccl.cli", "diagnose", "--format", "json"]


@pytest.fixture(scope="module")
def slurm_up() -> None:
    """The tests need the real Slurm; they fail, never skip, without it."""
    if shutil.which("scontrol") is None:
        pytest.fail("Slurm is not installed: run scripts/services-up.sh (make test does)")
    ping = subprocess.run(["scontrol", "ping"], capture_output=True, text=True, timeout=30)
    if "is UP" not in ping.stdout:
        pytest.fail(f"slurmctld is not up: {ping.stdout.strip()} {ping.stderr.strip()}")


def diagnose_with_the_cli(*options: str) -> dict[str, Any]:
    """The report `hyperpod-nccl diagnose --format json OPTIONS` prints."""
    done = subprocess.run(
        [*DIAGNOSE_JSON, *options], capture_output=True, text=True, check=True, timeout=300
    )
    report: dict[str, Any] = json.loads(done.stdout)
    return report


def comparable(document: dict[str, Any]) -> dict[str, Any]:
    """A diagnose report minus what differs between a live run and its replay."""
    varying = ("analysis_s", "replayed_from", "bundle_saved_to")
    summary = {k: v for k, v in document["summary"].items() if k not in varying}
    return {**document, "summary": summary}


def test_live_diagnosis_of_the_local_slurm_reports_progress_and_what_was_not_checked(
    slurm_up: None, server: Server
) -> None:
    call = server.call("diagnose_cluster", {})
    report = call.data
    assert report["command"] == "diagnose"
    assert report["summary"]["orchestrator"] == "slurm"
    assert report["summary"]["items_collected"] > 0
    codes = {f["code"] for f in report["findings"]}
    assert codes & {"SLURM_NODE_STATE", "SLURM_NODE_DOWN", "SLURM_NODE_DRAIN", "SLURMCTLD_DOWN"}
    assert report["issues_found"] == sum(1 for f in report["findings"] if f["status"] == "FAIL")
    # No cluster was named, so the AWS side is reported as not checked, never as passed.
    assert "cluster" in {n["check"].split(".")[0] for n in report["not_checked"]}
    assert call.progress[0][2] == "diagnosing the local Slurm: started"
    assert call.progress[-1][0] == call.progress[-1][1]


def test_a_saved_bundle_replays_to_the_report_made_when_it_was_saved(
    slurm_up: None, server: Server, tmp_path: Path
) -> None:
    bundle = tmp_path / "case.tar.gz"
    printed = diagnose_with_the_cli("--save-bundle", str(bundle))
    call = server.call("diagnose_bundle", {"path": str(bundle)})
    assert comparable(call.data) == comparable(printed)
    assert call.data["summary"]["replayed_from"] == str(bundle)
    assert call.progress[0][2] == f"replaying {bundle}: started"


def test_every_example_bundle_replays_through_mcp_as_through_the_cli(server: Server) -> None:
    """src/hyperpod_nccl/examples/bundles/ holds the bundles the README runs on (directories or .tar.gz)."""
    bundles = [
        p for p in sorted(EXAMPLE_BUNDLES.iterdir()) if p.is_dir() or p.name.endswith(".tar.gz")
    ]
    assert bundles, "the package ships no example bundle"
    for bundle in bundles:
        printed = diagnose_with_the_cli("--bundle", str(bundle))
        got = server.call("diagnose_bundle", {"path": str(bundle)}).data
        assert comparable(got) == comparable(printed), bundle


def test_no_cluster_and_no_slurm_on_this_host_is_a_one_line_error(
    server: Server, tmp_path: Path
) -> None:
    server.env["PATH"] = str(tmp_path)  # no sinfo, scontrol or squeue
    call = server.call("diagnose_cluster", {})
    assert call.error
    assert call.text == f"Error executing tool diagnose_cluster: {NO_SLURM_HERE}"
