"""Bundles: --save-bundle keeps everything collected with a manifest of what was and was not
collected and why; --bundle replays it through the same checks with identical findings and
no network. The example bundles replay to their documented root causes."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest

from conftest import Lab, by_code
from hyperpod_nccl import api
from hyperpod_nccl.exit_codes import InputError, UsageError
from hyperpod_nccl.model import Report

EXAMPLES = Path(__file__).resolve().parents[2] / "src" / "hyperpod_nccl" / "examples" / "bundles"


def _comparable(report: Report) -> dict[str, Any]:
    data = report.to_dict()
    data["summary"] = dict(data["summary"])
    for key in ("analysis_s", "replayed_from", "bundle_saved_to"):
        data["summary"].pop(key, None)
    return data


def _refuse_connections(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every outgoing connection attempt fails and is recorded."""
    attempts: list[Any] = []

    def refuse(self: socket.socket, address: Any) -> None:
        attempts.append(address)
        raise OSError("network disabled for this test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    return attempts


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    return _refuse_connections(monkeypatch)


@pytest.mark.parametrize("suffix", ["", ".tar.gz"])
def test_replay_gives_identical_findings_without_network(
    lab: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, suffix: str
) -> None:
    env: Lab = lab("oom-one-rank")
    bundle = tmp_path / f"case-1234{suffix}"
    live = env.diagnose(namespace="training", save_bundle=str(bundle))
    assert live.summary["bundle_saved_to"] == str(bundle)
    monkeypatch.setenv(
        "AWS_ENDPOINT_URL", "http://127.0.0.1:9"
    )  # nothing there, and nothing is called
    attempts = _refuse_connections(monkeypatch)
    replayed = api.diagnose(bundle=str(bundle))
    assert attempts == []
    assert _comparable(replayed) == _comparable(live)
    assert replayed.summary["replayed_from"] == str(bundle)


def test_bundle_manifest_says_what_was_not_collected_and_why(lab: Any, tmp_path: Path) -> None:
    env: Lab = lab("healthy")
    env.kube.forbidden.add("networkpolicies")
    bundle = tmp_path / "b"
    env.diagnose(save_bundle=str(bundle))
    manifest = json.loads((bundle / "manifest.json").read_text())
    items = {i["name"]: i for i in manifest["items"]}
    assert items["k8s/networkpolicies.json"]["status"] == "missing"
    assert items["k8s/networkpolicies.json"]["reason"].startswith("Forbidden: list networkpolicies")
    assert items["aws/ec2/describe_security_groups.json"]["source"] == "ec2:DescribeSecurityGroups"
    assert (
        (bundle / "k8s/logs/training/pytorch/llama-pretrain-master-0.log")
        .read_text()
        .startswith("[rank0]")
    )
    assert manifest["cluster"] == "ml-cluster" and manifest["orchestrator"] == "eks"
    assert manifest["since_seconds"] == 7200


def test_save_bundle_never_overwrites(lab: Any, tmp_path: Path) -> None:
    env: Lab = lab("healthy")
    (tmp_path / "exists").mkdir()
    with pytest.raises(UsageError, match="already exists"):
        env.diagnose(save_bundle=str(tmp_path / "exists"))


def test_a_bundle_from_another_command_is_refused(tmp_path: Path) -> None:
    bundle = tmp_path / "probe-bundle"
    bundle.mkdir()
    (bundle / "manifest.json").write_text(json.dumps({"command": "probe", "items": []}))
    with pytest.raises(InputError, match="not a diagnose bundle"):
        api.diagnose(bundle=str(bundle))


def test_unreadable_bundle_is_an_input_error(tmp_path: Path) -> None:
    broken = tmp_path / "broken.tar.gz"
    broken.write_bytes(b"\x1f\x8b not really gzip")
    with pytest.raises(InputError):
        api.diagnose(bundle=str(broken))
    with pytest.raises(InputError, match="no such bundle"):
        api.diagnose(bundle=str(tmp_path / "absent"))


EXPECTED = {
    "healthy-eks": (None, set()),
    "sg-efa-fallback": (
        "SG_SELF_REFERENCE_MISSING",
        {"EFA_COUNT_MISMATCH", "EFA_TCP_FALLBACK", "NET_UNREACHABLE", "NCCL_TIMEOUT"},
    ),
    "oom-one-rank": ("CONTAINER_OOM", {"NCCL_TIMEOUT", "POD_CRASHLOOP"}),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_example_bundles_replay_to_their_root_cause(name: str, no_network: list[Any]) -> None:
    report = api.diagnose(bundle=str(EXAMPLES / name))
    root, other_failures = EXPECTED[name]
    assert (report.root_cause.code if report.root_cause else None) == root
    assert {f.code for f in report.failures} - {root} == other_failures
    assert no_network == []
    assert by_code(report)["NODE_UNREACHABLE"][0].status.value == "SKIPPED"
