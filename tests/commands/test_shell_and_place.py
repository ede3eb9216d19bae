"""Units of suggest/: placeholders become shell expansions, commands say where they run, and
values come from the evidence."""

from __future__ import annotations

import subprocess

from hyperpod_nccl.codes import load_registry
from hyperpod_nccl.model import Evidence, Finding, Priority, Status
from hyperpod_nccl.suggest.build import commands_for
from hyperpod_nccl.suggest.place import place
from hyperpod_nccl.suggest.shell import runnable

# A real NCCL line (tests/fixtures/corpus: github.com/NVIDIA/nccl issue, see its `source`).
NCCL_CONNECT = (
    "e57377aacbb6:1203:1227 [0] misc/socket.cc:480 NCCL WARN socketStartConnect: "
    "Connect to 172.17.0.2<38847> failed : Software caused connection abort"
)


def _parses(command: str) -> bool:
    return subprocess.run(["bash", "-n"], input=command, text=True, check=False).returncode == 0


def test_unknown_values_become_expansions_that_say_where_to_get_them() -> None:
    shown = runnable(
        "aws sagemaker batch-reboot-cluster-nodes --cluster-name <cluster-name> "
        "--node-ids <instance-id-of-ip-10-1-7-41> <instance-id-of-ip-10-1-2-3>"
    )
    assert "<" not in shown and _parses(shown)
    assert '"${CLUSTER:?set CLUSTER to the HyperPod cluster name' in shown
    # Two hosts' ids are two variables, each naming its host.
    assert "${INSTANCE_ID:?set INSTANCE_ID to the node instance id of ip-10-1-7-41" in shown
    assert "${INSTANCE_ID_2:?set INSTANCE_ID_2 to the node instance id of ip-10-1-2-3" in shown


def test_a_pid_is_found_on_the_machine_and_a_comment_stays_as_written() -> None:
    shown = runnable("py-spy dump --pid <pid-of-training-process>   # run on <node>")
    assert shown.startswith('py-spy dump --pid "$(pgrep -n -P "$(pgrep -o -f ')
    assert shown.endswith("# run on <node>") and _parses(shown)


def test_placement_by_orchestrator() -> None:
    pods = ["llama-pretrain-worker-1", "llama-pretrain-worker-2"]
    one, where = place("df -h /dev/shm", "container", pods[:1])
    assert one == "kubectl exec llama-pretrain-worker-1 -- df -h /dev/shm"
    assert where == "pod llama-pretrain-worker-1"
    loop, _ = place("grep x /proc/1/limits | head", "container", pods)
    assert loop.startswith("for pod in llama-pretrain-worker-1 llama-pretrain-worker-2; do")
    assert 'kubectl exec "$pod" -- sh -c "grep x /proc/1/limits | head"; done' in loop
    node, _ = place("nvidia-smi", "node", pods[:1])
    assert "run on the node of pod llama-pretrain-worker-1" in node
    assert "kubectl get pod llama-pretrain-worker-1 -o wide" in node
    hosts, where = place("nvidia-smi", "node", ["ip-10-1-2-3", "ip-10-1-7-41"])
    assert hosts == "nvidia-smi   # run on ip-10-1-2-3, ip-10-1-7-41" and where.count("ip-") == 2
    for command in (one, loop, node, hosts):
        assert _parses(command)


def test_peer_address_and_port_come_from_the_nccl_line() -> None:
    finding = Finding(
        "NET_UNREACHABLE",
        Status.FAIL,
        Priority.P0,
        "peers cannot connect",
        hosts=["e57377aacbb6"],
        evidence=[Evidence("rank0.log:12", NCCL_CONNECT)],
    )
    [command] = commands_for(finding, load_registry()["NET_UNREACHABLE"])
    assert command.command == "nc -zv -w 5 172.17.0.2 38847   # run on e57377aacbb6"
    assert command.changes_state is False and command.runs_on == "e57377aacbb6"


def test_known_processes_get_their_own_pid_on_their_host() -> None:
    finding = Finding("NCCL_TIMEOUT", Status.FAIL, Priority.P0, "timeout", hosts=["a", "b"])
    commands = commands_for(finding, load_registry()["NCCL_TIMEOUT"], [("a", 5120), ("b", 6231)])
    dumps = [c.command for c in commands if "py-spy" in c.command]
    assert dumps == [
        "py-spy dump --pid 5120   # run in the training container on a",
        "py-spy dump --pid 6231   # run in the training container on b",
    ]
    assert all(c.while_hanging for c in commands if "py-spy" in c.command)
