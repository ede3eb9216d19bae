"""Every suggested command carries the values the run knows: the cluster's name, the region,
the EKS cluster's name, security-group and instance ids. Each scenario is run whole (moto over
HTTP, the fake API server) and every command of every finding is read; a placeholder for a
value the run had fails the test. What may stay in angle brackets is what no read told the
run: a process id, a peer's address and port."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import pytest
import worlds

from conftest import SCENARIOS, Lab
from hyperpod_nccl.checks.fill import fill_commands
from hyperpod_nccl.checks.node_gpu import recovery_commands
from hyperpod_nccl.codes import load_registry
from hyperpod_nccl.collect.options import DiagnoseOptions
from hyperpod_nccl.collect.run import collect
from hyperpod_nccl.model import Finding, Priority, Report, Status
from hyperpod_nccl.suggest.build import commands_for
from hyperpod_nccl.targets import parse_cluster

sys.path.insert(0, str(Path(__file__).parents[1] / "commands"))
from command_verbs import command_problems

PLACEHOLDER = re.compile(r"<([^<>\s]+)>")
# Values no collected item holds: the training process's pid, a peer's address and port.
UNKNOWABLE = {"pid-of-training-process", "peer-address", "port"}
FIXTURE_SCENARIOS = sorted(p.parent.name for p in SCENARIOS.glob("*/aws.json"))
POD = "llama-pretrain-worker-1"  # node rank 2, on i-00005a3c7e9b1d202
VARIANTS = ["no-kubeconfig", "expired-token", "non-ec2-ids", "outbound-only", "cidr-only"]


def _bring_up(lab: Any, name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Lab:
    if name in FIXTURE_SCENARIOS:
        return lab(name)
    if name == "no-kubeconfig":
        env: Lab = lab("healthy")
        monkeypatch.setenv("KUBECONFIG", str(tmp_path / "absent"))
        return env
    if name == "expired-token":
        return lab("healthy", token="expired-token")
    if name == "non-ec2-ids":
        names = [f"worker-group-1-{i}" for i in range(4)]
        return lab(worlds.renamed_instances("efa-health-event", tmp_path, names))
    env = lab("healthy")
    {"outbound-only": worlds.outbound_self_reference_missing, "cidr-only": worlds.cidr_only}[name](
        env
    )
    return env


def _commands(report: Report) -> list[tuple[Finding, str]]:
    return [(f, c.command) for f in report.findings for c in f.suggested_commands]


@pytest.mark.parametrize("name", FIXTURE_SCENARIOS + VARIANTS)
def test_no_command_keeps_a_placeholder_for_a_known_value(
    name: str, lab: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = _bring_up(lab, name, tmp_path, monkeypatch)
    report = env.diagnose()
    assert not command_problems(report.findings)  # runnable as printed (tests/commands)
    for finding, command in _commands(report):
        left = set(PLACEHOLDER.findall(command)) - UNKNOWABLE
        assert not left, (finding.code, command)
        if command.startswith("aws "):
            assert f"--region {env.world.region}" in command, (finding.code, command)
        for flag in ("--cluster-name", "--name", "--node-id", "--node-ids", "--group-id"):
            match = re.search(rf"{flag} (\S+)", command)
            if match and flag in ("--node-id", "--node-ids"):
                assert match.group(1) in env.world.node_ids, (finding.code, command)
            elif match and flag == "--cluster-name":
                assert match.group(1) == env.world.cluster_name, (finding.code, command)
            elif match and flag == "--group-id":
                assert match.group(1) in env.world.security_groups.values(), command


def test_log_rule_commands_name_the_node_behind_the_pod(lab: Any) -> None:
    """The log rules' reboot and replace templates name a pod's node by a placeholder (they
    serve `hyperpod-nccl logs` too); in diagnose the pod's nodeName gives its instance."""
    env: Lab = lab("oom-one-rank")
    snapshot = collect(
        DiagnoseOptions(cluster=parse_cluster(env.world.cluster_name), region=env.world.region)
    )
    try:
        xid = Finding("GPU_XID", Status.FAIL, Priority.P0, "Xid 79", hosts=[POD])
        xid.suggested_commands = commands_for(xid, load_registry()["GPU_XID"])
        assert any(
            "<instance-id-of-llama-pretrain-worker-1>" in c.command for c in xid.suggested_commands
        )
        fill_commands([xid], snapshot)
    finally:
        snapshot.close()
    reboot = next(c.command for c in xid.suggested_commands if "batch-reboot" in c.command)
    assert reboot == (
        "aws sagemaker batch-reboot-cluster-nodes --cluster-name ml-cluster "
        "--node-ids i-00005a3c7e9b1d202 --region us-west-2"
    )
    assert not any(
        PLACEHOLDER.search(c.command) for c in xid.suggested_commands if c.command.startswith("aws")
    )


def test_node_check_commands_name_an_instance_that_is_not_ec2_shaped(
    lab: Any, tmp_path: Path
) -> None:
    """The node checks' HyperPod reboot and replace commands fill `<instance-id>` only for
    EC2-shaped names; diagnose knows the cluster's own ids whatever their shape."""
    names = [f"worker-group-1-{i}" for i in range(4)]
    env: Lab = lab(worlds.renamed_instances("healthy", tmp_path, names))
    snapshot = collect(
        DiagnoseOptions(cluster=parse_cluster(env.world.cluster_name), region=env.world.region)
    )
    try:
        gpu = Finding("GPU_XID", Status.FAIL, Priority.P0, "Xid 79", hosts=[names[1]])
        gpu.suggested_commands = recovery_commands(names[1], "replace")
        assert all("<cluster-name>" in c.command for c in gpu.suggested_commands)
        fill_commands([gpu], snapshot)
    finally:
        snapshot.close()
    where = "--cluster-name ml-cluster --node-id"
    assert [c.command for c in gpu.suggested_commands] == [
        f"aws sagemaker describe-cluster-node {where} worker-group-1-1 --region us-west-2",
        f"aws sagemaker batch-reboot-cluster-nodes {where}s worker-group-1-1 --region us-west-2",
        f"aws sagemaker batch-replace-cluster-nodes {where}s worker-group-1-1 --region us-west-2",
    ]
