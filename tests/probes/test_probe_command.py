"""`hyperpod-nccl probe` end to end, as a user runs it (a real process)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from hyperpod_nccl.probes.catalog import PROBE_IDS
from hyperpod_nccl.snapshot import Snapshot

Sample = Callable[[str], str]
HOST_CODES = {
    "MEMLOCK",
    "SHM_TOO_SMALL",
    "SLURM_REMOVEIPC",
    "STALE_SHARED_MEMORY",
    "NODE_INVENTORY",
    "GPU_XID",
}


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "hyperpod_nccl.cli", *args],
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_probe_on_this_machine_reports_host_checks_and_skips_gpu_ones() -> None:
    done = cli("probe", "--format", "json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["schema"] == "hyperpod-nccl/report/v1" and report["command"] == "probe"
    assert report["issues_found"] == sum(1 for f in report["findings"] if f["status"] == "FAIL")
    assert report["summary"]["nodes"] == 1 and report["summary"]["reached"] == 1
    ran = {f["code"] for f in report["findings"] if f["status"] not in ("SKIPPED", "INCOMPLETE")}
    assert ran >= HOST_CODES, HOST_CODES - ran
    assert not [f for f in report["findings"] if f["code"] == "CHECK_FAILED"]
    if shutil.which("nvidia-smi") is None:
        (ecc,) = [f for f in report["findings"] if f["code"] == "GPU_ECC"]
        assert ecc["status"] == "SKIPPED" and "nvidia-smi is not installed" in ecc["title"]
    for f in report["findings"]:
        assert f["reference"], f["code"]
    assert "probed 1 of 1 node(s) through local" in done.stderr


def test_text_report_and_catalog_listing() -> None:
    text = cli("probe", "--probes", "host_info,shm,processes")
    assert text.returncode == 0 and text.stdout.startswith("hyperpod-nccl probe")
    assert "Issues Found:" in text.stdout
    listing = cli("probe", "--list")
    assert listing.returncode == 0 and all(pid in listing.stdout for pid in PROBE_IDS)
    as_json = cli("probe", "--list", "--format", "json")
    catalog = json.loads(as_json.stdout)
    assert as_json.returncode == 0 and catalog["schema"] == "hyperpod-nccl/probe-catalog/v1"
    assert [p["id"] for p in catalog["probes"]] == list(PROBE_IDS)


def test_bad_input_is_one_line_and_a_documented_exit_code(tmp_path: Path) -> None:
    for args, code, message in (
        (["--probes", "nope"], 2, "error: unknown probe id(s): nope (see --list)"),
        (
            ["--since", "yesterday-ish"],
            2,
            "error: invalid --since 'yesterday-ish': expected a duration",
        ),
        (
            ["--concurrency", "0"],
            2,
            "error: --node-timeout, --deadline, --start-rate must be positive",
        ),
        (["--slurm-nodes", "node01;rm"], 2, "error: not a valid Slurm node name"),
        (["--sample-nodes", "2"], 2, "error: --slurm-job, --sample-nodes and --prefer-nodes need"),
        (["--bundle", str(tmp_path / "none.tar.gz")], 1, "error: "),
    ):
        done = cli("probe", *args)
        assert done.returncode == code, (args, done.stderr)
        assert done.stderr.startswith(message) and "Traceback" not in done.stderr
        assert len(done.stderr.strip().splitlines()) == 1


def _finding_keys(done: subprocess.CompletedProcess[str]) -> list[tuple[str, str, str]]:
    return sorted((f["code"], f["status"], f["title"]) for f in json.loads(done.stdout)["findings"])


def test_saved_bundle_replays_to_the_same_findings(tmp_path: Path) -> None:
    bundle = tmp_path / "node.tar.gz"
    live = cli("probe", "--save-bundle", str(bundle), "--format", "json")
    assert live.returncode == 0 and bundle.is_file()
    replay = cli("probe", "--bundle", str(bundle), "--format", "json")
    assert replay.returncode == 0
    assert _finding_keys(live) == _finding_keys(replay)


def test_fail_on_exits_3_for_a_bundle_with_a_p0(tmp_path: Path, sample: Sample) -> None:
    snap = Snapshot()
    snap.put_text(
        "nodes/gpu-7/gpu_ecc.txt", sample("nvidia-smi/smi-q-a100-ecc-remap-pending-xid63.txt")
    )
    snap.put_json("nodes/gpu-7/session.json", {"transport": "test"})
    path = snap.save(str(tmp_path / "bundle"))
    done = cli("probe", "--bundle", str(path), "--fail-on", "P0", "--format", "json")
    assert done.returncode == 3
    report = json.loads(done.stdout)
    assert report["summary"]["failures_by_node"] == {"gpu-7": 1}


def test_probe_slurm_nodes_through_srun() -> None:
    idle = subprocess.run(
        ["sinfo", "-h", "-N", "-t", "idle", "-o", "%N"],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    ).stdout.split()
    assert idle, "the loopback Slurm (scripts/services.d/10-slurm.sh) has no idle node"
    done = cli(
        "probe", "--slurm-nodes", idle[0], "--probes", "host_info,shm,removeipc", "--format", "json"
    )
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)["summary"]
    assert (summary["transport"], summary["reached"]) == ("slurm", 1)
