"""--obfuscate replaces every identifier kind (host names short and qualified, IPv4, IPv6 in
full and compressed form, pod names, organisation domains in content, URLs, MASTER_ADDR and
file names, account and instance ids), only on token boundaries: words that merely contain a
host name (`total-vm:`) stay as they are. Analysis of the obfuscated bundle finds the same."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hostile import assert_no_traceback, run
from hyperpod_nccl.bundle.obfuscate import Obfuscator

ACCOUNT = "123456789012"
INSTANCE = "i-0123456789abcdef0"
FULL_V6 = "2600:1f14:abc:1234:5678:9abc:def0:1234"
LINK_V6 = "fe80:0:0:0:1c2d:3e4f:5a6b:7c8d"
SHORT_V6 = "2600:1f14:abc:1234::17"
POD = "llama-pretrain-worker-3"
DEPLOY_POD = "metrics-agent-7d9f8c6b5-x2k4q"
DOMAIN = "acme-research.com"
HEAD = f"trn-head.corp.{DOMAIN}"
HOST = "gpu-node-a7"
SHORT_HOST = "vm"  # a host name that is also a common word part
IDENTIFIERS = [
    ACCOUNT, INSTANCE, FULL_V6, LINK_V6, SHORT_V6, POD, DEPLOY_POD, "acme-research",
    "trn-head", HOST, "10.4.5.6", "54.12.34.56",
]  # fmt: skip
# Text that holds an identifier's letters without being one: it must come out unchanged.
TRAPS = [
    "Out of memory: Killed process 4242 (python) total-vm:81234567kB, anon-rss:7654321kB",
    "sysctl vm.max_map_count = 65530",
    "pip install --index-url https://pypi.org/simple torch  # from github.com and huggingface.co",
    "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: std::vector c10d::",
    "mac 0a:1b:2c:3d:4e:5f at 10:11:12",
]


def _logs(directory: Path) -> Path:
    directory.mkdir()
    (directory / f"{POD}.log").write_text(
        f"[rank3]: MASTER_ADDR={HEAD} MASTER_PORT=29500\n"
        f"{HOST}:1234:1234 [0] NCCL INFO NET/Socket : Using [0]eth0:10.4.5.6<0> [1]eth1:{FULL_V6}<0>\n"
        f"{SHORT_HOST}:77:77 [0] NCCL INFO Bootstrap : Using eth0:10.4.5.7<0>\n"
        f"{SHORT_HOST}:77:77 [0] NCCL INFO cudaDriverVersion 12040\n"
        f"[rank3]: cloning https://git.{DOMAIN}/ml/llama.git from {HEAD} ({SHORT_V6}, {LINK_V6})\n"
        f"[rank3]: pod/{POD} scheduled on node hyperpod-{INSTANCE} with pod/{DEPLOY_POD}\n"
        f"[rank3]: uploading to arn:aws:s3:::bucket in account {ACCOUNT} via 54.12.34.56\n"
        + "".join(f"[rank3]: {trap}\n" for trap in TRAPS)
        + "[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n"
    )
    (directory / f"{HEAD}.log").write_text(f"Pid 4242 on {HOST} device 0\nstep 1 loss 2.2\n")
    return directory


def _members(path: Path) -> dict[str, str]:
    import tarfile

    with tarfile.open(path, "r:gz") as tar:
        return {
            m.name: (tar.extractfile(m).read().decode("utf-8", "replace") if m.isfile() else "")  # type: ignore[union-attr]
            for m in tar.getmembers()
        }


def _findings(report: dict[str, Any], hosts: dict[str, str] | None = None) -> list[tuple[Any, ...]]:
    hosts = hosts or {}
    return sorted(
        (
            f["code"],
            f["status"],
            tuple(f["ranks"]),
            tuple(sorted(hosts.get(h, h) for h in f["hosts"])),
        )
        for f in report["findings"]
    )


def test_no_identifier_survives_and_the_findings_are_the_same(tmp_path: Path) -> None:
    logs = _logs(tmp_path / "logs")
    bundle = tmp_path / "case.tar.gz"
    first = run(
        "logs",
        str(logs),
        "--format",
        "json",
        "--save-bundle",
        str(bundle),
        "--obfuscate",
        tmp=tmp_path,
    )
    assert_no_traceback(first)
    assert first.code == 0, first.err
    mapping = json.loads(Path(f"{bundle}.mapping.json").read_text())
    members = _members(bundle)
    everything = "\n".join([*members, *members.values()])
    survivors = [i for i in IDENTIFIERS if i.lower() in everything.lower()]
    assert survivors == [], ", ".join(survivors)
    for trap in TRAPS:
        assert trap in everything, trap  # untouched: no host replaced inside another word
    assert f"{SHORT_HOST}:77:77" not in everything  # the host itself is replaced
    assert mapping["hosts"].get(SHORT_HOST)
    again = run("logs", "--bundle", str(bundle), "--format", "json", tmp=tmp_path)
    assert_no_traceback(again)
    assert _findings(again.json()) == _findings(first.json(), mapping["hosts"])
    # The kernel's OOM kill (a trap line above) explains the CUDA OOM: the root cause either way.
    assert again.json()["root_cause"] == first.json()["root_cause"] == "CONTAINER_OOM"


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("total-vm:123kB", "total-vm:123kB"),
        ("vm.max_map_count=1", "vm.max_map_count=1"),
        ("vm_stat", "vm_stat"),
        ("myvm", "myvm"),
    ],
)
def test_a_host_is_replaced_only_as_a_whole_token(text: str, kept: str) -> None:
    obfuscator = Obfuscator()
    obfuscator.learn_host("vm")
    assert obfuscator.apply(text) == kept
    assert obfuscator.apply("vm:77:77 [0] NCCL INFO x") != "vm:77:77 [0] NCCL INFO x"
    assert obfuscator.apply("ssh vm.ec2.internal").startswith("ssh host")


def test_full_ipv6_addresses_are_replaced() -> None:
    obfuscator = Obfuscator()
    out = obfuscator.apply(f"peers {FULL_V6} and {LINK_V6}; mac 0a:1b:2c:3d:4e:5f at 10:11:12")
    assert FULL_V6 not in out and LINK_V6 not in out
    assert "0a:1b:2c:3d:4e:5f at 10:11:12" in out
    assert out.split()[1].startswith("2600:") and out.split()[3].startswith("fe80:")
