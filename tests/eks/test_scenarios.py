"""Whole runs of `diagnose` on each scenario: moto for AWS, the fake API server for the
cluster, the official clients in between. Each test states what an engineer must be told."""

from __future__ import annotations

from typing import Any

from conftest import Lab, by_code, statuses
from hyperpod_nccl.model import Priority, Status


def test_healthy_cluster_has_no_failure_and_no_root_cause(lab: Any) -> None:
    env: Lab = lab("healthy")
    report = env.diagnose(namespace="training", job="llama-pretrain")
    assert report.failures == []
    assert report.root_cause is None
    for code in (
        "SG_SELF_REFERENCE_MISSING",
        "NETWORK_POLICY_BLOCKING",
        "HEADLESS_SERVICE_MISSING",
        "EFA_DEVICE_PLUGIN_MISSING",
        "NVIDIA_DEVICE_PLUGIN_MISSING",
        "NCCL_ENV_MISCONFIGURED",
        "SHM_TOO_SMALL",
        "NCCL_VERSION_MISMATCH",
        "POD_FAILURES",
        "CLUSTER_EVENTS",
    ):
        assert statuses(report, code) == ["PASS"], code
    # Probes need session-manager-plugin, absent here: every node is named as not probed,
    # and no session was attempted.
    probes = by_code(report)["NODE_UNREACHABLE"][0]
    assert probes.status is Status.SKIPPED
    assert "session-manager-plugin" in probes.title
    assert len(probes.hosts) == 4


def test_oom_killed_rank_is_the_root_cause_of_the_others_timeouts(lab: Any) -> None:
    env: Lab = lab("oom-one-rank")
    report = env.diagnose(namespace="training")
    root = report.root_cause
    assert root is not None and root.code == "CONTAINER_OOM"
    assert root.hosts == ["llama-pretrain-worker-1"]
    assert "NCCL_TIMEOUT" in root.explains
    assert any(
        "lastState" not in e.text
        and "previous run terminated reason=OOMKilled exitCode=137" in e.text
        for e in root.evidence
    )
    timeout = by_code(report)["NCCL_TIMEOUT"][0]
    assert timeout.status is Status.FAIL and not timeout.root_cause
    # The ranks that timed out are on the other three pods; worker-1's previous log was read.
    assert set(timeout.hosts) == {
        "llama-pretrain-master-0",
        "llama-pretrain-worker-0",
        "llama-pretrain-worker-2",
    }
    assert any(
        r["path"].endswith("llama-pretrain-worker-1/log") and r["query"].get("previous") == "true"
        for r in env.kube.requests
    )


def test_missing_sg_self_reference_and_efa_tcp_fallback(lab: Any) -> None:
    env: Lab = lab("sg-efa-fallback")
    report = env.diagnose()
    found = by_code(report)
    root = report.root_cause
    assert root is not None and root.code == "SG_SELF_REFERENCE_MISSING"
    assert (root.status, root.priority) == (Status.FAIL, Priority.P0)
    assert "no inbound self-reference" in root.title
    # The default egress rule (all traffic to 0.0.0.0/0) lets TCP out but not EFA.
    assert (
        "no outbound self-reference (all traffic to 0.0.0.0/0 lets TCP out, not EFA)" in root.title
    )
    assert [m["direction"] for m in root.details["missing"]] == ["inbound", "outbound"]
    # Only port 22 comes in, so TCP is blocked too: not the EFA-only finding.
    assert "EFA_TRAFFIC_BLOCKED" not in found
    assert {"NET_UNREACHABLE", "NCCL_TIMEOUT"} <= set(root.explains)
    group = env.world.security_groups["hyperpod-efa"]
    commands = [c.command for c in root.suggested_commands]
    assert any(
        c.startswith(f"aws ec2 authorize-security-group-ingress --group-id {group} ")
        for c in commands
    )
    assert any(
        c.startswith(f"aws ec2 authorize-security-group-egress --group-id {group} ")
        for c in commands
    )
    efa = found["EFA_COUNT_MISMATCH"][0]
    assert efa.status is Status.FAIL and efa.priority is Priority.P0
    assert "asks for 0 of 32 EFA" in efa.title
    fallback = found["EFA_TCP_FALLBACK"][0]
    assert fallback.status is Status.FAIL
    assert "Using network Socket" in fallback.title
    assert any("provider efa output empty list" in e.text for e in fallback.evidence)
    assert fallback.hosts == sorted(
        f"llama-pretrain-{r}" for r in ("master-0", "worker-0", "worker-1", "worker-2")
    )


def _allow(ec2: Any, direction: str, group: str, peer: str) -> None:
    call = (
        ec2.authorize_security_group_ingress
        if direction == "in"
        else ec2.authorize_security_group_egress
    )
    call(
        GroupId=group, IpPermissions=[{"IpProtocol": "-1", "UserIdGroupPairs": [{"GroupId": peer}]}]
    )


def test_sg_reference_to_another_cluster_group_counts_where_both_sides_allow(lab: Any) -> None:
    """Instance groups on different security groups: a rule of one naming the other's group
    counts only where the sender's outbound and the receiver's inbound rule both allow it."""
    env: Lab = lab("healthy")
    import boto3

    ec2 = boto3.client("ec2", region_name=env.world.region)
    vpc = ec2.describe_vpcs()["Vpcs"][0]["VpcId"]
    a = ec2.create_security_group(GroupName="cluster-a", Description="a", VpcId=vpc)["GroupId"]
    b = ec2.create_security_group(GroupName="override-b", Description="b", VpcId=vpc)["GroupId"]
    for group in (a, b):
        _allow(ec2, "in", group, group)
        _allow(ec2, "out", group, group)
    _allow(ec2, "in", a, b)  # a admits b's nodes
    backend = env.moto.backend("sagemaker", env.world.region)
    cluster = backend.clusters[env.world.cluster_name]
    cluster.vpc_config["SecurityGroupIds"] = [a]
    report = env.diagnose()
    assert statuses(report, "SG_SELF_REFERENCE_MISSING") == ["PASS"]  # b is on no node yet
    cluster.instance_groups.append(
        {
            **cluster.instance_groups[0],
            "InstanceGroupName": "override-group",
            "OverrideVpcConfig": {
                "SecurityGroupIds": [b],
                "Subnets": cluster.vpc_config["Subnets"],
            },
        }
    )
    report = env.diagnose()
    sg = by_code(report)["SG_SELF_REFERENCE_MISSING"][0]
    assert (sg.status, sg.priority) == (Status.FAIL, Priority.P0)
    missing = {
        (m["instance_group"], m["direction"], m["peer_instance_group"])
        for m in sg.details["missing"]
    }
    assert missing == {
        ("override-group", "outbound", "worker-group-1"),  # b sends to a only by 0.0.0.0/0
        ("worker-group-1", "outbound", "override-group"),
        ("override-group", "inbound", "worker-group-1"),
    }
    _allow(ec2, "out", b, a)
    _allow(ec2, "out", a, b)
    _allow(ec2, "in", b, a)
    report = env.diagnose()
    assert statuses(report, "SG_SELF_REFERENCE_MISSING") == ["PASS"]


def test_network_policies_with_kubernetes_semantics(lab: Any) -> None:
    env: Lab = lab("netpol-blocking")
    report = env.diagnose(namespace="training", job="llama-pretrain")
    policy = by_code(report)["NETWORK_POLICY_BLOCKING"][0]
    assert policy.status is Status.FAIL
    assert report.root_cause is not None and report.root_cause.code == "NETWORK_POLICY_BLOCKING"
    assert set(policy.details["policies"]) == {
        "default-deny",
        "allow-rendezvous",
        "egress-to-job-only",
    }
    texts = " | ".join(e.text for e in policy.evidence)
    assert "allow TCP ports 23456" in texts  # only the rendezvous port gets in
    assert "kube-dns UDP 53" in texts  # and DNS cannot get out
    assert (
        "RENDEZVOUS_FAILURE" in report.root_cause.explains
        or "NET_UNREACHABLE" in report.root_cause.explains
    )


def test_pending_pods_name_the_scheduler_reason_and_the_plugin(lab: Any) -> None:
    env: Lab = lab("pending-efa")
    report = env.diagnose(namespace="training")
    found = by_code(report)
    pending = found["POD_PENDING_RESOURCES"][0]
    assert pending.hosts == ["llama-pretrain-worker-1", "llama-pretrain-worker-2"]
    assert "not enough free EFA devices" in pending.evidence[0].text
    plugin = found["EFA_DEVICE_PLUGIN_MISSING"][0]
    assert plugin.status is Status.FAIL
    assert "2/4 ready" in plugin.title
    assert set(plugin.hosts) == {"hyperpod-i-00005a3c7e9b1d202", "hyperpod-i-00005a3c7e9b1d203"}
    assert report.root_cause is not None and report.root_cause.code == "EFA_DEVICE_PLUGIN_MISSING"
    assert "POD_PENDING_RESOURCES" in report.root_cause.explains


def test_environment_values_shm_and_image_digests(lab: Any) -> None:
    env: Lab = lab("bad-env")
    report = env.diagnose(job="llama-pretrain")
    found = by_code(report)
    nccl = next(f for f in found["NCCL_ENV_MISCONFIGURED"] if f.status is Status.FAIL)
    assert "NCCL_SOCKET_IFNAME=lo" in nccl.title and "FI_PROVIDER=tcp" in nccl.title
    warn = next(f for f in found["NCCL_ENV_MISCONFIGURED"] if f.status is Status.WARN)
    assert "NCCL_P2P_DISABLE=1" in warn.title
    # Launcher-set, per-process values (RANK, PET_NODE_RANK) differ by design: not flagged.
    mismatch = found["NCCL_VERSION_MISMATCH"][0]
    assert mismatch.status is Status.FAIL
    assert "image" in mismatch.title and "RANK" not in str(mismatch.details["settings"])
    assert "llama-pretrain-worker-2" in str(mismatch.details["images"])
    # The logs show the NCCL each pod loaded; that evidence joins the same finding.
    assert mismatch.details["sources"] == ["logs", "state"]
    assert any("NCCL version 2.21.5" in e.text for e in mismatch.evidence)
    shm = found["SHM_TOO_SMALL"][0]
    assert shm.status is Status.FAIL and shm.priority is Priority.P0
    assert "no /dev/shm volume" in shm.title


def test_failed_node_under_the_job(lab: Any) -> None:
    env: Lab = lab("node-trouble")
    report = env.diagnose()
    found = by_code(report)
    health = [f for f in found["HEALTH_CHECK_FAILED"] if f.status is Status.FAIL]
    assert {h for f in health for h in f.hosts} >= {
        "i-00005a3c7e9b1d201",
        "hyperpod-i-00005a3c7e9b1d201",
    }
    not_ready = next(f for f in found["NODE_NOT_READY"] if f.status is Status.FAIL)
    assert not_ready.priority is Priority.P0  # a job pod runs there
    recovery = found["NODE_RECOVERY_DISABLED"][0]
    assert recovery.status is Status.FAIL and "will not be replaced" in recovery.title
    # The Error event is evidence for the instance it names, in the same finding.
    assert any(
        "Error i-00005a3c7e9b1d201: Deep health check failed" in e.text
        for f in health
        for e in f.evidence
    )
    assert statuses(report, "CLUSTER_EVENTS") == ["INFO"]  # the count of events, no finding
    commands = [c.command for f in health for c in f.suggested_commands]
    assert len(commands) == len(set(commands))  # the same command from two checks, listed once
    assert report.root_cause is not None and report.root_cause.code == "HEALTH_CHECK_FAILED"


def test_job_selection_by_name_and_namespace(lab: Any) -> None:
    env: Lab = lab("healthy")
    report = env.diagnose(namespace="training", job="some-other-job")
    env_audit = by_code(report)["NCCL_ENV_MISCONFIGURED"][0]
    assert env_audit.status is Status.SKIPPED
    assert "no pods of job 'some-other-job' in training" in env_audit.title
    assert not any(r["path"].endswith("/log") for r in env.kube.requests)


def test_container_insights_lines_are_scanned_with_the_rules(lab: Any) -> None:
    env: Lab = lab("oom-one-rank")
    report = env.diagnose(namespace="training")
    scanned = by_code(report)["LOGS_SCANNED"][0].details["items"]
    stream = "aws/logs/streams/aws/containerinsights/hyperpod-eks/application/training/pytorch/llama-pretrain-master-0.log"
    assert scanned[stream] == {"lines": 4, "matched": 4}  # the Fluent Bit records, unwrapped
    timeout = by_code(report)["NCCL_TIMEOUT"][0]
    assert timeout.count == 16  # 12 lines from pod logs, 4 from Container Insights
    assert report.root_cause is not None and report.root_cause.code == "CONTAINER_OOM"
