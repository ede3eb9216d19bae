"""The worlds where the reference nccl-diagnose.sh was right and diagnose was not (issue 19),
built on the scenarios of tests/fixtures/eks: security groups changed in moto after the
scenario is up, and scenario folders rewritten into a test's tmp_path (instance ids that are
not EC2-shaped, a 200-node cluster)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import boto3

from conftest import SCENARIOS, Lab
from hyperpod_nccl.model import Report, Status

ALL_TRAFFIC_SELF = "IpProtocol=-1 self"
# Codes about this machine or this run's own access, never about the cluster: none may FAIL.
ABOUT_THIS_MACHINE = frozenset(
    {
        "K8S_UNREACHABLE",
        "K8S_UNAUTHENTICATED",
        "K8S_WRONG_CONTEXT",
        "K8S_FORBIDDEN",
        "IAM_PERMISSION_MISSING",
        "NODE_PROBES",
        "NODE_UNREACHABLE",
        "ORCHESTRATOR",
        "CHECK_FAILED",
    }
)


def machine_failures(report: Report) -> list[str]:
    return [
        f"{f.code}: {f.title}"
        for f in report.findings
        if f.status is Status.FAIL and f.code in ABOUT_THIS_MACHINE
    ]


def _ec2(env: Lab) -> Any:
    return boto3.client("ec2", region_name=env.world.region)


def _self_rule(group: str) -> list[dict[str, Any]]:
    return [{"IpProtocol": "-1", "UserIdGroupPairs": [{"GroupId": group}]}]


def outbound_self_reference_missing(env: Lab) -> str:
    """The healthy group without its outbound self-reference: only moto's (and EC2's) default
    egress rule, all traffic to 0.0.0.0/0, is left. Returns the group id."""
    group = env.world.security_groups["hyperpod-efa"]
    _ec2(env).revoke_security_group_egress(GroupId=group, IpPermissions=_self_rule(group))
    return group


def cidr_only(env: Lab) -> str:
    """No self-reference at all: all traffic in from the VPC's CIDR, out to 0.0.0.0/0."""
    ec2 = _ec2(env)
    group = env.world.security_groups["hyperpod-efa"]
    ec2.revoke_security_group_ingress(GroupId=group, IpPermissions=_self_rule(group))
    ec2.revoke_security_group_egress(GroupId=group, IpPermissions=_self_rule(group))
    vpc = ec2.describe_security_groups(GroupIds=[group])["SecurityGroups"][0]["VpcId"]
    cidr = ec2.describe_vpcs(VpcIds=[vpc])["Vpcs"][0]["CidrBlock"]
    ec2.authorize_security_group_ingress(
        GroupId=group, IpPermissions=[{"IpProtocol": "-1", "IpRanges": [{"CidrIp": cidr}]}]
    )
    return group


def _copy(scenario: str, target: Path) -> Path:
    shutil.copytree(SCENARIOS / scenario, target)
    return target


def renamed_instances(scenario: str, tmp_path: Path, names: list[str]) -> Path:
    """The scenario with its four instance ids replaced by `names` everywhere (AWS side,
    Kubernetes node names, pods' nodeName, log lines)."""
    target = _copy(scenario, tmp_path / f"{scenario}-renamed")
    old = json.loads((target / "aws.json").read_text())["cluster"]["node_ids"]
    for path in target.rglob("*"):
        if path.is_file():
            text = path.read_text()
            for before, after in zip(old, names, strict=True):
                text = text.replace(before, after)
            path.write_text(text)
    return target


def many_nodes(tmp_path: Path, count: int) -> Path:
    """The healthy scenario grown to `count` nodes, in HyperPod and in Kubernetes alike; the
    job still runs on the first four."""
    target = _copy("healthy", tmp_path / f"healthy-{count}")
    aws = json.loads((target / "aws.json").read_text())
    first = aws["cluster"]["node_ids"][0]
    ids = aws["cluster"]["node_ids"] + [f"i-0{0x6A3C7E9B1D200 + i:016x}" for i in range(count - 4)]
    aws["cluster"]["node_ids"] = ids
    aws["cluster"]["instance_groups"][0]["count"] = count
    (target / "aws.json").write_text(json.dumps(aws, indent=1))
    nodes = json.loads((target / "nodes.json").read_text())
    template = json.dumps(next(n for n in nodes if first in n["metadata"]["name"]))
    nodes += [json.loads(template.replace(first, new)) for new in ids[4:]]
    (target / "nodes.json").write_text(json.dumps(nodes))
    return target
