"""The one host-list expander and compressor (slurm/hostlists.py) against Slurm's own: every
form is expanded by `scontrol show hostnames` and compressed by `scontrol show hostlist` of the
installed Slurm (both parse locally, no controller needed), and the host lists of the captured
Slurm outputs expand to the nodes those outputs list one by one."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from hyperpod_nccl.bundle.obfuscate import Obfuscator
from hyperpod_nccl.slurm import hostlists
from hyperpod_nccl.slurm.jobs import SlurmJob

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "slurm"

# Slurm's forms: a range and a single in one bracket, HyperPod's ip-a-b-c-d names, zero padding,
# several bracket groups (a range in the middle of a name), several lists side by side.
FORMS = [
    "ip-10-1-2-[3-5,7]",
    "node[001-010]",
    "node[8-11]",
    "node[08-11]",
    "rack[1-2]-n[01-02]",
    "gpu-[01-03,07],login",
    "ip-10-0-[1-2]-[9-10]",
    "node[01-02],login[1-2]",
    "node01",
]


def scontrol(*argv: str) -> str:
    return subprocess.run(
        ["scontrol", "show", *argv], capture_output=True, text=True, check=True, timeout=30
    ).stdout


@pytest.mark.parametrize("expression", FORMS)
def test_expand_matches_slurm(expression: str) -> None:
    assert hostlists.expand(expression) == scontrol("hostnames", expression).split()


@pytest.mark.parametrize("expression", FORMS)
def test_compress_round_trips_through_slurm(expression: str) -> None:
    names = scontrol("hostnames", expression).split()
    compressed = hostlists.compress(names)
    # Slurm reads it back as the same hosts; where Slurm would write one bracket group per
    # list (`rack1-n[01-02],rack2-n[01-02]`), python-hostlist may fold two into one.
    assert sorted(scontrol("hostnames", compressed).split()) == sorted(names)
    if expression.count("[") <= 1:
        assert compressed == scontrol("hostlist", ",".join(names)).strip()


@pytest.mark.parametrize("expression", ["node[1-", "node[5-3]", "node[a-b]"])
def test_malformed_lists_raise(expression: str) -> None:
    with pytest.raises(hostlists.HostlistError):
        hostlists.expand(expression)


def test_a_range_too_wide_is_refused() -> None:
    with pytest.raises(hostlists.HostlistError, match="spans more than 10"):
        hostlists.expand("n[0-11]", max_range=10)


def test_captured_partition_and_job_lists_expand_to_their_nodes() -> None:
    text = (FIXTURES / "scontrol-show-partition-o-22.05.txt").read_text()
    (listed,) = re.findall(r"\bNodes=(\S+)", text)
    total = int(re.search(r"\bTotalNodes=(\d+)", text).group(1))  # type: ignore[union-attr]
    assert len(hostlists.expand(listed)) == total
    jobs = json.loads((FIXTURES / "squeue-22.05.json").read_text())["jobs"]
    for job in (j for j in jobs if j["nodes"]):  # a pending job has none yet
        assert len(hostlists.expand(job["nodes"])) == job["node_count"]


def test_every_caller_uses_it() -> None:
    # a pending job's UnavailableNodes, the obfuscator's host lists: the same hosts
    job = SlurmJob("1", "PENDING", detail="ReqNodeNotAvail, UnavailableNodes:ip-10-1-2-[3-5,7]")
    assert job.unavailable_nodes == hostlists.expand("ip-10-1-2-[3-5,7]")
    obfuscator = Obfuscator()
    obfuscator.learn_host("node[001-003]")
    masked = obfuscator.apply("on node[001-003] and node002")
    assert "node00" not in masked
    stand_ins = masked.removeprefix("on ").split(" and ")[0].split(",")
    assert len(stand_ins) == 3 and masked.endswith(" and " + stand_ins[1])
