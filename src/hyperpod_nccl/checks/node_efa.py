"""EFA checks on probed nodes: driver loaded, device count against the instance type, libfabric's
EFA provider, the aws-ofi-nccl plugin, and GPUDirect RDMA (peer memory or DMA-BUF)."""

from __future__ import annotations

import re

from hyperpod_nccl.checks import check
from hyperpod_nccl.checks.node_gpu import instance_type
from hyperpod_nccl.checks.node_instance_types import EFA_DEVICES
from hyperpod_nccl.checks.node_results import (
    NodeResults,
    parsed,
    why_missing,
)
from hyperpod_nccl.model import Finding, Priority, Status, SuggestedCommand
from hyperpod_nccl.probes.parsers import efa as efa_parser
from hyperpod_nccl.probes.parsers.host import parse_key_values
from hyperpod_nccl.snapshot import Snapshot
from hyperpod_nccl.snapshot.items import node_item

AREA = "node"
_PEERMEM = ("nvidia_peermem", "efa_nv_peermem")


def efa_device_count(snapshot: Snapshot, node: str) -> int | None:
    devices = parsed(snapshot, node, "efa_devices", efa_parser.parse_efa_devices)
    return None if devices is None else len(devices)


def _expects_efa(snapshot: Snapshot, node: str) -> tuple[str | None, int | None]:
    itype = instance_type(snapshot, node)
    return itype, EFA_DEVICES.get(itype or "")


@check("node.efa", AREA, ["EFA_COUNT_MISMATCH", "EFA_TCP_FALLBACK"])
def check_efa(snapshot: Snapshot) -> list[Finding]:
    results = NodeResults("EFA_COUNT_MISMATCH", "EFA devices and provider")
    for node in results.each_reached(snapshot):
        count = efa_device_count(snapshot, node)
        if count is None:
            results.skip(node, why_missing(snapshot, node, "efa_devices"))
            continue
        itype, expected = _expects_efa(snapshot, node)
        modules = parsed(snapshot, node, "kernel_modules", efa_parser.parse_modules)
        if count == 0 and expected is None:
            results.skip(
                node,
                f"no EFA device, and instance type {itype or 'unknown (no DMI product name)'} "
                "is not an EFA GPU or Trainium type",
            )
            continue
        src = node_item(node, "efa_devices")
        if expected and count == 0 and modules is not None and "efa" not in modules.loaded:
            results.problem(
                node,
                Status.FAIL,
                Priority.P0,
                f"the efa kernel module is not loaded on this {itype}: NCCL will fall back to TCP sockets",
                code="EFA_TCP_FALLBACK",
                evidence=[(node_item(node, "kernel_modules"), "efa not in /proc/modules")],
                commands=[
                    SuggestedCommand(
                        "see the driver's load errors",
                        "sudo dmesg | grep -i efa | tail -20",
                    )
                ],
            )
            continue
        if expected is not None and count != expected:
            results.problem(
                node,
                Status.FAIL,
                Priority.P0 if count < expected else Priority.P2,
                f"{count} EFA devices, {itype} supports {expected}",
                evidence=[(src, f"{count} devices bound to the efa driver")],
                commands=[
                    SuggestedCommand(
                        "compare the instance's network interfaces with the type's network cards",
                        "aws ec2 describe-instances --instance-ids <instance-id> --query 'Reservations[0].Instances[0].NetworkInterfaces[].{type:InterfaceType,card:Attachment.NetworkCardIndex}'",
                    )
                ],
                details={"devices": count, "expected": expected, "instance_type": itype},
            )
            continue
        fi = parsed(snapshot, node, "fi_info", efa_parser.parse_fi_info)
        if count and fi is not None and (fi.error or not fi.efa_domains):
            results.problem(
                node,
                Status.FAIL,
                Priority.P0,
                f"{count} EFA devices but libfabric finds no EFA provider ({fi.error or 'no efa endpoints'}): NCCL will use TCP sockets",
                code="EFA_TCP_FALLBACK",
                evidence=[(node_item(node, "fi_info"), fi.error or "no 'provider: efa' entries")],
                commands=[
                    SuggestedCommand(
                        "list EFA endpoints with libfabric's debug output",
                        "FI_LOG_LEVEL=warn fi_info -p efa -t FI_EP_RDM",
                    )
                ],
            )
            continue
        note = f"{count} EFA devices" + (f" ({itype} supports {expected})" if expected else "")
        if fi is None:
            note += f"; provider not confirmed: {why_missing(snapshot, node, 'fi_info')}"
        results.ok(node, note)
    return results.emit()


@check("node.ofi_nccl", AREA, ["EFA_TCP_FALLBACK"])
def check_ofi_nccl(snapshot: Snapshot) -> list[Finding]:
    results = NodeResults("EFA_TCP_FALLBACK", "aws-ofi-nccl plugin")
    for node in results.each_reached(snapshot):
        count = efa_device_count(snapshot, node)
        plugin = parsed(snapshot, node, "ofi_nccl", efa_parser.parse_ofi_plugin)
        if plugin is None:
            results.skip(node, why_missing(snapshot, node, "ofi_nccl"))
            continue
        if not count:
            results.skip(node, "no EFA device on this node, so no NCCL net plugin is needed")
            continue
        if not plugin.net_plugins:
            results.problem(
                node,
                Status.WARN,
                Priority.P1,
                "no aws-ofi-nccl library (libnccl-net-ofi.so or libnccl-net.so) on the host: the training container must bring its own, or NCCL uses TCP sockets",
                evidence=[
                    (
                        node_item(node, "ofi_nccl"),
                        "no libnccl-net*.so under /opt/amazon/ofi-nccl, /opt/aws-ofi-nccl or the system library paths",
                    )
                ],
                commands=[
                    SuggestedCommand(
                        "confirm inside the training container",
                        "ls /opt/amazon/ofi-nccl/lib*/libnccl-net* ; echo $NCCL_NET_PLUGIN",
                    )
                ],
            )
            continue
        results.ok(node, ", ".join(sorted({f.rsplit("/", 1)[-1] for f in plugin.net_plugins})))
    return results.emit()


def _kernel_at_least(release: str | None, major: int, minor: int) -> bool | None:
    m = re.match(r"^(\d+)\.(\d+)", release or "")
    return None if not m else (int(m.group(1)), int(m.group(2))) >= (major, minor)


@check("node.gpudirect", AREA, ["GPUDIRECT_RDMA_UNAVAILABLE"])
def check_gpudirect(snapshot: Snapshot) -> list[Finding]:
    """GPUDirect RDMA over EFA needs the peer-memory module (nvidia_peermem, or AWS's
    efa_nv_peermem) or DMA-BUF. aws-ofi-nccl uses DMA-BUF only on Linux 5.12 or later and when
    the CUDA device reports DMA-BUF support, which NVIDIA's open kernel modules provide."""
    results = NodeResults("GPUDIRECT_RDMA_UNAVAILABLE", "GPUDirect RDMA (peer memory or DMA-BUF)")
    for node in results.each_reached(snapshot):
        count = efa_device_count(snapshot, node)
        info = parsed(snapshot, node, "host_info", parse_key_values) or {}
        if not count or not info.get("nvidia_driver"):
            results.skip(
                node,
                "needs both EFA devices and an NVIDIA driver; this node lacks "
                + ("EFA" if not count else "the NVIDIA driver"),
            )
            continue
        modules = parsed(snapshot, node, "kernel_modules", efa_parser.parse_modules)
        if modules is None:
            results.skip(node, why_missing(snapshot, node, "kernel_modules"))
            continue
        peermem = sorted(m for m in _PEERMEM if m in modules.loaded)
        kernel_ok = _kernel_at_least(info.get("kernel"), 5, 12)
        open_module = "open kernel module" in info.get("nvidia_driver", "").lower()
        if peermem:
            results.ok(node, f"peer memory module {peermem[0]} loaded")
        elif kernel_ok and open_module:
            results.ok(node, f"DMA-BUF: kernel {info.get('kernel')}, NVIDIA open kernel module")
        else:
            results.problem(
                node,
                Status.WARN,
                Priority.P1,
                "no peer-memory module (nvidia_peermem / efa_nv_peermem) and no DMA-BUF prerequisites "
                f"(kernel {info.get('kernel')}, {'open' if open_module else 'proprietary'} NVIDIA kernel module): "
                "NCCL over EFA may copy through host memory",
                evidence=[
                    (node_item(node, "host_info"), info.get("nvidia_driver", "")),
                    (node_item(node, "host_info"), f"kernel: {info.get('kernel')}"),
                ],
            )
    return results.emit()
