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
