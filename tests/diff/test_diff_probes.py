"""diff over `probe` bundles made of real node outputs: the versions probe prints the fabric
manager's version as nv-fabricmanager itself prints it, and a node whose driver moved on
while its fabric manager stayed is named as such (NVIDIA's fabric manager must be the
driver's own version), as is every version that changed."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

from diff_helpers import ROOT

from hyperpod_nccl.diff import diff_paths
from hyperpod_nccl.model import Status
from hyperpod_nccl.probes.catalog import CATALOG
from hyperpod_nccl.probes.parsers.host import parse_versions
from hyperpod_nccl.snapshot import Snapshot

PROBES = ROOT / "tests" / "fixtures" / "probes"
FM_450 = PROBES / "versions" / "nv-fabricmanager-version-450.102.04.txt"
SMI_580 = PROBES / "nvidia-smi" / "smi-default-a100-sxm4-40gb-p4d-partial.txt"
SMI_550 = PROBES / "nvidia-smi" / "smi-default-a100-pcie-1gpu-100pct-util-truncated.txt"


def _sample(path: Path) -> str:
    lines = path.read_text().splitlines()
    assert lines[0].startswith("# source:")
    return "\n".join(lines[1:]) + "\n"


def _versions_probe(tmp_path: Path, fabric_manager: Path | None) -> str:
    """The catalog's own versions script, run here; nv-fabricmanager on its PATH prints the
    captured output of the real tool (the script's other lines read this host as they are)."""
    bin_dir = tmp_path / f"bin-{fabric_manager.stem if fabric_manager else 'none'}"
    bin_dir.mkdir()
    if fabric_manager is not None:
        tool = bin_dir / "nv-fabricmanager"
        captured = tmp_path / f"{fabric_manager.stem}.out"
        captured.write_text(_sample(fabric_manager))
        tool.write_text(f'#!/bin/sh\n[ "$1" = --version ] && cat {captured}\n')
        tool.chmod(tool.stat().st_mode | stat.S_IXUSR)
    done = subprocess.run(
        list(CATALOG["versions"].argv),
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PATH": f"{bin_dir}:/usr/bin:/bin"},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_versions_probe_reads_the_fabric_manager_version(tmp_path: Path) -> None:
    text = _versions_probe(tmp_path, FM_450)
    assert "fabricmanager: Fabric Manager version is : 450.102.04" in text
    assert parse_versions(text).fabric_manager == "450.102.04"
    # Where nv-fabricmanager is not installed (no NVSwitch) the probe says nothing about it.
    assert parse_versions(_versions_probe(tmp_path, None)).fabric_manager is None


def _probe_bundle(target: Path, smi: Path, versions: str) -> str:
    snapshot = Snapshot()
    snapshot.meta["command"] = "probe"
    try:
        for node in ("ip-10-1-7-41", "ip-10-1-7-42"):
            snapshot.put_text(f"nodes/{node}/gpu_inventory.txt", _sample(smi))
            snapshot.put_text(f"nodes/{node}/versions.txt", versions)
            snapshot.put_json(
                f"nodes/{node}/session.json", {"transport": "test", "probes": ["versions"]}
            )
        snapshot.save(str(target))
    finally:
        snapshot.close()
    return str(target)


def test_a_driver_that_moved_on_without_its_fabric_manager_is_named(tmp_path: Path) -> None:
    """GOOD: driver 550.90.12. BAD: the same nodes on driver 580.126.09, the fabric manager
    still 450.102.04 on both sides: only BAD's driver moved, and the finding says the fabric
    manager is now not the driver's version."""
    versions = _versions_probe(tmp_path, FM_450)
    good = _probe_bundle(tmp_path / "good", SMI_550, versions)
    bad = _probe_bundle(tmp_path / "bad", SMI_580, versions)
    report = diff_paths(good, bad)
    assert report.good.kind == report.bad.kind == "probe"
    (finding,) = [f for f in report.findings if f.code == "DIFF_DRIVER_VERSION"]
    changes = {c["item"]: c for c in finding.details["changes"]}
    assert set(changes["NVIDIA driver"]["good"]) == {"550.90.12"}
    assert set(changes["NVIDIA driver"]["bad"]) == {"580.126.09"}
    pairing = changes["fabric manager against the driver"]
    assert set(pairing["good"]) == {"450.102.04 with driver 550.90.12"}
    assert set(pairing["bad"]) == {"450.102.04 with driver 580.126.09"}
    assert pairing["bad"]["450.102.04 with driver 580.126.09"] == ["ip-10-1-7-41", "ip-10-1-7-42"]
    assert "fabric manager" not in changes  # its own version did not change
    # Neither side holds a failure to explain, so it is a warning, not a cause.
    assert finding.status is Status.WARN and finding.explains == []
    assert finding.hosts == ["ip-10-1-7-41", "ip-10-1-7-42"]
    # The same bundles against themselves: nothing.
    assert diff_paths(bad, bad).findings == []
