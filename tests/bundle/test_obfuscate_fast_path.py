"""The obfuscator's fast path (one Hyperscan scan picks the lines its passes can match, only
those lines are read) learns the same names and writes the same bytes, with the same
stand-ins in the same order, as its passes run on the whole text: on the real fixtures, on
the corpus logs, and on variants of them made to reach the edges of the line filter
(non-ASCII digits and case-folded letters that `re` matches, NUL bytes, CR line ends,
undecodable bytes, no final newline). Each pass of `learn` reads only the lines its own
expressions of the scan matched, which a line for one pass among lines for another checks."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from bundle_helpers import BUNDLE_FIXTURES, FIXTURES, make_secrets, seeded_log

from hyperpod_nccl.bundle import linescan
from hyperpod_nccl.bundle.obfuscate import Obfuscator

pytestmark = pytest.mark.skipif(not linescan.available(), reason="the fast path needs Hyperscan")

# Lines that carry a name only where the filter must look hard: each is inserted into the
# real text (the first five by `re`'s Unicode `\d` and (?i), which ASCII patterns would miss).
EDGE_LINES = (
    "kolyoz9:\u0661\u0662:\u0663 [\u0660] NCCL INFO Bootstrap : Using eth0\n",
    "ma\u017fter_addr=trainer-head.corp.example.net\n",
    "MASTER_ADDR: \u0130p-10-9-9-9 rdzv_endpoint=rdzv-host.corp.example.net:29400\n",
    "Nov 29 10:10:0\u0661 gpu-node-\u0663 kernel: Xid 79\n",
    "acco\u212aunt 123456789012 owner_id=210987654321\n",
    "node-7: #  size  count  type\n",
    "Pid  4242 on worker-a17 device  3 [0x53] NVIDIA H100\n",
    "JobId=4 NodeList=gpu-[001-004] BatchHost=gpu-001 AllocNode:Sid=login-2:99\n",
    '"DnsName": "ip-10-3-4-5.ec2.internal", "OwnerId": "111122223333"\n',
    "git clone https://user@git.corp.example.org/repo mail ops@team.example.co.uk\n",
    "pod/train-worker-3 pods/train-master-0 Pod ns/train-launcher-1 pod=train-worker-12\n",
    "peers 10.1.2.3 ::1 fe80::1ff:fe23:4567:890a 2600:1f14:0:0:0:0:0:1 i-0123456789abcdef0\n",
    "arn:aws:sagemaker:us-west-2:123456789012:cluster/x 123456789012.dkr.ecr.us-west-2\n",
    "srun: error: gpu-003: task 7: Exited\n",
    "slurmstepd: error: *** JOB 9 ON gpu-004 CANCELLED AT 2024-05-01 ***\n",
)
NOISE = (
    "\x00binary\x00 bytes 10.9.8.7\n",
    "windows line\r\n",
    "bad utf-8 \xff\xfe host ip-10-1-1-1\n",
    "progress \u2588\u258f 45% 3132/25120 [2:12:23<16:39:43, 2.70s/it]\n",
    "Epoch: [405]  [ 498/1251]  eta: 0:15:17  lr: 0.001998  loss: 4.6559\n",
)


def _real_texts() -> list[bytes]:
    texts = [p.read_bytes() for p in sorted(BUNDLE_FIXTURES.iterdir())]
    texts += [p.read_bytes() for p in sorted((FIXTURES / "corpus").rglob("*")) if p.is_file()]
    texts.append(seeded_log(make_secrets(), "").encode())
    return texts


def _variant(rng: random.Random, texts: list[bytes]) -> bytes:
    """A few real texts mixed line by line with edge and noise lines."""
    lines: list[bytes] = []
    for text in rng.sample(texts, k=min(3, len(texts))):
        lines += text.splitlines(keepends=True)
    for _ in range(rng.randint(1, 12)):
        extra = rng.choice(EDGE_LINES + NOISE).encode("utf-8", "surrogateescape")
        if b"\xc3\xbf\xc3\xbe" in extra:  # make the undecodable line really undecodable
            extra = extra.replace(b"\xc3\xbf\xc3\xbe", b"\xff\xfe")
        lines.insert(rng.randint(0, len(lines)), extra)
    data = b"".join(lines)
    return data.rstrip(b"\n") if rng.random() < 0.3 else data


def _both(data: bytes) -> tuple[Obfuscator, Obfuscator]:
    reference, fast = Obfuscator(), Obfuscator()
    for part in (data, data[: len(data) // 2]):  # learning twice must change nothing either
        reference.learn(part.decode("utf-8", "replace"))
        fast.learn_bytes(part)
    return reference, fast


def _check(data: bytes) -> None:
    reference, fast = _both(data)
    assert fast.mapping() == reference.mapping()
    assert list(fast.hosts) == list(reference.hosts)  # stand-ins numbered in the same order
    expected = reference.apply(data.decode("utf-8", "surrogateescape"))
    assert fast.apply_bytes(data) == expected.encode("utf-8", "surrogateescape")
    assert fast.mapping() == reference.mapping()  # addresses and ids got the same stand-ins


@pytest.mark.parametrize("index", range(len(_real_texts())))
def test_fast_path_equals_whole_text_passes_on_real_text(index: int) -> None:
    _check(_real_texts()[index])


@pytest.mark.parametrize("seed", range(40))
def test_fast_path_equals_whole_text_passes_on_variants(seed: int) -> None:
    _check(_variant(random.Random(seed), _real_texts()))


def test_edge_lines_are_learned_and_rewritten_by_the_fast_path() -> None:
    data = "".join(EDGE_LINES).encode()
    _check(data)
    _, fast = _both(data)
    # Names only `re`'s Unicode matching finds: the filter must not have skipped their lines.
    assert "kolyoz9" in fast.hosts
    assert "corp.example.net" in fast.domains
    assert "123456789012" in fast.accounts
    out = fast.apply_bytes(data)
    for name in (b"kolyoz9", b"corp.example.net", b"worker-a17", b"10.1.2.3", b"123456789012"):
        assert name not in out


def test_buffer_with_no_candidate_line_is_returned_as_it_was(tmp_path: Path) -> None:
    obfuscator = Obfuscator()
    obfuscator.learn_host("kolyoz2")
    data = "".join(NOISE[3:]).encode() * 50
    assert obfuscator.apply_bytes(data) is data


def test_each_pass_reads_its_lines_as_they_stand_in_the_whole_text() -> None:
    # `ost=` counts only after an H or h: at a line start it is not a host (not even the first
    # line its pass reads), and lines for other passes around it change nothing.
    data = b"kolyoz3:1:2 [0] NCCL INFO Bootstrap\nost=gpu-77 up\nHost=gpu-78 up\n"
    _check(data)
    _, fast = _both(data)
    assert "gpu-78" in fast.hosts and "gpu-77" not in fast.hosts
    _check(b"ost=gpu-79 up\n" + data)  # the buffer's first line: nothing before it
    # A pass that reads the lines of two expressions (an owner id is an account id too), and
    # one that reads the lines of three (pod roles): stand-ins numbered as in the whole text.
    _check(b"OwnerId=210987654321\naccount 123456789012\nmpi-launcher-7 up\ntrain-worker-2 up\n")
    for line in EDGE_LINES:  # each edge line alone, and after lines that only other passes read
        _check(line.encode())
        _check(data + line.encode() + data)


def _nccl_hosts_forward(text: str) -> list[str]:
    """The hosts the NCCL pass learned before it read backwards: from each `:pid:tid [dev]`
    found forwards, the host characters before it (after one space at most), in order."""
    from hyperpod_nccl.bundle.obfuscate import _HOST_CHARS, _NCCL_TAIL

    hosts = []
    for tail in _NCCL_TAIL.finditer(text):
        start = end = tail.start() - (text[tail.start() - 1 : tail.start()] == " ")
        while start > 0 and text[start - 1] in _HOST_CHARS:
            start -= 1
        if start < end:
            hosts.append(text[start:end])
    return list(dict.fromkeys(hosts))


@pytest.mark.parametrize("seed", range(40))
def test_nccl_pass_learns_the_hosts_of_the_forward_reading_in_order(seed: int) -> None:
    """Reading NCCL's `host:pid:tid [dev]` backwards learns the hosts that reading it forwards
    learned, first appearances in the same order, on text made of the pieces that matter."""
    rng = random.Random(seed)
    pieces = ["gpu-1", "ip-10-0-0-1", "h.x", "a_b", "7", ":", "1", "22", "\u0663", " ", "  "]
    pieces += ["[", "]", "[0]", " [1]", ":12:34 [5]", ":1:2", "\n", "x:9:9:9 [3]", "é", "-"]
    text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 400)))
    learned: list[str] = []
    obfuscator = Obfuscator()
    obfuscator.learn_host = learned.append  # type: ignore[method-assign]
    obfuscator._learn_nccl(text)
    assert learned == _nccl_hosts_forward(text)
