"""What users type for --cluster, --region, --node, --since: accepted in every partition the
SageMaker API model allows, rejected with the bad value named otherwise."""

from __future__ import annotations

from datetime import timedelta

import pytest

from hyperpod_nccl.exit_codes import UsageError
from hyperpod_nccl.targets import (
    parse_cluster,
    parse_node_id,
    parse_region,
    parse_since,
    partition_for_region,
    resolve_region,
)


@pytest.mark.parametrize(
    ("region", "partition"),
    [
        ("us-west-2", "aws"),
        ("ap-southeast-7", "aws"),
        ("cn-northwest-1", "aws-cn"),
        ("us-gov-west-1", "aws-us-gov"),
        ("us-iso-east-1", "aws-iso"),
        ("us-isob-east-1", "aws-iso-b"),
        ("eu-isoe-west-1", "aws-iso-e"),
        ("us-isof-south-1", "aws-iso-f"),
    ],
)
def test_regions_of_every_partition(region: str, partition: str) -> None:
    assert parse_region(region) == region
    assert partition_for_region(region) == partition


@pytest.mark.parametrize("bad", ["us_west_2", "US-WEST-2", "uswest2", "us-west", "", "us-west-2a"])
def test_bad_regions(bad: str) -> None:
    with pytest.raises(UsageError, match="invalid region"):
        parse_region(bad)


def test_cluster_arn_fixes_the_region_in_govcloud() -> None:
    ref = parse_cluster("arn:aws-us-gov:sagemaker:us-gov-west-1:123456789012:cluster/a1b2c3d4e5f6")
    assert (ref.is_arn, ref.region, ref.partition) == (True, "us-gov-west-1", "aws-us-gov")
    assert resolve_region(ref, None, "us-east-1") == "us-gov-west-1"
    with pytest.raises(UsageError, match="contradicts"):
        resolve_region(ref, "us-east-1", None)


@pytest.mark.parametrize(
    "bad",
    [
        "arn:aws:sagemaker:us-west-2:123456789012:cluster/ml-cluster",  # the ARN ends in the id, not the name
        "arn:aws:sagemaker:us-west-2:12345:cluster/a1b2c3d4e5f6",
        "arn:aws:eks:us-west-2:123456789012:cluster/a1b2c3d4e5f6",
        "arn:aws-cn:sagemaker:us-west-2:123456789012:cluster/a1b2c3d4e5f6",
        "-ml-cluster",
        "ml_cluster",
        "x" * 64,
    ],
)
def test_bad_cluster_names_and_arns(bad: str) -> None:
    with pytest.raises(UsageError):
        parse_cluster(bad)


def test_region_falls_back_to_the_profile_and_is_required() -> None:
    name = parse_cluster("ml-cluster")
    assert resolve_region(name, None, "eu-west-1") == "eu-west-1"
    assert resolve_region(name, "us-west-2", "eu-west-1") == "us-west-2"
    with pytest.raises(UsageError, match="no AWS region"):
        resolve_region(name, None, None)


def test_node_ids_and_their_kubernetes_names() -> None:
    assert parse_node_id("i-0123456789abcdef0") == "i-0123456789abcdef0"
    assert parse_node_id("i-01234567") == "i-01234567"
    assert parse_node_id("hyperpod-i-0123456789abcdef0") == "i-0123456789abcdef0"
    for bad in ("i-0123", "i-0123456789ABCDEF0", "ip-10-1-2-3", "worker-group-1-0"):
        with pytest.raises(UsageError, match="invalid node id"):
            parse_node_id(bad)


def test_since_windows() -> None:
    assert parse_since("90m") == timedelta(minutes=90)
    assert parse_since("2h") == timedelta(hours=2)
    assert parse_since("14d") == timedelta(days=14)
    for bad in ("0h", "15d", "2 h", "h", "-1h"):
        with pytest.raises(UsageError):
            parse_since(bad)
