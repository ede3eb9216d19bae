"""NetworkPolicy evaluation against the rules of the Kubernetes documentation, on the job pods
of the scenario fixtures (real pod shapes) and policies written the ways users write them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hyperpod_nccl.kube.netpol import (
    Endpoint,
    allowance,
    blocked_between,
    classes,
    dns_blocked,
    endpoint,
    policy_types,
)

PODS = json.loads(
    (Path(__file__).parents[1] / "fixtures" / "eks" / "healthy" / "pods.json").read_text()
)
JOB = {"training.kubeflow.org/job-name": "llama-pretrain"}
NS = "training"


def policy(name: str, spec: dict[str, Any], ns: str = NS) -> dict[str, Any]:
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": {"name": name, "namespace": ns},
        "spec": spec,
    }


@pytest.fixture
def pods() -> list[Endpoint]:
    return [endpoint(p) for p in PODS]


def test_no_policy_type_and_no_rules_is_deny_all_ingress_not_allow_all(
    pods: list[Endpoint],
) -> None:
    deny = policy("default-deny", {"podSelector": {}})
    assert policy_types(deny) == {"Ingress"}
    result = allowance("Ingress", pods[0], pods[1], [deny], None)
    assert result.isolated and not result.allows_all("TCP") and result.describe() == "none"
    # ...and it leaves egress alone.
    assert not allowance("Egress", pods[0], pods[1], [deny], None).isolated


def test_egress_rules_imply_the_egress_type() -> None:
    assert policy_types(policy("p", {"podSelector": {}, "egress": [{}]})) == {"Ingress", "Egress"}
    assert policy_types(policy("p", {"podSelector": {}, "egress": []})) == {"Ingress"}
    assert policy_types(policy("p", {"podSelector": {}, "policyTypes": ["Egress"]})) == {"Egress"}


def test_rules_add_up_across_policies(pods: list[Endpoint]) -> None:
    deny = policy("default-deny", {"podSelector": {}})
    allow_job = policy(
        "allow-job",
        {
            "podSelector": {"matchLabels": JOB},
            "ingress": [{"from": [{"podSelector": {"matchLabels": JOB}}]}],
        },
    )
    result = allowance("Ingress", pods[0], pods[1], [deny, allow_job], None)
    assert result.allows_all("TCP")
    assert sorted(result.policies) == ["allow-job", "default-deny"]


def test_ports_port_ranges_protocol_only_and_named_ports(pods: list[Endpoint]) -> None:
    def allowed(ports: list[dict[str, Any]]) -> Any:
        p = policy("p", {"podSelector": {}, "ingress": [{"ports": ports}]})
        return allowance("Ingress", pods[0], pods[1], [p], None)

    assert allowed([{"port": 23456}]).describe() == "23456"
    assert not allowed([{"port": 23456}]).allows_all("TCP")
    assert allowed([{"port": 1, "endPort": 65535}]).allows_all("TCP")
    assert allowed([{"protocol": "TCP"}]).allows_all("TCP")  # no port: every TCP port
    assert not allowed([{"protocol": "UDP"}]).allows_all("TCP")
    assert allowed([{"port": "pytorchjob-port"}]).describe() == "23456"  # the pod's named port
    assert allowed(
        [
            {"port": 1024, "endPort": 40000},
            {"port": 40001, "endPort": 65535},
            {"port": 1, "endPort": 1023},
        ]
    ).allows_all("TCP")


def test_peers_namespace_selector_alone_and_with_pod_selector(pods: list[Endpoint]) -> None:
    labels = {"training": {"kubernetes.io/metadata.name": "training", "team": "llm"}}
    other_ns = Endpoint("monitoring", tuple(sorted(JOB.items())))
    by_namespace = policy(
        "ns",
        {
            "podSelector": {},
            "ingress": [{"from": [{"namespaceSelector": {"matchLabels": {"team": "llm"}}}]}],
        },
    )
    assert allowance("Ingress", pods[0], pods[1], [by_namespace], labels).allows_all("TCP")
    assert not allowance("Ingress", pods[0], other_ns, [by_namespace], labels).allows_all("TCP")
    # podSelector alone means the policy's own namespace, even if labels match elsewhere.
    by_pod = policy(
        "pod", {"podSelector": {}, "ingress": [{"from": [{"podSelector": {"matchLabels": JOB}}]}]}
    )
    assert not allowance("Ingress", pods[0], other_ns, [by_pod], labels).allows_all("TCP")
    # Both in one peer: AND.
    both = policy(
        "both",
        {
            "podSelector": {},
            "ingress": [
                {
                    "from": [
                        {
                            "namespaceSelector": {"matchLabels": {"team": "llm"}},
                            "podSelector": {"matchLabels": {"app": "x"}},
                        }
                    ]
                }
            ],
        },
    )
    assert not allowance("Ingress", pods[0], pods[1], [both], labels).allows_all("TCP")


def test_match_expressions(pods: list[Endpoint]) -> None:
    workers_only = policy(
        "workers",
        {
            "podSelector": {
                "matchExpressions": [
                    {
                        "key": "training.kubeflow.org/replica-type",
                        "operator": "In",
                        "values": ["worker"],
                    }
                ]
            },
            "ingress": [
                {
                    "from": [
                        {
                            "podSelector": {
                                "matchExpressions": [
                                    {"key": "training.kubeflow.org/job-name", "operator": "Exists"}
                                ]
                            }
                        }
                    ]
                }
            ],
        },
    )
    master, worker = pods[0], pods[1]
    assert not allowance(
        "Ingress", master, worker, [workers_only], None
    ).isolated  # master not selected
    assert allowance("Ingress", worker, master, [workers_only], None).allows_all("TCP")


def test_ip_block_with_except(pods: list[Endpoint]) -> None:
    block = policy(
        "cidr",
        {
            "podSelector": {},
            "ingress": [
                {"from": [{"ipBlock": {"cidr": "10.1.0.0/16", "except": ["10.1.97.0/24"]}}]}
            ],
        },
    )
    assert allowance("Ingress", pods[0], pods[2], [block], None).allows_all("TCP")  # 10.1.98.42
    assert not allowance("Ingress", pods[0], pods[1], [block], None).allows_all("TCP")  # 10.1.97.41


def test_traffic_needs_both_egress_and_ingress(pods: list[Endpoint]) -> None:
    egress_nothing = policy("no-egress", {"podSelector": {}, "policyTypes": ["Egress"]})
    blocked, uncertain = blocked_between(pods, [egress_nothing], None)
    assert {b.direction for b in blocked} == {"Egress"}
    assert uncertain == []
    assert dns_blocked(pods, [egress_nothing], None)


def test_policies_in_other_namespaces_do_not_apply(pods: list[Endpoint]) -> None:
    elsewhere = policy("deny", {"podSelector": {}}, ns="default")
    assert blocked_between(pods, [elsewhere], None) == ([], [])


def test_thousands_of_pods_cost_as_much_as_their_label_classes() -> None:
    base = PODS[1]
    many = []
    for i in range(3000):
        pod = json.loads(json.dumps(base))
        pod["metadata"]["name"] = f"llama-pretrain-worker-{i}"
        pod["metadata"]["labels"]["training.kubeflow.org/replica-index"] = str(i)
        many.append(endpoint(pod))
    only_job = policy(
        "p",
        {
            "podSelector": {"matchLabels": JOB},
            "ingress": [
                {"from": [{"podSelector": {"matchLabels": JOB}}], "ports": [{"port": 23456}]}
            ],
        },
    )
    assert len(classes(many, [only_job])) == 1  # replica-index is looked at by no selector
    blocked, _ = blocked_between(many, [only_job], None)
    assert len(blocked) == 1 and blocked[0].allowed_tcp == "23456"
