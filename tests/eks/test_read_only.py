"""Read-only by construction: a write through the AWS session or the Kubernetes access layer
is refused inside the process, before any request leaves it; a whole diagnose run sends only
allow-listed AWS reads and Kubernetes GETs."""

from __future__ import annotations

from typing import Any

import botocore.exceptions
import pytest
from botocore.stub import Stubber
from kubernetes import client as k8s_client

from conftest import Lab
from hyperpod_nccl.collect.aws import READ_ONLY_OPERATIONS, AwsReader, ReadOnlyViolation
from hyperpod_nccl.collect.k8s import Kubeconfig, KubeReader, choose_context
from hyperpod_nccl.collect.options import DiagnoseOptions
from hyperpod_nccl.collect.run import collect
from hyperpod_nccl.targets import parse_cluster


def _recording_reader(region: str) -> tuple[AwsReader, list[str], list[str]]:
    reader = AwsReader(region, max_attempts=1)
    operations: list[str] = []
    sent: list[str] = []
    reader.on(
        "before-call",
        lambda model, **_: operations.append(f"{model.service_model.service_name}:{model.name}"),
    )
    reader.on("before-send", lambda request, **_: sent.append(request.url))
    return reader, operations, sent


def test_aws_write_is_refused_before_it_is_sent(lab: Any) -> None:
    env: Lab = lab("healthy")
    reader, operations, sent = _recording_reader(env.world.region)
    ec2 = reader.client("ec2")
    group = env.world.security_groups["hyperpod-efa"]
    before = ec2.describe_security_groups(GroupIds=[group])["SecurityGroups"][0]["IpPermissions"]
    sent.clear()
    operations.clear()
    with pytest.raises(ReadOnlyViolation, match="AuthorizeSecurityGroupIngress"):
        ec2.authorize_security_group_ingress(
            GroupId=group,
            IpPermissions=[
                {
                    "IpProtocol": "tcp",
                    "FromPort": 22,
                    "ToPort": 22,
                    "IpRanges": [{"CidrIp": "0.0.0.0/0"}],
                }
            ],
        )
    with pytest.raises(ReadOnlyViolation, match="UpdateCluster"):
        reader.client("sagemaker").update_cluster(
            ClusterName=env.world.cluster_name, InstanceGroups=[]
        )
    with pytest.raises(ReadOnlyViolation, match="StartSession"):
        reader.client("ssm").start_session(Target=env.world.node_ids[0])
    assert sent == []  # nothing left the process
    assert operations == []  # refused before botocore even built the call
    after = ec2.describe_security_groups(GroupIds=[group])["SecurityGroups"][0]["IpPermissions"]
    assert after == before  # and moto holds no new rule


def test_a_stubbed_client_cannot_bypass_the_refusal() -> None:
    """The client exposes no write to stub (the refusal comes as the stub is set up), and
    the hook runs at parameter-build time, ahead of any before-call handler (a Stubber
    answers at before-call), so even a stub cannot make a write look allowed."""
    reader = AwsReader("us-west-2", max_attempts=1)
    sagemaker = reader.client("sagemaker")
    with Stubber(sagemaker) as stub, pytest.raises(ReadOnlyViolation):
        stub.add_response(
            "delete_cluster",
            {"ClusterArn": "arn:aws:sagemaker:us-west-2:123456789012:cluster/a1b2c3d4e5f6"},
        )
        sagemaker.delete_cluster(ClusterName="ml-cluster")


def test_allow_list_holds_only_reads() -> None:
    verbs = ("Describe", "List", "Get", "StartQuery")
    for service, operations in READ_ONLY_OPERATIONS.items():
        for op in operations:
            assert op.startswith(verbs), f"{service}:{op} is not a read"


def test_kubernetes_write_is_refused_before_it_is_sent(lab: Any) -> None:
    env: Lab = lab("healthy")
    kubeconfig = Kubeconfig.load(str(env.kubeconfig))
    context, _ = choose_context(kubeconfig, None, env.kube.url, env.world.eks_arn, "fix")
    reader = KubeReader.connect(kubeconfig, context)
    core = k8s_client.CoreV1Api(reader._api)
    before = len(env.kube.requests)
    with pytest.raises(ReadOnlyViolation, match="DELETE"):
        core.delete_namespaced_pod("llama-pretrain-master-0", "training")
    with pytest.raises(ReadOnlyViolation, match="POST"):
        core.create_namespaced_pod_eviction(
            "llama-pretrain-master-0",
            "training",
            {
                "apiVersion": "policy/v1",
                "kind": "Eviction",
                "metadata": {"name": "llama-pretrain-master-0"},
            },
        )
    with pytest.raises(ReadOnlyViolation, match="PATCH"):
        core.patch_node("hyperpod-i-00005a3c7e9b1d200", {"spec": {"unschedulable": True}})
    assert env.kube.requests[before:] == []


def test_a_full_run_only_reads(lab: Any) -> None:
    env: Lab = lab("oom-one-rank")
    reader, operations, _ = _recording_reader(env.world.region)
    options = DiagnoseOptions(
        cluster=parse_cluster(env.world.cluster_name), region=env.world.region
    )
    snapshot = collect(options, aws=reader)
    snapshot.close()
    assert operations, "the run made no AWS call at all"
    for op in operations:
        service, name = op.split(":")
        assert name in READ_ONLY_OPERATIONS[service], op
    assert {r["method"] for r in env.kube.requests} == {"GET"}
    assert any(
        r["path"].endswith("/log") and r["query"].get("previous") == "true"
        for r in env.kube.requests
    )


def test_botocore_still_validates_reads() -> None:
    """The hook refuses writes only; a malformed read still fails in botocore's validation
    (so the guard does not swallow real errors)."""
    reader = AwsReader("us-west-2", max_attempts=1)
    with pytest.raises(botocore.exceptions.ParamValidationError):
        reader.client("sagemaker").describe_cluster()
