"""Facts from the logs of one side: component versions and the NCCL/FI/TORCH/CUDA
environment as NCCL and aws-ofi-nccl print them (read by bundle.jobfacts, per log), and what
NCCL built: communicator sizes, channels, rings and trees, NVLS, the network it chose and
how each peer is reached (NET/<plugin>, Socket, P2P, SHM, GPUDirect RDMA, PXN).

Each log is a scope: a rank's or pod's file, named without run-specific parts.
"""

from __future__ import annotations

import re

from hyperpod_nccl.bundle.jobfacts import JobFacts
from hyperpod_nccl.diff.facts import Facts
from hyperpod_nccl.diff.sides import LogSource, stable_name
from hyperpod_nccl.inputs import LogInput, UnreadableInput, open_stream
from hyperpod_nccl.safeio import line_chunks

# NCCL INFO lines, as NCCL 2.12-2.28 print them (see tests/fixtures/diff/SOURCES.md).
_COMM = re.compile(
    r"comm 0x[0-9a-f]+ rank \d+ nRanks (?P<nranks>\d+) nNodes (?P<nnodes>\d+) "
    r"localRanks (?P<local>\d+)"
)
_COMM_OLD = re.compile(r"comm 0x[0-9a-f]+ rank \d+ nranks (?P<nranks>\d+) cudaDev")
_CHANNELS = re.compile(
    r"(?P<coll>\d+) coll channels, (?:(?P<collnet>\d+) collnet channels, )?"
    r"(?:(?P<nvls>\d+) nvls channels, )?(?P<p2p>\d+) p2p channels"
)
_RING = re.compile(r"Channel \d+/(?P<total>\d+) :\s+\d")
_CONNECTED = re.compile(r"Connected all (?P<what>rings|trees)")
_NETWORK = re.compile(r"Using network (?P<net>\S.*?)\s*$")
_PROVIDER = re.compile(r"NET/OFI Selected Provider is (?P<prov>\S+) \(found (?P<nics>\d+) nics\)")
_VIA = re.compile(r" via (?P<kind>NET/[^/]+|P2P/[A-Za-z]+|SHM|CollNet|NVLS)(?P<rest>/\S*)?")
_PXN = re.compile(r"NET/[^/]+/\d+\(\d+\)")
_NVLS = re.compile(r"NVLS multicast support is (?P<state>not )?available")
# Values printed per process (its own address, its rank) that say nothing about the run.
_PER_PROCESS_ENV = frozenset({"NCCL_COMM_ID", "TORCHELASTIC_RUN_ID", "TORCHELASTIC_RESTART_COUNT"})
_ENV_FAMILIES = ("NCCL_", "FI_", "TORCH", "CUDA_", "OFI_NCCL_", "PYTORCH_")
_VERSION_NAMES = {
    "nccl": "NCCL",
    "cuda (NCCL build)": "CUDA (NCCL build)",
    "aws-ofi-nccl": "aws-ofi-nccl",
    "libfabric": "libfabric",
    "cuda driver API": "CUDA driver API",
    "nvidia driver": "NVIDIA driver",
    "cuda (driver)": "CUDA (driver)",
    "pytorch": "PyTorch",
    "efa installer": "EFA installer",
}
# A chunk with none of these holds no NCCL line worth reading.
_NCCL_MARK = "NCCL INFO"


class LogReading:
    """Reads the logs of one side into its Facts; `perf_output` says whether any of them holds
    nccl-tests results (then the perf analysis is worth running on them)."""

    def __init__(self, facts: Facts) -> None:
        self.facts = facts
        self.perf_output = False
        self.unread: list[tuple[str, str]] = []

    def read(self, source: LogSource) -> None:
        jobfacts = JobFacts()
        topology = _Topology()
        try:
            with open_stream(LogInput(source.path, source.path)) as stream:
                for chunk in line_chunks(stream):
                    jobfacts.read_bytes(source.scope, chunk)
                    text = chunk.decode("utf-8", "replace")
                    if not self.perf_output and "busbw" in text:
                        self.perf_output = True
                    if _NCCL_MARK in text:
                        topology.read(text)
        except (OSError, UnreadableInput) as exc:
            self.unread.append((source.scope, str(exc)))
            return
        self._file(source, jobfacts, topology)

    def _file(self, source: LogSource, jobfacts: JobFacts, topology: _Topology) -> None:
        facts, scope, shown = self.facts, source.scope, source.shown
        for name, values in jobfacts.versions.items():
            for value in values:
                facts.add("version", _VERSION_NAMES.get(name, name), scope, value, shown)
        for name, env_values in jobfacts.environment.items():
            if name in _PER_PROCESS_ENV or not name.startswith(_ENV_FAMILIES):
                continue
            for value in env_values:
                facts.add("env.log", name, scope, stable_name(value.strip('"')), shown)
        for item, seen in topology.values.items():
            aspect = "nccl_transport" if item in _TRANSPORT_ITEMS else "nccl_topology"
            facts.add(aspect, item, scope, ", ".join(sorted(seen)), shown)


_TRANSPORT_ITEMS = frozenset({"network", "OFI provider", "peer transports"})


class _Topology:
    """What NCCL built, as the set of values each item took in one log."""

    def __init__(self) -> None:
        self.values: dict[str, set[str]] = {}

    def _add(self, item: str, value: str) -> None:
        self.values.setdefault(item, set()).add(value)

    def read(self, text: str) -> None:
        for line in text.splitlines():
            if _NCCL_MARK not in line:
                continue
            if " via " in line:
                self._via(line)
                continue
            self._line(line)

    def _via(self, line: str) -> None:
        m = _VIA.search(line)
        if m is None:
            return
        kind = m.group("kind")
        rest = m.group("rest") or ""
        flags = [f for f in ("GDRDMA",) if f in rest]
        if _PXN.search(line):
            flags.append("PXN")
        self._add("peer transports", kind + (f" ({', '.join(flags)})" if flags else ""))

    def _line(self, line: str) -> None:
        if m := _COMM.search(line):
            self._add("nRanks", m.group("nranks"))
            self._add("nNodes", m.group("nnodes"))
            self._add("localRanks", m.group("local"))
        elif m := _COMM_OLD.search(line):
            self._add("nRanks", m.group("nranks"))
        elif m := _CHANNELS.search(line):
            self._add("coll channels", m.group("coll"))
            self._add("p2p channels", m.group("p2p"))
            if m.group("nvls") is not None:
                self._add("nvls channels", m.group("nvls"))
        elif m := _RING.search(line):
            self._add("ring channels", m.group("total"))
        elif m := _CONNECTED.search(line):
            self._add("algorithms connected", m.group("what"))
        elif m := _NETWORK.search(line):
            self._add("network", m.group("net"))
        elif m := _PROVIDER.search(line):
            self._add("OFI provider", f"{m.group('prov')} ({m.group('nics')} NICs)")
        elif m := _NVLS.search(line):
            self._add("NVLS multicast", "not available" if m.group("state") else "available")
