"""PCIe Access Control Services on bridges, from `lspci -vvv` (filtered on the node to device
headers and ACSCtl lines). With ACS request or completion redirect enabled on a PCIe switch
port, peer-to-peer traffic between GPUs, or between a GPU and a NIC, is sent up to the root
complex instead of across the switch: slower, and with an IOMMU often broken (NCCL's
troubleshooting guide, "PCI Access Control Services")."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_DEVICE = re.compile(r"^([0-9a-fA-F]{2,4}:[0-9a-fA-F]{2}(?::[0-9a-fA-F]{2})?\.[0-9a-fA-F]) (.+)$")
_ACSCTL = re.compile(r"ACSCtl:\s*(.*)$")


@dataclass
class AcsPort:
    address: str
    description: str
    flags: dict[str, bool] = field(default_factory=dict)

    @property
    def redirects(self) -> bool:
        return bool(self.flags.get("ReqRedir") or self.flags.get("CmpltRedir"))


@dataclass
class AcsReport:
    ports: list[AcsPort] = field(default_factory=list)
    root: bool | None = None  # lspci shows capabilities only to root
    devices: int = 0

    @property
    def redirecting_bridges(self) -> list[AcsPort]:
        return [p for p in self.ports if p.redirects and "bridge" in p.description.lower()]


def parse_acs(text: str) -> AcsReport:
    report = AcsReport()
    current: tuple[str, str] | None = None
    for raw in text.splitlines():
        line = raw.lstrip("> ").rstrip() if raw.startswith(">") else raw.rstrip()
        m = re.match(r"^# uid: (\d+)", line)
        if m:
            report.root = m.group(1) == "0"
            continue
        dev = _DEVICE.match(line)
        if dev:
            current = (dev.group(1), dev.group(2))
            report.devices += 1
            continue
        acs = _ACSCTL.search(line)
        if acs and current is not None:
            flags = {
                f.rstrip("+-"): f.endswith("+") for f in acs.group(1).split() if f[-1:] in "+-"
            }
            report.ports.append(AcsPort(current[0], current[1], flags))
    return report
