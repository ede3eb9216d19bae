"""The parts of Slurm-over-SSM on their own: which instance group is the controller (from real
DescribeCluster and ListClusterNodes shapes), the session command and how its output is read
back (through a real shell, with the CRLF line ends of the session's terminal), the read-only
allow-list applied before any session, a session that never answers, and a controller SSM
cannot reach."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from seams import MotoServer, install_fake_ssm, slurm_cluster

from hyperpod_nccl import api
from hyperpod_nccl.collect.runner import CommandRefused
from hyperpod_nccl.collect.slurm_ssm import (
    Controller,
    SsmSlurmRunner,
    find_controller,
    non_compute_groups,
    parse_remote_output,
    remote_command,
)
from hyperpod_nccl.collect.transports.ssm import SsmTarget
from hyperpod_nccl.model import Status

CLUSTER_ID = "s1u2r3m4c5l6"


def group(name: str, node_type: str | None = None) -> dict[str, Any]:
    """An InstanceGroups entry of DescribeCluster (ClusterInstanceGroupDetails)."""
    entry: dict[str, Any] = {"InstanceGroupName": name, "InstanceType": "ml.m5.12xlarge"}
    if node_type:
        entry["SlurmConfig"] = {"NodeType": node_type, "PartitionNames": []}
    return entry


def node(group_name: str, instance: str, status: str = "Running") -> dict[str, Any]:
    """A ClusterNodeSummaries entry of ListClusterNodes."""
    return {
        "InstanceGroupName": group_name,
        "InstanceId": instance,
        "InstanceType": "ml.m5.12xlarge",
        "InstanceStatus": {"Status": status, "Message": ""},
    }


NODES = [
    node("controller-machine", "i-0c0000000000000b2", "Pending"),
    node("controller-machine", "i-0c0000000000000b3"),
    node("login-group", "i-0d00000000000000a"),
    node("gpu-workers", "i-0e00000000000000a"),
]


@pytest.mark.parametrize(
    ("groups", "override", "expected"),
    [
        # The API's own Slurm layout wins over names.
        (
            [group("controller-machine"), group("head", "Controller"), group("gpu-workers")],
            None,
            ("head", "SlurmConfig.NodeType is Controller"),
        ),
        # The lifecycle scripts' name; the Running instance before the Pending one.
        (
            [group("controller-machine"), group("login-group"), group("gpu-workers")],
            None,
            ("controller-machine", "its name says controller or head"),
        ),
        ([group("gpu-workers")], "gpu-workers", ("gpu-workers", "--controller-group")),
    ],
)
def test_the_controller_group(
    groups: list[dict[str, Any]], override: str | None, expected: tuple[str, str]
) -> None:
    names = {g["InstanceGroupName"] for g in groups}
    nodes = [*NODES, node("head", "i-0f00000000000000a")] if "head" in names else NODES
    found = find_controller({"InstanceGroups": groups}, nodes, override)
    assert isinstance(found, Controller)
    assert (found.group, found.found_by) == expected
    if found.group == "controller-machine":
        assert found.instance_id == "i-0c0000000000000b3"  # Running, though the higher ID


@pytest.mark.parametrize(
    ("names", "why"),
    [
        (
            ["slurm-controller", "head-node", "gpu-workers"],
            "several instance groups could hold the Slurm controller (head-node, "
            "slurm-controller); pass --controller-group",
        ),
        (
            ["gpu-workers", "cpu-workers", "controllerless"],  # not the word `controller`
            "no instance group is the Slurm controller by SlurmConfig or by name (groups: "
            "controllerless, cpu-workers, gpu-workers); pass --controller-group",
        ),
    ],
)
def test_no_single_controller_group_says_why(names: list[str], why: str) -> None:
    nodes = [node(name, f"i-0e00000000000000{n}") for n, name in enumerate(names)]
    assert find_controller({"InstanceGroups": [group(n) for n in names]}, nodes, None) == why
    assert find_controller({"InstanceGroups": [group(n) for n in names]}, nodes, "gpu") == (
        f"--controller-group gpu: no such instance group (groups: {', '.join(sorted(names))})"
    )


def test_a_group_without_instances_and_the_groups_a_sample_leaves_out() -> None:
    cluster = {"InstanceGroups": [group("controller-machine"), group("workers")]}
    assert find_controller(cluster, [node("workers", "i-0e00000000000000a")], None) == (
        "instance group controller-machine (its name says controller or head) has no "
        "instances in ListClusterNodes"
    )
    layout = {"InstanceGroups": [group("ctl", "Controller"), group("entry", "Login")]}
    assert non_compute_groups(layout, NODES, None) == {"ctl", "entry", "login-group"}


@pytest.mark.parametrize(
    "argv",
    [
        ["scontrol", "show", "config"],
        ["cat", "/etc/slurm/prolog it's $(here).sh"],  # quotes and $() stay words, not code
        ["sh", "-c", "printf 'out\\n\\n'; echo 'err 1' >&2; echo 'err 2' >&2; exit 3"],
        ["sh", "-c", "printf 'no newline at the end'"],
        ["sh", "-c", "true"],
    ],
)
def test_session_command_and_output_round_trip(argv: list[str]) -> None:
    marker = "hpn-0123456789abcdef"
    direct = subprocess.run(
        argv, capture_output=True, text=True, env={"LC_ALL": "C", "PATH": "/usr/bin:/bin"}
    )
    # What the session prints: banners, then the command's single stream, CRLF line ends.
    shell = subprocess.run(
        ["sh", "-c", remote_command(argv, marker)], capture_output=True, text=True
    )
    session = "\r\nStarting session with SessionId: x-1\r\n" + shell.stdout.replace("\n", "\r\n")
    session += "\r\n\r\nExiting session with sessionId: x-1.\r\n\r\n"
    assert parse_remote_output(session, marker) == (
        direct.returncode,
        direct.stdout,
        direct.stderr.rstrip("\n"),
    )


def test_output_without_markers_means_the_command_never_ran() -> None:
    assert parse_remote_output("\nCannot perform start session: EOF\n", "hpn-1") is None
    assert parse_remote_output("hpn-1:out\n0\n", "hpn-1") is None  # cut short


def _runner(cluster_id: str = CLUSTER_ID, instance: str = "i-0c0000000000000b3") -> SsmSlurmRunner:
    return SsmSlurmRunner(SsmTarget(cluster_id, "controller-machine", instance), "us-west-2", None)


def test_commands_off_the_allow_list_never_reach_a_session(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ssm = install_fake_ssm(tmp_path, monkeypatch)
    runner = _runner()
    for argv in (
        ["scontrol", "update", "nodename=node01", "state=drain", "reason=x"],
        ["scancel", "42"],
        ["cat", "/etc/shadow"],
        ["sh", "-c", "sinfo"],
    ):
        with pytest.raises(CommandRefused):
            runner.run(argv, 10)
    assert ssm.calls() == []
    result = runner.run(["scontrol", "ping"], 60)  # allowed: runs, here on the real Slurm
    assert result.rc == 0 and "is UP" in result.stdout and result.stderr == ""
    (call,) = ssm.calls()
    target = f"sagemaker-cluster:{CLUSTER_ID}_controller-machine-i-0c0000000000000b3"
    assert call["argv"][:4] == ["ssm", "start-session", "--target", target]


def test_a_session_that_never_answers_is_ended_at_the_timeout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install_fake_ssm(tmp_path, monkeypatch)
    runner = _runner()
    monkeypatch.setenv("FAKE_SSM_HANG", runner.target)
    started = time.monotonic()
    result = runner.run(["sinfo", "--json"], 2)
    assert result.timed_out and result.rc is None
    assert time.monotonic() - started < 10


def test_a_controller_ssm_cannot_reach_skips_slurm_after_one_session(
    moto: MotoServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cluster = slurm_cluster(moto, monkeypatch)
    ssm = install_fake_ssm(tmp_path, monkeypatch)
    controller = cluster.target("controller-machine", cluster.controller)
    monkeypatch.setenv("FAKE_SSM_DISCONNECTED", controller)
    report = api.diagnose(cluster=cluster.world.cluster_name, nodes=[cluster.instance_of["node01"]])
    assert ssm.targets().count(controller) == 1
    slurm = {f.code: f for f in report.findings if f.details.get("item", "").startswith("slurm/")}
    for code in ("SLURMCTLD_DOWN", "SLURM_MUNGE_FAILED", "SLURM_NODE_STATE", "SLURM_JOB_PENDING"):
        assert slurm[code].status is Status.SKIPPED, (code, slurm[code].title)
    assert {f.status for f in slurm.values()} == {Status.SKIPPED}
    assert f"TargetNotConnected: {controller} is not connected." in slurm["SLURMCTLD_DOWN"].title
    # node01 answered its probe session: its own RemoveIPC was read there.
    removeipc = [f for f in report.findings if f.code == "SLURM_REMOVEIPC"]
    assert [f.status for f in removeipc] == [Status.SKIPPED, Status.PASS]
