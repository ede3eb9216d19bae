"""Attribute a log line to its rank, host, process and time from the prefixes launchers and
libraries put in front of it, and a log file to its rank or pod from its name.

Prefixes handled (several can stack, e.g. `node01: host:pid:tid [0] NCCL WARN ...`):
- torchrun's `[rank3]:`, Open MPI's `[1,3]<stdout>:`, srun -l's `3: `;
- pdsh/DeepSpeed-launcher host labels `gpu004: `, CloudWatch `| 2024-...Z | ` columns;
- NCCL's `host:pid:tid [dev]`, Ray's `(Worker pid=1, ip=10.0.0.1)`, syslog `Mon DD hh:mm:ss host`;
- timestamps: ISO 8601 (with or without zone), Python logging `2024-05-28 14:04:27,954`,
  `dmesg -T` `[Fri Aug 30 11:43:09 2024]`, `MM/DD/YYYY hh:mm:ss`; glog's year-less
  `[E626 05:14:36.393 file.cpp:N]` only as a clock for ordering lines of one run.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import PurePath

_TORCH_RANK = re.compile(r"\[rank(\d+)\]:")
_MPI_RANK = re.compile(r"\[\d+,(\d+)\]<std(?:out|err)>:")
_SRUN_LABEL = re.compile(r" {0,5}(\d{1,6}): ")
# A bracketed number column before the record (a log viewer's line or record counter, as in
# `[80746] [rank0]:[E321 ...]`): peeled, read as nothing (it may be a counter or a pid).
_COUNTER_COLUMN = re.compile(r"\[\d{1,9}\] ")
_HOST_LABEL = re.compile(r"([A-Za-z0-9][A-Za-z0-9_.-]*[A-Za-z0-9]): ")
_NCCL_PREFIX = re.compile(r"(?:^|[\s|>])([A-Za-z0-9_.-]+) ?:(\d+):(\d+) \[(\d+)\]")
# `kubectl logs --prefix`: [pod/NAME/CONTAINER] before each line.
_KUBECTL_PREFIX = re.compile(r"\[pod/([a-z0-9][-a-z0-9.]*)/[A-Za-z0-9_.-]+\] ")
_RAY_PREFIX = re.compile(r"\((?:[A-Za-z0-9_]+) pid=(\d+)(?:, ip=([0-9.]+))?\)")
_CLOUDWATCH = re.compile(r"\s*\|\s*(\d{4}-\d\d-\d\dT[\d:.]+(?:Z|[+-]\d\d:?\d\d)?)\s*\|?\s*")
_SYSLOG = re.compile(r"[A-Z][a-z]{2} +\d{1,2} \d\d:\d\d:\d\d ([A-Za-z0-9_.-]+) ")

_ISO = re.compile(r"(\d{4}-\d\d-\d\d)[T ](\d\d:\d\d:\d\d)(?:[.,](\d{1,9}))?(Z|[+-]\d\d:?\d\d)?")
_DMESG_T = re.compile(r"\[([A-Z][a-z]{2} [A-Z][a-z]{2} +\d{1,2} \d\d:\d\d:\d\d \d{4})\]")
_US_DATE = re.compile(r"(\d\d)/(\d\d)/(\d{4}) (\d\d:\d\d:\d\d)")
# glog, as PyTorch's C++ side writes it: `[E626 05:14:36.393067540 ProcessGroupNCCL.cpp:607]`.
_GLOG = re.compile(r"\[[IWEF](\d{1,2})(\d\d) (\d\d):(\d\d):(\d\d)(\.\d{1,9})?[ \]]")

# Words that look like host labels but are not (log levels, exception names, tools).
_NOT_HOSTS = re.compile(
    r"(?i)^(?:.*(?:error|exception|warning)|info|warn|debug|trace|fatal|note|kern|user|"
    r"traceback|file|line|epoch|step|time|host|rank|reason|message|state|status|type|"
    r"events|name|srun|slurmstepd|sbatch|torch|python\d*(?:\.\d+)?|nvcc|cuda|gcc)$"
)


@dataclass(frozen=True)
class LineContext:
    rank: int | None = None
    host: str | None = None
    pid: int | None = None
    device: int | None = None
    timestamp: datetime | None = None

    def process_of(self, host: str | None) -> tuple[str, int, int] | None:
        """NCCL's (host, pid, device) for this line, with `host` when the line named none."""
        if host and self.pid is not None and self.device is not None:
            return (host, self.pid, self.device)
        return None


def _parse_iso(match: re.Match[str]) -> datetime | None:
    date, time, frac, zone = match.groups()
    text = f"{date}T{time}"
    if frac:
        text += "." + (frac + "000000")[:6]
    try:
        stamp = datetime.fromisoformat(text)
    except ValueError:
        return None
    if zone:
        zone = "+00:00" if zone == "Z" else zone
        if ":" not in zone:
            zone = zone[:3] + ":" + zone[3:]
        try:
            stamp = datetime.fromisoformat(text + zone).astimezone(timezone.utc)
        except ValueError:
            return None
    return stamp


def parse_timestamp(line: str) -> datetime | None:
    """The first timestamp near the start of `line`, if any."""
    head = line[:160]
    iso = _ISO.search(head)
    if iso:
        return _parse_iso(iso)
    dmesg = _DMESG_T.search(head)
    if dmesg:
        try:
            return datetime.strptime(" ".join(dmesg.group(1).split()), "%a %b %d %H:%M:%S %Y")
        except ValueError:
            return None
    us = _US_DATE.search(head)
    if us:
        month, day, year, time = us.groups()
        try:
            return datetime.fromisoformat(f"{year}-{month}-{day}T{time}")
        except ValueError:
            return None
    return None


def glog_clock(line: str) -> float | None:
    """Seconds into the year of a glog stamp (`[E626 05:14:36.39 ...]`). The stamp has no year,
    so it is no timestamp: it only orders lines of one run against each other."""
    match = _GLOG.search(line[:200])
    return _glog_seconds(match) if match else None


def _glog_seconds(match: re.Match[str]) -> float | None:
    """Seconds into a 31-day-month year from (month, day, hours, minutes, seconds, fraction):
    comparable within one run, and what glog_text prints back."""
    month, day, hours, minutes, seconds, fraction = match.groups()
    if not (1 <= int(month) <= 12 and 1 <= int(day) <= 31):
        return None
    days = (int(month) - 1) * 31 + int(day) - 1
    clock = ((days * 24 + int(hours)) * 60 + int(minutes)) * 60 + int(seconds)
    return clock + (float(fraction) if fraction else 0.0)


# PyTorch's Python logging in glog's shape, without brackets (torchrun's agent):
# `E1130 10:31:02.424000 6201 torch/distributed/elastic/multiprocessing/api.py:1002] ...`.
_GLOG_PY = re.compile(
    r"(?:^|[\s:\]])[IWEF](\d\d)(\d\d) (\d\d):(\d\d):(\d\d)(\.\d{1,9})? +\d+ \S+:\d+\]"
)


def event_clock(line: str) -> float | None:
    """The year-less glog clock of a line in either of PyTorch's shapes (bracketed C++ glog,
    or the Python agent's bare form), in glog_clock's units. For placing failures of one run
    on a time axis; the root-cause ranker keeps to glog_clock."""
    clock = glog_clock(line)
    if clock is not None:
        return clock
    match = _GLOG_PY.search(line[:200])
    return _glog_seconds(match) if match else None


def glog_text(clock: float) -> str:
    """A glog clock as `MM-DD hh:mm:ss.ffffff` (no year: glog prints none)."""
    whole = int(clock)
    days, rest = divmod(whole, 86400)
    month, day = divmod(days, 31)
    hours, rest = divmod(rest, 3600)
    minutes, seconds = divmod(rest, 60)
    micros = round((clock - whole) * 1e6)
    if micros >= 1_000_000:
        micros = 999_999
    return f"{month + 1:02d}-{day + 1:02d} {hours:02d}:{minutes:02d}:{seconds:02d}.{micros:06d}"


def parse_glog_text(text: str) -> float | None:
    """The inverse of glog_text."""
    match = re.fullmatch(r"(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(\.\d+)?", text)
    return _glog_seconds(match) if match else None


_PASTE_MARKS = re.compile(r"^[ \t]*(?:(?:>[ \t]?)+|`+)[ \t]*")


def attribute(
    line: str, default_rank: int | None = None, default_host: str | None = None
) -> LineContext:
    rank = default_rank
    host = default_host
    pid: int | None = None
    device: int | None = None
    # Paste marks before any prefix: Markdown quote markers and stray code-fence backticks.
    rest = _PASTE_MARKS.sub("", line, count=1)
    # Peel stacked prefixes from the left; each iteration removes at most one.
    for _ in range(4):
        stripped = rest.lstrip()
        cw = _CLOUDWATCH.match(rest)
        if cw:
            rest = rest[cw.end() :]
            continue
        m = _KUBECTL_PREFIX.match(stripped)
        if m:
            host = m.group(1)
            rest = stripped[m.end() :]
            continue
        m = _TORCH_RANK.match(stripped) or _MPI_RANK.match(stripped)
        if m:
            rank = int(m.group(1))
            rest = stripped[m.end() :]
            continue
        m = _COUNTER_COLUMN.match(stripped)
        if m:
            rest = stripped[m.end() :]
            continue
        m = _SRUN_LABEL.match(rest)
        if m:
            rank = int(m.group(1))
            rest = rest[m.end() :]
            continue
        m = _HOST_LABEL.match(stripped)
        if m and not _NOT_HOSTS.match(m.group(1)) and re.search(r"[\d.-]", m.group(1)):
            # A label followed by NCCL's own `host:pid:tid` prefix is the launcher's name for
            # the node; NCCL's hostname below wins if present.
            host = m.group(1)
            rest = stripped[m.end() :]
            continue
        break
    nccl = _NCCL_PREFIX.search(rest[:200])
    if nccl:
        host = nccl.group(1)
        pid = int(nccl.group(2))
        device = int(nccl.group(4))
    else:
        ray = _RAY_PREFIX.search(rest[:120])
        if ray:
            pid = int(ray.group(1))
            host = ray.group(2) or host
        else:
            syslog = _SYSLOG.match(rest)
            if syslog and not _NOT_HOSTS.match(syslog.group(1)):
                host = syslog.group(1)
    return LineContext(
        rank=rank, host=host, pid=pid, device=device, timestamp=parse_timestamp(line)
    )


_FILE_RANK = re.compile(r"(?i)(?:^|[^a-z])rank[-_.]?(\d+)(?:[^0-9]|$)")
_POD_NAME = re.compile(
    r"(?i)^[a-z0-9]([-a-z0-9.]*[a-z0-9])?-(?:master|worker|launcher|node|pod)-\d+(?:-[a-z0-9]+)?$"
)
_EC2_HOST = re.compile(r"(?i)(ip-\d{1,3}-\d{1,3}-\d{1,3}-\d{1,3}|i-[0-9a-f]{8,17})")


def file_defaults(path: str) -> tuple[int | None, str | None]:
    """Rank and host implied by a log file's name (`rank3.log`, `job-worker-2.log`, ...)."""
    name = PurePath(path).name
    stem = name
    for suffix in (".gz", ".log", ".txt", ".out", ".err"):
        if stem.lower().endswith(suffix):
            stem = stem[: -len(suffix)]
    rank_match = _FILE_RANK.search(stem)
    rank = int(rank_match.group(1)) if rank_match else None
    host: str | None = None
    if _POD_NAME.match(stem):
        host = stem
    else:
        ec2 = _EC2_HOST.search(stem)
        if ec2:
            host = ec2.group(1)
    return rank, host


def iso(stamp: datetime | None) -> str | None:
    """Timestamps with a known zone are reported in UTC with `Z`; others as written."""
    if stamp is None:
        return None
    if stamp.tzinfo is not None:
        return stamp.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S") + (
            f".{stamp.microsecond // 1000:03d}Z" if stamp.microsecond else "Z"
        )
    return stamp.isoformat(timespec="seconds")
