"""What matching Slurm nodes in trouble to their instances costs on a HyperPod Slurm cluster.

    python benchmarks/slurm_node_matching.py [--sizes 10,100,1000] [--trouble 4] [--seed 7]

For each size it builds a Slurm cluster of that many workers in moto (boto3 over HTTP, the
tool's read-only session) and a `sinfo --json` of as many nodes (the real Slurm 22.05 sample
in tests/fixtures/slurm, renamed `ip-10-2-X-Y` as HyperPod names nodes), `--trouble` of them
DOWN at seeded random places, then times, in the same run:

  baseline: DescribeClusterNode for every instance (8 at a time), which maps every node
  ours:     `collect.slurm_ssm.match_instances`, in two API shapes: ListClusterNodes without
            PrivateDnsHostname (moto's, and older responses), where instances are described
            until the nodes in trouble are matched; and with it (the current API), where none
            needs describing

and prints calls, matched nodes, wall time and each one's ratio to the baseline. Calls should
follow the nodes in trouble, not the cluster (at most MAX_NODE_DESCRIBES).
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import random
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "eks"))

from aws_server import aws_environment, build_world, moto_server  # noqa: E402
from moto.sagemaker import models as sm_models  # noqa: E402

from hyperpod_nccl import targets  # noqa: E402
from hyperpod_nccl.collect.aws import AwsReader  # noqa: E402
from hyperpod_nccl.collect.hyperpod import NODES  # noqa: E402
from hyperpod_nccl.collect.options import DiagnoseOptions  # noqa: E402
from hyperpod_nccl.collect.run import CollectContext  # noqa: E402
from hyperpod_nccl.collect.slurm_ssm import INSTANCES_ITEM, MAX_NODE_DESCRIBES, match_instances  # noqa: E402
from hyperpod_nccl.snapshot import Snapshot  # noqa: E402

SINFO = ROOT / "tests" / "fixtures" / "slurm" / "sinfo-22.05.json"
ADDRESSES: dict[str, str] = {}  # instance ID -> PrivateDnsHostname
LISTED = {"with_dns": False}


def _patch_moto() -> None:
    """moto returns neither address field; the real API has both (DescribeClusterNode always,
    ListClusterNodes in current versions)."""
    describe, summary = sm_models.ClusterNode.describe, sm_models.ClusterNode.summary

    def described(self: Any) -> dict[str, Any]:
        return {**describe(self), "PrivateDnsHostname": ADDRESSES.get(self.instance_id, "")}

    def summarised(self: Any) -> dict[str, Any]:
        data: dict[str, Any] = summary(self)
        if LISTED["with_dns"]:
            data["PrivateDnsHostname"] = ADDRESSES.get(self.instance_id, "")
        return data

    sm_models.ClusterNode.describe = described
    sm_models.ClusterNode.summary = summarised


def _sinfo(names: list[str], trouble: set[str]) -> str:
    sample = json.loads(SINFO.read_text())
    healthy = next(n for n in sample["nodes"] if n["state"] == "idle" and not n["state_flags"])
    down = next(n for n in sample["nodes"] if n["state"] == "down" and not n["state_flags"])
    nodes = []
    for name in names:
        node = copy.deepcopy(down if name in trouble else healthy)
        node["name"] = node["hostname"] = name
        nodes.append(node)
    sample["nodes"] = nodes
    return json.dumps(sample)


def _timed(action: Callable[[], Any]) -> tuple[float, Any]:
    started = time.perf_counter()
    result = action()
    return time.perf_counter() - started, result


def measure(moto: Any, size: int, trouble_count: int, rng: random.Random) -> list[str]:
    moto.reset()
    workers = [f"i-0{0xB000000 + i:016x}" for i in range(size)]
    names = [f"ip-10-2-{i // 250}-{i % 250 + 1}" for i in range(size)]
    ADDRESSES.clear()
    ADDRESSES.update(
        {w: f"{n}.us-west-2.compute.internal" for w, n in zip(workers, names, strict=True)}
    )
    scenario = {
        "region": "us-west-2",
        "cluster": {
            "name": "bench-slurm",
            "id": "b3nchs1urm01",
            "security_groups": ["hyperpod"],
            "instance_groups": [
                {"name": "controller-machine", "type": "ml.m5.12xlarge", "count": 1},
                {"name": "worker-group-1", "type": "ml.p5.48xlarge", "count": size},
            ],
            "node_ids": ["i-0c0000000000000b1", *workers],
        },
        "security_groups": [{"name": "hyperpod", "ingress": [{"self": True}]}],
    }
    world = build_world(moto, scenario, None)
    os.environ.update(aws_environment(moto.url, world.region, None))
    trouble = set(rng.sample(names, trouble_count))
    options = DiagnoseOptions(
        cluster=targets.parse_cluster(world.cluster_name), region=world.region
    )
    aws = AwsReader(world.region)
    cluster = aws.call("sagemaker", "describe_cluster", ClusterName=world.cluster_name)
    rows = []

    def listing(with_dns: bool) -> Snapshot:
        LISTED["with_dns"] = with_dns
        snapshot = Snapshot(meta={"command": "benchmark", "orchestrator": "slurm"})
        pages = aws.paginate("sagemaker", "list_cluster_nodes", ClusterName=world.cluster_name)
        listed = [n for page in pages for n in page.get("ClusterNodeSummaries", [])]
        snapshot.put_json(NODES, {"ClusterNodeSummaries": listed})
        snapshot.put_text("slurm/sinfo.json", _sinfo(names, trouble))
        return snapshot

    def describe_all() -> int:
        def one(instance: str) -> Any:
            return aws.call(
                "sagemaker",
                "describe_cluster_node",
                ClusterName=world.cluster_name,
                NodeId=instance,
            )

        with ThreadPoolExecutor(max_workers=8) as pool:
            return len(list(pool.map(one, workers)))

    base_s, base_calls = _timed(describe_all)
    rows.append(
        f"{size:>6} baseline   calls {base_calls:>5}  matched {size:>5}/{size:<5} {base_s:7.2f} s"
    )
    for with_dns in (False, True):
        snapshot = listing(with_dns)
        took, _ = _timed(partial(match_instances, CollectContext(snapshot, options, aws, cluster)))
        result = snapshot.get_json(INSTANCES_ITEM) or {}
        calls = result.get("described", 0)
        shape = "list+dns " if with_dns else "list only"
        rows.append(
            f"{size:>6} {shape}  calls {calls:>5}  matched {len(result.get('matched', {})):>5}/"
            f"{trouble_count:<5} {took:7.2f} s   calls x{calls / base_calls:.3f}, "
            f"time x{took / base_s:.3f} of baseline"
        )
        snapshot.close()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10,100,1000")
    parser.add_argument("--trouble", type=int, default=4)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    _patch_moto()
    rng = random.Random(args.seed)
    print(f"nodes in trouble: {args.trouble} per cluster; describe cap {MAX_NODE_DESCRIBES}")
    print("  size shape      calls        matched        time")
    with moto_server() as moto:
        for size in (int(s) for s in args.sizes.split(",")):
            for row in measure(moto, size, min(args.trouble, size), rng):
                print(row)


if __name__ == "__main__":
    main()
