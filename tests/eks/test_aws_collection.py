"""AWS collection against moto over HTTP: pagination, cluster lookup, credentials, IAM
denials (moto's own IAM enforcement), throttling with retries (a proxy sending AWS's
throttling errors), and ListClusterEvents and orchestrator detection on real response shapes
with botocore's Stubber."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from typing import Any

import boto3
import pytest
from aws_server import ACCOUNT
from botocore.stub import ANY, Stubber
from moto.core.authorization import enable_iam_authentication
from throttle_proxy import ThrottleProxy

from conftest import Lab, by_code, statuses
from hyperpod_nccl import api
from hyperpod_nccl.collect.aws import AwsReader
from hyperpod_nccl.collect.hyperpod import EVENTS, NODES, _events, detect_orchestrator
from hyperpod_nccl.collect.options import DiagnoseOptions
from hyperpod_nccl.collect.run import collect
from hyperpod_nccl.exit_codes import InputError
from hyperpod_nccl.model import Status
from hyperpod_nccl.targets import parse_cluster


def _options(env: Lab, **extra: Any) -> DiagnoseOptions:
    return DiagnoseOptions(
        cluster=parse_cluster(env.world.cluster_name), region=env.world.region, **extra
    )


def test_node_census_reads_every_page(lab: Any) -> None:
    env: Lab = lab("healthy")
    backend = env.moto.backend("sagemaker", env.world.region)
    cluster = backend.clusters[env.world.cluster_name]
    template = next(iter(cluster.nodes.values()))
    import copy

    for i in range(246):  # 250 nodes in all: three pages of 100
        node = copy.copy(template)
        node.instance_id = f"i-0{0x7000 + i:016x}"
        cluster.nodes[node.instance_id] = node
    snapshot = collect(_options(env))
    try:
        listed = snapshot.get_json(NODES)
        assert listed["Pages"] == 3
        assert len(listed["ClusterNodeSummaries"]) == 250
        assert len({n["InstanceId"] for n in listed["ClusterNodeSummaries"]}) == 250
    finally:
        snapshot.close()


def test_cluster_not_found_lists_the_regions_clusters(lab: Any) -> None:
    env: Lab = lab("healthy")
    with pytest.raises(InputError) as caught:
        api.diagnose(cluster="ml-clustr", region=env.world.region)
    message = str(caught.value)
    assert "'ml-clustr' not found in us-west-2" in message
    assert "clusters there: ml-cluster" in message


def test_cluster_found_by_its_arn(lab: Any) -> None:
    env: Lab = lab("healthy")
    report = api.diagnose(cluster=env.world.cluster_arn)
    assert report.summary["cluster"] == "ml-cluster"
    assert report.summary["region"] == "us-west-2"
    assert statuses(report, "CLUSTER_NOT_INSERVICE") == ["PASS"]


def test_no_credentials_is_a_clear_input_error(lab: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    env: Lab = lab("healthy")
    monkeypatch.delenv("AWS_ACCESS_KEY_ID")
    monkeypatch.delenv("AWS_SECRET_ACCESS_KEY")
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    with pytest.raises(InputError, match="no AWS credentials found"):
        api.diagnose(cluster=env.world.cluster_name)


def test_rejected_credentials_are_a_clear_input_error(
    lab: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    env: Lab = lab("healthy")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIAEXAMPLEUNKNOWN00")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "not-a-real-secret")
    with (
        enable_iam_authentication(),
        pytest.raises(InputError, match="AWS rejected the credentials"),
    ):
        api.diagnose(cluster=env.world.cluster_name)


def _user_with_policy(env: Lab, statements: list[dict[str, Any]]) -> tuple[str, str]:
    iam = boto3.client(
        "iam",
        region_name="us-east-1",
        endpoint_url=env.moto.url,
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )
    iam.create_user(UserName="diagnose")
    iam.put_user_policy(
        UserName="diagnose",
        PolicyName="read-only-but",
        PolicyDocument=json.dumps({"Version": "2012-10-17", "Statement": statements}),
    )
    key = iam.create_access_key(UserName="diagnose")["AccessKey"]
    return key["AccessKeyId"], key["SecretAccessKey"]


def test_access_denied_skips_the_checks_it_blocks_never_fails_them(
    lab: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    env: Lab = lab(
        "sg-efa-fallback"
    )  # its security group IS broken: a denial must not hide that as PASS, nor invent a FAIL
    key, secret = _user_with_policy(
        env,
        [
            {"Effect": "Allow", "Action": "*", "Resource": "*"},
            {
                "Effect": "Deny",
                "Action": ["ec2:DescribeSecurityGroups", "sagemaker:ListClusterEvents"],
                "Resource": "*",
            },
        ],
    )
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", key)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", secret)
    with enable_iam_authentication():
        report = api.diagnose(cluster=env.world.cluster_name)
    found = by_code(report)
    assert statuses(report, "SG_SELF_REFERENCE_MISSING") == ["SKIPPED"]
    assert "AccessDenied: ec2:DescribeSecurityGroups" in found["SG_SELF_REFERENCE_MISSING"][0].title
    assert statuses(report, "CLUSTER_EVENTS") == ["SKIPPED"]
    iam = {f.details["action"]: f for f in found["IAM_PERMISSION_MISSING"]}
    assert set(iam) == {"ec2:DescribeSecurityGroups", "sagemaker:ListClusterEvents"}
    assert iam["ec2:DescribeSecurityGroups"].details["blocked_checks"] == [
        "network.security-groups"
    ]
    assert iam["sagemaker:ListClusterEvents"].details["blocked_checks"] == ["cluster.events"]
    assert all(f.status is Status.WARN for f in iam.values())
    assert report.root_cause is not None and report.root_cause.code != "SG_SELF_REFERENCE_MISSING"
    # The rest of the run went on: the Kubernetes and log checks still found the real trouble.
    assert "EFA_COUNT_MISMATCH" in {f.code for f in report.failures}


def test_throttling_is_retried_with_backoff_then_collected(
    lab: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    env: Lab = lab("healthy")
    proxy = ThrottleProxy(env.moto.url, {"ListClusterNodes": 2, "DescribeSecurityGroups": 1})
    monkeypatch.setenv("AWS_ENDPOINT_URL", proxy.url)
    try:
        reader = AwsReader(env.world.region, max_attempts=3)
        snapshot = collect(_options(env), aws=reader)
    finally:
        proxy.stop()
    try:
        assert proxy.throttled == {"ListClusterNodes": 2, "DescribeSecurityGroups": 1}
        assert len(snapshot.get_json(NODES)["ClusterNodeSummaries"]) == 4
        assert snapshot.has("aws/ec2/describe_security_groups.json")
    finally:
        snapshot.close()


def test_throttling_that_outlasts_the_retries_is_incomplete(
    lab: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    env: Lab = lab("healthy")
    proxy = ThrottleProxy(env.moto.url, {"DescribeSecurityGroups": 10})
    monkeypatch.setenv("AWS_ENDPOINT_URL", proxy.url)
    try:
        snapshot = collect(_options(env), aws=AwsReader(env.world.region, max_attempts=2))
        report = api.analyze_snapshot(snapshot)
        snapshot.close()
    finally:
        proxy.stop()
    assert proxy.throttled == {"DescribeSecurityGroups": 2}
    sg = by_code(report)["SG_SELF_REFERENCE_MISSING"][0]
    assert sg.status is Status.INCOMPLETE
    assert "Throttled: ec2:DescribeSecurityGroups" in sg.title
    assert "still throttled after 2 attempts" in sg.title


# ------------------------------------------------------------------ Stubber, real shapes
def _stubbed_reader() -> tuple[AwsReader, Any]:
    reader = AwsReader("us-west-2", max_attempts=1)
    return reader, reader.client("sagemaker")


def test_cluster_events_are_read_in_the_window_across_pages() -> None:
    reader, sagemaker = _stubbed_reader()
    now = datetime(2026, 11, 29, 12, 0, tzinfo=timezone.utc)
    options = DiagnoseOptions(
        cluster=parse_cluster("ml-cluster"), region="us-west-2", since=timedelta(hours=2), now=now
    )
    arn = f"arn:aws:sagemaker:us-west-2:{ACCOUNT}:cluster/a1b2c3d4e5f6"
    event = {
        "EventId": "e-1",
        "ClusterArn": arn,
        "ClusterName": "ml-cluster",
        "InstanceGroupName": "worker-group-1",
        "InstanceId": "i-00005a3c7e9b1d201",
        "ResourceType": "Instance",
        "EventTime": now - timedelta(minutes=50),
        "Description": "Node i-00005a3c7e9b1d201 is being replaced after a failed health check.",
        "EventLevel": "Error",
    }
    expected = {
        "ClusterName": "ml-cluster",
        "EventTimeAfter": now - timedelta(hours=2),
        "EventTimeBefore": now,
        "SortBy": "EventTime",
        "SortOrder": "Descending",
        "MaxResults": 100,
    }
    with Stubber(sagemaker) as stub:
        stub.add_response(
            "list_cluster_events", {"Events": [event], "NextToken": "page-2"}, expected
        )
        stub.add_response(
            "list_cluster_events",
            {
                "Events": [
                    {
                        **event,
                        "EventId": "e-2",
                        "EventLevel": "Info",
                        "Description": "Node replaced.",
                    }
                ]
            },
            {**expected, "NextToken": "page-2"},
        )
        data = _events(reader, "ml-cluster", options)
        stub.assert_no_pending_responses()
    assert [e["EventId"] for e in data["Events"]] == ["e-1", "e-2"]
    assert data["Truncated"] is False


def test_orchestrator_is_detected_from_describe_cluster_shapes() -> None:
    reader, sagemaker = _stubbed_reader()
    base = {
        "ClusterArn": f"arn:aws:sagemaker:us-west-2:{ACCOUNT}:cluster/a1b2c3d4e5f6",
        "ClusterName": "ml-cluster",
        "ClusterStatus": "InService",
        "InstanceGroups": [],
    }
    eks = {
        **base,
        "Orchestrator": {
            "Eks": {"ClusterArn": f"arn:aws:eks:us-west-2:{ACCOUNT}:cluster/hyperpod-eks"}
        },
    }
    slurm = {**base, "Orchestrator": {"Slurm": {"SlurmConfigStrategy": "Managed"}}}
    with Stubber(sagemaker) as stub:
        for shape in (eks, slurm, base):
            stub.add_response("describe_cluster", shape, {"ClusterName": ANY})
        got = [
            detect_orchestrator(
                reader.call("sagemaker", "describe_cluster", ClusterName="ml-cluster")
            )
            for _ in range(3)
        ]
    assert got == [
        "eks",
        "slurm",
        "slurm",
    ]  # no Orchestrator field: a cluster from before EKS support


def test_events_window_is_recorded_for_replay(lab: Any) -> None:
    env: Lab = lab("node-trouble")
    snapshot = collect(_options(env, since=timedelta(hours=1)))
    try:
        events = snapshot.get_json(EVENTS)["Events"]
        assert [e["EventLevel"] for e in events] == ["Error"]
        assert snapshot.meta["since_seconds"] == 3600
    finally:
        snapshot.close()
