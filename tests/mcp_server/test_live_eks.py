"""diagnose_cluster live on HyperPod EKS, over MCP: the server talks to the same stand-ins as
the diagnose tests (moto's server for AWS, the local Kubernetes API server for the cluster,
both on loopback, loaded with the oom-one-rank scenario in tests/fixtures/eks) and must find
what `hyperpod-nccl diagnose` finds, reporting progress as it collects."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from mcpclient import REPO, Server

sys.path.insert(0, str(REPO / "tests" / "eks"))

from aws_server import World, aws_environment, build_world, load_scenario, moto_server
from fake_apiserver import FakeApiServer, write_kubeconfig

SCENARIO = REPO / "tests" / "fixtures" / "eks" / "oom-one-rank"
DIAGNOSE_JSON = [sys.executable, "-m", "hyperpod_nccl.cli", "diagnose", "--format", "json"]


@dataclass
class LiveCluster:
    world: World
    env: dict[str, str]


@pytest.fixture(scope="module")
def live_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveCluster]:
    with moto_server() as moto:
        moto.reset()  # moto's backends are per process: other tests may have filled them
        kube = FakeApiServer(SCENARIO).start()
        try:
            world = build_world(moto, load_scenario(SCENARIO), kube.url)
            kubeconfig = write_kubeconfig(
                tmp_path_factory.mktemp("kube") / "kubeconfig",
                kube.url,
                world.eks_arn or "unknown",
                kube.token,
            )
            env = aws_environment(moto.url, world.region, kubeconfig)
            yield LiveCluster(world, env)
        finally:
            kube.stop()


def findings_in_brief(report: dict[str, Any]) -> list[tuple[Any, ...]]:
    """What a finding says, without times that move between two live runs."""
    return [
        (f["code"], f["status"], f["priority"], f["root_cause"], f["hosts"], f["ranks"])
        for f in report["findings"]
    ]


def test_live_diagnosis_over_mcp_finds_what_the_cli_finds(
    live_cluster: LiveCluster, tmp_path: Path
) -> None:
    server = Server(stderr=tmp_path / "server-stderr.log", env=live_cluster.env)
    name = live_cluster.world.cluster_name
    call = server.call("diagnose_cluster", {"cluster": name, "namespace": "training"})
    report = call.data
    assert report["root_cause"] == "CONTAINER_OOM"
    assert report["summary"]["cluster"] == name
    assert report["summary"]["orchestrator"] == "eks"
    oom = report["findings"][0]
    assert oom["code"] == "CONTAINER_OOM" and oom["suggested_commands"]
    assert call.progress[0][2] == f"diagnosing {name}: started"
    assert call.progress[-1][0] == call.progress[-1][1]
    assert "root cause CONTAINER_OOM" in str(call.progress[-1][2])

    cli = subprocess.run(
        [*DIAGNOSE_JSON, "--cluster", name, "--namespace", "training"],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **live_cluster.env},
    )
    assert cli.returncode == 0, cli.stderr
    assert findings_in_brief(report) == findings_in_brief(json.loads(cli.stdout))
