"""Partition limits from `scontrol show partition`: the parser on real captures of Slurm 22.05
(tests/fixtures/slurm/SOURCES.md gives the commands that made each state), and the collection
and diff of the live test Slurm with a limit changed and put back."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from slurmlab import SLURM_FIXTURES, collect, restore_partition, sh, wait_for

from hyperpod_nccl.api import diagnose
from hyperpod_nccl.diff.run import diff_paths
from hyperpod_nccl.slurm.nodes import SlurmParseError
from hyperpod_nccl.slurm.partitions import LIMITS, parse_show_partitions
from hyperpod_nccl.snapshot.items import SLURM_PARTITIONS


def _read(name: str) -> str:
    return (SLURM_FIXTURES / name).read_text()


def _by_name(text: str) -> dict[str, dict[str, str]]:
    return {p.name: p.limits() for p in parse_show_partitions(text)}


def test_one_line_and_multi_line_forms_read_the_same() -> None:
    one_line = parse_show_partitions(_read("scontrol-show-partition-o-limits-22.05.txt"))
    multi_line = parse_show_partitions(_read("scontrol-show-partition-limits-22.05.txt"))
    assert [p.name for p in one_line] == ["debug", "gpu"]
    assert one_line == multi_line


def test_the_limits_are_the_ones_the_partition_was_created_with() -> None:
    # The capture's `scontrol create` (SOURCES.md) set these; Slurm prints times in its own
    # [days-]hours:minutes:seconds form and the per-GPU default inside JobDefaults.
    gpu = _by_name(_read("scontrol-show-partition-o-limits-22.05.txt"))["gpu"]
    assert gpu == {
        "State": "DRAIN",
        "MaxTime": "2-00:00:00",
        "DefaultTime": "04:00:00",
        "OverTimeLimit": "5",
        "MinNodes": "2",
        "MaxNodes": "4",
        "MaxCPUsPerNode": "2",
        "DefMem": "DefMemPerCPU=512 DefMemPerGPU=2048",
        "MaxMem": "MaxMemPerNode=1000",
        "OverSubscribe": "FORCE:2",
        "PreemptMode": "REQUEUE",
        "GraceTime": "30",
        "AllowGroups": "root,adm",
        "AllowAccounts": "research,ops",
        "DenyAccounts": "(none)",
        "AllowQos": "ALL",
        "DenyQos": "(none)",
        "QoS": "N/A",
        "Nodes": "node[01-04]",
    }
    assert list(gpu) == list(LIMITS)


def test_a_default_partition_and_the_fields_outside_the_limits() -> None:
    (debug,) = parse_show_partitions(_read("scontrol-show-partition-o-22.05.txt"))
    limits = debug.limits()
    assert (limits["State"], limits["MaxTime"]) == ("UP", "UNLIMITED")
    assert limits["DefaultTime"] == "NONE"
    assert limits["DefMem"] == "DefMemPerNode=UNLIMITED"
    assert debug.job_defaults() == {}  # JobDefaults=(null)
    # TRES holds '=' in its value; it is kept whole, and is no limit compared.
    assert debug.fields["TRES"] == "cpu=12,mem=6000M,node=6,billing=12"
    assert debug.fields["TotalNodes"] == "6" and "TRES" not in limits


def test_the_changed_capture_differs_in_exactly_what_was_updated() -> None:
    before = _by_name(_read("scontrol-show-partition-o-22.05.txt"))["debug"]
    after = _by_name(_read("scontrol-show-partition-o-changed-22.05.txt"))["debug"]
    changed = {k: (before[k], after[k]) for k in before if before[k] != after[k]}
    assert changed == {
        "State": ("UP", "DOWN"),
        "MaxTime": ("UNLIMITED", "00:30:00"),
        "MaxNodes": ("UNLIMITED", "2"),
        "DefMem": ("DefMemPerNode=UNLIMITED", "DefMemPerCPU=256"),
    }


def test_no_partitions_and_output_that_is_not_scontrols() -> None:
    assert parse_show_partitions("") == []
    assert parse_show_partitions("No partitions in the system\n") == []
    with pytest.raises(SlurmParseError) as raised:
        parse_show_partitions(_read("scontrol-show-config-22.05.txt"))
    assert "\n" not in str(raised.value)


# ---------------------------------------------------------------------- live Slurm


@pytest.fixture
def debug_partition(live_slurm: list[str]) -> Iterator[str]:
    """The live debug partition's -o line; afterwards the limits the tests change are back."""
    before = sh("scontrol", "show", "partition", "debug", "-o").stdout
    try:
        yield before
    finally:
        restore_partition()
        assert sh("scontrol", "show", "partition", "debug", "-o").stdout == before


def test_collection_stores_what_scontrol_prints(debug_partition: str) -> None:
    snapshot = collect()
    text = snapshot.get_text(SLURM_PARTITIONS)
    assert text is not None
    (debug,) = parse_show_partitions(text)
    # Read another way: sinfo's availability and node count for the same partition.
    avail, nodes = sh("sinfo", "-h", "-p", "debug", "-o", "%a %D").stdout.split()
    assert (debug.name, debug.limits()["State"].lower()) == ("debug", avail)
    assert debug.fields["TotalNodes"] == nodes
    assert re.fullmatch(r"node\[\d+-\d+\]", debug.limits()["Nodes"])


def _submit_and_wait(reason: str) -> str:
    """The same job each time: one node for an hour; returns once squeue shows `reason`."""
    job = sh("sbatch", "-o", "/dev/null", "--parsable", "-t", "60", "--wrap", "sleep 600")
    job_id = job.stdout.strip()
    wait_for(
        lambda: sh("squeue", "-h", "-j", job_id, "-o", "%T %r").stdout.split() == reason.split(),
        60,
        f"job {job_id} to be {reason}",
    )
    return job_id


def test_a_lower_max_time_is_the_cause_of_the_job_now_pending(
    debug_partition: str, tmp_path: Path
) -> None:
    good, bad = tmp_path / "good.tar.gz", tmp_path / "bad.tar.gz"
    sh("scancel", _submit_and_wait("RUNNING None"))
    diagnose(save_bundle=str(good))  # the job ran: nothing pending
    sh("scontrol", "update", "partitionname=debug", "maxtime=45")
    # EnforcePartLimits=NO in the test Slurm: the job over the limit queues and waits.
    _submit_and_wait("PENDING PartitionTimeLimit")
    diagnose(save_bundle=str(bad))
    report = diff_paths(str(good), str(bad))
    root = report.root_cause
    assert root is not None and root.code == "DIFF_SLURM_PARTITION"
    assert root.explains == ["SLURM_JOB_PENDING"]
    limits = [c for c in root.details["changes"] if c["aspect"] == "slurm_partition_limits"]
    assert [(c["item"], c["good"], c["bad"]) for c in limits] == [
        ("debug MaxTime", {"UNLIMITED": ["cluster"]}, {"00:45:00": ["cluster"]})
    ]
    assert "partition debug MaxTime: UNLIMITED -> 00:45:00" in root.title
    assert not [n for n in report.not_checked if "partition limits" in n.check]
