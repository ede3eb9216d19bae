"""Check and normalise what the user names on the `diagnose` command line: cluster names and
ARNs, regions (commercial, China, GovCloud, ISO), node instance ids, Kubernetes names and
time windows. Every problem is a one-line UsageError naming the bad value.

Patterns are the ones SageMaker's own API model declares (ClusterNameOrArn, ClusterNodeId),
so a value we accept is one the API accepts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from hyperpod_nccl.exit_codes import UsageError

_CLUSTER_NAME = re.compile(r"^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}$")
_CLUSTER_ARN = re.compile(
    r"^arn:(?P<partition>aws[a-z-]*):sagemaker:(?P<region>[a-z0-9-]+):(?P<account>[0-9]{12}):"
    r"cluster/(?P<id>[a-z0-9]{12})$"
)
# Commercial (us-east-1), China (cn-north-1), GovCloud (us-gov-west-1) and the ISO partitions
# (us-iso-east-1, us-isob-east-1, eu-isoe-west-1, us-isof-south-1).
_REGION = re.compile(r"^[a-z]{2}(?:-gov|-iso[a-z]?)?-[a-z]+-[0-9]{1,2}$")
_INSTANCE_ID = re.compile(r"^i-[0-9a-f]{8}(?:[0-9a-f]{9})?$")


def is_instance_id(text: str) -> bool:
    """An EC2 instance id, in its short (8) or long (17 hex digit) form."""
    return bool(_INSTANCE_ID.fullmatch(text))


# HyperPod names its Kubernetes nodes after the instance: hyperpod-i-0123456789abcdef0.
_K8S_NODE_PREFIX = "hyperpod-"
_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")
_DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$")
_DURATION = re.compile(r"^(?P<amount>[0-9]{1,5})(?P<unit>[smhd])$")
_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
# ListClusterEvents and CloudWatch Logs Insights both reach back weeks; a longer window only
# makes queries slow without helping to find why a job fails now.
MAX_WINDOW = timedelta(days=14)

PARTITION_OF_REGION_PREFIX = (
    ("us-gov-", "aws-us-gov"),
    ("us-isob-", "aws-iso-b"),
    ("us-isof-", "aws-iso-f"),
    ("eu-isoe-", "aws-iso-e"),
    ("us-iso-", "aws-iso"),
    ("cn-", "aws-cn"),
)


@dataclass(frozen=True)
class ClusterRef:
    """A cluster as the user named it: a name, or an ARN (which also fixes the region)."""

    value: str
    is_arn: bool
    region: str | None = None
    partition: str | None = None


def partition_for_region(region: str) -> str:
    for prefix, partition in PARTITION_OF_REGION_PREFIX:
        if region.startswith(prefix):
            return partition
    return "aws"


def parse_region(value: str) -> str:
    region = value.strip()
    if not _REGION.fullmatch(region):
        raise UsageError(
            f"invalid region {value!r}: expected a region code such as us-west-2, "
            "us-gov-west-1 or us-iso-east-1"
        )
    return region


def parse_cluster(value: str) -> ClusterRef:
    text = value.strip()
    arn = _CLUSTER_ARN.fullmatch(text)
    if arn:
        region = parse_region(arn["region"])
        expected = partition_for_region(region)
        if arn["partition"] != expected:
            raise UsageError(
                f"invalid cluster ARN {value!r}: region {region} belongs to partition "
                f"{expected}, not {arn['partition']}"
            )
        return ClusterRef(text, True, region, arn["partition"])
    if text.startswith("arn:"):
        raise UsageError(
            f"invalid cluster ARN {value!r}: expected "
            "arn:<partition>:sagemaker:<region>:<account>:cluster/<12-character id>"
        )
    if not _CLUSTER_NAME.fullmatch(text):
        raise UsageError(
            f"invalid cluster name {value!r}: 1-63 letters, digits and hyphens, starting and "
            "ending with a letter or digit"
        )
    return ClusterRef(text, False)


def resolve_region(cluster: ClusterRef, given: str | None, from_profile: str | None) -> str:
    """The region to use: the ARN's, else --region, else the profile's or AWS_DEFAULT_REGION."""
    region = parse_region(given) if given else None
    if cluster.region:
        if region and region != cluster.region:
            raise UsageError(
                f"--region {region} contradicts the cluster ARN, which is in {cluster.region}"
            )
        return cluster.region
    if region:
        return region
    if from_profile:
        return parse_region(from_profile)
    raise UsageError(
        "no AWS region: pass --region, set AWS_DEFAULT_REGION, or set a region in the profile"
    )


def parse_node_id(value: str) -> str:
    """An EC2 instance id; the Kubernetes node name HyperPod gives it is accepted too."""
    text = value.strip()
    if text.startswith(_K8S_NODE_PREFIX):
        text = text[len(_K8S_NODE_PREFIX) :]
    if not _INSTANCE_ID.fullmatch(text):
        raise UsageError(
            f"invalid node id {value!r}: expected an instance id such as i-0123456789abcdef0 "
            "(or its Kubernetes node name hyperpod-i-0123456789abcdef0)"
        )
    return text


def parse_namespace(value: str) -> str:
    if not _DNS_LABEL.fullmatch(value):
        raise UsageError(
            f"invalid namespace {value!r}: lower-case letters, digits and '-', at most 63 "
            "characters"
        )
    return value


def parse_job_name(value: str) -> str:
    if not _DNS_SUBDOMAIN.fullmatch(value):
        raise UsageError(
            f"invalid job name {value!r}: lower-case letters, digits, '-' and '.', at most "
            "253 characters"
        )
    return value


def parse_since(value: str, now: datetime | None = None) -> timedelta:
    """`--since` as every command reads it: a duration (30m, 2h, 1d) or an ISO time (UTC
    unless it names a zone), as the window back from `now`."""
    text = value.strip()
    match = _DURATION.fullmatch(text)
    if match:
        window = timedelta(seconds=int(match["amount"]) * _UNIT_SECONDS[match["unit"]])
    else:
        try:
            when = datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            raise UsageError(
                f"invalid --since {value!r}: expected a duration such as 30m, 2h or 1d, or an "
                "ISO time such as 2026-11-30T10:00:00Z"
            ) from None
        when = when if when.tzinfo else when.replace(tzinfo=timezone.utc)
        window = (now or datetime.now(timezone.utc)) - when
    if window.total_seconds() <= 0:
        raise UsageError(f"invalid --since {value!r}: the window must be longer than zero")
    if window > MAX_WINDOW:
        raise UsageError(f"invalid --since {value!r}: at most {MAX_WINDOW.days}d")
    return window


INSTANCE_GROUP = re.compile(r"^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}$")


def parse_instance_group(value: str, option: str) -> str:
    """A HyperPod instance group name as given on the command line (--controller-group)."""
    if not INSTANCE_GROUP.fullmatch(value):
        raise UsageError(
            f"invalid {option} {value!r}: an instance group name (letters, digits, hyphens)"
        )
    return value
