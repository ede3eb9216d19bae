"""Transports: the local one runs the real batch here; Slurm runs it through the real loopback
Slurm (scripts/services.d/10-slurm.sh); SSM runs it through stand-in `aws` and
`session-manager-plugin` executables on PATH (no SSM endpoint can run here) that behave like the
real pair: the CLI hands the session to the plugin, the plugin prints the session banners
around the command's output with CRLF line ends, gives up when its stdin is at EOF, and the CLI
prints AWS errors as `An error occurred (Code) when calling the StartSession operation: ...`
(shapes from aws/aws-cli#5965, aws/session-manager-plugin#59, aws/amazon-ssm-agent#354)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from hyperpod_nccl.collect.transports import (
    LocalTransport,
    SlurmTransport,
    SsmTarget,
    SsmTransport,
    TransportError,
)
from hyperpod_nccl.probes import batch
from hyperpod_nccl.probes.catalog import CATALOG

HOST_PROBES = ["host_info", "shm", "processes", "net_links", "numa", "kernel_log", "removeipc"]


def test_local_transport_runs_the_catalog_here() -> None:
    run = LocalTransport().run("here", list(CATALOG), 120)
    assert run.reached and run.output is not None and run.output.complete
    for probe in CATALOG.values():
        outcome = run.output.outcomes[probe.id]
        needs = probe.requires or ()
        if needs and not any(shutil.which(t) for t in needs):
            assert outcome.state == "absent" and needs[0] in (outcome.reason or "")
        elif outcome.state == "absent":  # a script probe that looked for its tool itself
            tool = (outcome.reason or "").split()[0]
            assert shutil.which(tool) is None, (probe.id, outcome)
        else:
            assert outcome.state == "ok", (probe.id, outcome)
    info = run.output.outcomes["host_info"].text
    assert f"hostname: {socket.gethostname().split('.')[0]}" in info


def test_local_transport_per_node_timeout_is_reported() -> None:
    run = LocalTransport().run("here", list(CATALOG), 0.01)
    assert not (run.output and run.output.complete)
    reasons = [run.reason or ""] + [
        o.reason or "" for o in (run.output.outcomes.values() if run.output else [])
    ]
    assert any("per-node timeout" in r for r in reasons)


# ------------------------------------------------------------------------ SSM

FAKE_AWS = r"""#!PYTHON
import json, os, subprocess, sys
args = sys.argv[1:]
log = os.environ["FAKE_SSM_LOG"]
with open(log, "a") as f:
    f.write(json.dumps({"tool": "aws", "argv": args}) + "\n")
opt = {args[i]: args[i + 1] for i in range(2, len(args) - 1, 2) if args[i].startswith("--")}
target = opt["--target"]
if target.endswith("i-0000000000000dead"):
    sys.stderr.write("\nAn error occurred (TargetNotConnected) when calling the StartSession "
                     "operation: " + target + " is not connected.\n")
    sys.exit(254)
session = {"SessionId": "root-0123456789abcdef0", "TokenValue": "token", "StreamUrl": "wss://ssmmessages"}
request = {"Target": target, "DocumentName": opt["--document-name"], "Parameters": json.loads(opt["--parameters"])}
sys.exit(subprocess.call(["session-manager-plugin", json.dumps(session), opt.get("--region", "us-east-1"),
                          "StartSession", "", json.dumps(request), "https://ssm.us-east-1.amazonaws.com"]))
"""

FAKE_PLUGIN = r"""#!PYTHON
import json, os, select, subprocess, sys
with open(os.environ["FAKE_SSM_LOG"], "a") as f:
    f.write(json.dumps({"tool": "plugin", "argv": sys.argv[1:]}) + "\n")
session, request = json.loads(sys.argv[1]), json.loads(sys.argv[5])
ready, _, _ = select.select([sys.stdin], [], [], 0.2)
if ready and os.read(sys.stdin.fileno(), 1) == b"":
    print("\nCannot perform start session: EOF")
    sys.exit(1)
out = sys.stdout.buffer
out.write(b"\r\nStarting session with SessionId: " + session["SessionId"].encode() + b"\r\n")
(command,) = request["Parameters"]["command"]
result = subprocess.run(["sh", "-c", command], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
out.write(result.stdout.replace(b"\n", b"\r\n"))
out.write(b"\r\n\r\nExiting session with sessionId: " + session["SessionId"].encode() + b".\r\n\r\n")
"""

CLUSTER_ID = "a1b2c3d4e5f6"
GOOD = "i-0123456789abcdef0"
DEAD = "i-0000000000000dead"


@pytest.fixture
def fake_ssm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    bindir = tmp_path / "bin"
    bindir.mkdir()
    for name, text in (("aws", FAKE_AWS), ("session-manager-plugin", FAKE_PLUGIN)):
        path = bindir / name
        path.write_text(text.replace("#!PYTHON", f"#!{sys.executable}"))
        path.chmod(0o755)
    log = tmp_path / "calls.jsonl"
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_SSM_LOG", str(log))
    return log


def _calls(log: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def _transport() -> SsmTransport:
    targets = {n: SsmTarget(CLUSTER_ID, "gpu-workers", n) for n in (GOOD, DEAD)}
    return SsmTransport(targets, region="us-west-2")


def test_ssm_session_shape_and_output(fake_ssm: Path) -> None:
    transport = _transport()
    assert transport.preflight() is None
    run = transport.run(GOOD, ["host_info", "shm"], 60)
    assert run.reached and run.output is not None and run.output.complete
    assert run.output.outcomes["shm"].state == "ok"
    assert "\r" not in run.output.outcomes["host_info"].text
    assert "Starting session" not in run.output.stray and "Exiting session" not in run.output.stray
    aws, plugin = _calls(fake_ssm)
    argv = aws["argv"]
    assert isinstance(argv, list)
    assert argv[:3] == ["ssm", "start-session", "--target"]
    assert argv[3] == f"sagemaker-cluster:{CLUSTER_ID}_gpu-workers-{GOOD}"
    assert argv[4:6] == ["--document-name", "AWS-StartNonInteractiveCommand"]
    assert argv[8:] == ["--region", "us-west-2"]
    (script,) = json.loads(argv[7])["command"]
    assert script.startswith("# hyperpod-nccl node probes") and "BEGIN shm" in script
    assert plugin["argv"][2] == "StartSession"  # type: ignore[index]


def test_ssm_unreachable_node_reason_is_the_aws_error(fake_ssm: Path) -> None:
    run = _transport().run(DEAD, ["host_info"], 60)
    assert not run.reached
    assert (
        run.reason
        == f"TargetNotConnected: sagemaker-cluster:{CLUSTER_ID}_gpu-workers-{DEAD} is not connected."
    )
    assert [c["tool"] for c in _calls(fake_ssm)] == ["aws"]


def test_ssm_without_plugin_starts_no_session(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # neither aws nor the plugin
    reason = _transport().preflight()
    assert reason and reason.startswith("session-manager-plugin is not on PATH")


@pytest.mark.parametrize(
    ("cluster", "group", "instance"),
    [
        ("my-cluster", "workers", GOOD),  # a name, not the id
        ("A1B2C3D4E5F6", "workers", GOOD),
        (CLUSTER_ID, "workers;rm -rf /", GOOD),
        (CLUSTER_ID, "-workers", GOOD),
        (CLUSTER_ID, "workers", "i-123"),
        (CLUSTER_ID, "workers", f"{GOOD} --region x"),
    ],
)
def test_ssm_targets_are_validated(cluster: str, group: str, instance: str) -> None:
    with pytest.raises(TransportError):
        SsmTarget(cluster, group, instance)


def test_ssm_target_from_arn_and_bad_options() -> None:
    target = SsmTarget.from_cluster_arn(
        f"arn:aws:sagemaker:us-west-2:123456789012:cluster/{CLUSTER_ID}", "workers", GOOD
    )
    assert target.target == f"sagemaker-cluster:{CLUSTER_ID}_workers-{GOOD}"
    with pytest.raises(TransportError):
        SsmTransport({}, region="us-west-2; echo")
    with pytest.raises(TransportError):
        SsmTransport({}, profile="a b")
    with pytest.raises(TransportError):
        _transport().command("i-00000000000000000", batch.build(["shm"]))  # unknown node


# ------------------------------------------------------------------------ Slurm (real)


def _idle_node() -> str:
    out = subprocess.run(
        ["sinfo", "-h", "-N", "-t", "idle", "-o", "%N"],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    ).stdout.split()
    assert out, "the loopback Slurm (scripts/services.d/10-slurm.sh) has no idle node"
    return out[0]


def test_slurm_transport_runs_the_batch_with_srun() -> None:
    node = _idle_node()
    run = SlurmTransport(time_limit_s=120).run(node, ["host_info", "shm", "removeipc"], 120)
    assert run.reached and run.output is not None and run.output.complete, run.reason
    assert run.output.outcomes["shm"].state == "ok"
    assert "kernel:" in run.output.outcomes["host_info"].text


def test_slurm_unknown_node_is_unreachable_with_sruns_reason() -> None:
    run = SlurmTransport().run("nosuchnode99", ["host_info"], 60)
    assert not run.reached and run.reason and "node" in run.reason.lower()


def test_slurm_inputs_are_validated() -> None:
    with pytest.raises(TransportError):
        SlurmTransport(job_id="12; rm")
    with pytest.raises(TransportError):
        SlurmTransport().command("node01 --uid=0", batch.build(["shm"]))
    argv = SlurmTransport(job_id="42").command("node01", batch.build(["shm"]))
    assert "--jobid=42" in argv and "--overlap" in argv and "--immediate=30" not in argv
