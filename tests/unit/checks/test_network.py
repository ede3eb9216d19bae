"""Network checks (security groups, NetworkPolicies, the rendezvous Service) on small Snapshots."""

from __future__ import annotations

import pytest
from cases import FAIL, PASS, SKIP, Case, Want, run_case

from hyperpod_nccl.model import Priority

JOB = "PyTorchJob training/llama-pretrain"

CASES = [
    Case(
        "network.security-groups",
        "network/sg-self-referencing",
        [
            Want(
                "SG_SELF_REFERENCE_MISSING",
                PASS,
                Priority.P0,
                details={
                    "cluster_groups": ["sg-e5fc52a2f49106908"],
                    "paths": ["worker-group-1 -> worker-group-1"],
                },
            )
        ],
    ),
    Case(
        "network.security-groups",
        "network/sg-cidr-only",
        [
            Want(
                "SG_SELF_REFERENCE_MISSING",
                FAIL,
                Priority.P0,
                title="worker-group-1 (sg-40dd7fe3f6f1e0b64): no inbound self-reference",
                evidence="sg-40dd7fe3f6f1e0b64 inbound: protocol tcp ports 22-22 with 10.0.0.0/16",
            )
        ],
    ),
    Case(
        "network.security-groups",
        "network/k8s-healthy",
        [Want("SG_SELF_REFERENCE_MISSING", SKIP, Priority.P0, title="not checked: not collected")],
    ),
    Case(
        "network.policies",
        "network/k8s-healthy",
        [
            Want(
                "NETWORK_POLICY_BLOCKING",
                PASS,
                Priority.P0,
                title="no policy selects them",
                details={"job": JOB},
            )
        ],
    ),
    Case(
        "network.policies",
        "network/k8s-blocked",
        [
            Want(
                "NETWORK_POLICY_BLOCKING",
                FAIL,
                Priority.P0,
                title="NetworkPolicies allow-rendezvous, default-deny, egress-to-job-only block traffic",
                evidence="policies egress-to-job-only do not allow DNS",
                details={"policies": ["allow-rendezvous", "default-deny", "egress-to-job-only"]},
            )
        ],
    ),
    Case(
        "network.headless-service",
        "network/k8s-healthy",
        [
            Want(
                "HEADLESS_SERVICE_MISSING",
                PASS,
                Priority.P0,
                title="MASTER_ADDR=llama-pretrain-master-0 (in 2 pods)",
            )
        ],
    ),
    Case(
        "network.headless-service",
        "network/k8s-blocked",
        [
            Want(
                "HEADLESS_SERVICE_MISSING",
                FAIL,
                Priority.P0,
                evidence="names Service 'llama-pretrain-master-0', which does not exist",
                details={"job": JOB},
            )
        ],
    ),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_network_check(case: Case) -> None:
    run_case(case)
