"""Real components for the diagnose tests: boto3 against moto's server on loopback, the
official Kubernetes client against the fake API server on loopback, a real kubeconfig."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from aws_server import MotoServer, World, aws_environment, build_world, load_scenario, moto_server
from fake_apiserver import FakeApiServer, write_kubeconfig

from hyperpod_nccl import api
from hyperpod_nccl.model import Report

SCENARIOS = Path(__file__).parent.parent / "fixtures" / "eks"


@pytest.fixture(scope="session")
def moto() -> Iterator[MotoServer]:
    with moto_server() as server:
        yield server


@dataclass
class Lab:
    """One scenario brought up: moto holds the AWS side, the fake API server the cluster."""

    moto: MotoServer
    kube: FakeApiServer
    world: World
    kubeconfig: Path
    env: dict[str, str]

    def diagnose(self, **options: Any) -> Report:
        options.setdefault("cluster", self.world.cluster_name)
        return api.diagnose(**options)

    def aws_requests(self) -> list[str]:
        return []


@pytest.fixture
def lab(moto: MotoServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """`lab(name)` brings up scenario `name` and points the environment at it."""
    started: list[FakeApiServer] = []

    def bring_up(
        name: str | Path,
        *,
        token: str | None = None,
        extra_contexts: dict[str, str] | None = None,
    ) -> Lab:
        """`name` is a scenario under tests/fixtures/eks, or the path of one written by a test."""
        moto.reset()
        folder = SCENARIOS / name  # an absolute path stays itself
        kube = FakeApiServer(folder).start()
        started.append(kube)
        world = build_world(moto, load_scenario(folder), kube.url)
        kubeconfig = write_kubeconfig(
            tmp_path / f"kubeconfig-{folder.name}",
            kube.url,
            world.eks_arn or "unknown",
            token or kube.token,
            extra=extra_contexts,
        )
        env = aws_environment(moto.url, world.region, kubeconfig)
        for key, value in env.items():
            monkeypatch.setenv(key, value)
        monkeypatch.delenv("AWS_PROFILE", raising=False)
        return Lab(moto, kube, world, kubeconfig, env)

    yield bring_up
    for kube in started:
        kube.stop()


def by_code(report: Report) -> dict[str, list[Any]]:
    found: dict[str, list[Any]] = {}
    for f in report.findings:
        found.setdefault(f.code, []).append(f)
    return found


def statuses(report: Report, code: str) -> list[str]:
    return sorted(f.status.value for f in report.findings if f.code == code)
