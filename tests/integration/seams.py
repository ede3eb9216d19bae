"""Stand-ins for the seam tests, built on the real components the other suites use: moto's
server for AWS (tests/eks/aws_server.py), the local Kubernetes API server
(tests/eks/fake_apiserver.py), the real Slurm on loopback (tests/slurm/slurmlab.py), and, where
nothing real can run here, an `aws` CLI and a session-manager-plugin that relay an SSM
session's command to this machine (`FAKE_SSM`).
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import sys
import tarfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from moto.sagemaker import models as sm_models

REPO = Path(__file__).resolve().parents[2]
# Appended, not inserted: the other folders' own `from conftest import ...` must find theirs.
for folder in ("eks", "slurm"):
    if str(REPO / "tests" / folder) not in sys.path:
        sys.path.append(str(REPO / "tests" / folder))

from aws_server import MotoServer, World, aws_environment, build_world, load_scenario  # noqa: E402
from fake_apiserver import FakeApiServer, write_kubeconfig  # noqa: E402
from slurmlab import LOCK, SESSION_HOLDS_LOCK, node_states, restore_cluster, sh  # noqa: E402

FIXTURES = REPO / "tests" / "fixtures" / "integration"
# The machine's PATH, where the real Slurm commands are; the tool under test gets another.
MACHINE_PATH = os.environ["PATH"]
EKS_SCENARIOS = REPO / "tests" / "fixtures" / "eks"
SLURM_SCENARIO = FIXTURES / "slurm-cluster"

# ---------------------------------------------------------------- moto: node addresses
# moto's DescribeClusterNode leaves out PrivateDnsHostname and PrivatePrimaryIp, which the real
# API returns (botocore's model: DescribeClusterNodeResponse.NodeDetails); the tests set them
# per instance, as HyperPod reports them.
ADDRESSES: dict[str, tuple[str, str]] = {}
_original_describe = sm_models.ClusterNode.describe


def _describe_with_addresses(self: Any) -> dict[str, Any]:
    details: dict[str, Any] = _original_describe(self)
    if self.instance_id in ADDRESSES:
        details["PrivateDnsHostname"], details["PrivatePrimaryIp"] = ADDRESSES[self.instance_id]
    return details


sm_models.ClusterNode.describe = _describe_with_addresses


# ---------------------------------------------------------------- SSM stand-ins
FAKE_SSM = r'''#!PYTHON
"""Stand-ins for `aws ssm start-session` and session-manager-plugin (no SSM endpoint can run
here), installed under both names. The CLI part parses its options as the real one does, prints
AWS errors in the CLI's form and hands the session to the plugin with the plugin's six
arguments. The plugin part gives up at EOF on stdin, prints the session banners around the
command's output with the CRLF line ends of the session's terminal (stdout and stderr in one
stream), and runs the command on this machine with FAKE_SSM_REMOTE_PATH as its PATH."""
import json, os, select, subprocess, sys, time

def note(**entry):
    with open(os.environ["FAKE_SSM_LOG"], "a") as log:
        log.write(json.dumps(entry) + "\n")

def listed(name):
    return [t for t in os.environ.get(name, "").split(",") if t]

def aws(args):
    note(tool="aws", argv=args)
    if args[:2] != ["ssm", "start-session"] or len(args[2:]) % 2:
        sys.stderr.write("usage: aws [options] <command> <subcommand> [parameters]\n")
        sys.exit(252)
    options = dict(zip(args[2::2], args[3::2]))
    target = options["--target"]
    if target in listed("FAKE_SSM_DISCONNECTED"):
        sys.stderr.write("\nAn error occurred (TargetNotConnected) when calling the StartSession "
                         f"operation: {target} is not connected.\n")
        sys.exit(254)
    session = {"SessionId": "hpn-test-0a1b2c3d4e5f67890", "TokenValue": "token",
               "StreamUrl": "wss://ssmmessages.us-west-2.amazonaws.com/v1/data-channel/x"}
    request = {"Target": target, "DocumentName": options["--document-name"],
               "Parameters": json.loads(options["--parameters"])}
    region = options.get("--region", "us-east-1")
    os.execvp("session-manager-plugin", ["session-manager-plugin", json.dumps(session), region,
              "StartSession", options.get("--profile", ""), json.dumps(request),
              f"https://ssm.{region}.amazonaws.com"])

def plugin(args):
    session, request = json.loads(args[0]), json.loads(args[4])
    note(tool="plugin", target=request["Target"], document=request["DocumentName"])
    ready, _, _ = select.select([sys.stdin], [], [], 0.2)
    if ready and os.read(sys.stdin.fileno(), 1) == b"":
        print("\nCannot perform start session: EOF")
        sys.exit(1)
    out = sys.stdout.buffer
    out.write(b"\r\nStarting session with SessionId: " + session["SessionId"].encode() + b"\r\n")
    out.flush()
    if request["Target"] in listed("FAKE_SSM_HANG"):
        time.sleep(120)
    (command,) = request["Parameters"]["command"]
    env = dict(os.environ, PATH=os.environ["FAKE_SSM_REMOTE_PATH"])
    ran = subprocess.run(["sh", "-c", command], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, env=env)
    out.write(ran.stdout.replace(b"\n", b"\r\n"))
    out.write(b"\r\n\r\nExiting session with sessionId: " + session["SessionId"].encode()
              + b".\r\n\r\n")

(aws if os.path.basename(sys.argv[0]) == "aws" else plugin)(sys.argv[1:])
'''


@dataclass
class FakeSsm:
    bindir: Path
    log: Path

    def calls(self, tool: str = "aws") -> list[dict[str, Any]]:
        if not self.log.exists():
            return []
        entries = [json.loads(line) for line in self.log.read_text().splitlines()]
        return [e for e in entries if e["tool"] == tool]

    def targets(self) -> list[str]:
        return [c["argv"][c["argv"].index("--target") + 1] for c in self.calls()]


def install_fake_ssm(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *, plugin: bool = True
) -> FakeSsm:
    """PATH holds only the stand-ins: no local Slurm commands for the tool, so Slurm is reached
    through the SSM session, where the real commands answer."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    script = FAKE_SSM.replace("#!PYTHON", f"#!{sys.executable}")
    for name in ("aws", "session-manager-plugin") if plugin else ("aws",):
        path = bindir / name
        path.write_text(script)
        path.chmod(0o755)
    log = tmp_path / "ssm-calls.jsonl"
    monkeypatch.setenv("FAKE_SSM_REMOTE_PATH", MACHINE_PATH)
    monkeypatch.setenv("FAKE_SSM_LOG", str(log))
    monkeypatch.setenv("PATH", str(bindir))
    return FakeSsm(bindir, log)


# ---------------------------------------------------------------- worlds
@dataclass
class SlurmCluster:
    world: World
    controller: str
    login: str
    instance_of: dict[str, str]  # Slurm node name -> instance ID

    def target(self, group: str, instance: str) -> str:
        cluster_id = self.world.cluster_arn.rsplit("/", 1)[1]
        return f"sagemaker-cluster:{cluster_id}_{group}-{instance}"


def slurm_cluster(moto: MotoServer, monkeypatch: pytest.MonkeyPatch) -> SlurmCluster:
    """The Slurm scenario in moto (no EKS behind it: DescribeCluster has no Orchestrator.Eks),
    its workers named like the loopback Slurm's nodes."""
    moto.reset()
    scenario = load_scenario(SLURM_SCENARIO)
    world = build_world(moto, scenario, None)
    ADDRESSES.clear()
    ADDRESSES.update({k: (v[0], v[1]) for k, v in scenario["private_dns"].items()})
    for key, value in aws_environment(moto.url, world.region, None).items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    monkeypatch.delenv("KUBECONFIG", raising=False)
    controller, login, *workers = scenario["cluster"]["node_ids"]
    names = {i: dns.split(".")[0] for i, (dns, _) in ADDRESSES.items()}
    return SlurmCluster(world, controller, login, {names[w]: w for w in workers})


@contextmanager
def eks_cluster(
    moto: MotoServer,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    scenario: str,
    pod_log_lines: dict[str, str] | None = None,
    pod_env: dict[str, str] | None = None,
) -> Iterator[World]:
    """An EKS scenario from tests/fixtures/eks, copied so that tests can add lines to pod logs
    (`pod_log_lines`: log file under logs/ -> lines appended) and variables to every
    container's environment (`pod_env`)."""
    moto.reset()
    copy = tmp_path / "scenario"
    shutil.copytree(EKS_SCENARIOS / scenario, copy)
    for relative, lines in (pod_log_lines or {}).items():
        with open(copy / "logs" / relative, "a", encoding="utf-8") as log:
            log.write(lines)
    if pod_env:
        pods = json.loads((copy / "pods.json").read_text())
        for pod in pods["items"] if isinstance(pods, dict) else pods:
            for container in pod["spec"]["containers"]:
                container.setdefault("env", []).extend(
                    {"name": k, "value": v} for k, v in pod_env.items()
                )
        (copy / "pods.json").write_text(json.dumps(pods))
    kube = FakeApiServer(copy).start()
    try:
        world = build_world(moto, load_scenario(copy), kube.url)
        kubeconfig = write_kubeconfig(
            tmp_path / "kubeconfig", kube.url, world.eks_arn or "unknown", kube.token
        )
        for key, value in aws_environment(moto.url, world.region, kubeconfig).items():
            monkeypatch.setenv(key, value)
        monkeypatch.delenv("AWS_PROFILE", raising=False)
        yield world
    finally:
        kube.stop()


# ---------------------------------------------------------------- the real Slurm
@contextmanager
def _machine_path() -> Iterator[None]:
    """The test's own Slurm commands (slurmlab) run with the machine's PATH."""
    given = os.environ["PATH"]
    os.environ["PATH"] = MACHINE_PATH
    try:
        yield
    finally:
        os.environ["PATH"] = given


def scontrol_update(node: str, state: str, reason: str) -> None:
    with _machine_path():
        sh("scontrol", "update", f"nodename={node}", f"state={state}", f"reason={reason}")


@contextmanager
def slurm_held(timeout_s: float = 600) -> Iterator[list[str]]:
    """The loopback Slurm, healthy, held by this test alone (every pytest process on the
    machine takes the same lock, tests/slurm for its whole session); healthy again afterwards.
    Fails, never skips, when Slurm cannot be brought up."""
    with open(LOCK, "w") as handle:
        deadline = time.monotonic() + timeout_s
        while not SESSION_HOLDS_LOCK[0]:  # this run's tests/slurm session holds it already
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    pytest.fail(f"{LOCK} held by another test run for {timeout_s:.0f} s")
                time.sleep(0.5)
        with _machine_path():
            restore_cluster()  # starts what is down; a Slurm that cannot start fails the test
            nodes = sorted(node_states())
        try:
            yield nodes
        finally:
            with _machine_path():
                restore_cluster()


# ---------------------------------------------------------------- bundles
def members(bundle: Path) -> dict[str, bytes]:
    with tarfile.open(bundle, "r:gz") as tar:
        return {
            m.name: tar.extractfile(m).read()  # type: ignore[union-attr]
            for m in tar.getmembers()
            if m.isfile()
        }


def in_brief(report: dict[str, Any]) -> list[tuple[Any, ...]]:
    """What a finding says, without the times and figures that move between two runs."""
    return [
        (f["code"], f["status"], f["priority"], f["root_cause"], f["hosts"], f["ranks"])
        for f in report["findings"]
    ]
