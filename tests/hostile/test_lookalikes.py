"""Secrets with no trigger word beside them (a bare AWS secret access key, a `.pgpass` line on
any port) are found by their shape; what merely looks like them must survive: git SHA-1s and
sha1sum lines, NCCL comm ids and `host:pid:tid` prefixes, UUIDs, pod-hash names, base64 of
other lengths, paths and URLs, libfabric prefixes, timestamps, MAC and IPv6 addresses.

Look-alikes come from the real logs in tests/fixtures where they occur there, and are generated
fresh from a seed otherwise (no token-like string sits in the repository)."""

from __future__ import annotations

import base64
import hashlib
import io
import itertools
import json
import random
import re
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from secret_inventory import ALNUM, B64, HEX, draw

from hyperpod_nccl.redaction import SMALL_TEXT, Redactor, shapes
from hyperpod_nccl.redaction.secret_rules import BARE_AWS_SECRET, PGPASS_LINE, RULES
from hyperpod_nccl.snapshot.scrub import Scrubber

FIXTURES = Path(__file__).parents[1] / "fixtures"
FILLER = FIXTURES / "bundle" / "efa-2node-nccl-info.txt"
BARE = re.compile(BARE_AWS_SECRET)
BARE_RULE = next(r for r in RULES if r.kind == "aws-secret-access-key" and not r.triggers)
NCCL_PREFIX = re.compile(r"(?m)^\S+:\d+:\d+ \[\d+\]")


def fixture_texts() -> Iterator[tuple[str, str]]:
    """Every text file under tests/fixtures, and every log inside its corpus .jsonl files."""
    for path in sorted(FIXTURES.rglob("*")):
        if not path.is_file():
            continue
        text = path.read_bytes().decode("utf-8", "replace")
        yield str(path.relative_to(FIXTURES)), text
        if path.suffix == ".jsonl":
            for line in text.splitlines():
                case = json.loads(line)
                if isinstance(case, dict) and isinstance(case.get("log"), str):
                    yield f"{path.name}#{case.get('id')}", case["log"]


FIXTURE_TEXTS = list(fixture_texts())


def _large(text: str) -> str:
    """`text` between two copies of a real NCCL log, past the small-document size."""
    base = FILLER.read_text("utf-8")
    filler = base * (SMALL_TEXT // len(base) + 1)
    return filler + text + "\n" + filler


def _scrubbed(text: str) -> str:
    out = io.BytesIO()
    Scrubber().copy(io.BytesIO(text.encode()), out)
    return out.getvalue().decode()


def _every_way(text: str) -> list[str]:
    """`text` redacted as a small document, inside a large log and through a bundle copy."""
    redactor = Redactor()
    big = _large(text)
    return [redactor.text(text), redactor.text(big), _scrubbed(big)]


# ------------------------------------------------------------------ bare AWS secret keys
def test_random_keys_drawn_as_aws_draws_them_are_redacted_but_1_in_400_at_most() -> None:
    """The rule turns down a key with no digit (1 in 900) or with few changes of character
    class (1 in 2,600): about 1 in 650, measured over 20,000 keys from a fixed seed."""
    rng = random.Random(2014)
    keys = [draw(rng, B64, 40) for _ in range(20_000)]
    redactor = Redactor()
    missed = [k for k in keys if k in redactor.text(f"using {k} for the upload")]
    assert len(missed) <= len(keys) // 400, len(missed)
    assert redactor.counts["aws-secret-access-key"] == len(keys) - len(missed)
    # What is missed is what the comment in secret_rules says: no digit, or word-like runs.
    assert all(not any(c.isdigit() for c in k) or _class_changes(k) < 13 for k in missed)


def _class_changes(token: str) -> int:
    """Changes between upper case, lower case and digits along the token's letters and digits."""
    kinds = ["u" if c.isupper() else "l" if c.islower() else "d" for c in token if c.isalnum()]
    return sum(a != b for a, b in itertools.pairwise(kinds))


@pytest.mark.parametrize(
    "template",
    [
        "{k}",
        "[rank3]: uploading with {k} now",
        "export UPLOAD_MATERIAL={k}",  # not a secret name: the shape alone decides
        "creds {k},",
        '{{"material": "{k}"}}',
        "value '{k}' was rejected",
        "NCCL INFO something set to {k}.",
    ],
)
def test_a_bare_key_goes_wherever_it_stands(template: str) -> None:
    rng = random.Random(template)
    for _ in range(5):
        key = draw(rng, B64, 40)
        while not (any(c.isdigit() for c in key) and any(c in "+/" for c in key)):
            key = draw(rng, B64, 40)  # the test's own keys: digits and +/ in each
        text = template.format(k=key)
        for out in _every_way(text):
            assert key not in out and key[4:16] not in out, out[:200]
            assert "[REDACTED:aws-secret-access-key]" in out


def _lookalikes(rng: random.Random) -> dict[str, str]:
    """Generated look-alikes of a 40-character key, each as a log would print it."""
    sha = hashlib.sha1(rng.randbytes(64)).hexdigest()
    other_b64 = {
        f"base64-{n}-bytes": base64.b64encode(rng.randbytes(n)).decode()
        for n in (27, 28, 29, 31, 33, 45, 60, 300)  # 36..400 characters; 30 bytes make 40
    }
    return {
        "git-sha1": f"commit {sha}",
        "git-sha1-upper": f"HEAD is now at {sha.upper()}",
        "git-sha1-mixed-case": f"rev {sha[:20].upper()}{sha[20:]}",
        "sha1sum-line": f"{sha}  model-00001-of-00004.safetensors",
        "sha1-in-url": f"https://github.com/NVIDIA/nccl/commit/{sha}",
        "hex-40-random": draw(rng, HEX, 40),
        "uuid": f"job uuid {uuid.UUID(bytes=rng.randbytes(16))}",
        "gpu-uuid": f"GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-{uuid.UUID(bytes=rng.randbytes(16))})",
        "pod-hash": f"pod/llama-pretrain-{draw(rng, 'bcdfghjklmnpqrstvwxz2456789', 10)}-"
        f"{draw(rng, 'bcdfghjklmnpqrstvwxz2456789', 5)} Running",
        "nccl-comm-id": f"ip-10-1-2-3:1234:1234 [0] NCCL INFO comm 0x{draw(rng, HEX, 12)} rank 0 "
        f"nranks 16 cudaDev 0 busId 53000 commId 0x{draw(rng, HEX, 16)} - Init COMPLETE",
        "token-39": draw(rng, ALNUM, 39),
        "token-41": draw(rng, ALNUM, 41),
        "token-80": draw(rng, B64, 80),
        "camel-case": "ProcessGroupNCCLWatchdogTimeoutException9 raised",
        "path": "/opt/amazon/efa/lib64/libfabric/Prov2abc",
        "path-capitals": "saved /fsx/Users/Alice/ckpt/Run7/Step12000/Opt ok",
        "url-path": "see https://github.com/ZhehengJiangLancaster/AMVUR/issues/2 first",
        **other_b64,
    }


def test_lookalikes_of_a_key_survive_every_way() -> None:
    for name, text in _lookalikes(random.Random(14)).items():
        for out in _every_way(text):
            assert text in out and "REDACTED" not in out, name


def test_the_real_logs_hold_40_character_tokens_and_none_is_taken_for_a_key() -> None:
    """Count what the rule's shape finds in every fixture (healthy and failing logs, corpus,
    captured outputs) and what of it the rule would redact: nothing."""
    candidates = [(where, m.group(0)) for where, text in FIXTURE_TEXTS for m in BARE.finditer(text)]
    assert len(candidates) >= 10  # SHA-1s, paths, a URL path: look-alikes the rule must pass
    assert BARE_RULE.accept is not None
    assert [(w, t) for w, t in candidates if BARE_RULE.accept(t)] == []
    changed = [w for w, text in FIXTURE_TEXTS if "aws-secret-access-key]" in _scrubbed_kinds(text)]
    assert changed == []


def _scrubbed_kinds(text: str) -> str:
    redactor = Redactor()
    redactor.text(text)
    return " ".join(f"[REDACTED:{kind}]" for kind in redactor.counts)


def test_the_shape_search_finds_exactly_what_the_rule_reads() -> None:
    rng = random.Random(41)
    pieces = [text for _, text in FIXTURE_TEXTS if text.isascii()]
    pieces += [f"k={draw(rng, B64, 40)}\n", f".{draw(rng, B64, 40)}\n", draw(rng, B64, 40)]
    data = "\n".join(pieces).encode()
    expected = [m.start() for m in re.finditer(BARE_AWS_SECRET.encode(), data)]
    assert shapes.key_offsets(data) == expected and len(expected) > 10


# ------------------------------------------------------------------ .pgpass on any port
def test_pgpass_lines_on_any_port_go_in_a_large_log() -> None:
    rng = random.Random(5432)
    for port in [1, 80, 5431, 15432, 25060, 65535, rng.randint(1024, 65535)]:
        password = draw(rng, ALNUM, 20)
        for host in ("db.internal", "10.0.3.17", "*", "pg-primary"):
            line = f"{host}:{port}:metrics:trainer:{password}"
            for out in _every_way(line):
                assert password not in out, line
                assert f"{host}:{port}:metrics:trainer:[REDACTED:pgpass-password]" in out


def test_real_nccl_libfabric_and_timestamp_lines_are_no_pgpass_lines() -> None:
    """Every fixture line with four colons or more, and its prefix up to the first space
    (`host:pid:tid`, `libfabric:pid:prov:subsys:func():line<level>`, timestamps), in a
    large log and as a small document: none is taken for a .pgpass line."""
    lines = {
        line.strip()
        for _, text in FIXTURE_TEXTS
        for line in text.splitlines()
        if line.count(":") >= 4 and line.isascii()
    }
    prefixes = {line.split(" ", 1)[0] for line in lines}
    nccl = [line for line in lines if NCCL_PREFIX.match(line)]
    assert len(nccl) > 100 and any(p.startswith("libfabric:") for p in prefixes)
    rng = random.Random(6)
    generated = [
        ":".join(f"{b:02x}" for b in rng.randbytes(6)),  # a MAC address
        ":".join(f"{b:02d}" for b in rng.randbytes(6)),  # all-digit groups
        ":".join(draw(rng, HEX, 4) for _ in range(8)),  # an IPv6 address
        "2024:05:01:12:00:01",
    ]
    text = "\n".join(sorted(lines | prefixes) + generated) + "\n"
    pgpass = re.compile(PGPASS_LINE)
    assert [m.group(0) for m in pgpass.finditer(text)] == []
    redactor = Redactor()
    redactor.text(_large(text))
    assert redactor.counts["pgpass-password"] == 0


def test_the_fast_path_equals_every_rule_on_the_whole_log_for_shaped_secrets() -> None:
    rng = random.Random(99)
    key, password = "Ab1" + draw(rng, B64, 37), draw(rng, ALNUM, 20)
    big = _large(f"step 10 loss 2.1 {key}\npg.internal:{rng.randint(1024, 65535)}:m:u:{password}")
    assert len(big) > SMALL_TEXT
    fast = Redactor().text(big)
    assert fast == Redactor()._all_rules(big)
    assert key not in fast and password not in fast
