"""EFA: `fi_info -p efa`, the EFA devices in sysfs, loaded kernel modules, the aws-ofi-nccl
plugin files."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from hyperpod_nccl.probes.parsers import strip_launcher_prefix


@dataclass
class FiEndpoint:
    provider: str
    fabric: str = ""
    domain: str = ""
    type: str = ""


@dataclass
class FiInfo:
    endpoints: list[FiEndpoint] = field(default_factory=list)
    error: str | None = None  # e.g. "fi_getinfo: -61" (no EFA provider)

    @property
    def efa_domains(self) -> list[str]:
        """Distinct EFA devices libfabric reports (domains without the -rdm/-dgrm suffix)."""
        names = {re.sub(r"-(rdm|dgrm)$", "", e.domain) for e in self.endpoints if e.domain}
        return sorted(n for n in names if n)


def parse_fi_info(text: str) -> FiInfo:
    info = FiInfo()
    current: FiEndpoint | None = None
    for raw in text.splitlines():
        line = strip_launcher_prefix(raw).rstrip()
        m = re.search(r"fi_getinfo: (-?\d+)", line)
        if m:
            info.error = f"fi_getinfo: {m.group(1)}"
            continue
        kv = re.match(r"^(\s*)(provider|fabric|domain|type|version|protocol): (.*)$", line)
        if not kv:
            continue
        key, value = kv.group(2), kv.group(3).strip()
        if key == "provider":
            current = FiEndpoint(value)
            info.endpoints.append(current)
        elif current is not None and key in ("fabric", "domain", "type"):
            setattr(current, key, value)
    # mpirun output repeats each rank's list; keep one entry per (provider, domain, type)
    seen: set[tuple[str, str, str]] = set()
    unique = []
    for e in info.endpoints:
        if (e.provider, e.domain, e.type) not in seen:
            seen.add((e.provider, e.domain, e.type))
            unique.append(e)
    info.endpoints = unique
    return info


@dataclass
class EfaDevice:
    name: str
    driver: str
    pci: str


def parse_efa_devices(text: str) -> list[EfaDevice]:
    """Lines `<ibdev> driver=<driver> pci=<address>` printed by the efa_devices probe for each
    entry of /sys/class/infiniband; only devices bound to the `efa` driver count."""
    devices = []
    for line in text.splitlines():
        m = re.match(r"^(\S+) driver=(\S*) pci=(\S*)$", line.strip())
        if m and m.group(2) == "efa":
            devices.append(EfaDevice(m.group(1), m.group(2), m.group(3)))
    return devices


@dataclass
class Modules:
    loaded: set[str] = field(default_factory=set)
    versions: dict[str, str] = field(default_factory=dict)


def parse_modules(text: str) -> Modules:
    """/proc/modules lines (`efa 147456 0 - Live 0x0`) and `# version <module> <version>`."""
    mods = Modules()
    for line in text.splitlines():
        v = re.match(r"^# version (\S+) (\S+)", line)
        if v:
            mods.versions[v.group(1)] = v.group(2)
            continue
        words = line.split()
        if len(words) >= 2 and words[1].isdigit():
            mods.loaded.add(words[0])
    return mods


@dataclass
class OfiPlugin:
    files: list[str] = field(default_factory=list)
    ld_conf: list[str] = field(default_factory=list)

    @property
    def net_plugins(self) -> list[str]:
        """NCCL net plugin libraries: libnccl-net.so (old name) and libnccl-net-ofi.so (since
        aws-ofi-nccl's 2025 rename; libnccl-net.so stays as a symlink to it)."""
        return [f for f in self.files if re.search(r"/libnccl-net(-ofi|-aws)?\.so", f)]


def parse_ofi_plugin(text: str) -> OfiPlugin:
    plugin = OfiPlugin()
    for line in text.splitlines():
        if line.startswith("file: "):
            plugin.files.append(line[6:].strip())
        elif line.startswith("ldconf: "):
            plugin.ld_conf.append(line[8:].strip())
    return plugin
