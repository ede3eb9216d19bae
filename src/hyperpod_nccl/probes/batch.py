"""One script per node: every selected probe of the catalog, each under its own timeout, with
markers around each output so one session (one SSM start, one srun) returns all of them.

Markers carry a random per-run nonce, so a probe's output cannot fake the end of another
probe. The script is rendered only from catalog records; `verify` renders it again from the
probe ids and nonce and refuses any script whose text differs, which is how the transports make
sure nothing but the catalog reaches a node.
"""

from __future__ import annotations

import re
import secrets
import shlex
from dataclasses import dataclass, field

from hyperpod_nccl.probes.catalog import ABSENT_EXIT, Probe, UnknownProbe, resolve

_NONCE = re.compile(r"^[0-9a-f]{16}$")
_PREAMBLE = """\
# hyperpod-nccl node probes: read-only commands from a fixed catalog
export LC_ALL=C
PATH="$PATH:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/opt/amazon/efa/bin"
if command -v timeout >/dev/null 2>&1; then hpn_t() { timeout -k 5 "$@"; }
else hpn_t() { shift; "$@"; }; fi"""
TIMED_OUT_EXITS = (124, 137)  # timeout(1): 124 after TERM, 137 after the KILL that follows


@dataclass(frozen=True)
class BatchScript:
    probes: tuple[Probe, ...]
    nonce: str
    text: str

    @property
    def probe_ids(self) -> tuple[str, ...]:
        return tuple(p.id for p in self.probes)


def _render(probes: tuple[Probe, ...], nonce: str) -> str:
    lines = [_PREAMBLE]
    for probe in probes:
        lines.append(f'echo "@@HPN {nonce} BEGIN {probe.id}"')
        run = f"hpn_t {probe.timeout_s} {shlex.join(probe.argv)} </dev/null 2>&1; rc=$?"
        if probe.requires:
            found = " || ".join(
                f"command -v {shlex.quote(t)} >/dev/null 2>&1" for t in probe.requires
            )
            absent = f'echo "absent: {probe.requires[0]}"; rc={ABSENT_EXIT}'
            lines.append(f"if {found}; then {run}; else {absent}; fi")
        else:
            lines.append(run)
        lines.append(f'echo ""; echo "@@HPN {nonce} END {probe.id} rc=$rc"')
    lines.append(f'echo "@@HPN {nonce} DONE"')
    return "\n".join(lines) + "\n"


def build(probe_ids: object, nonce: str | None = None) -> BatchScript:
    probes = resolve(probe_ids)
    if not probes:
        raise UnknownProbe("no probes selected")
    nonce = nonce or secrets.token_hex(8)
    if not _NONCE.fullmatch(nonce):
        raise UnknownProbe("invalid nonce")
    return BatchScript(probes, nonce, _render(probes, nonce))


def verify(script: object) -> BatchScript:
    """The script, if it is exactly what `build` renders from catalog probes; else refuse."""
    if not isinstance(script, BatchScript):
        raise UnknownProbe("only a BatchScript built from the probe catalog can be run")
    expected = build(script.probes, script.nonce)
    if expected.text != script.text:
        raise UnknownProbe("script text differs from the catalog's; refusing to run it")
    return script


# ------------------------------------------------------------------------ output


@dataclass
class ProbeOutcome:
    state: str  # ok | absent | timeout | cut | not_run
    text: str = ""
    rc: int | None = None
    reason: str | None = None  # why there is no usable output (absent, timeout, cut, not_run)


@dataclass
class BatchOutput:
    outcomes: dict[str, ProbeOutcome] = field(default_factory=dict)
    complete: bool = False  # the DONE marker arrived: every probe ran to its end marker
    stray: str = ""  # text outside any marker (session banners, shell noise)


def split_output(script: BatchScript, stdout: str) -> BatchOutput:
    nonce = script.nonce
    begin = re.compile(rf"^@@HPN {nonce} BEGIN (\S+)$")
    end = re.compile(rf"^@@HPN {nonce} END (\S+) rc=(-?\d+)$")
    out = BatchOutput()
    current: str | None = None
    buf: list[str] = []
    stray: list[str] = []
    by_id = {p.id: p for p in script.probes}
    for raw in stdout.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        if raw == f"@@HPN {nonce} DONE":
            out.complete = True
            continue
        m = begin.match(raw)
        if m and m.group(1) in by_id:
            current, buf = m.group(1), []
            continue
        m = end.match(raw)
        if m and current is not None and m.group(1) == current:
            text = "\n".join(buf[:-1] if buf and buf[-1] == "" else buf)
            out.outcomes[current] = _outcome(by_id[current], text, int(m.group(2)))
            current = None
            continue
        (buf if current is not None else stray).append(raw)
    if current is not None:
        out.outcomes[current] = ProbeOutcome(
            "cut", "\n".join(buf), None, "the session ended before this probe finished"
        )
    for pid in script.probe_ids:
        out.outcomes.setdefault(
            pid, ProbeOutcome("not_run", "", None, "the session ended before this probe started")
        )
    out.stray = "\n".join(s for s in stray if s.strip())
    return out


def _outcome(probe: Probe, text: str, rc: int) -> ProbeOutcome:
    absent = re.search(r"^absent: (\S+)$", text, re.M)
    if rc == ABSENT_EXIT and absent:
        return ProbeOutcome(
            "absent", text, rc, f"{absent.group(1)} is not installed on the node (or not on PATH)"
        )
    if rc in TIMED_OUT_EXITS:
        return ProbeOutcome("timeout", text, rc, f"timed out after {probe.timeout_s}s")
    return ProbeOutcome("ok", text, rc)
