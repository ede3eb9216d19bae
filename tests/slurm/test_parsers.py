"""Parsers on real Slurm outputs: 22.05 from the reference machine, 23.02 and later from public
captures (tests/fixtures/slurm/SOURCES.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hyperpod_nccl.probes.parsers.logind import remove_ipc
from hyperpod_nccl.slurm.conditions import Condition, condition_of, interpret_reason, sinfo_word
from hyperpod_nccl.slurm.config import memlock_propagation, parse_show_config, script_variables
from hyperpod_nccl.slurm.jobs import blocked_reason, parse_squeue_json, parse_squeue_text
from hyperpod_nccl.slurm.nodes import SlurmParseError, parse_scontrol_nodes, parse_sinfo_json

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "slurm"

# The reference sample: one node in each state (SOURCES.md).
EXPECTED_22_05 = {
    "node01": ("ALLOCATED", Condition.OK, "allocated"),
    "node02": ("IDLE+DRAIN", Condition.DRAIN, "drained"),
    "node03": ("DOWN", Condition.DOWN, "down"),
    "node04": ("IDLE+DRAIN", Condition.DRAIN, "drained"),
    "node05": ("IDLE+FAIL", Condition.FAIL, "fail"),
    "node06": ("MIXED+DRAIN", Condition.DRAIN, "draining"),
    "node07": ("IDLE", Condition.OK, "idle"),
    "node08": ("DOWN+NOT_RESPONDING", Condition.NOT_RESPONDING, "down*"),
}


def _read(name: str) -> str:
    return (FIXTURES / name).read_text()


def _sinfo_r_truth() -> dict[str, tuple[str, str, str]]:
    """node -> (sinfo state word, reason, user) from the sample's own `sinfo -R -o` listing."""
    lines = _read("sinfo-R-custom-22.05.txt").splitlines()[1:]
    return {p[0]: (p[1], p[2], p[4]) for p in (line.split("|") for line in lines)}


@pytest.mark.parametrize(
    "nodes_of",
    [
        lambda: parse_sinfo_json(_read("sinfo-22.05.json")),
        lambda: parse_scontrol_nodes(_read("scontrol-show-node-o-22.05.txt")),
    ],
    ids=["sinfo-json", "scontrol-text"],
)
def test_both_forms_of_the_22_05_sample_give_every_state(nodes_of: object) -> None:
    nodes = {n.name: n for n in nodes_of()}  # type: ignore[operator]
    assert set(nodes) == set(EXPECTED_22_05)
    for name, (state, condition, word) in EXPECTED_22_05.items():
        assert nodes[name].state_text == state, name
        assert condition_of(nodes[name]) is condition, name
        assert sinfo_word(nodes[name]) == word, name
    # Reasons, who set them and the words agree with what sinfo -R printed on the same cluster.
    for name, (word, reason, user) in _sinfo_r_truth().items():
        assert (sinfo_word(nodes[name]), nodes[name].reason, nodes[name].reason_user) == (
            word,
            reason,
            user,
        )
    assert nodes["node02"].reason_time is not None
    assert nodes["node07"].reason == "" and nodes["node07"].reason_time is None


def test_json_and_text_agree_on_reason_times() -> None:
    from_json = {n.name: n.reason_time for n in parse_sinfo_json(_read("sinfo-22.05.json"))}
    from_text = {
        n.name: n.reason_time for n in parse_scontrol_nodes(_read("scontrol-show-node-o-22.05.txt"))
    }
    # The text form is in the host's local time; the sample host ran in UTC.
    assert from_json == from_text


def test_multi_line_scontrol_output_of_newer_releases() -> None:
    down = parse_scontrol_nodes(_read("scontrol-show-node-down-not-responding-gpu02-partial.txt"))
    assert [(n.name, n.state_text) for n in down] == [("gpu02", "DOWN+NOT_RESPONDING")]
    assert condition_of(down[0]) is Condition.NOT_RESPONDING
    assert down[0].partitions == ("ifn", "dll")

    (drained,) = parse_scontrol_nodes(_read("scontrol-show-node-drain-gres-gpu-count-lower.txt"))
    assert drained.name == "yigou-dev-102-68"
    assert drained.reason == "gres/gpu count reported lower than configured (0 < 1)"
    assert drained.reason_user == "slurm"
    meaning = interpret_reason(drained.reason)
    assert meaning is not None and meaning.hardware_suspect


def test_sinfo_json_of_23_02_groups() -> None:
    nodes = parse_sinfo_json(_read("sinfo-23.02-dataparser.json"))
    assert [(n.name, n.state, n.partitions) for n in nodes] == [
        ("localhost", ("ALLOCATED",), ("debug",))
    ]
    assert condition_of(nodes[0]) is Condition.OK


def test_sinfo_json_with_an_unreachable_controller_is_an_error_not_an_empty_cluster() -> None:
    # sinfo exits 0 here; only the errors list tells that nothing was read.
    with pytest.raises(SlurmParseError, match="Unspecified error"):
        parse_sinfo_json(_read("sinfo-controller-unreachable-22.05.json"))


def test_garbage_is_a_parse_error() -> None:
    with pytest.raises(SlurmParseError):
        parse_sinfo_json("sinfo: error: unrecognized option '--json'")
    with pytest.raises(SlurmParseError):
        parse_scontrol_nodes("slurm_load_node error: Unable to contact slurm controller")


def test_squeue_json_22_05_and_23_02() -> None:
    jobs = {j.job_id: j for j in parse_squeue_json(_read("squeue-22.05.json"))}
    assert jobs["5"].state == "PENDING" and jobs["5"].reason == "BeginTime"
    assert jobs["3"].state == "RUNNING" and jobs["3"].nodes == "node01"
    assert blocked_reason(jobs["5"]) is None

    (held,) = parse_squeue_json(_read("squeue-23.02-dataparser-excerpt.json"))
    assert held.job_id == "52173767_1470"
    assert (held.state, held.reason, held.detail) == (
        "PENDING",
        "JobHeldUser",
        "launch failed requeued held",
    )
    assert held.submit_time == 1694675236
    assert blocked_reason(held) == "it is held by its user"


def test_squeue_text_format() -> None:
    # Lines as squeue -h -o SQUEUE_FORMAT printed them on the test Slurm.
    text = (
        "5|PENDING|ReqNodeNotAvail, UnavailableNodes:node[02-03]|2026-11-30T00:46:26|1|root|debug|"
        "(ReqNodeNotAvail, UnavailableNodes:node[02-03])|needs|pipe\n"
        "7|PENDING|BeginTime|2026-11-30T00:46:26|1|root|debug|(BeginTime)|later\n"
        "8|RUNNING|None|2026-11-30T00:46:26|2|root|debug|node[04-05]|train\n"
    )
    jobs = {j.job_id: j for j in parse_squeue_text(text)}
    assert jobs["5"].reason == "ReqNodeNotAvail"
    assert jobs["5"].unavailable_nodes == ["node02", "node03"]
    assert jobs["5"].name == "needs|pipe"
    assert blocked_reason(jobs["5"]) is not None and blocked_reason(jobs["7"]) is None
    assert jobs["8"].nodes == "node[04-05]" and jobs["8"].detail == ""
    with pytest.raises(SlurmParseError):
        parse_squeue_text("5|PENDING|BeginTime\n")


def test_show_config_and_memlock_propagation_of_the_sample() -> None:
    settings = parse_show_config(_read("scontrol-show-config-22.05.txt"))
    assert settings["SLURM_VERSION"] == "22.05.8"
    assert settings["TaskPlugin"] == "task/none"
    assert settings["Prolog"] == ""  # "(null)"
    assert memlock_propagation(settings).propagated  # the default, ALL


@pytest.mark.parametrize(
    ("limits", "except_", "propagated"),
    [
        ("ALL", "", True),
        ("", "", True),
        ("NONE", "", False),
        ("", "MEMLOCK", False),
        ("", "STACK,MEMLOCK", False),
        ("", "STACK", True),
        ("STACK,NOFILE", "", False),
        ("MEMLOCK", "", True),
    ],
)
def test_memlock_propagation_rules(limits: str, except_: str, propagated: bool) -> None:
    settings = {"PropagateResourceLimits": limits, "PropagateResourceLimitsExcept": except_}
    assert memlock_propagation(settings).propagated is propagated


def test_only_printed_exports_of_a_task_prolog_reach_tasks() -> None:
    script = (
        "#!/bin/bash\n"
        "# export NCCL_IGNORED=1 in a comment\n"
        'echo "export NCCL_DEBUG=WARN"\n'
        "echo export FI_PROVIDER=efa\n"
        "export NCCL_SOCKET_IFNAME=^lo,docker0\n"
        "FI_EFA_USE_DEVICE_RDMA=1\n"
    )
    found = {v.name: v for v in script_variables("TaskProlog", "/opt/slurm/task.sh", script)}
    assert set(found) == {
        "NCCL_DEBUG",
        "FI_PROVIDER",
        "NCCL_SOCKET_IFNAME",
        "FI_EFA_USE_DEVICE_RDMA",
    }
    assert found["NCCL_DEBUG"].reaches_tasks and found["FI_PROVIDER"].reaches_tasks
    assert not found["NCCL_SOCKET_IFNAME"].reaches_tasks
    assert found["NCCL_SOCKET_IFNAME"].value == "^lo,docker0" and found["NCCL_DEBUG"].line == 3
    prolog = script_variables("Prolog", "/opt/slurm/prolog.sh", 'echo "export NCCL_DEBUG=INFO"\n')
    assert [v.reaches_tasks for v in prolog] == [False]


def test_removeipc_follows_logind_precedence() -> None:
    debian = _read("logind-debian12.conf")
    main = "/etc/systemd/logind.conf"
    assert remove_ipc({main: debian}).enabled  # all commented out: the default, yes
    assert remove_ipc({}).source is None
    off = remove_ipc(
        {main: debian, "/etc/systemd/logind.conf.d/10-slurm.conf": "[Login]\nRemoveIPC=no\n"}
    )
    assert not off.enabled and off.source == "/etc/systemd/logind.conf.d/10-slurm.conf:2"
    # A later drop-in name wins; the same name in /etc hides the one in /usr/lib.
    files = {
        main: "[Login]\nRemoveIPC=no\n",
        "/usr/lib/systemd/logind.conf.d/20-vendor.conf": "[Login]\nRemoveIPC=yes\n",
        "/etc/systemd/logind.conf.d/20-vendor.conf": "[Login]\n#RemoveIPC=yes\n",
    }
    assert not remove_ipc(files).enabled
    files["/run/systemd/logind.conf.d/30-late.conf"] = "[Login]\nRemoveIPC=yes\n"
    assert remove_ipc(files).enabled
    # Outside [Login] the key means nothing to logind.
    assert remove_ipc({main: "[Other]\nRemoveIPC=no\n"}).enabled
