"""Host facts: identity, resource limits of the training processes, /dev/shm, interfaces and
MTU, logind RemoveIPC, NUMA, installed versions."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from hyperpod_nccl.probes.parsers.logind import remove_ipc

_UNITS = {"": 1, "B": 1, "K": 1024, "M": 1024**2, "G": 1024**3, "T": 1024**4, "P": 1024**5}


def human_bytes(value: str) -> int | None:
    """df -h / mount sizes: '64M' -> 67108864, '1.0G' -> 1073741824, '65536k' -> 67108864."""
    m = re.fullmatch(r"(\d+(?:\.\d+)?)([KMGTPkmgtp]?)(?:i?B)?", value.strip())
    if not m:
        return None
    return int(float(m.group(1)) * _UNITS[m.group(2).upper()])


def parse_key_values(text: str) -> dict[str, str]:
    """`key: value` lines (the host_info and versions probes print these)."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        m = re.match(r"^([a-z_]+): ?(.*)$", line)
        if m:
            out.setdefault(m.group(1), m.group(2).strip())
    return out


def parse_daemons(text: str) -> set[str]:
    """`daemon: <name>` lines of the host_info probe: slurmd, kubelet, containerd..."""
    return {m.group(1) for m in re.finditer(r"^daemon: (\S+)\s*$", text, re.M)}


# ------------------------------------------------------------------------ limits


@dataclass
class Limit:
    soft: int | None  # None = unlimited
    hard: int | None


_LIMIT_LINE = re.compile(r"^(Max [a-z ]+?)\s{2,}(\S+)\s+(\S+)(?:\s+\S+)?\s*$")


def _limit_value(word: str) -> int | None:
    return None if word == "unlimited" else int(word) if word.isdigit() else None


def parse_limits(text: str) -> dict[str, Limit]:
    """/proc/<pid>/limits: {'Max locked memory': Limit(soft, hard)} in the file's units (bytes
    for memory and stack)."""
    limits: dict[str, Limit] = {}
    for line in text.splitlines():
        m = _LIMIT_LINE.match(line.strip())
        if m and (m.group(2) == "unlimited" or m.group(2).isdigit()):
            limits[m.group(1)] = Limit(_limit_value(m.group(2)), _limit_value(m.group(3)))
    return limits


def parse_ulimit_l(text: str) -> Limit | None:
    """`ulimit -l` prints KiB or 'unlimited'; returned in bytes."""
    for line in text.splitlines():
        word = line.strip()
        if word == "unlimited":
            return Limit(None, None)
        if word.isdigit():
            return Limit(int(word) * 1024, None)
    return None


# ------------------------------------------------------------------------ /dev/shm


@dataclass
class DfRow:
    filesystem: str
    size: int | None
    used: int | None
    available: int | None
    mount: str

    @property
    def used_fraction(self) -> float | None:
        if self.size and self.used is not None:
            return self.used / self.size
        return None


def parse_df(text: str) -> list[DfRow]:
    """`df -B1 -P` (bytes) or `df -h` rows; a truncated row keeps the size it has."""
    rows = []
    for line in text.splitlines():
        words = line.split()
        if len(words) < 2 or words[0] in ("Filesystem",) or line.startswith(("$", "#")):
            continue
        if "@" in words[0] or words[0].endswith(("#", "$")):
            continue
        sizes = words[1:4]
        values = [int(w) if w.isdigit() else human_bytes(w) for w in sizes]
        if values[0] is None:
            continue
        mount = words[5] if len(words) >= 6 else ""
        rows.append(
            DfRow(
                words[0],
                values[0],
                values[1] if len(values) > 1 else None,
                values[2] if len(values) > 2 else None,
                mount,
            )
        )
    return rows


def parse_mount_shm_size(line: str) -> int | None:
    """`... /dev/shm type tmpfs (rw,...,size=65536k)` or a mountinfo line with `size=65536k`."""
    m = re.search(r"[(,\s]size=(\d+[kmgKMG]?)", line)
    return human_bytes(m.group(1)) if m else None


@dataclass
class ShmFile:
    name: str
    size: int
    mtime: float
    owner: str


@dataclass
class ShmInfo:
    df: DfRow | None = None
    nccl_files: list[ShmFile] = field(default_factory=list)


def parse_shm(text: str) -> ShmInfo:
    """The shm probe: `df -B1 -P /dev/shm` then `nccl: <size> <mtime> <owner> <path>` lines."""
    info = ShmInfo()
    for line in text.splitlines():
        m = re.match(r"^nccl: (\d+) (\d+(?:\.\d+)?) (\S+) (\S+)$", line)
        if m:
            info.nccl_files.append(
                ShmFile(m.group(4), int(m.group(1)), float(m.group(2)), m.group(3))
            )
    rows = [r for r in parse_df(text) if r.mount == "/dev/shm" or r.filesystem in ("shm", "tmpfs")]
    info.df = rows[0] if rows else None
    return info


# ------------------------------------------------------------------------ processes


@dataclass
class ProcessInfo:
    pid: int
    role: str  # training | runtime | self
    comm: str = ""
    cmdline: str = ""
    nccl_lib: str | None = None
    nccl_version: str | None = None
    limits: dict[str, Limit] = field(default_factory=dict)
    shm_size: int | None = None  # from the process's own /dev/shm mount options
    shm_df: DfRow | None = None  # df of /proc/<pid>/root/dev/shm
    env: dict[str, str] = field(default_factory=dict)

    @property
    def memlock(self) -> Limit | None:
        return self.limits.get("Max locked memory")

    @property
    def stack(self) -> Limit | None:
        return self.limits.get("Max stack size")

    @property
    def shm_bytes(self) -> int | None:
        if self.shm_df is not None and self.shm_df.size is not None:
            return self.shm_df.size
        return self.shm_size


def parse_processes(text: str) -> list[ProcessInfo]:
    """Blocks `=== pid=<n> role=<training|runtime|self>` from the processes probe, each with
    comm, cmdline, NCCL library and version, limits, the process's /dev/shm and NCCL env."""
    procs: list[ProcessInfo] = []
    current: ProcessInfo | None = None
    limit_lines: list[str] = []

    def close() -> None:
        if current is not None:
            current.limits = parse_limits("\n".join(limit_lines))

    for line in text.splitlines():
        head = re.match(r"^=== pid=(\d+) role=(\w+)", line)
        if head:
            close()
            current = ProcessInfo(int(head.group(1)), head.group(2))
            procs.append(current)
            limit_lines = []
            continue
        if current is None:
            continue
        key, _, value = line.partition(": ")
        if key == "comm":
            current.comm = value.strip()
        elif key == "cmdline":
            current.cmdline = value.strip()
        elif key == "nccl_lib":
            current.nccl_lib = value.strip()
        elif key == "nccl_version":
            m = re.search(r"NCCL version (\d+\.\d+\.\d+)", value)
            current.nccl_version = m.group(1) if m else None
        elif key == "shm_mount":
            current.shm_size = parse_mount_shm_size(value)
        elif key == "shm_df":
            rows = parse_df(value)
            current.shm_df = rows[0] if rows else None
        elif key == "env":
            k, _, v = value.partition("=")
            current.env[k.strip()] = v.strip()
        elif line.startswith("Max "):
            limit_lines.append(line)
    close()
    return procs


# ------------------------------------------------------------------------ network


@dataclass
class Interface:
    name: str
    mtu: int
    state: str
    flags: list[str] = field(default_factory=list)


def parse_ip_link(text: str) -> list[Interface]:
    """`ip -o link show`: `2: eth0: <BROADCAST,...,UP,LOWER_UP> mtu 9001 qdisc mq state UP ...`."""
    out = []
    for line in text.splitlines():
        m = re.match(
            r"^\d+:\s+([^:@\s]+)(?:@\S+)?:\s+<([^>]*)>\s+mtu\s+(\d+).*?(?:state (\S+))?", line
        )
        if m:
            state = re.search(r"state (\S+)", line)
            out.append(
                Interface(
                    m.group(1),
                    int(m.group(3)),
                    state.group(1) if state else "",
                    m.group(2).split(","),
                )
            )
    return out


def primary_interfaces(interfaces: list[Interface]) -> list[Interface]:
    """Interfaces that carry node-to-node traffic: up, not loopback, not container plumbing."""
    skip = re.compile(
        r"^(lo|docker|veth|cni|flannel|cali|vxlan|eni[0-9a-f]{6,}|ifb|kube|tunl|virbr)"
    )
    return [
        i
        for i in interfaces
        if "UP" in i.flags and "LOOPBACK" not in i.flags and not skip.match(i.name)
    ]


# ------------------------------------------------------------------------ logind RemoveIPC


@dataclass
class RemoveIpc:
    value: bool  # the effective setting
    source: str  # the file that set it, or "systemd default"
    systemd: bool  # is systemd (and so logind) running here at all


def parse_removeipc(text: str) -> RemoveIpc:
    """`<file>:RemoveIPC=<value>` lines (grep -H over logind's main file and drop-ins) and
    `# systemd: yes|no`, resolved as logind resolves them (probes/parsers/logind.py, the same
    resolver the Slurm collector's full files go through): drop-ins by file name, a name in
    /etc hiding the same name elsewhere, the last valid setting winning, yes when unset."""
    systemd = True
    files: dict[str, list[str]] = {}
    for line in text.splitlines():
        m = re.match(r"^# systemd: (\w+)", line)
        if m:
            systemd = m.group(1) == "yes"
            continue
        m = re.match(r"^(\S+?):(\s*RemoveIPC\s*=.*)$", line)
        if m:
            files.setdefault(m.group(1), []).append(m.group(2))
    # grep printed only the setting lines, all of them in the [Login] section logind reads.
    setting = remove_ipc({path: "[Login]\n" + "\n".join(lines) for path, lines in files.items()})
    source = setting.source.rsplit(":", 1)[0] if setting.source else "systemd default"
    return RemoveIpc(setting.enabled, source, systemd)


# ------------------------------------------------------------------------ NUMA


@dataclass
class Numa:
    nodes: int | None = None
    cpus: dict[str, str] = field(default_factory=dict)
    balancing: int | None = None


def parse_numa(text: str) -> Numa:
    numa = Numa()
    for line in text.splitlines():
        m = re.match(r"^NUMA node\(s\):\s*(\d+)", line)
        if m:
            numa.nodes = int(m.group(1))
        m = re.match(r"^NUMA (node\d+) CPU\(s\):\s*(\S+)", line)
        if m:
            numa.cpus[m.group(1)] = m.group(2)
        m = re.match(r"^numa_balancing: (\d+)", line)
        if m:
            numa.balancing = int(m.group(1))
    return numa


# ------------------------------------------------------------------------ versions


@dataclass
class Versions:
    nccl: list[str] = field(default_factory=list)  # versions of libnccl found on the host
    cuda: str | None = None
    efa_installer: str | None = None
    libfabric: str | None = None
    ofi_nccl: str | None = None
    fabric_manager: str | None = None  # `nv-fabricmanager --version`, on NVSwitch systems


def parse_versions(text: str) -> Versions:
    v = Versions()
    for line in text.splitlines():
        m = re.match(r"^nccl_lib: .*libnccl\.so\.(\d+\.\d+\.\d+)", line)
        if m and m.group(1) not in v.nccl:
            v.nccl.append(m.group(1))
        m = re.match(r'^cuda: .*?"cuda"\s*:\s*\{[^}]*?"version"\s*:\s*"([^"]+)"', line)
        if m:
            v.cuda = m.group(1)
        m = re.match(r"^cuda_txt: CUDA Version (\S+)", line)
        if m and v.cuda is None:
            v.cuda = m.group(1)
        m = re.match(r"^efa: # EFA installer version: (\S+)", line)
        if m:
            v.efa_installer = m.group(1)
        m = re.match(r"^efa: .*aws-ofi-nccl\S*?[-_](\d+\.\d+\.\d+)", line)
        if m:
            v.ofi_nccl = m.group(1)
        m = re.match(r"^libfabric: libfabric: (\S+)", line)
        if m:
            v.libfabric = m.group(1)
        # nv-fabricmanager prints `Fabric Manager version is : 535.161.08`
        m = re.match(r"^fabricmanager: Fabric Manager version is\s*:?\s*(\d[\w.-]*)", line)
        if m:
            v.fabric_manager = m.group(1)
    return v
