"""Cluster checks (SageMaker and EC2 documents) on small Snapshots."""

from __future__ import annotations

import pytest
from cases import FAIL, INCOMPLETE, INFO, PASS, SKIP, WARN, Case, Want, run_case

from hyperpod_nccl.model import Priority

BAD_NODE = "i-00005a3c7e9b1d201"

CASES = [
    Case(
        "cluster.status",
        "cluster/healthy",
        [Want("CLUSTER_NOT_INSERVICE", PASS, Priority.P0, title="ml-cluster is InService")],
    ),
    Case(
        "cluster.status",
        "cluster/failed-no-efa",
        [
            Want(
                "CLUSTER_NOT_INSERVICE",
                FAIL,
                Priority.P0,
                title="worker-group-1: Failed",
                evidence="ClusterStatus=Failed FailureMessage='Lifecycle script on_create.sh failed",
                details={"cluster_status": "Failed", "instance_groups": ["worker-group-1: Failed"]},
            )
        ],
    ),
    Case(
        "cluster.status",
        "cluster/denied",
        [
            Want(
                "CLUSTER_NOT_INSERVICE",
                SKIP,
                Priority.P0,
                title="not checked: AccessDenied: sagemaker:DescribeCluster",
            )
        ],
    ),
    Case(
        "cluster.node-recovery",
        "cluster/healthy",
        [Want("NODE_RECOVERY_DISABLED", PASS, Priority.P2)],
    ),
    Case(
        "cluster.node-recovery",
        "cluster/node-trouble",
        [
            Want(
                "NODE_RECOVERY_DISABLED",
                FAIL,
                Priority.P1,
                hosts=[BAD_NODE],
                title="1 failed node will not be replaced",
                evidence="NodeRecovery=None",
            )
        ],
    ),
    Case(
        "cluster.nodes",
        "cluster/healthy",
        [
            Want(
                "NODE_CENSUS",
                INFO,
                Priority.P2,
                title="4 nodes: 4 Running",
                details={"states": {"Running": 4}},
            ),
            Want("HEALTH_CHECK_FAILED", PASS, Priority.P1),
        ],
    ),
    Case(
        "cluster.nodes",
        "cluster/node-trouble",
        [
            Want("NODE_CENSUS", INFO, title="4 nodes: 1 Failure, 3 Running"),
            Want(
                "HEALTH_CHECK_FAILED",
                FAIL,
                Priority.P1,
                hosts=[BAD_NODE],
                evidence=f"{BAD_NODE} worker-group-1 Failure: Deep health check failed",
            ),
        ],
    ),
    Case(
        "cluster.nodes",
        "cluster/failed-no-efa",
        [
            Want("NODE_CENSUS", INFO, title="2 nodes: 2 Running"),
            Want("NODE_CENSUS", WARN, Priority.P1, title="worker-group-1 has 2 of 4 nodes"),
            Want("HEALTH_CHECK_FAILED", PASS),
        ],
    ),
    Case(
        "cluster.instance-types",
        "cluster/healthy",
        [
            Want(
                "INSTANCE_CAPABILITIES",
                INFO,
                Priority.P2,
                title="worker-group-1: p5.48xlarge, 8x H100, 32 EFA",
            )
        ],
    ),
    Case(
        "cluster.instance-types",
        "cluster/failed-no-efa",
        [
            Want("INSTANCE_CAPABILITIES", INFO, title="g5.xlarge, 1x A10G, no EFA"),
            Want("INSTANCE_CAPABILITIES", WARN, Priority.P2, title="worker-group-1 (g5.xlarge)"),
        ],
    ),
    Case(
        "cluster.events",
        "cluster/healthy",
        [Want("CLUSTER_EVENTS", PASS, Priority.P1, title="in the last 2h (1 event in all)")],
    ),
    Case(
        "cluster.events",
        "cluster/node-trouble",
        [
            Want(
                "HEALTH_CHECK_FAILED",
                FAIL,
                Priority.P1,
                hosts=[BAD_NODE],
                title="HyperPod health checks failed in the last 2h on 1 instance",
                evidence="Error i-00005a3c7e9b1d201: Deep health check failed",
                details={"events": 1, "job_pods": {}},
            ),
            Want("CLUSTER_EVENTS", INFO, Priority.P2, title="1 error event and 0 warning events"),
        ],
    ),
    Case(
        "cluster.events",
        "cluster/denied",
        [
            Want(
                "CLUSTER_EVENTS",
                INCOMPLETE,
                Priority.P1,
                title="cluster events not checked: Throttled",
            )
        ],
    ),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_cluster_check(case: Case) -> None:
    run_case(case)
