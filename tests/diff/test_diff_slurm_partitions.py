"""diff over Slurm `diagnose` bundles made of real captures of one test Slurm 22.05: the
partition as slurm.conf set it, and after `scontrol update partitionname=debug maxtime=30
maxnodes=2 state=DOWN defmempercpu=256` (tests/fixtures/slurm/SOURCES.md). Every limit that
moved is named; a bundle from before partitions were collected says so instead of matching."""

from __future__ import annotations

from pathlib import Path

from diff_helpers import ROOT, run_cli

from hyperpod_nccl.diff import diff_paths
from hyperpod_nccl.model import Status
from hyperpod_nccl.snapshot import Snapshot
from hyperpod_nccl.snapshot.items import SLURM_CONFIG, SLURM_PARTITIONS, SLURM_SINFO

SLURM = ROOT / "tests" / "fixtures" / "slurm"
BEFORE = "scontrol-show-partition-o-22.05.txt"
AFTER = "scontrol-show-partition-o-changed-22.05.txt"


def _bundle(target: Path, partitions: str | None, *, unreached: str | None = None) -> str:
    """A Slurm diagnose bundle: the same real configuration and nodes on every side, and the
    partitions capture given (none: a bundle made before the item existed)."""
    snapshot = Snapshot()
    snapshot.meta.update({"command": "diagnose", "orchestrator": "slurm"})
    snapshot.put_text(SLURM_CONFIG, (SLURM / "scontrol-show-config-22.05.txt").read_text())
    snapshot.put_text(SLURM_SINFO, (SLURM / "sinfo-22.05.json").read_text())
    if partitions is not None:
        snapshot.put_text(SLURM_PARTITIONS, (SLURM / partitions).read_text())
    if unreached is not None:
        snapshot.missing(SLURM_PARTITIONS, unreached, "slurmctld")
    snapshot.save(str(target))
    return str(target)


def test_every_changed_limit_is_one_change_of_the_partition_finding(tmp_path: Path) -> None:
    report = diff_paths(_bundle(tmp_path / "good", BEFORE), _bundle(tmp_path / "bad", AFTER))
    (finding,) = [f for f in report.findings if f.code == "DIFF_SLURM_PARTITION"]
    assert [
        (c["item"], c["change"], *c["good"], *c["bad"]) for c in finding.details["changes"]
    ] == [
        # In the order they matter: can it run at all, for how long, on how many nodes.
        ("debug State", "changed", "UP", "DOWN"),
        ("debug MaxTime", "changed", "UNLIMITED", "00:30:00"),
        ("debug MaxNodes", "changed", "UNLIMITED", "2"),
        ("debug DefMem", "changed", "DefMemPerNode=UNLIMITED", "DefMemPerCPU=256"),
    ]
    assert finding.title.endswith("partition debug MaxNodes: UNLIMITED -> 2; and 1 more")
    # Nothing failed differently (same nodes, no jobs): a difference to look at, not a cause.
    assert finding.status is Status.WARN and report.root_cause is None
    assert [e.source for e in finding.evidence] == [SLURM_PARTITIONS] * 4
    assert "partition debug State: UP -> DOWN" in [e.text for e in finding.evidence]
    assert report.differences == [finding]  # the rest of both sides is the same


def test_the_same_partitions_give_no_difference(tmp_path: Path) -> None:
    report = diff_paths(_bundle(tmp_path / "good", AFTER), _bundle(tmp_path / "bad", AFTER))
    assert report.differences == []
    assert "Slurm partition limits" in report.summary["compared"]


def test_a_bundle_without_partitions_is_not_compared_and_says_why(tmp_path: Path) -> None:
    report = diff_paths(_bundle(tmp_path / "good", None), _bundle(tmp_path / "bad", AFTER))
    assert report.differences == []  # not a silent match either:
    (note,) = [n for n in report.not_checked if n.check == "diff: Slurm partition limits"]
    assert note.reason == (
        "only BAD shows them, so they were not compared (GOOD: the bundle has no "
        f"{SLURM_PARTITIONS} (made before it was collected))"
    )
    assert "Slurm partition limits" not in report.summary["compared"]


def test_neither_side_with_partitions_is_said_too(tmp_path: Path) -> None:
    unreached = "not queried: scontrol ping reports no slurmctld UP"
    good = _bundle(tmp_path / "good", None)
    bad = _bundle(tmp_path / "bad", None, unreached=unreached)
    result = run_cli("diff", good, bad)
    assert result.rc == 0, result.stderr
    assert (
        "  - diff: Slurm partition limits: neither side shows them, so they were not compared "
        "(GOOD: the bundle has no slurm/scontrol_show_partition.txt (made before it was "
        f"collected); BAD: {SLURM_PARTITIONS}: {unreached})"
    ) in result.stdout.splitlines()
