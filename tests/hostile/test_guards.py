"""Guards that do not depend on callers' good manners: validators match whole strings (a
trailing newline is not a valid name), the Kubernetes client sends only the reads the reader
makes (no exec, attach, port-forward or proxy path, no raw POST, no swapped request function),
and AWS clients expose only allow-listed reads, whatever event handlers are unregistered."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from kubernetes import client as k8s_client

from hyperpod_nccl.collect.aws import AwsReader, ReadOnlyViolation, _refuse_writes
from hyperpod_nccl.collect.k8s import ReadOnlyApiClient
from hyperpod_nccl.collect.runner import CommandRefused, check_read_only
from hyperpod_nccl.collect.slurm_ssm import parse_instance_group
from hyperpod_nccl.collect.transports.base import TransportError
from hyperpod_nccl.collect.transports.slurm import SlurmTransport, validate_node
from hyperpod_nccl.collect.transports.ssm import SsmTarget, SsmTransport
from hyperpod_nccl.exit_codes import UsageError
from hyperpod_nccl.targets import parse_job_name, parse_namespace, parse_node_id, parse_region

INSTANCE = "i-0123456789abcdef0"
VALIDATORS: list[tuple[str, Callable[[], Any], type[Exception]]] = [
    ("--namespace", lambda: parse_namespace("training\n"), UsageError),
    ("--job", lambda: parse_job_name("llama-pretrain\n"), UsageError),
    ("--slurm-nodes", lambda: validate_node("gpu-01\n"), TransportError),
    ("--slurm-job", lambda: SlurmTransport(job_id="1234\n"), TransportError),
    (
        "--controller-group",
        lambda: parse_instance_group("controller\n", "--controller-group"),
        UsageError,
    ),
    ("SSM cluster id", lambda: SsmTarget("a1b2c3d4e5f6\n", "workers", INSTANCE), TransportError),
    ("SSM group", lambda: SsmTarget("a1b2c3d4e5f6", "workers\n", INSTANCE), TransportError),
    ("SSM instance", lambda: SsmTarget("a1b2c3d4e5f6", "workers", INSTANCE + "\n"), TransportError),
    (
        "SSM ARN",
        lambda: SsmTarget.from_cluster_arn(
            "arn:aws:sagemaker:us-west-2:123456789012:cluster/a1b2c3d4e5f6\n", "w", INSTANCE
        ),
        TransportError,
    ),
    ("SSM region", lambda: SsmTransport({}, region="us-west-2\n"), TransportError),
    ("SSM profile", lambda: SsmTransport({}, profile="default\n"), TransportError),
    ("cat path", lambda: check_read_only(["cat", "/etc/slurm/slurm.conf\n"]), CommandRefused),
]


@pytest.mark.parametrize("what", [v[0] for v in VALIDATORS])
def test_a_trailing_newline_is_not_a_valid_name(what: str) -> None:
    _, call, error = next(v for v in VALIDATORS if v[0] == what)
    with pytest.raises(error):
        call()


def test_whole_names_still_pass() -> None:
    assert parse_namespace("training") == "training"
    assert parse_job_name("llama-pretrain") == "llama-pretrain"
    assert validate_node("gpu-01") == "gpu-01"
    assert parse_node_id(INSTANCE) == INSTANCE
    assert parse_region("us-west-2") == "us-west-2"
    SsmTarget("a1b2c3d4e5f6", "workers", INSTANCE)
    check_read_only(["cat", "/etc/slurm/slurm.conf"])


# ------------------------------------------------------------------ Kubernetes
@pytest.fixture
def kube() -> ReadOnlyApiClient:
    configuration = k8s_client.Configuration()
    configuration.host = "https://127.0.0.1:9"  # nothing listens: a request would fail there
    configuration.retries = 0
    return ReadOnlyApiClient(configuration)


def test_exec_attach_port_forward_and_proxy_are_refused_before_any_request(
    kube: ReadOnlyApiClient,
) -> None:
    core = k8s_client.CoreV1Api(kube)
    calls = [
        lambda: core.connect_get_namespaced_pod_exec("pod", "ns", command=["sh"], stdout=True),
        lambda: core.connect_get_namespaced_pod_attach("pod", "ns", stdout=True),
        lambda: core.connect_get_namespaced_pod_portforward("pod", "ns", ports=22),
        lambda: core.connect_get_namespaced_service_proxy("svc", "ns"),
        lambda: core.connect_get_node_proxy("node"),
        lambda: core.read_namespaced_secret("s", "ns"),
        lambda: core.list_namespaced_secret("ns"),
    ]
    for call in calls:
        with pytest.raises(ReadOnlyViolation):
            call()


def test_kubernetes_stream_cannot_swap_the_request_function(kube: ReadOnlyApiClient) -> None:
    from kubernetes.stream import stream

    core = k8s_client.CoreV1Api(kube)
    with pytest.raises(ReadOnlyViolation):
        stream(core.connect_get_namespaced_pod_exec, "pod", "ns", command=["id"], stdout=True)
    with pytest.raises(ReadOnlyViolation):
        kube.request = lambda *a, **k: None  # type: ignore[method-assign]
    with pytest.raises(ReadOnlyViolation):
        kube.rest_client = None


def test_the_raw_rest_client_refuses_writes_and_other_paths(kube: ReadOnlyApiClient) -> None:
    base = "https://127.0.0.1:9"
    with pytest.raises(ReadOnlyViolation, match="POST"):
        kube.rest_client.request("POST", f"{base}/api/v1/namespaces/ns/pods", body={})
    with pytest.raises(ReadOnlyViolation):
        kube.rest_client.request("GET", f"{base}/api/v1/namespaces/ns/pods/p/exec?command=sh")
    with pytest.raises(ReadOnlyViolation):
        kube.rest_client.GET(f"{base}/api/v1/namespaces/ns/secrets")
    with pytest.raises(ReadOnlyViolation):
        kube.request("GET", "https://elsewhere.example/api/v1/pods")


def test_the_reads_the_reader_makes_are_not_refused(kube: ReadOnlyApiClient) -> None:
    core = k8s_client.CoreV1Api(kube)
    for call in (
        lambda: core.list_namespaced_pod("ns", _request_timeout=1),
        lambda: core.read_namespaced_pod_log("pod", "ns", container="c", _request_timeout=1),
        lambda: kube.call_api("/version", "GET", _request_timeout=1),
    ):
        with pytest.raises(Exception) as caught:  # the connection fails: nothing listens
            call()
        assert not isinstance(caught.value, ReadOnlyViolation), caught.value


# ------------------------------------------------------------------ AWS
def test_unregistering_the_hook_does_not_open_writes() -> None:
    reader = AwsReader("us-west-2", max_attempts=1)
    sagemaker = reader.client("sagemaker")
    sagemaker.meta.events.unregister("before-parameter-build", _refuse_writes)
    reader._session.events.unregister("before-parameter-build", _refuse_writes)
    with pytest.raises(ReadOnlyViolation, match="DeleteCluster"):
        sagemaker.delete_cluster(ClusterName="ml-cluster")
    with pytest.raises(ReadOnlyViolation):
        sagemaker._make_api_call("DeleteCluster", {"ClusterName": "ml-cluster"})
    with pytest.raises(ReadOnlyViolation):
        sagemaker.get_paginator("list_cluster_nodes_is_fine_but_not_this")
    with pytest.raises(ReadOnlyViolation, match="UpdateCluster"):
        reader.client("sagemaker").update_cluster(ClusterName="c", InstanceGroups=[])
    with pytest.raises(ReadOnlyViolation, match="StartSession"):
        reader.client("ssm").start_session(Target=INSTANCE)
    with pytest.raises(ReadOnlyViolation):
        reader.client("ec2").authorize_security_group_ingress(GroupId="sg-1")


def test_allowed_reads_and_their_paginators_are_reachable() -> None:
    reader = AwsReader("us-west-2", max_attempts=1)
    sagemaker = reader.client("sagemaker")
    assert callable(sagemaker.describe_cluster)
    assert sagemaker.get_paginator("list_cluster_nodes") is not None
    assert sagemaker.can_paginate("list_cluster_nodes")
    with pytest.raises(ReadOnlyViolation):
        reader.client("ec2").get_paginator("describe_instances")
