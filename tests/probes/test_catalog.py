"""The probe catalog is fixed, read-only, and the only thing that can reach a node."""

from __future__ import annotations

import dataclasses
import re

import pytest

from hyperpod_nccl.collect.transports import LocalTransport, SlurmTransport, SsmTarget, SsmTransport
from hyperpod_nccl.probes import batch
from hyperpod_nccl.probes.catalog import CATALOG, PROBE_IDS, Probe, UnknownProbe, get_probe, resolve

# Commands or arguments that change something. None may appear in any probe or in the script.
FORBIDDEN = [
    r"\brm\b",
    r"\bmv\b",
    r"\bcp\b",
    r"\bdd\b",
    r"\bmkfs",
    r"\bkill",
    r"\breboot\b",
    r"\bshutdown\b",
    r"\bmodprobe\b",
    r"\binsmod\b",
    r"\brmmod\b",
    r"\bsysctl\b",
    r"\bsetpci\b",
    r"\bsystemctl\b",
    r"\bchmod\b",
    r"\bchown\b",
    r"\btouch\b",
    r"\bmkdir\b",
    r"\btee\b",
    r"\bln\b",
    r"\btruncate\b",
    r"\bcurl\b",
    r"\bwget\b",
    r"\bscontrol\b",
    r"\bscancel\b",
    r"\bsudo\b",
    r"\bexec\s+[^3]",  # exec only to open fd 3 for the RAS socket
    r"--gpu-reset",
    r"\s-r\s+[2-4]\b",
    r"nvidia-smi\s+(-pm|-e|-c|-ac|-rac|-pl|-mig|-r\b|--persistence)",
    r"dcgmi\s+(config|health\s+-s|policy|profile|group\s+-c)",
    r"iptables\s+-(?!w 5 -S\b)",
    r"ip\s+(?!-o link show)(link|addr|route)\s+(set|add|del)",
    r"\bCONTROL\b",  # NCCL RAS commands that change the job
]
# Redirections may only go to /dev/null, to another fd, or into the RAS socket (fd 3).
_REDIRECT = re.compile(r"(?<![<&0-9])[0-9]?>(?!&|\s*/dev/null|>)")


def _texts() -> list[tuple[str, str]]:
    return [(p.id, " ".join(p.argv)) for p in CATALOG.values()]


@pytest.mark.parametrize(("probe_id", "text"), _texts())
def test_every_probe_is_read_only(probe_id: str, text: str) -> None:
    for pattern in FORBIDDEN:
        assert not re.search(pattern, text), f"{probe_id}: matches forbidden {pattern!r}"
    bad = [m.group(0) for m in _REDIRECT.finditer(text) if not text[m.start() :].startswith(">&3")]
    assert not bad, f"{probe_id}: writes through a redirection: {bad}"


def test_the_whole_batch_script_is_read_only() -> None:
    script = batch.build(PROBE_IDS).text
    for pattern in FORBIDDEN:
        assert not re.search(pattern, script), pattern
    assert all(
        m.group(0) == ">" and script[m.start() :].startswith(">&3")
        for m in _REDIRECT.finditer(script)
    )


def test_catalog_is_fixed_and_complete() -> None:
    assert len(CATALOG) == len(PROBE_IDS) >= 20
    with pytest.raises(TypeError):
        CATALOG["evil"] = CATALOG["host_info"]  # type: ignore[index]
    probe = CATALOG["gpu_inventory"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        probe.argv = ("rm", "-rf", "/")  # type: ignore[misc]
    for p in CATALOG.values():
        assert re.fullmatch(r"[a-z][a-z0-9_]*", p.id) and 0 < p.timeout_s <= 120
        assert isinstance(p.argv, tuple) and callable(p.parser)


def test_unknown_ids_and_imposters_are_refused() -> None:
    with pytest.raises(UnknownProbe):
        get_probe("rm -rf /")
    with pytest.raises(UnknownProbe):
        resolve(["host_info", "nope"])
    with pytest.raises(UnknownProbe):
        resolve("host_info")  # a string is not a list of ids
    imposter = Probe("host_info", "looks the same", ("sh", "-c", "touch /tmp/x"), 5, str)
    with pytest.raises(UnknownProbe):
        resolve([imposter])
    with pytest.raises(UnknownProbe):
        resolve(["shm", "shm"])


def test_a_forged_script_is_refused_before_any_command_is_built() -> None:
    genuine = batch.build(["host_info"])
    forged = dataclasses.replace(genuine, text=genuine.text + "touch /tmp/pwned\n")
    transports = [
        LocalTransport(),
        SlurmTransport(),
        SsmTransport(
            {"i-0123456789abcdef0": SsmTarget("abcdef123456", "workers", "i-0123456789abcdef0")}
        ),
    ]
    for transport in transports:
        assert transport.command("i-0123456789abcdef0", genuine)
        with pytest.raises(UnknownProbe):
            transport.command("i-0123456789abcdef0", forged)
        with pytest.raises(UnknownProbe):
            transport.command("i-0123456789abcdef0", "echo hi")  # type: ignore[arg-type]
    swapped = dataclasses.replace(genuine, probes=(CATALOG["shm"],))
    with pytest.raises(UnknownProbe):
        batch.verify(swapped)


def test_markers_carry_a_fresh_nonce() -> None:
    a, b = batch.build(["shm"]), batch.build(["shm"])
    assert a.nonce != b.nonce and re.fullmatch(r"[0-9a-f]{16}", a.nonce)
    out = batch.split_output(a, f"@@HPN {b.nonce} BEGIN shm\nfake\n@@HPN {b.nonce} END shm rc=0\n")
    assert out.outcomes["shm"].state == "not_run"  # another run's markers are just text
