"""nvidia-smi: the default table (inventory), `-q -d ECC,ROW_REMAPPER,PAGE_RETIREMENT`,
`nvlink -s`, `nvlink -e` and `topo -m`."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from hyperpod_nccl.probes.parsers import to_int, yes_no

# nvidia-smi's ways of saying it cannot talk to the GPUs or the driver.
_SMI_FAILURES = (
    re.compile(r"Unable to determine the device handle for GPU ?([0-9A-Fa-f:.]*): (.*)"),
    re.compile(r"(NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.*)"),
    re.compile(r"(Failed to initialize NVML: .*)"),
    re.compile(r"(No devices were found)"),
    re.compile(r"(Unable to determine the number of GPUs)"),
    re.compile(r"(GPU is lost.*)"),
)
_HEADER = re.compile(r"Driver Version:\s*(\S+)\s+CUDA Version:\s*(\S+)")
_ROW = re.compile(
    r"^\|\s+(\d+)\s+(.+?)\s+(On|Off)\s+\|\s*([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f])"
    r"\s+(?:On|Off)\s+\|\s*(\S+)\s*\|"
)


@dataclass
class GpuRow:
    index: int
    name: str
    bus_id: str
    volatile_uncorrectable_ecc: int | None


@dataclass
class SmiInventory:
    driver_version: str | None = None
    cuda_version: str | None = None
    gpus: list[GpuRow] = field(default_factory=list)
    error: str | None = None  # nvidia-smi could not reach the driver or a GPU
    error_bus_ids: list[str] = field(default_factory=list)


def parse_smi_table(text: str) -> SmiInventory:
    """The default `nvidia-smi` table: driver and CUDA versions and one row per GPU."""
    inv = SmiInventory()
    for line in text.splitlines():
        for pattern in _SMI_FAILURES:
            m = pattern.search(line)
            if m:
                inv.error = inv.error or line.strip()
                if pattern is _SMI_FAILURES[0] and m.group(1):
                    inv.error_bus_ids.append(m.group(1))
        header = _HEADER.search(line)
        if header:
            inv.driver_version, inv.cuda_version = header.group(1), header.group(2)
        row = _ROW.match(line)
        if row:
            name = re.sub(r"\s+", " ", row.group(2)).strip()
            inv.gpus.append(GpuRow(int(row.group(1)), name, row.group(4), to_int(row.group(5))))
    return inv


# ------------------------------------------------------------------------ nvidia-smi -q


@dataclass
class GpuHealth:
    """ECC, row remapping and page retirement of one GPU from `nvidia-smi -q`."""

    bus_id: str
    product: str | None = None
    ecc_mode: str | None = None
    volatile_uncorrectable: dict[str, int] = field(default_factory=dict)
    aggregate_uncorrectable: dict[str, int] = field(default_factory=dict)
    volatile_correctable: dict[str, int] = field(default_factory=dict)
    aggregate_correctable: dict[str, int] = field(default_factory=dict)
    remapped_uncorrectable: int | None = None
    remapped_correctable: int | None = None
    remap_pending: bool | None = None
    remap_failure: bool | None = None
    retired_dbe: int | None = None
    retired_sbe: int | None = None
    retirement_pending: bool | None = None
    # Blackwell/Hopper drivers (580+) add repair state under "ECC Errors"
    repair_pending: list[str] = field(default_factory=list)  # "Channel", "TPC" repairs pending
    unrepairable_memory: bool | None = None
    unreadable: list[str] = field(default_factory=list)  # fields that said "Unknown Error"

    @property
    def volatile_uncorrectable_total(self) -> int:
        return sum(self.volatile_uncorrectable.values())

    @property
    def aggregate_uncorrectable_total(self) -> int:
        return sum(self.aggregate_uncorrectable.values())


@dataclass
class SmiQuery:
    driver_version: str | None = None
    cuda_version: str | None = None
    attached_gpus: int | None = None
    gpus: list[GpuHealth] = field(default_factory=list)
    error: str | None = None


_KV = re.compile(r"^(\s*)([^:]+?)\s*:\s?(.*?)\s*(?:<=+)?\s*$")
_GPU_HEADER = re.compile(r"^GPU ([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f])\s*$")


def _record(gpu: GpuHealth, path: tuple[str, ...], key: str, value: str) -> None:
    lowered = tuple(p.lower() for p in path)
    k = key.lower()
    if value.strip().lower().startswith("unknown error"):
        gpu.unreadable.append("/".join((*path, key)))
    if k == "product name":
        gpu.product = value
    elif lowered[-1:] == ("ecc mode",) and k == "current":
        gpu.ecc_mode = value
    elif lowered[-1:] == ("ecc errors",) and k.endswith("repair pending"):
        if yes_no(value):
            gpu.repair_pending.append(key.replace(" Repair Pending", ""))
    elif lowered[-1:] == ("ecc errors",) and k == "unrepairable memory":
        gpu.unrepairable_memory = yes_no(value)
    elif "ecc errors" in lowered and ("volatile" in lowered or "aggregate" in lowered):
        n = to_int(value)
        if n is None:
            return
        volatile = "volatile" in lowered
        if "uncorrectable" in k:
            (gpu.volatile_uncorrectable if volatile else gpu.aggregate_uncorrectable)[key] = n
        elif "correctable" in k:
            (gpu.volatile_correctable if volatile else gpu.aggregate_correctable)[key] = n
    elif "remapped rows" in lowered:
        if k == "pending":
            gpu.remap_pending = yes_no(value)
        elif k == "remapping failure occurred":
            gpu.remap_failure = yes_no(value)
        elif k == "uncorrectable error":
            gpu.remapped_uncorrectable = to_int(value)
        elif k == "correctable error":
            gpu.remapped_correctable = to_int(value)
    elif "retired pages" in lowered:
        if k.startswith("pending"):  # "Pending Page Blacklist" (old) / "Pending Page Retirement"
            gpu.retirement_pending = yes_no(value)
        elif k.startswith("double bit"):
            gpu.retired_dbe = to_int(value)
        elif k.startswith("single bit"):
            gpu.retired_sbe = to_int(value)


def parse_smi_query(text: str) -> SmiQuery:
    """`nvidia-smi -q` (any -d selection): header versions and, per GPU, ECC counters split into
    volatile (since the driver loaded) and aggregate (lifetime), row remapping and retired pages."""
    out = SmiQuery()
    gpu: GpuHealth | None = None
    stack: list[tuple[int, str]] = []  # (indent, section name)
    for raw in text.splitlines():
        if not raw.strip() or raw.lstrip().startswith(("#", "$", "=", "[...]")):
            continue
        for pattern in _SMI_FAILURES:
            if pattern.search(raw):
                out.error = out.error or raw.strip()
        header = _GPU_HEADER.match(raw.strip()) if not raw.startswith(" ") else None
        if header:
            gpu = GpuHealth(header.group(1))
            out.gpus.append(gpu)
            stack = []
            continue
        indent = len(raw) - len(raw.lstrip())
        kv = _KV.match(raw) if ":" in raw else None
        while stack and stack[-1][0] >= indent:
            stack.pop()
        if kv is None:
            stack.append((indent, raw.strip()))
            continue
        key, value = kv.group(2).strip(), kv.group(3).strip()
        if gpu is None:
            if key == "Driver Version":
                out.driver_version = value
            elif key == "CUDA Version":
                out.cuda_version = value
            elif key == "Attached GPUs":
                out.attached_gpus = to_int(value)
            elif indent > 0:  # a -q excerpt without its "GPU <bus id>" line
                gpu = GpuHealth("unknown")
                out.gpus.append(gpu)
        if gpu is not None:
            _record(gpu, tuple(name for _, name in stack), key, value)
    return out


# ------------------------------------------------------------------------ nvlink


@dataclass
class NvlinkGpu:
    index: int
    name: str
    links: dict[int, str] = field(default_factory=dict)  # link -> "26.562 GB/s" | "<inactive>"
    all_inactive: bool = False
    errors: dict[int, dict[str, int]] = field(default_factory=dict)  # link -> counter -> value

    @property
    def inactive_links(self) -> list[int]:
        return sorted(n for n, state in self.links.items() if "inactive" in state.lower())


_NVGPU = re.compile(r"^GPU (\d+): (.+?)(?: \(UUID: .*\))?\s*$")
_LINK = re.compile(r"^\s*Link (\d+): (.+?)\s*$")
_LINK_ERR = re.compile(r"^\s*Link (\d+): ([A-Za-z ]+? Errors?): (\d+)\s*$")


def _nvlink_gpus(text: str) -> tuple[dict[int, NvlinkGpu], str | None]:
    gpus: dict[int, NvlinkGpu] = {}
    current: NvlinkGpu | None = None
    error = None
    for line in text.splitlines():
        for pattern in _SMI_FAILURES:
            if pattern.search(line):
                error = error or line.strip()
        m = _NVGPU.match(line.strip())
        if m:
            current = gpus.setdefault(int(m.group(1)), NvlinkGpu(int(m.group(1)), m.group(2)))
            continue
        if current is None:
            continue
        if "all links are inactive" in line:
            current.all_inactive = True
            continue
        err = _LINK_ERR.match(line)
        if err:
            current.errors.setdefault(int(err.group(1)), {})[err.group(2)] = int(err.group(3))
            continue
        link = _LINK.match(line)
        if link:
            current.links[int(link.group(1))] = link.group(2)
    return gpus, error


def parse_nvlink_status(text: str) -> tuple[dict[int, NvlinkGpu], str | None]:
    """`nvidia-smi nvlink -s`: per GPU, each link's speed or `<inactive>`."""
    return _nvlink_gpus(text)


def parse_nvlink_errors(text: str) -> tuple[dict[int, NvlinkGpu], str | None]:
    """`nvidia-smi nvlink -e`: per GPU and link, Replay/Recovery/CRC error counters."""
    return _nvlink_gpus(text)


# ------------------------------------------------------------------------ topo -m


@dataclass
class Topology:
    gpus: list[str] = field(default_factory=list)
    nics: list[str] = field(default_factory=list)
    links: dict[tuple[str, str], str] = field(default_factory=dict)  # (GPU0, GPU1) -> NV18
    numa: dict[str, str] = field(default_factory=dict)  # GPU0 -> "0"
    cpus: dict[str, str] = field(default_factory=dict)  # GPU0 -> "0-47,96-143"
    error: str | None = None

    def gpu_pairs_without_nvlink(self) -> list[tuple[str, str]]:
        return sorted(
            (a, b)
            for (a, b), rel in self.links.items()
            if a < b and b.startswith("GPU") and not rel.startswith("NV")
        )


_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def parse_topology(text: str) -> Topology:
    """`nvidia-smi topo -m`: the GPU/NIC connection matrix and each GPU's CPU and NUMA affinity.
    Driver 580 underlines the header row with terminal escapes even when not on a terminal."""
    topo = Topology()
    columns: list[str] = []
    for line in _ANSI.sub("", text).splitlines():
        for pattern in _SMI_FAILURES:
            if pattern.search(line):
                topo.error = topo.error or line.strip()
        words = line.split()
        if not words:
            continue
        if not columns and words[0] == "GPU0" and line[0] in " \t":
            columns = [w for w in words if re.fullmatch(r"(GPU|NIC|mlx\d*_?)\d+", w)]
            topo.gpus = [c for c in columns if c.startswith("GPU")]
            topo.nics = [c for c in columns if not c.startswith("GPU")]
            continue
        if columns and words[0] in columns:
            row = words[0]
            cells = words[1 : 1 + len(columns)]
            for col, cell in zip(columns, cells, strict=False):
                if col != row:
                    topo.links[(row, col)] = cell
            rest = words[1 + len(columns) :]
            if row.startswith("GPU") and rest:
                topo.cpus[row] = rest[0]
                if len(rest) > 1:
                    topo.numa[row] = rest[1]
    return topo
