"""Facts about the job that a support engineer asks for first, read from its logs: the NCCL,
libfabric and PyTorch environment, component versions, the time span the logs cover, and the
cluster the logs name.

Everything here is read, never inferred: a variable is listed with the values the logs show
for it (NCCL's `NCCL_X set by environment to Y`, aws-ofi-nccl's `Setting NCCL_X to Y`, an
`env` dump, `kubectl describe`), a version with the line that printed it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import cache
from typing import IO, Any

from hyperpod_nccl.redaction.keywords import KeywordFinder
from hyperpod_nccl.rules.attribution import iso, parse_timestamp
from hyperpod_nccl.safeio import line_chunks
from hyperpod_nccl.snapshot.meta import Window

_ENV_NAME = (
    r"(?:(?:NCCL|FI|TORCH|TORCHELASTIC|PYTORCH|CUDA|OMPI_MCA|UCX|NVIDIA|OFI_NCCL)_[A-Z0-9_]+"
    r"|MASTER_ADDR|MASTER_PORT|WORLD_SIZE|LD_LIBRARY_PATH|LD_PRELOAD)"
)
# (literal every match holds, regex applied to the lines holding it). Scanning for the literal
# and running the regex on those few lines is many times faster than the regex on everything.
_ENV_PATTERNS: tuple[tuple[str, str, re.Pattern[str]], ...] = (
    ("set by environment", " set by environment to ", re.compile(
        rf"(?P<name>{_ENV_NAME}) set by environment to (?P<value>[^\s]*?)\.?[ \t]*$"
    )),
    ("aws-ofi-nccl", "NET/OFI Setting ", re.compile(
        rf"NET/OFI Setting (?P<name>{_ENV_NAME}) (?:environment variable )?to (?P<value>\S+)"
    )),
    *(
        ("environment", prefix, re.compile(
            rf"^[ \t]*(?:export[ \t]+)?(?P<name>{_ENV_NAME})[ \t]*(?:=|:[ \t])[ \t]*(?P<value>\S.*?)[ \t]*$"
        ))
        for prefix in ("NCCL_", "FI_", "TORCH", "CUDA_", "OMPI_MCA_", "UCX_", "NVIDIA_",
                       "OFI_NCCL_", "MASTER_", "WORLD_SIZE", "LD_")
    ),
)  # fmt: skip
_VERSION_PATTERNS: tuple[tuple[str, str, re.Pattern[str]], ...] = (
    ("nccl", "NCCL version", re.compile(r"NCCL version:? (\d+\.\d+\.\d+)")),
    ("cuda (NCCL build)", "NCCL version", re.compile(r"NCCL version:? \d+\.\d+\.\d+\+cuda(\d+\.\d+)")),
    ("aws-ofi-nccl", "aws-ofi-nccl", re.compile(r"(?:Initializing|Using) aws-ofi-nccl v?(\d[\w.-]*)")),
    ("libfabric", "Libfabric version", re.compile(r"Libfabric version (\d+\.\d+(?:\.\d+)?\w*)")),
    ("cuda driver API", "CUDA driver version", re.compile(r"Using CUDA driver version (\d+)")),
    ("cuda driver API", "cudaDriverVersion", re.compile(r"cudaDriverVersion (\d+)")),
    ("nvidia driver", "Driver Version:", re.compile(r"Driver Version: (\d+\.\d+(?:\.\d+)?)")),
    ("nvidia driver", "NVRM version", re.compile(r"NVRM version: .*?Kernel Module(?: for \w+)? +(\d+\.\d+(?:\.\d+)?)")),
    ("cuda (driver)", "CUDA Version:", re.compile(r"CUDA Version: (\d+\.\d+)")),
    ("pytorch", "PyTorch version: ", re.compile(r"PyTorch version: (\d+\.\d+\.\d+[\w.+-]*)")),
    ("pytorch", "torch==", re.compile(r"torch==(\d+\.\d+\.\d+[\w.+-]*)")),
    ("efa installer", "EFA installer version", re.compile(r"EFA installer version: (\S+)")),
)  # fmt: skip
_CLUSTER_ARN = re.compile(
    r"arn:aws[\w-]*:sagemaker:(?P<region>[a-z0-9-]+):\d{12}:cluster/(?P<id>[a-z0-9]+)"
)
MAX_VALUES = 20
HEAD_LINES = 200
TAIL_BYTES = 64 * 1024


@dataclass
class JobFacts:
    environment: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    versions: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    cluster_arns: list[str] = field(default_factory=list)
    first: datetime | None = None
    last: datetime | None = None
    naive_times: bool = False

    def read_text(self, source: str, text: str) -> None:
        self.read_bytes(source, text.encode("utf-8", "surrogatepass"))

    def read_bytes(self, source: str, data: bytes) -> None:
        """Facts from the lines that hold one of the literals (found in one keyword pass)."""
        seen_lines: set[int] = set()
        for at in sorted(_finder().offsets(data)):
            start = data.rfind(b"\n", 0, at) + 1
            if start in seen_lines:
                continue
            seen_lines.add(start)
            end = data.find(b"\n", at)
            self._read_line(
                source, data[start : len(data) if end < 0 else end].decode("utf-8", "replace")
            )

    def _read_line(self, source: str, line: str) -> None:
        for how, literal, regex in _ENV_PATTERNS:
            found = regex.search(line) if literal in line else None
            if found:
                _add(
                    self.environment, found.group("name"), found.group("value"), f"{source} ({how})"
                )
        for name, literal, regex in _VERSION_PATTERNS:
            found = regex.search(line) if literal in line else None
            if found:
                _add(self.versions, name, found.group(1), source)
        for match in _CLUSTER_ARN.finditer(line):
            if match.group(0) not in self.cluster_arns:
                self.cluster_arns.append(match.group(0))

    def read_stream(self, source: str, stream: IO[bytes], chunk_bytes: int = 4 << 20) -> None:
        """Read a whole log: facts from every chunk, its time span from its head and tail."""
        head = True
        tail = b""
        for chunk in line_chunks(stream, chunk_bytes):
            self.read_bytes(source, chunk)
            if head:
                self._see(_first_time(chunk.decode("utf-8", "replace").splitlines()[:HEAD_LINES]))
                head = False
            tail = (tail + chunk)[-TAIL_BYTES:]
        self._see(_first_time(reversed(tail.decode("utf-8", "replace").splitlines())))

    def window(self) -> Window:
        """The span of time the logs cover, in UTC where the logs say their zone."""
        return {
            "start": iso(self.first),
            "end": iso(self.last),
            "zone": "the logs' local time, zone not given" if self.naive_times else "UTC",
        }

    def _see(self, stamp: datetime | None) -> None:
        if stamp is None:
            return
        if stamp.tzinfo is None:
            self.naive_times = True
        else:
            stamp = stamp.astimezone(timezone.utc)
        first, last = self.first, self.last
        # Naive and aware times cannot be compared; compare naive ones as written.
        key = _comparable(stamp)
        if first is None or key < _comparable(first):
            self.first = stamp
        if last is None or key > _comparable(last):
            self.last = stamp


def _comparable(stamp: datetime) -> datetime:
    return (
        stamp.replace(tzinfo=None)
        if stamp.tzinfo is None
        else stamp.astimezone(timezone.utc).replace(tzinfo=None)
    )


@cache
def _finder() -> KeywordFinder:
    literals = {lit.lower() for _, lit, _ in (*_ENV_PATTERNS, *_VERSION_PATTERNS)}
    return KeywordFinder(sorted(literals | {":sagemaker:"}))


def _first_time(lines: Any) -> datetime | None:
    for line in lines:
        stamp = parse_timestamp(line)
        if stamp is not None:
            return stamp
    return None


def _add(store: dict[str, dict[str, list[str]]], name: str, value: str, source: str) -> None:
    values = store.setdefault(name, {})
    if value in values or len(values) >= MAX_VALUES:
        return
    values[value] = [source]
