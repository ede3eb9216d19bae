"""Collector and checks against the real Slurm on loopback: node states set with scontrol, a
stopped slurmd, pending jobs, a frozen and a stopped controller, munge down, the JSON-less path,
limits and job scripts as jobs really see them, and a real job's output."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from slurmlab import (
    CONTROLLER_PID,
    MUNGE_PID,
    SLURM_FIXTURES,
    collect,
    node_states,
    pid_of,
    sh,
    slurm_up,
    wait_for,
)

from hyperpod_nccl.checks import run_checks
from hyperpod_nccl.codes import load_registry
from hyperpod_nccl.collect.runner import CommandResult, LocalRunner
from hyperpod_nccl.collect.slurm import collect_slurm
from hyperpod_nccl.model import Finding, Status
from hyperpod_nccl.snapshot import Snapshot
from hyperpod_nccl.suggest.complete import complete

sys.path.insert(0, str(Path(__file__).parents[1] / "commands"))
from command_verbs import command_problems


def findings(snapshot: Snapshot) -> list[Finding]:
    """The Slurm checks' findings with their commands as every report prints them; each
    scenario also checks that those commands run as printed (tests/commands)."""
    found = run_checks(snapshot, ["slurm"])
    complete(found, load_registry())
    assert not command_problems(found)
    return found


def by_code(found: list[Finding], code: str) -> list[Finding]:
    return [f for f in found if f.code == code]


def the(found: list[Finding], code: str, status: Status | None = None) -> Finding:
    matching = [f for f in by_code(found, code) if status is None or f.status is status]
    assert len(matching) == 1, [(f.code, f.status, f.title) for f in found]
    return matching[0]


def failing_hosts(found: list[Finding]) -> dict[str, list[str]]:
    return {
        f.code: f.hosts
        for f in found
        if f.status is Status.FAIL and f.code.startswith("SLURM_NODE")
    }


def update(node: str, state: str, reason: str) -> None:
    sh("scontrol", "update", f"nodename={node}", f"state={state}", f"reason={reason}")


def test_healthy_cluster(live_slurm: list[str]) -> None:
    found = findings(collect())
    assert the(found, "SLURMCTLD_DOWN").status is Status.PASS
    assert the(found, "SLURM_MUNGE_FAILED").status is Status.PASS
    state = the(found, "SLURM_NODE_STATE")
    assert (
        state.status is Status.PASS and f"all {len(live_slurm)} of {len(live_slurm)}" in state.title
    )
    assert failing_hosts(found) == {}
    assert the(found, "SLURM_JOB_PENDING").status is Status.PASS


def test_drain_down_and_fail_name_exactly_those_nodes(live_slurm: list[str]) -> None:
    update("node02", "drain", "GPU ECC errors")
    update("node03", "down", "hardware failure: PSU")
    update("node05", "fail", "Action:Replace")
    found = findings(collect())
    assert failing_hosts(found) == {
        "SLURM_NODE_DRAIN": ["node02"],
        "SLURM_NODE_DOWN": ["node03"],
        "SLURM_NODE_FAIL": ["node05"],
    }
    drain = the(found, "SLURM_NODE_DRAIN")
    assert "GPU ECC errors" in drain.title
    assert drain.details["nodes"][0]["reason_set_by"] == "root"
    assert drain.first_seen is not None
    commands = [c.command for c in drain.suggested_commands]
    assert "scontrol update nodename=node02 state=resume" in commands
    assert 'scontrol update nodename=node02 state=fail reason="Action:Reboot"' in commands
    down = the(found, "SLURM_NODE_DOWN")
    assert any("nodename=node03" in c.command for c in down.suggested_commands)
    fail = the(found, "SLURM_NODE_FAIL")
    assert "replace" in fail.details["nodes"][0]["meaning"]
    # HyperPod is replacing it: wait and watch, do not resume it.
    assert not any("state=resume" in c.command for c in fail.suggested_commands)
    assert not by_code(found, "SLURM_NODE_STATE")  # no PASS while nodes fail


def test_a_stopped_slurmd_shows_as_not_responding(live_slurm: list[str]) -> None:
    pid = pid_of(Path("/run/slurmd-node04.pid"))
    assert pid, "node04's slurmd is not running"
    os.kill(pid, signal.SIGTERM)
    # SlurmdTimeout is short on the test cluster (scripts/slurm-up.sh).
    wait_for(lambda: node_states()["node04"].endswith("*"), 90, "node04 not responding")
    found = findings(collect())
    assert failing_hosts(found) == {"SLURM_NODE_NOT_RESPONDING": ["node04"]}
    finding = the(found, "SLURM_NODE_NOT_RESPONDING")
    assert finding.priority.value == "P0"
    assert any("systemctl status slurmd" in c.command for c in finding.suggested_commands)


def test_instance_ids_fill_the_reboot_command(live_slurm: list[str]) -> None:
    update("node03", "down", "hardware failure: PSU")
    snapshot = collect()
    snapshot.meta["cluster"] = "ml-cluster"
    # A ListClusterNodes response in the API's documented shape, naming node03's host.
    snapshot.put_json(
        "aws/sagemaker/list_cluster_nodes.json",
        {
            "ClusterNodeSummaries": [
                {
                    "InstanceGroupName": "gpu-workers",
                    "InstanceId": "i-0123456789abcdef0",
                    "InstanceStatus": {"Status": "Running"},
                    "InstanceType": "ml.p5.48xlarge",
                    "PrivateDnsHostname": "node03.ec2.internal",
                }
            ]
        },
    )
    down = the(findings(snapshot), "SLURM_NODE_DOWN")
    assert down.details["nodes"][0]["instance_id"] == "i-0123456789abcdef0"
    assert (
        "aws sagemaker batch-reboot-cluster-nodes --cluster-name ml-cluster "
        "--node-ids i-0123456789abcdef0"
    ) in [c.command for c in down.suggested_commands]


def test_pending_jobs_blocked_by_a_drained_node_or_a_hold(live_slurm: list[str]) -> None:
    update("node02", "drain", "GPU ECC errors")
    sbatch = ["sbatch", "-o", "/dev/null", "--parsable"]
    needs = sh(*sbatch, "-w", "node02", "-J", "needs-node02", "--wrap", "sleep 60").stdout.strip()
    held = sh(*sbatch, "--hold", "-J", "held", "--wrap", "sleep 60").stdout.strip()
    later = sh(*sbatch, "--begin=now+1hour", "-J", "later", "--wrap", "sleep 60").stdout.strip()
    wait_for(
        lambda: "ReqNodeNotAvail" in sh("squeue", "-h", "-j", needs, "-o", "%r").stdout,
        30,
        "the job to wait for node02",
    )
    found = findings(collect())
    pending = the(found, "SLURM_JOB_PENDING", Status.FAIL)
    listed = {job["job_id"] for job in pending.details["jobs"]}
    assert listed == {needs, held}  # the BeginTime job waits by design
    assert later not in listed
    assert pending.hosts == ["node02"]


def test_pending_long_uses_the_collection_time(live_slurm: list[str]) -> None:
    job = sh(
        "sbatch", "-o", "/dev/null", "--parsable", "-N", str(len(live_slurm) + 1), "--wrap", "true"
    )
    job_id = job.stdout.strip()
    snapshot = collect()
    assert the(findings(snapshot), "SLURM_JOB_PENDING").status is Status.PASS
    # Replayed as if collected two hours later, the same job has waited too long.
    context = snapshot.get_json("slurm/context.json")
    context["collected_at"] += 7200
    snapshot.put_json("slurm/context.json", context)
    waiting = the(findings(snapshot), "SLURM_JOB_PENDING", Status.WARN)
    assert [j["job_id"] for j in waiting.details["jobs"]] == [job_id]


def test_a_frozen_controller_times_out_instead_of_hanging(live_slurm: list[str]) -> None:
    controller = pid_of(CONTROLLER_PID)
    assert controller
    os.kill(controller, signal.SIGSTOP)
    try:
        snapshot = Snapshot()
        collect_slurm(snapshot, LocalRunner(), timeout_s=2, job_ids=["1"])
    finally:
        os.kill(controller, signal.SIGCONT)
    ping = snapshot.get_json("slurm/ping.json")
    assert ping["timed_out"] is True and ping["rc"] is None
    found = findings(snapshot)
    timeout = the(found, "SLURM_COMMAND_TIMEOUT")
    assert timeout.status is Status.INCOMPLETE
    state = the(found, "SLURM_NODE_STATE")
    assert state.status is Status.INCOMPLETE and "did not answer" in state.title
    assert the(found, "SLURM_JOB_PENDING").status is Status.INCOMPLETE
    assert the(found, "SLURM_MEMLOCK_NOT_PROPAGATED").status is Status.INCOMPLETE
    assert not [f for f in found if f.status is Status.PASS and f.code.startswith("SLURM_NODE")]


def test_a_stopped_controller_is_slurmctld_down(live_slurm: list[str]) -> None:
    subprocess.run(["bash", "-c", f"kill $(cat {CONTROLLER_PID})"], check=True)
    wait_for(lambda: "DOWN" in sh("scontrol", "ping", check=False).stdout, 30, "slurmctld to stop")
    found = findings(collect())
    down = the(found, "SLURMCTLD_DOWN")
    assert down.status is Status.FAIL and down.priority.value == "P0"
    assert down.hosts == [os.uname().nodename.split(".")[0]]
    assert the(found, "SLURM_NODE_STATE").status is Status.INCOMPLETE
    slurm_up()


def test_munge_down(live_slurm: list[str]) -> None:
    pid = pid_of(MUNGE_PID)
    assert pid
    os.kill(pid, signal.SIGTERM)
    wait_for(lambda: sh("munge", "-n", check=False).returncode != 0, 30, "munged to stop")
    try:
        found = findings(collect(timeout_s=15))
    finally:
        slurm_up()
    munge = the(found, "SLURM_MUNGE_FAILED")
    assert munge.status is Status.FAIL
    assert munge.evidence and "munge" in munge.evidence[0].text.lower()


class JsonlessRunner(LocalRunner):
    """A Slurm built without JSON support: `--json` is an unknown option, all else is real."""

    def run(self, argv: Sequence[str], timeout: float) -> CommandResult:
        if "--json" in argv:
            return CommandResult(1, "", f"{argv[0]}: unrecognized option '--json'\n")
        return super().run(argv, timeout)


def test_without_json_the_text_forms_give_the_same_findings(live_slurm: list[str]) -> None:
    update("node02", "drain", "GPU ECC errors")
    update("node05", "fail", "Action:Reboot")
    held = sh("sbatch", "-o", "/dev/null", "--parsable", "--hold", "--wrap", "true").stdout.strip()
    with_json = collect()
    without = Snapshot()
    collect_slurm(without, JsonlessRunner())
    assert without.has("slurm/scontrol_show_node.txt") and without.has("slurm/squeue.txt")
    assert not without.has("slurm/sinfo.json")
    expected = {"SLURM_NODE_DRAIN": ["node02"], "SLURM_NODE_FAIL": ["node05"]}
    assert failing_hosts(findings(with_json)) == failing_hosts(findings(without)) == expected
    pending = the(findings(without), "SLURM_JOB_PENDING", Status.FAIL)
    assert [j["job_id"] for j in pending.details["jobs"]] == [held]


@pytest.fixture
def low_memlock() -> Iterator[int]:
    soft, hard = resource.getrlimit(resource.RLIMIT_MEMLOCK)
    resource.setrlimit(resource.RLIMIT_MEMLOCK, (64 * 1024, hard))
    yield 64
    resource.setrlimit(resource.RLIMIT_MEMLOCK, (soft, hard))


def test_memlock_propagation_matches_what_a_job_gets(
    live_slurm: list[str], low_memlock: int
) -> None:
    finding = the(findings(collect()), "SLURM_MEMLOCK_NOT_PROPAGATED")
    assert finding.status is Status.FAIL
    assert f"{low_memlock} KiB" in finding.title
    # The finding is right: a job submitted from this limit gets it, not the node's.
    job = sh("srun", "-N1", "bash", "-c", "ulimit -l")
    assert job.stdout.strip() == str(low_memlock)


def test_job_script_variables_match_what_tasks_see(live_slurm: list[str]) -> None:
    found = findings(collect())
    reaching = the(found, "SLURM_PROLOG_ENV", Status.INFO)
    lost = the(found, "SLURM_PROLOG_ENV", Status.WARN)
    assert reaching.details["variables"] == {"NCCL_DEBUG": "WARN", "FI_EFA_USE_DEVICE_RDMA": "1"}
    assert lost.details["variables"] == {"NCCL_SOCKET_IFNAME": "lo"}
    env = subprocess.run(
        ["srun", "-N1", "env"],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "NCCL_DEBUG": "INFO"},
    ).stdout.splitlines()
    assert "NCCL_DEBUG=WARN" in env  # the TaskProlog overrides the job's own value
    assert "FI_EFA_USE_DEVICE_RDMA=1" in env
    assert not [line for line in env if line.startswith("NCCL_SOCKET_IFNAME=")]


def test_removeipc_on_this_host(live_slurm: list[str]) -> None:
    snapshot = collect()
    record = snapshot.get_json(f"slurm/logind/{os.uname().nodename.split('.')[0]}.json")
    finding = the(findings(snapshot), "SLURM_REMOVEIPC")
    if "RemoveIPC=no" in "".join(record["files"].values()).replace(" ", ""):
        assert finding.status is Status.PASS
    else:
        # Debian's logind.conf leaves RemoveIPC commented out: the default, yes.
        assert finding.status is Status.FAIL
        assert finding.hosts == [record["host"]]


def test_a_real_jobs_output_is_root_caused(live_slurm: list[str], tmp_path: Path) -> None:
    tmp_path.chmod(0o755)
    log = SLURM_FIXTURES / "job-output-cuda-oom-two-ranks.txt"
    job_id = sh(
        "sbatch",
        "--parsable",
        "-o",
        f"{tmp_path}/slurm-%j.out",
        "--wrap",
        f"tail -n +2 {log}",
    ).stdout.strip()
    out = tmp_path / f"slurm-{job_id}.out"
    wait_for(lambda: out.exists() and "calloc" in out.read_text(), 30, "the job's output")
    found = findings(collect(job_ids=[job_id]))
    oom = the(found, "CUDA_OOM")
    assert oom.root_cause and oom.status is Status.FAIL
    assert oom.title.startswith(f"job {job_id}: ")
    assert all(e.source.startswith(str(out)) for e in oom.evidence)
    # The same file given by path.
    given = the(findings(collect(job_outputs=[str(out)])), "CUDA_OOM")
    assert given.root_cause
