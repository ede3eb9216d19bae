"""moto's server on loopback, with the HyperPod gaps of moto 5.2.1 filled, and a builder that
creates a HyperPod cluster world from a scenario file.

Patches, each for a documented moto gap (see /work/shared/notes/test-services.md, copied as
the notes in tests/fixtures/eks/README.md):
- `ClusterNode.arn`: list_cluster_nodes pages with NextToken raise AttributeError without it.
- Orchestrator and NodeRecovery: CreateCluster accepts them but DescribeCluster drops them;
  the server keeps and returns them, as the real API does.
- ListClusterEvents: not implemented (HTTP 500); the server answers it with events the test
  sets, in the response shape of botocore's service model, honouring EventTimeAfter,
  EventTimeBefore, SortOrder, MaxResults and NextToken.
- DescribeCluster by the real ARN form (`cluster/<12-character id>`): moto looks the last
  ARN part up as a name.
Not patched: with IAM enforcement on, moto rejects the signature of EKS's REST GET calls
(SignatureDoesNotMatch), so under enforcement eks:DescribeCluster fails as a credentials
error, not as a denial; tests that turn enforcement on expect that.
Instance ids: moto names nodes `<group>-<n>`; the builder renames them to EC2-style ids, as
HyperPod reports them, so SSM targets and Kubernetes node names line up.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import boto3
from botocore.config import Config
from moto.core.common_models import BackendDict
from moto.core.responses import ActionResult
from moto.ec2.models import ec2_backends
from moto.eks.models import eks_backends
from moto.sagemaker import models as sm_models
from moto.sagemaker.responses import SageMakerResponse
from moto.server import ThreadedMotoServer

ACCOUNT = "123456789012"
CLUSTER_EVENTS: dict[str, list[dict[str, Any]]] = {}
_EXTRA: dict[str, dict[str, Any]] = {}
_PATCHED = False


def _patch_moto() -> None:
    global _PATCHED
    if _PATCHED:
        return
    _PATCHED = True
    sm_models.ClusterNode.arn = property(lambda self: f"{self.cluster_name}/{self.instance_id}")

    original_describe = sm_models.Cluster.describe

    def describe(self: Any) -> dict[str, Any]:
        result = original_describe(self)
        result.update(_EXTRA.get(self.cluster_name, {}))
        result["ClusterArn"] = self.arn
        return result

    sm_models.Cluster.describe = describe

    original_create = SageMakerResponse.create_cluster

    def create_cluster(self: Any) -> Any:
        extra = {
            k: self._get_param(k) for k in ("Orchestrator", "NodeRecovery") if self._get_param(k)
        }
        result = original_create(self)
        _EXTRA[self._get_param("ClusterName")] = extra
        return result

    SageMakerResponse.create_cluster = create_cluster

    original_backend_describe = sm_models.SageMakerModelBackend.describe_cluster

    def backend_describe(self: Any, cluster_name: str) -> Any:
        for cluster in self.clusters.values():
            if cluster.arn == cluster_name:
                cluster_name = cluster.cluster_name
        return original_backend_describe(self, cluster_name)

    sm_models.SageMakerModelBackend.describe_cluster = backend_describe
    SageMakerResponse.list_cluster_events = _list_cluster_events


def _list_cluster_events(self: Any) -> ActionResult:
    name = self._get_param("ClusterName")
    after = self._get_param("EventTimeAfter")
    before = self._get_param("EventTimeBefore")
    events = list(CLUSTER_EVENTS.get(name, []))
    if after is not None:
        events = [e for e in events if e["EventTime"].timestamp() > _epoch(after)]
    if before is not None:
        events = [e for e in events if e["EventTime"].timestamp() < _epoch(before)]
    events.sort(key=lambda e: e["EventTime"], reverse=self._get_param("SortOrder") == "Descending")
    start = int(self._get_param("NextToken") or 0)
    size = int(self._get_param("MaxResults") or 100)
    page = events[start : start + size]
    result: dict[str, Any] = {"Events": page}
    if start + size < len(events):
        result["NextToken"] = str(start + size)
    return ActionResult(result)


def _epoch(value: Any) -> float:
    return value.timestamp() if isinstance(value, datetime) else float(value)


@dataclass
class MotoServer:
    server: ThreadedMotoServer
    url: str

    def backend(self, service: str, region: str) -> Any:
        backends: BackendDict = {
            "sagemaker": sm_models.sagemaker_backends,
            "ec2": ec2_backends,
            "eks": eks_backends,
        }[service]
        return backends[ACCOUNT][region]

    def reset(self) -> None:
        import requests

        requests.post(f"{self.url}/moto-api/reset", timeout=10)
        CLUSTER_EVENTS.clear()
        _EXTRA.clear()


@contextmanager
def moto_server() -> Iterator[MotoServer]:
    _patch_moto()
    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # one line per request otherwise
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    try:
        yield MotoServer(server, f"http://{host}:{port}")
    finally:
        server.stop()


def client(service: str, url: str, region: str) -> Any:
    """A plain boto3 client for building the world (not the tool's read-only one)."""
    return boto3.client(
        service,
        region_name=region,
        endpoint_url=url,
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
        config=Config(retries={"total_max_attempts": 1, "mode": "standard"}),
    )


@dataclass
class World:
    """What the builder created, for the tests to assert against."""

    region: str
    cluster_name: str
    cluster_arn: str
    eks_name: str | None
    eks_arn: str | None
    security_groups: dict[str, str] = field(default_factory=dict)  # scenario name -> sg id
    node_ids: list[str] = field(default_factory=list)
    now: datetime = field(default_factory=lambda: datetime.now(timezone.utc))


def load_scenario(directory: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((directory / "aws.json").read_text())
    return data


def _security_group(ec2: Any, vpc: str, spec: dict[str, Any], ids: dict[str, str]) -> str:
    group = ec2.create_security_group(GroupName=spec["name"], Description=spec["name"], VpcId=vpc)
    sg = group["GroupId"]
    ids[spec["name"]] = sg
    # moto adds the default egress rule (all traffic to 0.0.0.0/0) to every new group.
    if not spec.get("default_egress", True):
        ec2.revoke_security_group_egress(
            GroupId=sg, IpPermissions=[{"IpProtocol": "-1", "IpRanges": [{"CidrIp": "0.0.0.0/0"}]}]
        )
    for rule in spec.get("ingress", []):
        ec2.authorize_security_group_ingress(GroupId=sg, IpPermissions=[_permission(rule, sg, ids)])
    for rule in spec.get("egress", []):
        ec2.authorize_security_group_egress(GroupId=sg, IpPermissions=[_permission(rule, sg, ids)])
    return sg


def _permission(rule: dict[str, Any], own: str, ids: dict[str, str]) -> dict[str, Any]:
    perm: dict[str, Any] = {"IpProtocol": rule.get("protocol", "-1")}
    if "ports" in rule:
        perm["FromPort"], perm["ToPort"] = rule["ports"]
    if rule.get("self"):
        perm["UserIdGroupPairs"] = [{"GroupId": own}]
    if rule.get("group"):
        perm["UserIdGroupPairs"] = [{"GroupId": ids[rule["group"]]}]
    if rule.get("cidr"):
        perm["IpRanges"] = [{"CidrIp": rule["cidr"]}]
    return perm


def build_world(moto: MotoServer, scenario: dict[str, Any], kube_url: str | None) -> World:
    """Create the scenario's cluster, groups, EKS cluster, events and logs in moto."""
    region = scenario.get("region", "us-west-2")
    url = moto.url
    ec2 = client("ec2", url, region)
    vpc = ec2.describe_vpcs()["Vpcs"][0]["VpcId"]
    subnets = [s["SubnetId"] for s in ec2.describe_subnets()["Subnets"][:2]]
    sg_ids: dict[str, str] = {}
    for spec in scenario.get("security_groups", []):
        _security_group(ec2, vpc, spec, sg_ids)
    spec = scenario["cluster"]
    eks_name = eks_arn = None
    if scenario.get("eks"):
        eks_name = scenario["eks"]["name"]
        eks = client("eks", url, region)
        eks_arn = eks.create_cluster(
            name=eks_name,
            roleArn=f"arn:aws:iam::{ACCOUNT}:role/hyperpod-eks",
            resourcesVpcConfig={
                "subnetIds": subnets,
                "securityGroupIds": list(sg_ids.values())[:1],
            },
        )["cluster"]["arn"]
        if kube_url:
            moto.backend("eks", region).clusters[eks_name].endpoint = kube_url
    groups = []
    for group in spec["instance_groups"]:
        entry: dict[str, Any] = {
            "InstanceGroupName": group["name"],
            "InstanceType": group["type"],
            "InstanceCount": group["count"],
            "LifeCycleConfig": {
                "SourceS3Uri": "s3://sagemaker-lifecycle-hyperpod/scripts/",
                "OnCreate": "on_create.sh",
            },
            "ExecutionRole": f"arn:aws:iam::{ACCOUNT}:role/hyperpod-exec",
            "ThreadsPerCore": 1,
        }
        if group.get("override_security_groups"):
            entry["OverrideVpcConfig"] = {
                "SecurityGroupIds": [sg_ids[n] for n in group["override_security_groups"]],
                "Subnets": subnets[:1],
            }
        groups.append(entry)
    params: dict[str, Any] = {
        "ClusterName": spec["name"],
        "InstanceGroups": groups,
        "VpcConfig": {
            "SecurityGroupIds": [sg_ids[n] for n in spec["security_groups"]],
            "Subnets": subnets[:1],
        },
    }
    if eks_arn:
        params["Orchestrator"] = {"Eks": {"ClusterArn": eks_arn}}
    if spec.get("node_recovery"):
        params["NodeRecovery"] = spec["node_recovery"]
    client("sagemaker", url, region).create_cluster(**params)
    backend = moto.backend("sagemaker", region)
    cluster = backend.clusters[spec["name"]]
    cluster.arn = f"arn:aws:sagemaker:{region}:{ACCOUNT}:cluster/{spec['id']}"
    cluster.status = spec.get("status", "InService")
    if spec.get("failure_message"):
        cluster.failure_message = spec["failure_message"]
    renamed = {}
    for node, instance_id in zip(list(cluster.nodes.values()), spec["node_ids"], strict=True):
        node.instance_id = instance_id
        node.status = spec.get("node_status", {}).get(instance_id, "Running")
        renamed[instance_id] = node
    cluster.nodes = renamed
    world = World(
        region, spec["name"], cluster.arn, eks_name, eks_arn, sg_ids, list(spec["node_ids"])
    )
    CLUSTER_EVENTS[spec["name"]] = [
        {
            "EventId": f"evt-{i:04d}",
            "ClusterArn": cluster.arn,
            "ClusterName": spec["name"],
            "InstanceGroupName": e.get("group"),
            "InstanceId": e.get("instance"),
            "ResourceType": e["resource"],
            "EventTime": world.now + timedelta(seconds=e["offset_s"]),
            "Description": e["description"],
            "EventLevel": e["level"],
        }
        for i, e in enumerate(scenario.get("events", []))
    ]
    _put_logs(url, region, world, scenario.get("logs", {}), spec["id"])
    return world


def _put_logs(url: str, region: str, world: World, logs: dict[str, Any], cluster_id: str) -> None:
    logs_client = client("logs", url, region)
    streams: dict[str, dict[str, list[dict[str, Any]]]] = {}
    if logs.get("cluster"):
        streams[f"/aws/sagemaker/Clusters/{world.cluster_name}/{cluster_id}"] = logs["cluster"]
    if logs.get("container_insights") and world.eks_name:
        streams[f"/aws/containerinsights/{world.eks_name}/application"] = logs["container_insights"]
    for group, by_stream in streams.items():
        logs_client.create_log_group(logGroupName=group)
        for stream, lines in by_stream.items():
            logs_client.create_log_stream(logGroupName=group, logStreamName=stream)
            events = [
                {
                    "timestamp": int(
                        (world.now + timedelta(seconds=line["offset_s"])).timestamp() * 1000
                    ),
                    "message": line["message"]
                    if isinstance(line["message"], str)
                    else json.dumps(line["message"]),
                }
                for line in lines
            ]
            logs_client.put_log_events(logGroupName=group, logStreamName=stream, logEvents=events)


def aws_environment(url: str, region: str, kubeconfig: Path | None) -> dict[str, str]:
    """Environment for a run of the tool against the moto server (credentials are dummies)."""
    env = {
        "AWS_ENDPOINT_URL": url,
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": region,
        "AWS_CONFIG_FILE": os.devnull,
        "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
    }
    if kubeconfig is not None:
        env["KUBECONFIG"] = str(kubeconfig)
    return env
