"""What nccl-tests runs look like once parsed: devices, result rows, and the run around them."""

from __future__ import annotations

import enum
import statistics
from dataclasses import dataclass, field

# Rows at or above this size measure bandwidth; smaller ones mostly measure latency
# (performance-testing.md#algbw-vs-busbw: compare busbw at hundreds of MB and up).
LARGE_MESSAGE_BYTES = 256 * 1024 * 1024


class RunStatus(str, enum.Enum):
    COMPLETED = "completed"  # the footer was printed
    FAILED = "failed"  # an error was printed (NCCL, CUDA, MPI, Slurm)
    STOPPED = "stopped"  # the table stops before the planned maximum size, with no footer
    UNFINISHED = "unfinished"  # no footer, and nothing says how far the run should have gone


@dataclass(frozen=True)
class Device:
    """One line of nccl-tests' `# Using devices` block."""

    rank: int
    host: str
    pid: int | None = None
    group: int | None = None
    device: int | None = None
    bus_id: str = ""
    gpu: str = ""


@dataclass(frozen=True)
class Measurement:
    """Out-of-place or in-place half of a result row."""

    time_us: float
    algbw: float
    busbw: float
    wrong: float | None  # None when nccl-tests printed N/A (checking off) or an old error column


@dataclass(frozen=True)
class Row:
    size: int
    count: int
    dtype: str
    redop: str
    root: int | None
    out_of_place: Measurement | None
    in_place: Measurement | None
    line: int
    text: str

    @property
    def busbw(self) -> float:
        """Mean of the halves that were measured."""
        values = [m.busbw for m in (self.out_of_place, self.in_place) if m is not None]
        return sum(values) / len(values) if values else 0.0

    @property
    def algbw(self) -> float:
        values = [m.algbw for m in (self.out_of_place, self.in_place) if m is not None]
        return sum(values) / len(values) if values else 0.0

    @property
    def wrong(self) -> float | None:
        """Mismatching elements in this row, None when not checked."""
        values = [m.wrong for m in (self.out_of_place, self.in_place) if m and m.wrong is not None]
        return sum(values) if values else None


@dataclass
class RunError:
    """A line that says the run failed, and where it was printed."""

    kind: str  # nccl, cuda, launch, signal, timeout, nccl-warn
    text: str
    line: int
    host: str | None = None


@dataclass
class Run:
    """One nccl-tests invocation as found in one input."""

    source: str
    start_line: int
    stream: str = ""  # launcher label when one input interleaves independent runs
    collective: str = "unknown"  # all_reduce, all_gather, ... (from the binary name)
    collective_from: str = ""  # where the name came from: header, command, file name, busbw ratio
    nccl_version: str | None = None
    tests_version: str | None = None
    params: dict[str, int] = field(default_factory=dict)  # minBytes, maxBytes, iters, ...
    devices: list[Device] = field(default_factory=list)
    rows: list[Row] = field(default_factory=list)
    columns: list[str] = field(default_factory=list)  # the column header, when printed
    out_of_bounds: int | None = None
    out_of_bounds_ok: bool | None = None
    avg_busbw: float | None = None
    avg_busbw_failed: bool = False  # nccl-tests' own bandwidth check printed FAILED
    errors: list[RunError] = field(default_factory=list)
    transports: set[str] = field(default_factory=set)  # efa, socket, ib, from NCCL INFO lines
    labels: dict[str, str] = field(default_factory=dict)  # extra leading columns of a table
    summary_busbw: float | None = None  # a pair-sweep summary line: one figure, no table
    summary_hosts: list[str] = field(default_factory=list)
    interleaved: bool = False  # rows of several runs mixed without launcher labels
    end_line: int = 0

    @property
    def hosts(self) -> list[str]:
        if self.summary_hosts:
            return sorted(set(self.summary_hosts))
        return sorted({d.host for d in self.devices})

    @property
    def world_size(self) -> int | None:
        return len(self.devices) or None

    @property
    def ranks_per_node(self) -> int | None:
        hosts = self.hosts
        return len(self.devices) // len(hosts) if hosts else None

    @property
    def gpu_models(self) -> list[str]:
        return sorted({d.gpu for d in self.devices if d.gpu})

    @property
    def has_footer(self) -> bool:
        return self.avg_busbw is not None or self.out_of_bounds is not None

    @property
    def status(self) -> RunStatus:
        if any(e.kind != "nccl-warn" for e in self.errors):
            return RunStatus.FAILED
        if self.has_footer or self.summary_busbw is not None:
            return RunStatus.COMPLETED
        max_bytes = self.params.get("maxBytes")
        if max_bytes is not None and (not self.rows or self.rows[-1].size < max_bytes):
            return RunStatus.STOPPED
        return RunStatus.UNFINISHED

    @property
    def largest_size(self) -> int:
        return max((r.size for r in self.rows), default=0)

    def large_rows(self) -> list[Row]:
        return [r for r in self.rows if r.size >= LARGE_MESSAGE_BYTES]

    def peak_large_busbw(self) -> float | None:
        """The best busbw at large sizes, or the summary figure; None without large rows."""
        if self.summary_busbw is not None:
            return self.summary_busbw
        rows = self.large_rows()
        return max(r.busbw for r in rows) if rows else None

    def busbw_at(self, sizes: list[int]) -> float | None:
        """Median busbw over the rows of the given sizes (repeated sizes all count)."""
        wanted = set(sizes)
        values = [r.busbw for r in self.rows if r.size in wanted]
        return statistics.median(values) if values else None

    @property
    def label(self) -> str:
        """How reports name this run: its hosts, or where it was found."""
        where = f"{self.source}:{self.start_line}"
        if self.stream:
            where += f" [{self.stream}]"
        return where
