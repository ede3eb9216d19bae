"""`diagnose --cluster` on a HyperPod Slurm cluster from a machine without Slurm commands: the
AWS side from moto, the Slurm side from the real loopback Slurm reached through an SSM session
to the controller (stand-in `aws` and session-manager-plugin relay the session's command to
this machine), Slurm node names matched to instance IDs, node probes over SSM."""

from __future__ import annotations

import json
import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from seams import (
    FakeSsm,
    MotoServer,
    SlurmCluster,
    in_brief,
    install_fake_ssm,
    scontrol_update,
    slurm_cluster,
    slurm_held,
)

from hyperpod_nccl import api
from hyperpod_nccl.collect import slurm_ssm
from hyperpod_nccl.model import Finding, Report, Status
from hyperpod_nccl.slurm.partitions import parse_show_partitions
from hyperpod_nccl.snapshot.items import SLURM_PARTITIONS


def by_code(report: Report) -> dict[str, list[Finding]]:
    found: dict[str, list[Finding]] = {}
    for f in report.findings:
        found.setdefault(f.code, []).append(f)
    return found


def the(report: Report, code: str) -> Finding:
    (finding,) = by_code(report)[code]
    return finding


@pytest.fixture
def slurm_lab(
    moto: MotoServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[SlurmCluster, FakeSsm]:
    cluster = slurm_cluster(moto, monkeypatch)
    return cluster, install_fake_ssm(tmp_path, monkeypatch)


def test_slurm_state_comes_from_the_controller_over_ssm(
    slurm_lab: tuple[SlurmCluster, FakeSsm],
) -> None:
    cluster, ssm = slurm_lab
    with slurm_held():
        scontrol_update("node03", "down", "PSU fault")
        scontrol_update("node05", "drain", "GPU ECC errors")
        report = api.diagnose(
            cluster=cluster.world.cluster_name, nodes=[cluster.instance_of["node01"]]
        )
    assert report.summary["orchestrator"] == "slurm"  # DescribeCluster names no EKS cluster
    down, drain = the(report, "SLURM_NODE_DOWN"), the(report, "SLURM_NODE_DRAIN")
    assert (down.status, down.hosts) == (Status.FAIL, ["node03"])
    assert (drain.status, drain.hosts) == (Status.FAIL, ["node05"])
    # Each Slurm node in trouble is matched to the instance HyperPod runs it on.
    assert down.details["nodes"][0]["instance_id"] == cluster.instance_of["node03"]
    assert drain.details["nodes"][0]["instance_id"] == cluster.instance_of["node05"]
    reboot = [c.command for c in down.suggested_commands if "batch-reboot" in c.command]
    assert reboot == [
        f"aws sagemaker batch-reboot-cluster-nodes --cluster-name slurm-cluster "
        f"--node-ids {cluster.instance_of['node03']} --region {cluster.world.region}"
    ]
    # Every Slurm command went to the controller, found by its group's name.
    controller = cluster.target("controller-machine", cluster.controller)
    slurm_sessions = [t for t in ssm.targets() if t == controller]
    # Batched: one to see it answers, one for every command known up front (munge, ping,
    # version, sinfo, squeue, config, partitions, sdiag, logind), at most one each for the
    # files they name.
    assert 2 <= len(slurm_sessions) <= 4
    for call in ssm.calls():
        argv = call["argv"]
        assert argv[argv.index("--document-name") + 1] == "AWS-StartNonInteractiveCommand"
        assert argv[-2:] == ["--region", "us-west-2"]
    # The AWS checks of the EKS path ran too.
    assert the(report, "SG_SELF_REFERENCE_MISSING").status is Status.PASS
    assert the(report, "SLURMCTLD_DOWN").status is Status.PASS


def test_instances_are_described_until_the_nodes_in_trouble_are_matched(
    slurm_lab: tuple[SlurmCluster, FakeSsm], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cluster, ssm = slurm_lab
    monkeypatch.setattr(slurm_ssm, "DESCRIBE_WORKERS", 2)  # two DescribeClusterNode at a time
    bundle = tmp_path / "case"
    with slurm_held():
        scontrol_update("node02", "fail", "Action:Replace")
        report = api.diagnose(
            cluster=cluster.world.cluster_name, sample_nodes=1, save_bundle=str(bundle)
        )
    # node02 runs on the second instance in ID order: one batch of two finds it, and the
    # other six instances are never described.
    described = sorted(p.stem for p in (bundle / "aws/sagemaker/describe_cluster_node").iterdir())
    assert described == [cluster.instance_of["node01"], cluster.instance_of["node02"]]
    matched = json.loads((bundle / "slurm/instances.json").read_text())
    assert matched["matched"] == {"node02": cluster.instance_of["node02"]}
    assert (matched["unmatched"], matched["described"]) == ([], 2)
    # The partitions came in the same batch as the other state queries (diff compares them).
    (partition,) = parse_show_partitions((bundle / SLURM_PARTITIONS).read_text())
    assert (partition.name, partition.limits()["State"]) == ("debug", "UP")
    # The one node probed is the instance behind the node in trouble.
    assert json.loads((bundle / "probes/targets.json").read_text())["targets"] == [
        cluster.instance_of["node02"]
    ]
    fail = the(report, "SLURM_NODE_FAIL")
    assert fail.hosts == ["node02"]
    assert any(cluster.instance_of["node02"] in c.command for c in fail.suggested_commands)
    manifest = json.loads((bundle / "manifest.json").read_text())
    assert manifest["slurm_access"] == {
        "via": "ssm",
        "controller_group": "controller-machine",
        "controller_instance": cluster.controller,
        "found_by": "its name says controller or head",
        # Counted by the tool as it started them, and by the stand-in `aws` as it was asked.
        "ssm_sessions": ssm.targets().count(
            cluster.target("controller-machine", cluster.controller)
        ),
        "target": cluster.target("controller-machine", cluster.controller),
        "hostname": socket.gethostname().split(".")[0],  # the controller's answer over SSM
    }


def test_replay_of_a_slurm_bundle_needs_neither_slurm_nor_aws(
    slurm_lab: tuple[SlurmCluster, FakeSsm],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    cli: Callable[..., Any],
) -> None:
    cluster, ssm = slurm_lab
    bundle = tmp_path / "slurm-case.tar.gz"
    with slurm_held():
        scontrol_update("node04", "drain", "NCCL test slow")
        live = api.diagnose(
            cluster=cluster.world.cluster_name,
            nodes=[cluster.instance_of["node04"]],
            save_bundle=str(bundle),
        )
    calls = len(ssm.calls())
    monkeypatch.setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:9")
    replayed = api.diagnose(bundle=str(bundle))
    assert len(ssm.calls()) == calls
    assert in_brief(replayed.to_dict()) == in_brief(live.to_dict())
    assert the(replayed, "SLURM_NODE_DRAIN").hosts == ["node04"]
    summary = cli("bundle", "summary", bundle)
    assert summary.code == 0, summary.err
    for line in (
        "| Cluster | slurm-cluster |",
        "| Orchestrator | slurm |",
        f"- Instance IDs: `{cluster.instance_of['node04']}`",
        "- Nodes: `node04`",
    ):
        assert line in summary.out, line


def test_without_session_manager_plugin_no_session_starts_and_slurm_is_skipped(
    moto: MotoServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cluster = slurm_cluster(moto, monkeypatch)
    ssm = install_fake_ssm(tmp_path, monkeypatch, plugin=False)
    report = api.diagnose(cluster=cluster.world.cluster_name, sample_nodes=2)
    assert ssm.calls() == []  # the AWS CLI was never asked for a session
    slurm = [f for f in report.findings if f.code.startswith("SLURM")]
    assert slurm and all(f.status is Status.SKIPPED for f in slurm), [
        (f.code, f.status) for f in slurm
    ]
    state = the(report, "SLURM_NODE_STATE")
    assert "session-manager-plugin is not on PATH" in state.title
    assert cluster.target("controller-machine", cluster.controller) in state.title
    probes = the(report, "NODE_UNREACHABLE")
    assert probes.status is Status.SKIPPED and "session-manager-plugin" in probes.title
    # The sample of nodes to probe leaves out the controller and login nodes.
    assert cluster.controller not in probes.hosts and cluster.login not in probes.hosts
    assert len(probes.hosts) == 2


@pytest.mark.parametrize(
    ("group", "expected"),
    [
        ("worker-group-1", None),  # it runs there (a real node answers), so it is used
        (
            "gpu-nodes",
            "--controller-group gpu-nodes: no such instance group "
            "(groups: controller-machine, login-group, worker-group-1)",
        ),
    ],
)
def test_controller_group_option(
    slurm_lab: tuple[SlurmCluster, FakeSsm], group: str, expected: str | None
) -> None:
    cluster, ssm = slurm_lab
    with slurm_held():
        report = api.diagnose(
            cluster=cluster.world.cluster_name,
            controller_group=group,
            nodes=[cluster.instance_of["node01"]],
        )
    state = the(report, "SLURM_NODE_STATE")
    if expected is None:
        first_worker = min(cluster.instance_of.values())
        assert cluster.target(group, first_worker) in ssm.targets()
        assert state.status is Status.PASS
    else:
        assert state.status is Status.SKIPPED and expected in state.title
        assert ssm.targets() == [cluster.target("worker-group-1", cluster.instance_of["node01"])]
