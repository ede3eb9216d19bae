"""Kubernetes access problems are told apart, each with its fix, and leave the Kubernetes
checks SKIPPED (never PASS): unreachable, unauthenticated (401), wrong context, no
kubeconfig, and RBAC forbidding one resource."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import Lab, by_code, statuses
from hyperpod_nccl.model import Priority, Report, Status

K8S_CHECKS = (
    "NODE_NOT_READY",
    "EFA_DEVICE_PLUGIN_MISSING",
    "POD_FAILURES",
    "NCCL_ENV_MISCONFIGURED",
)


def _access(report: Report) -> Any:
    return next(f for f in report.findings if f.details.get("check") == "kubernetes.access")


def _kube_checks_skipped(report: Report) -> None:
    for code in K8S_CHECKS:
        assert set(statuses(report, code)) == {"SKIPPED"}, code
    # This machine's access is not the cluster's fault: a P1 warning, never a failure.
    access = _access(report)
    assert (access.status, access.priority) == (Status.WARN, Priority.P1)
    assert not [f for f in report.failures if f.code.startswith("K8S_")]
    listed = [n for n in report.not_checked if n.check == "kubernetes.access"]
    assert len(listed) == 1 and "every Kubernetes check" in listed[0].reason


def test_unreachable_api_server(lab: Any) -> None:
    env: Lab = lab("healthy")
    env.kube.stop()  # the endpoint stays in the kubeconfig, nothing listens
    report = env.diagnose()
    access = _access(report)
    assert (access.code, access.status) == ("K8S_UNREACHABLE", Status.WARN)
    assert "cannot be reached" in access.title
    assert (
        "VPN, private endpoint access" in access.suggested_commands[0].command
        or access.suggested_commands
    )
    _kube_checks_skipped(report)
    assert report.root_cause is None or report.root_cause.code != "K8S_UNREACHABLE"


def test_unauthenticated(lab: Any) -> None:
    env: Lab = lab("healthy", token="expired-token")
    report = env.diagnose()
    access = _access(report)
    assert (access.code, access.status) == ("K8S_UNAUTHENTICATED", Status.WARN)
    assert "401" in access.title
    # A read-only confirmation first; the fix names the access entry and the refresh.
    confirm, fix = access.suggested_commands
    assert (confirm.command, confirm.changes_state) == ("kubectl auth whoami", False)
    assert "access entry" in fix.preconditions and fix.changes_state
    assert fix.command == "aws eks update-kubeconfig --name hyperpod-eks --region us-west-2"
    _kube_checks_skipped(report)
    assert env.kube.requests and all(r["path"] == "/version" for r in env.kube.requests)


def test_wrong_context_names_the_eks_cluster_and_the_fix(lab: Any, tmp_path: Path) -> None:
    env: Lab = lab("healthy")
    other = tmp_path / "other-kubeconfig"
    other.write_text(
        env.kubeconfig.read_text().replace(
            env.kube.url, "https://ABCDEF.gr7.us-east-1.eks.amazonaws.com"
        )
    )
    report = env.diagnose(kubeconfig=str(other))
    access = _access(report)
    assert (access.code, access.status) == ("K8S_WRONG_CONTEXT", Status.WARN)
    assert "ABCDEF.gr7.us-east-1.eks.amazonaws.com" in access.title
    assert env.world.eks_arn in access.title
    assert (
        access.suggested_commands[-1].command
        == "aws eks update-kubeconfig --name hyperpod-eks --region us-west-2"
    )
    assert env.kube.requests == []  # the wrong cluster was never contacted
    _kube_checks_skipped(report)


def test_explicit_context_must_be_the_eks_cluster(lab: Any) -> None:
    env: Lab = lab(
        "healthy", extra_contexts={"staging": "https://STAGING.gr7.us-west-2.eks.amazonaws.com"}
    )
    report = env.diagnose(context="staging")
    assert _access(report).code == "K8S_WRONG_CONTEXT"
    _kube_checks_skipped(report)


def test_current_context_elsewhere_but_a_matching_one_exists(lab: Any) -> None:
    env: Lab = lab(
        "healthy", extra_contexts={"staging": "https://STAGING.gr7.us-west-2.eks.amazonaws.com"}
    )
    text = env.kubeconfig.read_text().replace(
        '"current-context": "eks"', '"current-context": "staging"'
    )
    env.kubeconfig.write_text(text)
    report = env.diagnose()
    access = _access(report)
    assert access.status is Status.INFO
    assert "using context 'eks'" in access.title
    assert statuses(report, "NODE_NOT_READY") == ["PASS", "PASS"]


def test_no_kubeconfig(lab: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env: Lab = lab("healthy")
    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "absent"))
    report = env.diagnose()
    access = _access(report)
    assert access.code == "K8S_WRONG_CONTEXT"
    assert "no kubeconfig found" in access.title
    # The fix names the cluster's EKS cluster and region, not placeholders.
    assert [c.command for c in access.suggested_commands] == [
        "kubectl config current-context; kubectl config get-contexts",
        "aws eks update-kubeconfig --name hyperpod-eks --region us-west-2",
    ]
    assert "to fix: aws eks update-kubeconfig --name hyperpod-eks --region us-west-2" in (
        next(n.reason for n in report.not_checked if n.check == "kubernetes.access")
    )
    _kube_checks_skipped(report)


def test_rbac_forbidding_one_resource_skips_only_its_checks(lab: Any) -> None:
    env: Lab = lab("netpol-blocking")
    env.kube.forbidden.add("networkpolicies")
    report = env.diagnose(namespace="training")
    found = by_code(report)
    policy = found["NETWORK_POLICY_BLOCKING"][0]
    assert policy.status is Status.SKIPPED
    assert "Forbidden: list networkpolicies" in policy.title
    forbidden = found["K8S_FORBIDDEN"][0]
    assert forbidden.details["blocked_checks"] == ["network.policies"]
    assert statuses(report, "HEADLESS_SERVICE_MISSING") == ["PASS"]


def test_training_operator_crds_absent_is_not_an_error(lab: Any) -> None:
    env: Lab = lab("healthy")
    env.kube.missing_apis.update({"mpijobs", "hyperpodpytorchjobs"})
    report = env.diagnose()
    assert not report.failures
    assert "K8S_FORBIDDEN" not in by_code(report)


def _exec_kubeconfig(env: Lab, tmp_path: Path, script: str) -> Path:
    """The kubeconfig `aws eks update-kubeconfig` writes: an exec credential plugin instead of
    a token. The plugin here is a script printing an ExecCredential, as `aws eks get-token` does."""
    plugin = tmp_path / "get-token"
    plugin.write_text(script)
    plugin.chmod(0o755)
    config = json.loads(env.kubeconfig.read_text())
    config["users"] = [
        {
            "name": "diagnose",
            "user": {
                "exec": {
                    "apiVersion": "client.authentication.k8s.io/v1beta1",
                    "command": str(plugin),
                    "args": ["--cluster-name", "hyperpod-eks", "--region", "us-west-2"],
                    "interactiveMode": "Never",
                }
            },
        }
    ]
    path = tmp_path / "exec-kubeconfig"
    path.write_text(json.dumps(config))
    return path


def test_eks_exec_credentials_are_used(lab: Any, tmp_path: Path) -> None:
    env: Lab = lab("healthy")
    token = env.kube.token
    script = (
        "#!/bin/sh\n"
        'echo "$@" > "$(dirname "$0")/args"\n'
        "cat <<EOF\n"
        '{"kind": "ExecCredential", "apiVersion": "client.authentication.k8s.io/v1beta1", "spec": {},'
        f' "status": {{"expirationTimestamp": "2099-01-01T00:00:00Z", "token": "{token}"}}}}\n'
        "EOF\n"
    )
    report = env.diagnose(kubeconfig=str(_exec_kubeconfig(env, tmp_path, script)))
    assert _access(report).status is Status.PASS
    assert (tmp_path / "args").read_text().split() == [
        "--cluster-name",
        "hyperpod-eks",
        "--region",
        "us-west-2",
    ]
    assert {r["auth"] for r in env.kube.requests} == {f"Bearer {token}"}


def test_failing_exec_plugin_is_unauthenticated_with_the_reason(lab: Any, tmp_path: Path) -> None:
    env: Lab = lab("healthy")
    script = "#!/bin/sh\necho 'Unable to locate credentials' >&2\nexit 255\n"
    report = env.diagnose(kubeconfig=str(_exec_kubeconfig(env, tmp_path, script)))
    access = _access(report)
    assert (access.code, access.status) == ("K8S_UNAUTHENTICATED", Status.WARN)
    assert "could not be obtained" in access.title and "255" in access.title
    assert [(r["path"], r["auth"]) for r in env.kube.requests] == [("/version", None)]
    _kube_checks_skipped(report)
