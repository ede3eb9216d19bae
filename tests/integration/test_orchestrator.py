"""The orchestrator comes from DescribeCluster (an `Orchestrator.Eks` entry, or none for Slurm);
`--orchestrator` overrides it, and the report says when the two disagree."""

from __future__ import annotations

from pathlib import Path

import pytest
from seams import MotoServer, eks_cluster, install_fake_ssm, slurm_cluster

from hyperpod_nccl import api
from hyperpod_nccl.model import Report, Status


def codes(report: Report) -> set[str]:
    return {f.code for f in report.findings}


def test_detected_from_describe_cluster_and_overridden(
    moto: MotoServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with eks_cluster(moto, monkeypatch, tmp_path, "oom-one-rank") as world:
        install_fake_ssm(tmp_path, monkeypatch, plugin=False)
        detected = api.diagnose(cluster=world.cluster_name, namespace="training")
        forced = api.diagnose(cluster=world.cluster_name, orchestrator="slurm")
    assert detected.summary["orchestrator"] == "eks"
    assert "CONTAINER_OOM" in codes(detected) and "ORCHESTRATOR" not in codes(detected)
    assert not any(c.startswith("SLURM") for c in codes(detected))

    assert forced.summary["orchestrator"] == "slurm"
    (warning,) = [f for f in forced.findings if f.code == "ORCHESTRATOR"]
    assert warning.status is Status.WARN
    assert warning.title == "--orchestrator slurm given, but DescribeCluster says eks"
    # The Slurm side was tried the Slurm way (no controller group here: skipped, with why).
    state = next(f for f in forced.findings if f.code == "SLURM_NODE_STATE")
    assert state.status is Status.SKIPPED and "pass --controller-group" in state.title
    assert "CONTAINER_OOM" not in codes(forced)  # no Kubernetes read on the Slurm path


def test_a_slurm_cluster_is_detected_as_slurm(
    moto: MotoServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cluster = slurm_cluster(moto, monkeypatch)
    install_fake_ssm(tmp_path, monkeypatch, plugin=False)
    report = api.diagnose(cluster=cluster.world.cluster_arn)  # by ARN, region from it
    assert report.summary["orchestrator"] == "slurm"
    assert report.summary["cluster"] == "slurm-cluster"
    assert "ORCHESTRATOR" not in codes(report)
    assert not any(c.startswith("K8S") for c in codes(report))
