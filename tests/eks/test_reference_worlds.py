"""The worlds where the reference nccl-diagnose.sh was right and diagnose was not (issue 19),
run whole against moto over HTTP and the fake Kubernetes API server. Each test states the
finding an engineer must get, its status and priority, and that nothing this machine lacks
(a kubeconfig, an IAM permission, session-manager-plugin) is reported as a cluster failure."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import boto3
import pytest
import worlds
from aws_server import CLUSTER_EVENTS
from moto.core.authorization import enable_iam_authentication
from test_aws_collection import _user_with_policy
from throttle_proxy import ThrottleProxy

from conftest import Lab, by_code, statuses
from hyperpod_nccl import api
from hyperpod_nccl.cli import main
from hyperpod_nccl.collect.aws import AwsReader
from hyperpod_nccl.collect.options import DiagnoseOptions
from hyperpod_nccl.collect.run import collect
from hyperpod_nccl.model import Finding, Priority, Report, Status
from hyperpod_nccl.targets import parse_cluster

SELF = "SG_SELF_REFERENCE_MISSING"
BAD_NODE = "i-00005a3c7e9b1d201"  # worker-0's node in efa-health-event


def only(report: Report, code: str) -> Finding:
    (found,) = by_code(report)[code]
    return found


def failing(report: Report, code: str) -> Finding:
    """The one FAIL of `code` (its PASS findings from other checks aside)."""
    (found,) = [f for f in by_code(report)[code] if f.status is Status.FAIL]
    return found


def directions(finding: Finding) -> list[str]:
    return [m["direction"] for m in finding.details["missing"]]


# ------------------------------------------------------------------ security groups
def test_outbound_self_reference_missing_with_the_default_egress_rule(lab: Any) -> None:
    env: Lab = lab("healthy")
    group = worlds.outbound_self_reference_missing(env)
    report = env.diagnose()
    sg = only(report, SELF)
    assert (sg.status, sg.priority) == (Status.FAIL, Priority.P0)
    assert directions(sg) == ["outbound"]
    assert (
        f"worker-group-1 ({group}): no outbound self-reference "
        "(all traffic to 0.0.0.0/0 lets TCP out, not EFA)" in sg.title
    )
    assert [c.command for c in sg.suggested_commands][1:] == [
        f"aws ec2 authorize-security-group-egress --group-id {group} --ip-permissions "
        f"'IpProtocol=-1,UserIdGroupPairs=[{{GroupId={group}}}]' --region us-west-2"
    ]
    efa = only(report, "EFA_TRAFFIC_BLOCKED")
    assert (efa.status, efa.priority) == (Status.FAIL, Priority.P0)
    assert report.root_cause is sg and "EFA_TRAFFIC_BLOCKED" in sg.explains
    assert worlds.machine_failures(report) == []


def test_cidr_only_group_blocks_efa_both_ways_while_tcp_works(lab: Any) -> None:
    env: Lab = lab("healthy")
    worlds.cidr_only(env)
    report = env.diagnose()
    sg = only(report, SELF)
    assert (sg.status, sg.priority) == (Status.FAIL, Priority.P0)
    assert directions(sg) == ["inbound", "outbound"]
    assert "no inbound self-reference (all traffic from 172.31.0.0/16 lets TCP in, not EFA)" in (
        sg.title
    )
    assert all(m["tcp_allowed_by"] for m in sg.details["missing"])
    efa = only(report, "EFA_TRAFFIC_BLOCKED")
    assert (efa.status, efa.priority) == (Status.FAIL, Priority.P0)
    assert "worker-group-1" in efa.title and "TCP sockets work" in efa.title
    assert statuses(report, SELF) == ["FAIL"]  # never the old PASS
    assert worlds.machine_failures(report) == []


def test_access_denied_on_describe_security_groups_is_not_checked(
    lab: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    env: Lab = lab("healthy")
    key, secret = _user_with_policy(
        env,
        [
            {"Effect": "Allow", "Action": "*", "Resource": "*"},
            {"Effect": "Deny", "Action": ["ec2:DescribeSecurityGroups"], "Resource": "*"},
        ],
    )
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", key)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", secret)
    with enable_iam_authentication():
        report = env.diagnose()
    sg = only(report, SELF)
    assert (sg.status, sg.priority) == (Status.SKIPPED, Priority.P0)
    assert "AccessDenied: ec2:DescribeSecurityGroups" in sg.title
    iam = only(report, "IAM_PERMISSION_MISSING")
    assert (iam.status, iam.priority) == (Status.WARN, Priority.P1)
    assert "network.security-groups" in {n.check for n in report.not_checked}
    assert report.failures == []  # a healthy cluster stays healthy
    assert "EFA_TRAFFIC_BLOCKED" not in by_code(report)


def test_a_tcp_only_self_reference_lets_sockets_through_but_not_efa(lab: Any) -> None:
    env: Lab = lab("healthy")
    group = env.world.security_groups["hyperpod-efa"]
    ec2 = boto3.client("ec2", region_name=env.world.region)
    everything = [{"IpProtocol": "-1", "UserIdGroupPairs": [{"GroupId": group}]}]
    tcp = [
        {
            "IpProtocol": "tcp",
            "FromPort": 0,
            "ToPort": 65535,
            "UserIdGroupPairs": [{"GroupId": group}],
        }
    ]
    ec2.revoke_security_group_ingress(GroupId=group, IpPermissions=everything)
    ec2.revoke_security_group_egress(GroupId=group, IpPermissions=everything)
    ec2.authorize_security_group_ingress(GroupId=group, IpPermissions=tcp)
    ec2.authorize_security_group_egress(GroupId=group, IpPermissions=tcp)
    report = env.diagnose()
    sg = only(report, SELF)
    assert (sg.status, sg.priority) == (Status.FAIL, Priority.P0)
    assert directions(sg) == ["inbound", "outbound"]
    assert f"tcp 0-65535 from {group} lets TCP in, not EFA" in sg.title
    assert only(report, "EFA_TRAFFIC_BLOCKED").status is Status.FAIL


def test_an_instance_type_without_efa_needs_tcp_only(lab: Any) -> None:
    env: Lab = lab("healthy")
    worlds.cidr_only(env)
    cluster = env.moto.backend("sagemaker", env.world.region).clusters[env.world.cluster_name]
    cluster.instance_groups[0]["InstanceType"] = "ml.g5.xlarge"  # one GPU, no EFA
    report = env.diagnose()
    sg = only(report, SELF)
    assert (sg.status, sg.priority) == (Status.PASS, Priority.P0)
    assert "EFA_TRAFFIC_BLOCKED" not in by_code(report)


# ------------------------------------------------------------------ cluster events
def test_error_event_is_the_root_cause_of_the_timeouts_on_the_other_ranks(lab: Any) -> None:
    env: Lab = lab("efa-health-event")
    report = env.diagnose(namespace="training")
    health = failing(report, "HEALTH_CHECK_FAILED")
    assert (health.status, health.priority) == (Status.FAIL, Priority.P0)  # a job pod runs there
    assert set(health.hosts) == {BAD_NODE, f"hyperpod-{BAD_NODE}"}
    assert "EFA health checks did not run successfully" in health.title
    assert "llama-pretrain-worker-0" in health.title
    assert any(f"Error {BAD_NODE}: EFA health checks" in e.text for e in health.evidence)
    assert report.root_cause is health and "NCCL_TIMEOUT" in health.explains
    assert only(report, "NCCL_TIMEOUT").status is Status.FAIL
    assert (
        f"aws sagemaker describe-cluster-node --cluster-name ml-cluster --node-id {BAD_NODE} "
        "--region us-west-2" in [c.command for c in health.suggested_commands]
    )
    assert statuses(report, "CLUSTER_EVENTS") == ["INFO"]
    assert worlds.machine_failures(report) == []


def test_throttled_cluster_events_are_incomplete_and_invent_nothing(
    lab: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    env: Lab = lab("efa-health-event")
    proxy = ThrottleProxy(env.moto.url, {"ListClusterEvents": 10})
    monkeypatch.setenv("AWS_ENDPOINT_URL", proxy.url)
    options = DiagnoseOptions(
        cluster=parse_cluster(env.world.cluster_name), region=env.world.region
    )
    try:
        snapshot = collect(options, aws=AwsReader(env.world.region, max_attempts=2))
        report = api.analyze_snapshot(snapshot)
        snapshot.close()
    finally:
        proxy.stop()
    assert proxy.throttled == {"ListClusterEvents": 2}
    events = only(report, "CLUSTER_EVENTS")
    assert (events.status, events.priority) == (Status.INCOMPLETE, Priority.P1)
    assert "Throttled: sagemaker:ListClusterEvents" in events.title
    assert "cluster.events" in {n.check for n in report.not_checked}
    assert "HEALTH_CHECK_FAILED" not in {f.code for f in report.failures}
    assert worlds.machine_failures(report) == []


def test_events_away_from_the_job_rank_by_what_happened(lab: Any, tmp_path: Path) -> None:
    """In a 200-node cluster, events on nodes the job does not use: a failed health check and
    a failed replacement at P1, an error of another kind at P1, a warning at P2."""
    env: Lab = lab(worlds.many_nodes(tmp_path, 200))
    idle = env.world.node_ids[150:153]
    CLUSTER_EVENTS[env.world.cluster_name] += [
        _event(env, idle[0], "Error", f"Deep health check failed on {idle[0]}: DCGM level 2."),
        _event(env, idle[1], "Error", f"Replacement of instance {idle[1]} failed."),
        _event(env, idle[2], "Error", "Instance creation in InstanceGroup worker-group-1 failed"),
        _event(env, idle[2], "Warn", f"Instance {idle[2]} is running low on disk space."),
    ]
    report = env.diagnose()
    found = by_code(report)
    health = failing(report, "HEALTH_CHECK_FAILED")
    assert (health.status, health.priority) == (Status.FAIL, Priority.P1)
    assert set(health.hosts) == {idle[0], f"hyperpod-{idle[0]}"}
    recovery = only(report, "NODE_RECOVERY_FAILED")
    assert (recovery.status, recovery.priority) == (Status.FAIL, Priority.P1)
    assert set(recovery.hosts) == {idle[1], f"hyperpod-{idle[1]}"}
    by_status = {f.status: f for f in found["CLUSTER_EVENTS"]}
    assert (by_status[Status.FAIL].priority, by_status[Status.WARN].priority) == (
        Priority.P1,
        Priority.P2,
    )
    assert "3 error events and 1 warning event" in by_status[Status.INFO].title
    assert worlds.machine_failures(report) == []


def _event(env: Lab, instance: str, level: str, description: str) -> dict[str, Any]:
    return {
        "EventId": f"evt-{instance}-{level}",
        "ClusterArn": env.world.cluster_arn,
        "ClusterName": env.world.cluster_name,
        "InstanceGroupName": "worker-group-1",
        "InstanceId": instance,
        "ResourceType": "Instance",
        "EventTime": env.world.now - timedelta(minutes=20),
        "Description": description,
        "EventLevel": level,
    }


# ------------------------------------------------------------------ names and scale
def test_instance_ids_that_are_not_ec2_shaped(lab: Any, tmp_path: Path) -> None:
    names = [f"worker-group-1-{i}" for i in range(4)]
    env: Lab = lab(worlds.renamed_instances("efa-health-event", tmp_path, names))
    report = env.diagnose(namespace="training")
    health = failing(report, "HEALTH_CHECK_FAILED")
    assert (health.status, health.priority) == (Status.FAIL, Priority.P0)
    assert set(health.hosts) == {names[1], f"hyperpod-{names[1]}"}
    assert (
        f"aws sagemaker describe-cluster-node --cluster-name ml-cluster --node-id {names[1]} "
        "--region us-west-2" in [c.command for c in health.suggested_commands]
    )
    assert statuses(report, "NODE_NOT_READY") == ["PASS", "PASS"]  # every node found in k8s
    assert report.root_cause is health
    probes = only(report, "NODE_PROBES")
    assert probes.status is Status.SKIPPED and "not an EC2 instance id" in probes.title
    assert worlds.machine_failures(report) == []


def test_two_hundred_nodes(lab: Any, tmp_path: Path) -> None:
    env: Lab = lab(worlds.many_nodes(tmp_path, 200))
    report = env.diagnose()
    census = next(f for f in by_code(report)["NODE_CENSUS"] if f.status is Status.INFO)
    assert census.title == "200 nodes: 200 Running"
    assert census.details["pages"] == 2
    registered = [f for f in by_code(report)["NODE_NOT_READY"] if "registered" in f.title]
    assert [(f.status, f.priority) for f in registered] == [(Status.PASS, Priority.P1)]
    assert "(200)" in registered[0].title
    assert statuses(report, SELF) == ["PASS"]
    assert report.failures == []


# ------------------------------------------------------------------ this machine
def test_no_kubeconfig_on_a_healthy_cluster_passes_fail_on_p0(
    lab: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    env: Lab = lab("healthy")
    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "absent"))
    report = env.diagnose()
    access = only(report, "K8S_WRONG_CONTEXT")
    assert (access.status, access.priority) == (Status.WARN, Priority.P1)
    fix = "aws eks update-kubeconfig --name hyperpod-eks --region us-west-2"
    confirm = "kubectl config current-context; kubectl config get-contexts"
    assert [c.command for c in access.suggested_commands] == [confirm, fix]
    assert report.failures == [] and worlds.machine_failures(report) == []
    code = main(["diagnose", "--cluster", env.world.cluster_name, "--fail-on", "P0"])
    out = capsys.readouterr().out
    assert code == 0
    assert "Issues Found: 0" in out
    assert "  - kubernetes.access: every Kubernetes check: no kubeconfig found at " in out
    assert f"; to fix: {fix}" in out
