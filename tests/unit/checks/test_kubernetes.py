"""Kubernetes checks (API access, nodes, device plugins, EFA requests) on small Snapshots."""

from __future__ import annotations

import pytest
from cases import FAIL, PASS, SKIP, WARN, Case, Want, run_case

from hyperpod_nccl.model import Priority

BAD = "hyperpod-i-00005a3c7e9b1d201"
WRONG = (
    "kubeconfig context 'staging' points at https://0A1B2C3D4E5F.gr7.us-west-2.eks.amazonaws.com"
)

CASES = [
    Case(
        "kubernetes.access",
        "kubernetes/healthy",
        [
            Want(
                "K8S_WRONG_CONTEXT",
                PASS,
                Priority.P1,
                title="(context eks, v1.31.4-eks-2d5f260) is the cluster's EKS cluster",
            )
        ],
    ),
    Case(
        "kubernetes.access",
        "kubernetes/wrong-context",
        [
            Want(
                "K8S_WRONG_CONTEXT",
                WARN,
                Priority.P1,
                title=f"Kubernetes checks not run: {WRONG}",
                details={"kind": "wrong_context"},
            )
        ],
    ),
    Case(
        "kubernetes.nodes",
        "kubernetes/healthy",
        [
            Want("NODE_NOT_READY", PASS, Priority.P0, title="all 2 nodes are Ready"),
            Want("HEALTH_CHECK_FAILED", PASS, Priority.P0),
        ],
    ),
    Case(
        "kubernetes.nodes",
        "kubernetes/node-trouble",
        [
            Want(
                "NODE_NOT_READY",
                FAIL,
                Priority.P0,
                hosts=[BAD],
                title="(running job pods",
                evidence=f"{BAD}: NodeStatusUnknown: Kubelet stopped posting node status.",
            ),
            Want(
                "HEALTH_CHECK_FAILED",
                FAIL,
                Priority.P0,
                hosts=[BAD],
                evidence="node-health-status=UnschedulablePendingReplacement sagemaker.amazonaws.com/deep-health-check-status=Failed",
            ),
        ],
    ),
    Case(
        "kubernetes.nodes",
        "kubernetes/wrong-context",
        [Want("NODE_NOT_READY", SKIP, Priority.P0, title="WrongContext: " + WRONG)],
    ),
    Case(
        "kubernetes.node-census",
        "kubernetes/healthy",
        [
            Want(
                "NODE_NOT_READY",
                PASS,
                Priority.P1,
                title="every Running HyperPod node (2) is registered",
            )
        ],
    ),
    Case(
        "kubernetes.node-census",
        "kubernetes/node-trouble",
        [
            Want(
                "NODE_NOT_READY",
                WARN,
                Priority.P1,
                hosts=["i-00005a3c7e9b1d202", "i-00005a3c7e9b1d203"],
                title="2 Running HyperPod nodes not registered in Kubernetes",
            )
        ],
    ),
    Case(
        "kubernetes.efa-device-plugin",
        "kubernetes/healthy",
        [
            Want(
                "EFA_DEVICE_PLUGIN_MISSING",
                PASS,
                Priority.P0,
                title="4/4 ready; every EFA-capable node advertises",
            )
        ],
    ),
    # No pod asks for EFA and DescribeInstanceTypes is not in the snapshot, yet both nodes
    # advertise 32 EFA devices (the nodes kubernetes.efa-requests checks): the half-ready plugin
    # is a finding, not "not needed".
    Case(
        "kubernetes.efa-device-plugin",
        "kubernetes/node-trouble",
        [
            Want(
                "EFA_DEVICE_PLUGIN_MISSING",
                FAIL,
                Priority.P1,
                title="EFA device plugin not serving every node",
                evidence="kube-system/hyperpod-dependencies-aws-efa-k8s-device-plugin 2/4 ready",
            )
        ],
    ),
    Case(
        "kubernetes.efa-device-plugin",
        "kubernetes/no-device-plugins",
        [
            Want(
                "EFA_DEVICE_PLUGIN_MISSING",
                FAIL,
                Priority.P0,
                title="no EFA device-plugin DaemonSet, yet 2 EFA-capable nodes and 2 pods asking",
            )
        ],
    ),
    Case(
        "kubernetes.nvidia-device-plugin",
        "kubernetes/no-device-plugins",
        [
            Want(
                "NVIDIA_DEVICE_PLUGIN_MISSING",
                FAIL,
                Priority.P0,
                hosts=[],
                title="no NVIDIA device-plugin DaemonSet",
            )
        ],
    ),
    Case(
        "kubernetes.nvidia-device-plugin",
        "kubernetes/healthy",
        [
            Want(
                "NVIDIA_DEVICE_PLUGIN_MISSING",
                PASS,
                Priority.P0,
                title="serves 2 GPU nodes with every GPU allocatable",
            )
        ],
    ),
    Case(
        "kubernetes.efa-requests",
        "kubernetes/healthy",
        [
            Want(
                "EFA_COUNT_MISMATCH",
                PASS,
                Priority.P1,
                title="2 job pods on EFA nodes ask for the node's EFA devices",
            )
        ],
    ),
    Case(
        "kubernetes.efa-requests",
        "kubernetes/node-trouble",
        [
            Want(
                "EFA_COUNT_MISMATCH",
                FAIL,
                Priority.P0,
                evidence="llama-pretrain-worker-0 (llama-pretrain) asks for 0 of 32 EFA on hyperpod-i-00005a3c7e9b1d201",
            )
        ],
    ),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_kubernetes_check(case: Case) -> None:
    run_case(case)
