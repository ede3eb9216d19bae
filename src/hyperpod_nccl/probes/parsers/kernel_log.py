"""Kernel log lines about NVIDIA GPUs: Xid and SXid events and "fallen off the bus" notices,
with their time when the line carries one.

The probe prints `# now: <UTC time on the node>` and `# source: dmesg|journalctl` before the
lines, so events can be placed in a time window measured on the node's own clock. Formats
understood: `dmesg --time-format iso`, `dmesg -T`, `dmesg` with seconds since boot (needs the
probe's `# uptime_s:` line), journalctl short and short-iso.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone

_XID = re.compile(
    r"NVRM: Xid \((?:PCI:)?(?P<pci>[^)]*)\): (?P<num>\d+),\s*(?:pid=(?P<pid>'?[^,]*'?),\s*)?"
    r"(?:name=(?P<name>[^,]*),\s*)?(?P<msg>.*)"
)
_SXID = re.compile(r"SXid \((?:PCI:)?(?P<pci>[^)]*)\): (?P<num>\d+),\s*(?P<msg>.*)")
_OFF_BUS = re.compile(r"NVRM: (?:The NVIDIA )?GPU (?P<pci>[0-9a-fA-F:.]+).*fallen off the bus")
_OFF_BUS_MULTI = re.compile(r"NVRM: The NVIDIA GPU (?P<pci>[0-9a-fA-F:.]+)\s*$")

_ISO = re.compile(
    r"(?P<ts>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:[,.](?P<frac>\d+))?(?P<tz>[+-]\d\d:?\d\d|Z)?"
)
_CTIME = re.compile(r"^\[(?P<ts>\w{3} \w{3} +\d+ \d\d:\d\d:\d\d \d{4})\]")
_MONO = re.compile(r"^\[\s*(?P<secs>\d+\.\d+)\]")
_META = re.compile(r"^# (?P<key>[a-z_]+): ?(?P<value>.*)$")


@dataclass
class KernelEvent:
    kind: str  # xid | sxid | fell_off_bus
    number: int | None
    pci: str
    message: str
    line: str
    process: str | None = None
    time: datetime | None = None
    fatal: bool | None = None  # SXid lines say Fatal / Non-fatal


@dataclass
class KernelLog:
    source: str | None = None
    now: datetime | None = None
    events: list[KernelEvent] = field(default_factory=list)
    error: str | None = None  # the log could not be read (permission, no dmesg)
    lines: int = 0

    def within(self, since: datetime | None) -> list[KernelEvent]:
        """Events at or after `since`; events whose time is unknown are kept (we cannot rule
        them out, and a Xid is worth seeing)."""
        if since is None:
            return list(self.events)
        return [e for e in self.events if e.time is None or e.time >= since]


def _parse_time(line: str, boot: datetime | None) -> datetime | None:
    m = _ISO.search(line[:64])
    if m:
        tz = m.group("tz") or "+00:00"
        tz = "+00:00" if tz == "Z" else tz
        if len(tz) == 5:
            tz = tz[:3] + ":" + tz[3:]
        frac = (m.group("frac") or "")[:6]
        stamp = m.group("ts") + (f".{frac.ljust(6, '0')}" if frac else "") + tz
        try:
            return datetime.fromisoformat(stamp).astimezone(timezone.utc)
        except ValueError:
            return None
    m = _CTIME.match(line)
    if m:
        try:  # dmesg -T prints local time without a zone; read it as UTC (HyperPod nodes use UTC)
            return datetime.strptime(m.group("ts"), "%a %b %d %H:%M:%S %Y").replace(
                tzinfo=timezone.utc
            )
        except ValueError:
            return None
    m = _MONO.match(line)
    if m and boot is not None:
        return boot + timedelta(seconds=float(m.group("secs")))
    return None


def parse_kernel_log(text: str) -> KernelLog:
    log = KernelLog()
    uptime: float | None = None
    pending_off_bus: str | None = None
    pending_time: datetime | None = None
    pending_line = ""
    for line in text.splitlines():
        meta = _META.match(line)
        if meta:
            key, value = meta.group("key"), meta.group("value").strip()
            if key == "now":
                log.now = _parse_time(value, None)
            elif key == "uptime_s":
                try:
                    uptime = float(value)
                except ValueError:
                    uptime = None
            elif key == "source":
                log.source = value
            elif key == "error":
                log.error = value
            continue
        log.lines += 1
        boot = log.now - timedelta(seconds=uptime) if log.now and uptime is not None else None
        m = _XID.search(line)
        if m:
            log.events.append(
                KernelEvent(
                    "xid",
                    int(m.group("num")),
                    m.group("pci"),
                    m.group("msg").strip(),
                    line.strip(),
                    (m.group("name") or "").strip() or None,
                    _parse_time(line, boot),
                )
            )
            continue
        m = _SXID.search(line)
        if m:
            msg = m.group("msg").strip()
            fatal = (
                True if msg.startswith("Fatal") else False if msg.startswith("Non-fatal") else None
            )
            log.events.append(
                KernelEvent(
                    "sxid",
                    int(m.group("num")),
                    m.group("pci"),
                    msg,
                    line.strip(),
                    None,
                    _parse_time(line, boot),
                    fatal,
                )
            )
            continue
        m = _OFF_BUS.search(line)
        if m:
            log.events.append(
                KernelEvent(
                    "fell_off_bus",
                    None,
                    m.group("pci"),
                    "GPU has fallen off the bus",
                    line.strip(),
                    None,
                    _parse_time(line, boot),
                )
            )
            continue
        m = _OFF_BUS_MULTI.search(line)
        if m:  # driver 570 splits the notice over three lines
            pending_off_bus = m.group("pci")
            pending_time = _parse_time(line, boot)
            pending_line = line.strip()
            continue
        if pending_off_bus and "fallen off the bus" in line:
            log.events.append(
                KernelEvent(
                    "fell_off_bus",
                    None,
                    pending_off_bus,
                    "GPU has fallen off the bus",
                    pending_line,
                    None,
                    pending_time,
                )
            )
            pending_off_bus = None
    return log
