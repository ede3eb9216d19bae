"""NCCL's interface lists: every interface on a `NET/Socket : Using [0].. [1]..` line is a
device NCCL may route a channel through (NCCL src/transport/net_socket.cc), so a virtual or
link-local one beside a routable one is a misconfiguration even when one host is all we see.
The line is real (tests/fixtures/corpus/fresh.jsonl f011, github.com/pytorch/pytorch/issues/68893);
the two-routable variant only renames its second interface."""

from __future__ import annotations

from pathlib import Path

import pytest

from hyperpod_nccl.api import analyze_logs

MIXED = (
    "ip-172-31-0-137:14605:14673 [0] NCCL INFO NET/Socket : Using [0]ens5:172.31.0.137<0> "
    "[1]veth75fa783:fe80::14ad:64ff:fe64:b31e%veth75fa783<0>"
)
ROUTABLE = MIXED.replace(
    "[1]veth75fa783:fe80::14ad:64ff:fe64:b31e%veth75fa783<0>", "[1]ens6:172.31.1.10<0>"
)


@pytest.mark.parametrize("engine", ["hyperscan", "re"])
def test_a_virtual_interface_beside_a_routable_one_is_the_cause(
    engine: str, tmp_path: Path
) -> None:
    log = tmp_path / "rank0.log"
    log.write_text(MIXED + "\n", "utf-8")
    report = analyze_logs([str(log)], backend=engine, workers=1)
    assert report.root_cause is not None and report.root_cause.code == "SOCKET_IFNAME"
    assert "veth75fa783" in report.root_cause.title
    assert report.root_cause.status.value == "WARN"  # one host seen: it may be single-node


@pytest.mark.parametrize("engine", ["hyperscan", "re"])
def test_two_routable_interfaces_are_no_finding(engine: str, tmp_path: Path) -> None:
    log = tmp_path / "rank0.log"
    log.write_text(ROUTABLE + "\n", "utf-8")
    report = analyze_logs([str(log)], backend=engine, workers=1)
    assert report.root_cause is None
    assert not [f for f in report.findings if f.code == "SOCKET_IFNAME"]


# Another job's single-node run on loopback (github.com/NVIDIA/nccl-tests issue thread in
# tests/fixtures/corpus, 'ds-ml-01-0', NCCL_SOCKET_IFNAME=lo), beside a two-node job whose
# connect failed on its own hosts (github.com/pytorch/pytorch thread, 'ps-8'): each job has
# its own interfaces, and loopback is right for the first.
OTHER_JOB_LOOPBACK = "ds-ml-01-0:17754:17754 [0] NCCL INFO NET/Socket : Using [0]lo:127.0.0.1<0>"
FAILED_JOB = [
    "ps-8:796:796 [1] NCCL INFO NET/Socket : Using [0]enp67s0:192.168.1.8<0>",
    "ps-8:795:822 [0] include/socket.h:409 NCCL WARN Net : Connect to 192.168.1.9<54263> "
    "failed : No route to host",
]


@pytest.mark.parametrize("engine", ["hyperscan", "re"])
def test_another_jobs_loopback_does_not_explain_a_failure_on_other_hosts(
    engine: str, tmp_path: Path
) -> None:
    (tmp_path / "rank0.log").write_text("\n".join(FAILED_JOB) + "\n", "utf-8")
    (tmp_path / "rank1.log").write_text(OTHER_JOB_LOOPBACK + "\n", "utf-8")
    report = analyze_logs([str(tmp_path)], backend=engine, workers=1)
    assert report.root_cause is not None and report.root_cause.code == "NET_UNREACHABLE"
    assert not [f for f in report.findings if f.code == "SOCKET_IFNAME"]


@pytest.mark.parametrize("engine", ["hyperscan", "re"])
def test_loopback_on_the_failing_host_explains_the_failure(engine: str, tmp_path: Path) -> None:
    looped = [FAILED_JOB[0].replace("[0]enp67s0:192.168.1.8<0>", "[0]lo:127.0.0.1<0>")]
    (tmp_path / "rank0.log").write_text("\n".join([*looped, FAILED_JOB[1]]) + "\n", "utf-8")
    (tmp_path / "rank1.log").write_text(OTHER_JOB_LOOPBACK + "\n", "utf-8")
    report = analyze_logs([str(tmp_path)], backend=engine, workers=1)
    assert report.root_cause is not None and report.root_cause.code == "SOCKET_IFNAME"


@pytest.mark.parametrize("engine", ["hyperscan", "re"])
def test_a_listed_link_local_interface_explains_a_failure_that_names_no_host(
    engine: str, tmp_path: Path
) -> None:
    # github.com/aws-samples/aws-do-eks/pull/54 (tests/fixtures/corpus/fresh14.jsonl e031), its
    # lines without the author's arrows, beside other jobs' loopback in other rank files
    lines = [
        "NET/Socket : Using [0]enp73s0:10.1.216.156<0> [1]pod-id-link0:169.254.170.23<0>",
        "RuntimeError: NCCL error: remote process exited or there was a network error",
    ]
    (tmp_path / "rank0.log").write_text("\n".join(lines) + "\n", "utf-8")
    (tmp_path / "rank1.log").write_text(OTHER_JOB_LOOPBACK + "\n", "utf-8")
    report = analyze_logs([str(tmp_path)], backend=engine, workers=1)
    assert report.root_cause is not None and report.root_cause.code == "SOCKET_IFNAME"
