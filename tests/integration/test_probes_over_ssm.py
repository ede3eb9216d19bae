"""Node probes over SSM from `diagnose`, on both orchestrators: --node, --sample-nodes and
--all-nodes pick the sessions, the catalog's batch runs on the node (here: relayed to this
machine by the stand-in plugin) and a node that cannot be reached is named with the reason
the AWS CLI gave."""

from __future__ import annotations

from pathlib import Path

import pytest
from seams import MotoServer, eks_cluster, install_fake_ssm, slurm_cluster, slurm_held

from hyperpod_nccl import api
from hyperpod_nccl.model import Finding, Report, Status

EKS_NODES = ["i-00005a3c7e9b1d200", "i-00005a3c7e9b1d201", "i-00005a3c7e9b1d202"]


def unreachable(report: Report) -> list[Finding]:
    return [f for f in report.findings if f.code == "NODE_UNREACHABLE"]


def probed(bundle: Path) -> list[str]:
    return sorted(p.name for p in (bundle / "nodes").iterdir() if (p / "session.json").exists())


def test_eks_unreachable_node_is_named_with_the_aws_error(
    moto: MotoServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with eks_cluster(moto, monkeypatch, tmp_path, "oom-one-rank") as world:
        ssm = install_fake_ssm(tmp_path, monkeypatch)
        dead = f"sagemaker-cluster:a1b2c3d4e5f6_worker-group-1-{EKS_NODES[1]}"
        monkeypatch.setenv("FAKE_SSM_DISCONNECTED", dead)
        bundle = tmp_path / "case"
        report = api.diagnose(
            cluster=world.cluster_name, nodes=EKS_NODES[:2], save_bundle=str(bundle)
        )
    (finding,) = unreachable(report)
    assert finding.status is Status.INCOMPLETE and finding.hosts == [EKS_NODES[1]]
    assert finding.details["reason"] == f"TargetNotConnected: {dead} is not connected."
    assert probed(bundle) == [EKS_NODES[0]]  # the other node's probes came back
    assert (bundle / f"nodes/{EKS_NODES[0]}/host_info.txt").read_text().startswith("hostname:")
    assert sorted(ssm.targets()) == sorted(
        f"sagemaker-cluster:a1b2c3d4e5f6_worker-group-1-{n}" for n in EKS_NODES[:2]
    )


def test_eks_sample_size_is_the_number_of_sessions(
    moto: MotoServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with eks_cluster(moto, monkeypatch, tmp_path, "oom-one-rank") as world:
        ssm = install_fake_ssm(tmp_path, monkeypatch)
        report = api.diagnose(cluster=world.cluster_name, sample_nodes=3)
    assert len(set(ssm.targets())) == 3
    assert unreachable(report) == []
    census = [f for f in report.findings if f.code == "NODE_INVENTORY"]
    assert census and all("3 node(s)" in f.title for f in census), [f.title for f in census]


def test_slurm_all_nodes_probes_every_instance_and_names_the_one_not_reached(
    moto: MotoServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cluster = slurm_cluster(moto, monkeypatch)
    ssm = install_fake_ssm(tmp_path, monkeypatch)
    dead = cluster.target("worker-group-1", cluster.instance_of["node06"])
    monkeypatch.setenv("FAKE_SSM_DISCONNECTED", dead)
    with slurm_held():
        report = api.diagnose(cluster=cluster.world.cluster_name, all_nodes=True)
    (finding,) = unreachable(report)
    assert finding.hosts == [cluster.instance_of["node06"]]
    assert "TargetNotConnected" in finding.title
    every = {cluster.controller, cluster.login, *cluster.instance_of.values()}
    probe_targets = {t.rsplit("-i-", 1)[1] for t in ssm.targets()}
    assert {f"i-{t}" for t in probe_targets} == every
