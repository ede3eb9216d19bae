"""`--obfuscate`: the same identifier gets the same stand-in everywhere in the archive (file
contents and file names), stand-ins keep the shapes analysis relies on, addresses keep their
subnet structure, and the mapping stays outside the archive."""

from __future__ import annotations

import ipaddress
import json
import random
import re
from pathlib import Path

from bundle_helpers import BUNDLE_FIXTURES, bundle_members, run_cli

from hyperpod_nccl.bundle.addresses import IPv4Map, IPv6Map
from hyperpod_nccl.bundle.obfuscate import Obfuscator

ACCOUNT = "123456789012"
INSTANCE = "i-0123456789abcdef0"


def _split_ranks(text: str) -> dict[int, str]:
    """The real two-node EFA run, one file per rank as `kubectl logs` would give it."""
    ranks: dict[int, list[str]] = {0: [], 1: []}
    for line in text.splitlines():
        found = re.match(r"\[1,(\d)\]<stdout>:", line)
        if found:
            ranks[int(found.group(1))].append(line)
        else:
            ranks[0].append(line)
            ranks[1].append(line)
    return {r: "\n".join(lines) + "\n" for r, lines in ranks.items()}


def _inputs(tmp_path: Path) -> Path:
    job = tmp_path / "job"
    job.mkdir()
    ranks = _split_ranks((BUNDLE_FIXTURES / "efa-2node-nccl-info.txt").read_text("utf-8"))
    (job / "test-nccl-efa-worker-0.log").write_text(ranks[0], "utf-8")
    (job / "test-nccl-efa-worker-1.log").write_text(ranks[1], "utf-8")
    kernel = (
        f"Nov 29 10:10:01 ip-10-11-13-106 kernel: node hyperpod-{INSTANCE} in cluster "
        f"arn:aws:sagemaker:us-west-2:{ACCOUNT}:cluster/abc123def456\n"
        "Nov 29 10:10:02 ip-10-11-13-106 kernel: peers 10.1.2.3 and 10.1.2.9, gateway 10.1.0.1\n"
        f"Nov 29 10:10:03 ip-10-11-13-106 kernel: owner {ACCOUNT}, instance {INSTANCE}\n"
    )
    (job / "ip-10-11-13-106.log").write_text(kernel, "utf-8")
    slurm = (BUNDLE_FIXTURES / "slurm-nodes.txt").read_text("utf-8")
    (job / "slurm.txt").write_text(slurm + "JobId=3 NodeList=node[01-02] BatchHost=node01\n")
    for name in ("fi-getinfo-ipv6.txt", "ib-completion-error-ipv4-mapped.txt"):
        (job / name).write_text((BUNDLE_FIXTURES / name).read_text("utf-8"), "utf-8")
    return job


def _texts(directory: Path) -> bytes:
    return b"\n".join(p.read_bytes() for p in sorted(directory.iterdir()))


def test_obfuscation_is_consistent_across_the_archive(tmp_path: Path) -> None:
    job = _inputs(tmp_path)
    bundle = tmp_path / "case.tar.gz"
    result = run_cli("logs", str(job), "--save-bundle", str(bundle), "--obfuscate")
    assert result.rc == 0, result.stderr
    mapping = json.loads(Path(str(bundle) + ".mapping.json").read_text("utf-8"))
    members = bundle_members(bundle)
    everything = b"\n".join(members.values()) + "\n".join(members).encode()
    original = _texts(job)

    hosts = mapping["hosts"]
    for name in ("test-nccl-efa-worker-0", "test-nccl-efa-worker-1", "node01", "node05"):
        assert name in hosts, name
    for address in ("10.11.13.106", "10.11.5.31", "10.1.2.3", "10.1.2.9", "172.17.0.1"):
        assert address in mapping["ipv4"], address
    assert mapping["account_ids"] == {ACCOUNT: "000000000001"}
    assert INSTANCE in mapping["instance_ids"]
    assert any(a.startswith("fe80::") for a in mapping["ipv6"])

    # Nothing original is left, in contents or names; each stand-in appears exactly as often
    # as what it replaced (the same host is the same stand-in everywhere).
    for kind in ("hosts", "ipv4", "ipv6", "account_ids", "instance_ids"):
        for real, stand_in in mapping[kind].items():
            pattern = rf"(?<![A-Za-z0-9.]){re.escape(real)}(?![A-Za-z0-9])"
            assert not re.search(pattern.encode(), everything), f"{kind} {real} survives"
            if kind == "hosts":
                # `NodeList=node[01-02]` is written out as the two hosts' stand-ins.
                listed = 1 if real in ("node01", "node02") else 0
                assert len(re.findall(pattern.encode(), original)) + listed == len(
                    re.findall(
                        rf"(?<![A-Za-z0-9.]){re.escape(stand_in)}(?![A-Za-z0-9])".encode(),
                        _bundled_inputs(members),
                    )
                ), real

    # File names went through the same mapping as the contents.
    worker0 = hosts["test-nccl-efa-worker-0"]
    ip_name = "ip-" + mapping["ipv4"]["10.11.13.106"].replace(".", "-")
    names = {n.split("/")[-1] for n in members if n.startswith("logs/")}
    assert f"{worker0}.log" in names and f"{ip_name}.log" in names
    # ...and the `ip-A-B-C-D` host name agrees with the address it encodes.
    assert ip_name.encode() in members[next(n for n in members if n.endswith(f"{ip_name}.log"))]


def _bundled_inputs(members: dict[str, bytes]) -> bytes:
    return b"\n".join(data for name, data in sorted(members.items()) if name.startswith("logs/"))


def test_stand_ins_keep_shapes_and_subnets(tmp_path: Path) -> None:
    job = _inputs(tmp_path)
    bundle = tmp_path / "case-dir"
    assert run_cli("logs", str(job), "--save-bundle", str(bundle), "--obfuscate").rc == 0
    mapping = json.loads(Path(str(bundle) + ".mapping.json").read_text("utf-8"))
    ipv4 = mapping["ipv4"]
    assert ipv4["10.1.2.3"].rsplit(".", 1)[0] == ipv4["10.1.2.9"].rsplit(".", 1)[0]
    assert ipv4["10.1.2.3"] != ipv4["10.1.2.9"]
    assert ipv4["10.1.0.1"].split(".")[2] == "0", "a 0 octet keeps its meaning"
    assert ipv4["10.11.13.106"].split(".")[:2] == ipv4["10.11.5.31"].split(".")[:2]
    assert all(ipaddress.IPv4Address(v).is_private for v in ipv4.values())
    assert re.fullmatch(r"i-[0-9a-f]{17}", mapping["instance_ids"][INSTANCE])
    assert mapping["hosts"]["test-nccl-efa-worker-1"].endswith("-worker-1")
    for stand_in in mapping["ipv6"].values():
        assert stand_in.startswith("fe80::")
    slurm = next(p for p in bundle.rglob("slurm.txt")).read_text("utf-8")
    node01, node02 = mapping["hosts"]["node01"], mapping["hosts"]["node02"]
    assert f"NodeList={node01},{node02} BatchHost={node01}" in slurm
    assert "NodeAddr=127.0.0.1" in slurm, "loopback identifies nobody and stays"


def test_ipv4_map_preserves_prefix_structure_and_is_one_to_one() -> None:
    rng = random.Random(3)
    addresses = {
        f"10.{rng.randrange(4)}.{rng.randrange(6)}.{rng.randrange(1, 255)}" for _ in range(3000)
    } | {f"52.{rng.randrange(3)}.{rng.randrange(3)}.{rng.randrange(1, 255)}" for _ in range(500)}
    table = IPv4Map()
    mapped = {a: table.map(a) for a in sorted(addresses)}
    assert len(set(mapped.values())) == len(mapped), "two addresses got one stand-in"
    for prefix in (1, 2, 3):
        by_real: dict[str, set[str]] = {}
        for real, stand_in in mapped.items():
            by_real.setdefault(".".join(real.split(".")[:prefix]), set()).add(
                ".".join(stand_in.split(".")[:prefix])
            )
        assert all(len(v) == 1 for v in by_real.values()), f"a /{8 * prefix} was split"
        assert len({next(iter(v)) for v in by_real.values()}) == len(by_real), "merged"
    assert all(v.startswith("10.") for k, v in mapped.items() if k.startswith("10."))
    assert not any(
        v.startswith(("10.", "172.", "192.168.")) for k, v in mapped.items() if k.startswith("52.")
    )
    for kept in ("127.0.0.1", "0.0.0.0", "169.254.169.254", "255.255.255.0", "224.0.0.251"):
        assert table.map(kept) == kept


def test_ipv6_link_local_stays_link_local() -> None:
    table = IPv6Map()
    a = table.map("fe80::d0:59ff:feea:faa")
    b = table.map("fe80::39:beff:fe6e:c23")
    assert a and b and a != b and a.startswith("fe80::") and b.startswith("fe80::")
    assert table.map("::1") is None and table.map("::ffff:10.0.0.1") is None
    assert table.map("fe80::d0:59ff:feea:faa") == a


def test_words_the_rules_read_are_never_taken_for_hosts() -> None:
    """A label like `Bootstrap:` or `Traceback:` must not become a host and be rewritten."""
    text = (BUNDLE_FIXTURES / "efa-2node-nccl-info.txt").read_text("utf-8")
    obfuscator = Obfuscator()
    obfuscator.learn(text + "\nTraceback (most recent call last):\nRuntimeError: NCCL error\n")
    assert set(obfuscator.hosts) == {"test-nccl-efa-worker-0", "test-nccl-efa-worker-1"}
    out = obfuscator.apply(text)
    assert out.count("NCCL INFO") == text.count("NCCL INFO")
    assert "std::vector" in obfuscator.apply("std::vector c10d:: fe80::1")


def test_instance_ids_inside_names_and_managed_instances() -> None:
    obfuscator = Obfuscator()
    out = obfuscator.apply(f"hyperpod-{INSTANCE} m{INSTANCE} x{INSTANCE} {INSTANCE[:8]} {INSTANCE}")
    stand_in = obfuscator.instances[INSTANCE]
    assert out == f"hyperpod-{stand_in} m{stand_in} x{INSTANCE} {INSTANCE[:8]} {stand_in}"
