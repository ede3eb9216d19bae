"""The probe catalog: every command hyperpod-nccl may run on a node, as data.

Each probe has an id (its file name in a bundle: `nodes/<node>/<id>.txt`), the argv it runs, a
timeout, the tools it needs, and the parser for its output. The catalog is fixed at import
and read-only (a MappingProxyType of frozen records). Transports accept probe ids only and
build the command from this catalog; there is no way to send anything else to a node.

Every command here only reads: files under /proc and /sys, tool output (nvidia-smi queries,
`dcgmi health -c`, `dcgmi diag -r 1`, `fi_info`, `iptables -S`, `lspci -vvv`), or the local
NCCL RAS socket with the `verbose status` query. Nothing writes a file, loads a module, changes
a setting or signals a process; `tests/probes/test_catalog.py` enforces this on the text.

Shell snippets are POSIX sh (dash on Ubuntu, bash on Amazon Linux) so one script runs
everywhere. Where a tool is missing the probe prints `absent: <tool>` and exits 127, which the
runner records as "not installed" (a SKIPPED check), never as a healthy result.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from hyperpod_nccl.probes.parsers import dcgm, efa, firewall, gpu, host, kernel_log, pci, ras

ABSENT_EXIT = 127  # the shell's "command not found"; our probes use it the same way


@dataclass(frozen=True)
class Probe:
    id: str
    title: str
    argv: tuple[str, ...]
    timeout_s: int
    parser: Callable[[str], Any]
    requires: tuple[str, ...] = ()  # tools that must be on PATH (any one of them); else absent
    area: str = "host"  # host | gpu | efa: what a node without GPUs or EFA cannot answer


def _sh(script: str) -> tuple[str, ...]:
    return ("sh", "-c", script.strip())


_HOST_INFO = r"""
echo "hostname: $(hostname 2>/dev/null || cat /proc/sys/kernel/hostname)"
echo "kernel: $(uname -r)"
echo "instance_type: $(cat /sys/devices/virtual/dmi/id/product_name 2>/dev/null)"
echo "now: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "uptime_s: $(cut -d' ' -f1 /proc/uptime)"
[ -r /etc/os-release ] && echo "os: $(sed -n 's/^PRETTY_NAME=//p' /etc/os-release | tr -d '"')"
[ -r /proc/driver/nvidia/version ] && echo "nvidia_driver: $(head -n1 /proc/driver/nvidia/version)"
echo "cpus: $(grep -c ^processor /proc/cpuinfo)"
echo "mem_kb: $(awk '/^MemTotal:/{print $2}' /proc/meminfo)"
for c in /proc/[0-9]*/comm; do
  read -r n < "$c" 2>/dev/null || continue
  case "$n" in slurmd|slurmctld|kubelet|containerd|dockerd) echo "daemon: $n";; esac
done | sort -u
"""

_KERNEL_LOG = r"""
echo "# now: $(date -u +%Y-%m-%dT%H:%M:%S+00:00)"
echo "# uptime_s: $(cut -d' ' -f1 /proc/uptime)"
if out=$(dmesg --time-format iso 2>&1); then src=dmesg
elif out=$(journalctl -k -o short-iso --no-pager -q 2>&1); then src=journalctl
else echo "# error: $(printf '%s' "$out" | head -n1)"; exit 3; fi
echo "# source: $src"
printf '%s\n' "$out" | grep -E 'NVRM|SXid|nvidia-nvswitch|fallen off the bus' | tail -n 5000
exit 0
"""

_MODULES = r"""
cat /proc/modules
for m in efa nvidia nvidia_peermem gdrdrv ib_core; do
  [ -r /sys/module/$m/version ] && echo "# version $m $(cat /sys/module/$m/version)"
done
exit 0
"""

_EFA_DEVICES = r"""
for d in /sys/class/infiniband/*; do
  [ -e "$d" ] || continue
  drv=$(basename "$(readlink -f "$d/device/driver")")
  echo "${d##*/} driver=$drv pci=$(basename "$(readlink -f "$d/device")")"
done
ls /dev/infiniband 2>/dev/null | sed 's/^/dev: /'
exit 0
"""

_FI_INFO = r"""
f=$(command -v fi_info || echo /opt/amazon/efa/bin/fi_info)
[ -x "$f" ] || { echo "absent: fi_info"; exit 127; }
"$f" -p efa -t FI_EP_RDM 2>&1
"""

_OFI_NCCL = r"""
for d in /opt/amazon/ofi-nccl/lib /opt/amazon/ofi-nccl/lib64 /opt/amazon/ofi-nccl/lib/x86_64-linux-gnu \
  /opt/amazon/ofi-nccl/lib/aarch64-linux-gnu /opt/aws-ofi-nccl/lib /usr/local/lib /usr/lib64 \
  /usr/lib/x86_64-linux-gnu /usr/lib/aarch64-linux-gnu; do
  for f in "$d"/libnccl-net*.so* "$d"/libnccl-ofi-tuner*.so* "$d"/libnccl-tuner-ofi*.so*; do
    [ -e "$f" ] && echo "file: $f"
  done
done
cat /etc/ld.so.conf.d/*ofi* 2>/dev/null | sed 's/^/ldconf: /'
exit 0
"""

_VERSIONS = r"""
for f in /usr/lib/x86_64-linux-gnu/libnccl.so.* /usr/lib/aarch64-linux-gnu/libnccl.so.* \
  /usr/lib64/libnccl.so.* /usr/local/lib/libnccl.so.* /usr/local/cuda*/lib*/libnccl.so.* \
  /opt/nccl/build/lib/libnccl.so.*; do
  [ -e "$f" ] && echo "nccl_lib: $f"
done
[ -r /usr/local/cuda/version.json ] && echo "cuda: $(head -c 600 /usr/local/cuda/version.json | tr -d '\n')"
[ -r /usr/local/cuda/version.txt ] && echo "cuda_txt: $(head -n1 /usr/local/cuda/version.txt)"
[ -r /opt/amazon/efa_installed_packages ] && sed 's/^/efa: /' /opt/amazon/efa_installed_packages
f=$(command -v fi_info || echo /opt/amazon/efa/bin/fi_info)
[ -x "$f" ] && "$f" --version 2>/dev/null | sed 's/^/libfabric: /'
# NVSwitch systems: the fabric manager must be the driver's own version or it does not start.
# `--version` prints it and exits; the running service is left alone.
command -v nv-fabricmanager >/dev/null 2>&1 && nv-fabricmanager --version 2>&1 | grep -i 'version' | sed 's/^[[:space:]]*/fabricmanager: /'
exit 0
"""

_SHM = r"""
df -B1 -P /dev/shm
find /dev/shm -maxdepth 1 -name 'nccl-*' -printf 'nccl: %s %T@ %u %p\n' 2>/dev/null | head -n 500
exit 0
"""

# Processes that have libnccl mapped are the ones that talk NCCL: the training ranks. Their own
# limits and /dev/shm are what matter, not those of the shell this probe runs in.
_PROCESSES = r"""
seen=""; n=0
for m in /proc/[0-9]*/maps; do
  pid=${m#/proc/}; pid=${pid%/maps}
  [ "$pid" = "$$" ] && continue
  lib=$(grep -m1 -o '/[^ ]*libnccl\.so[^ ]*' "$m" 2>/dev/null) || continue
  n=$((n+1)); [ $n -gt 64 ] && break
  echo "=== pid=$pid role=training"
  echo "comm: $(cat /proc/$pid/comm 2>/dev/null)"
  echo "cmdline: $(tr '\0' ' ' < /proc/$pid/cmdline 2>/dev/null | cut -c1-300)"
  echo "nccl_lib: $lib"
  case " $seen " in *" $lib "*) ;; *)
    seen="$seen $lib"
    v=$(LC_ALL=C grep -a -o -m1 'NCCL version [0-9][0-9.]*[+a-z0-9.]*' "/proc/$pid/root$lib" 2>/dev/null | head -n1)
    [ -n "$v" ] && echo "nccl_version: $v";;
  esac
  grep -E '^Max (locked memory|stack size|open files)' /proc/$pid/limits 2>/dev/null
  grep ' /dev/shm ' /proc/$pid/mountinfo 2>/dev/null | head -n1 | sed 's/^/shm_mount: /'
  df -B1 -P /proc/$pid/root/dev/shm 2>/dev/null | tail -n1 | sed 's/^/shm_df: /'
  tr '\0' '\n' < /proc/$pid/environ 2>/dev/null | grep -E '^(NCCL_[A-Z_]+|FI_PROVIDER|FI_EFA_[A-Z_]+|LOCAL_RANK|RANK)=' | sed 's/^/env: /'
done
if [ $n -eq 0 ]; then
  for c in /proc/[0-9]*/comm; do
    read -r name < "$c" 2>/dev/null || continue
    case "$name" in slurmd|containerd|dockerd|kubelet)
      pid=${c#/proc/}; pid=${pid%/comm}
      echo "=== pid=$pid role=runtime"; echo "comm: $name"
      grep -E '^Max (locked memory|stack size|open files)' /proc/$pid/limits 2>/dev/null;;
    esac
  done
  echo "=== pid=$$ role=self"; echo "comm: sh"
  grep -E '^Max (locked memory|stack size|open files)' /proc/self/limits
fi
exit 0
"""

_REMOVEIPC = r"""
if [ -d /run/systemd/system ]; then echo "# systemd: yes"; else echo "# systemd: no"; fi
for f in /etc/systemd/logind.conf /usr/lib/systemd/logind.conf.d/*.conf \
  /usr/local/lib/systemd/logind.conf.d/*.conf /run/systemd/logind.conf.d/*.conf \
  /etc/systemd/logind.conf.d/*.conf; do
  [ -r "$f" ] && grep -H -E '^[[:space:]]*RemoveIPC[[:space:]]*=' "$f"
done
exit 0
"""

_NUMA = r"""
lscpu 2>/dev/null | grep -i '^NUMA'
[ -r /proc/sys/kernel/numa_balancing ] && echo "numa_balancing: $(cat /proc/sys/kernel/numa_balancing)"
exit 0
"""

# RAS answers on localhost:28028 while an NCCL >= 2.24 job runs. `verbose status` is a query.
_RAS = r"""
if command -v ncclras >/dev/null 2>&1; then ncclras -v -t 10 2>&1; exit $?; fi
command -v bash >/dev/null 2>&1 || { echo "absent: ncclras"; exit 127; }
bash -c 'exec 3<>/dev/tcp/127.0.0.1/28028' 2>/dev/null || { echo "# no RAS listener on localhost:28028"; exit 0; }
# ncclras's handshake (src/ras/client.cc): protocol, client timeout, then the status query
timeout 20 bash -c 'exec 3<>/dev/tcp/127.0.0.1/28028
printf "CLIENT PROTOCOL 2\nTIMEOUT 10\nVERBOSE STATUS\n" >&3; cat <&3'
"""

_FIREWALL = r"""
echo "port_range: $(cat /proc/sys/net/ipv4/ip_local_port_range)"
command -v iptables >/dev/null 2>&1 || { echo "absent: iptables"; exit 127; }
iptables -w 5 -S 2>&1
"""

_ACS = r"""
echo "# uid: $(id -u)"
command -v lspci >/dev/null 2>&1 || { echo "absent: lspci"; exit 127; }
lspci -vvv 2>/dev/null | grep -E '^[0-9a-fA-F]{2,4}:[0-9a-fA-F]{2}|ACSCtl:'
exit 0
"""

_PROBES = (
    Probe(
        "host_info",
        "host identity, kernel, driver, daemons",
        _sh(_HOST_INFO),
        15,
        host.parse_key_values,
    ),
    Probe(
        "gpu_inventory",
        "nvidia-smi",
        ("nvidia-smi",),
        30,
        gpu.parse_smi_table,
        ("nvidia-smi",),
        "gpu",
    ),
    Probe(
        "gpu_ecc",
        "nvidia-smi -q -d ECC,ROW_REMAPPER,PAGE_RETIREMENT",
        ("nvidia-smi", "-q", "-d", "ECC,ROW_REMAPPER,PAGE_RETIREMENT"),
        45,
        gpu.parse_smi_query,
        ("nvidia-smi",),
        "gpu",
    ),
    Probe(
        "nvlink_status",
        "nvidia-smi nvlink -s",
        ("nvidia-smi", "nvlink", "-s"),
        30,
        gpu.parse_nvlink_status,
        ("nvidia-smi",),
        "gpu",
    ),
    Probe(
        "nvlink_errors",
        "nvidia-smi nvlink -e",
        ("nvidia-smi", "nvlink", "-e"),
        30,
        gpu.parse_nvlink_errors,
        ("nvidia-smi",),
        "gpu",
    ),
    Probe(
        "gpu_topology",
        "nvidia-smi topo -m",
        ("nvidia-smi", "topo", "-m"),
        30,
        gpu.parse_topology,
        ("nvidia-smi",),
        "gpu",
    ),
    Probe(
        "dcgm_health",
        "dcgmi health -c",
        ("dcgmi", "health", "-c"),
        30,
        dcgm.parse_dcgmi,
        ("dcgmi",),
        "gpu",
    ),
    Probe(
        "dcgm_diag",
        "dcgmi diag -r 1",
        ("dcgmi", "diag", "-r", "1"),
        90,
        dcgm.parse_dcgmi,
        ("dcgmi",),
        "gpu",
    ),
    Probe(
        "kernel_log",
        "NVIDIA lines of the kernel log",
        _sh(_KERNEL_LOG),
        30,
        kernel_log.parse_kernel_log,
    ),
    Probe("kernel_modules", "loaded kernel modules", _sh(_MODULES), 10, efa.parse_modules),
    Probe(
        "efa_devices",
        "EFA devices in /sys/class/infiniband",
        _sh(_EFA_DEVICES),
        10,
        efa.parse_efa_devices,
    ),
    Probe(
        "fi_info", "fi_info -p efa -t FI_EP_RDM", _sh(_FI_INFO), 30, efa.parse_fi_info, area="efa"
    ),
    Probe("ofi_nccl", "aws-ofi-nccl plugin files", _sh(_OFI_NCCL), 10, efa.parse_ofi_plugin),
    Probe(
        "versions",
        "NCCL, CUDA, EFA installer, libfabric, fabric manager versions",
        _sh(_VERSIONS),
        20,
        host.parse_versions,
    ),
    Probe(
        "net_links",
        "ip -o link show",
        ("ip", "-o", "link", "show"),
        10,
        host.parse_ip_link,
        ("ip",),
    ),
    Probe("shm", "/dev/shm size and NCCL segments", _sh(_SHM), 10, host.parse_shm),
    Probe(
        "processes",
        "NCCL processes: limits, /dev/shm, NCCL library",
        _sh(_PROCESSES),
        30,
        host.parse_processes,
    ),
    Probe("removeipc", "systemd-logind RemoveIPC", _sh(_REMOVEIPC), 10, host.parse_removeipc),
    Probe("numa", "NUMA layout", _sh(_NUMA), 10, host.parse_numa),
    Probe("nccl_ras", "NCCL RAS status on localhost:28028", _sh(_RAS), 30, ras.parse_ras),
    Probe(
        "firewall",
        "iptables -S and the ephemeral port range",
        _sh(_FIREWALL),
        15,
        firewall.parse_firewall,
    ),
    Probe("pci_acs", "PCIe ACS control on bridges (lspci -vvv)", _sh(_ACS), 30, pci.parse_acs),
)

CATALOG: Mapping[str, Probe] = MappingProxyType({p.id: p for p in _PROBES})
PROBE_IDS: tuple[str, ...] = tuple(CATALOG)


class UnknownProbe(ValueError):
    """A probe id that is not in the catalog, or a probe record that is not the catalog's."""


def get_probe(probe_id: str) -> Probe:
    try:
        return CATALOG[probe_id]
    except (KeyError, TypeError):
        raise UnknownProbe(f"not a probe in the catalog: {probe_id!r}") from None


def resolve(probes: object) -> tuple[Probe, ...]:
    """Probe ids (or the catalog's own Probe records) -> catalog records. Anything else,
    including a Probe built elsewhere with a known id, is refused."""
    if isinstance(probes, str):
        raise UnknownProbe("pass a list of probe ids, not a string")
    out = []
    for item in probes:  # type: ignore[attr-defined]
        if isinstance(item, Probe):
            if CATALOG.get(item.id) is not item:
                raise UnknownProbe(f"probe {item.id!r} is not the catalog's record")
            out.append(item)
        else:
            out.append(get_probe(item))
    if len({p.id for p in out}) != len(out):
        raise UnknownProbe("a probe id is listed twice")
    return tuple(out)
