"""NCCL RAS status (`ncclras`, or `verbose status` sent to localhost:28028): the communicator
table and the Errors and Warnings sections, where DEAD, INCOMPLETE and MISMATCH appear."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_GROUP = re.compile(
    r"^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+([A-Z_,]+)\s+([A-Z_,]+)\s*$"
)
_BLOCK_HEAD = re.compile(r"^(?:(#\S+) \((\w+)\) )?([A-Z][A-Z_]+)$")
PROBLEM_WORDS = ("DEAD", "INCOMPLETE", "MISMATCH", "ERROR", "TIMEOUT", "UNRESPONSIVE", "ABORT")


@dataclass
class RasGroup:
    group: int
    comms: int
    ranks_per_comm: int
    status: str
    errors: list[str]


@dataclass
class RasIssue:
    section: str  # Errors | Warnings
    kind: str  # DEAD | INCOMPLETE | MISMATCH | ...
    communicator: str | None
    lines: list[str] = field(default_factory=list)


@dataclass
class RasStatus:
    listener: bool = True  # False when nothing answered on the RAS port: no NCCL job here
    nccl_version: str | None = None
    groups: list[RasGroup] = field(default_factory=list)
    issues: list[RasIssue] = field(default_factory=list)
    error: str | None = None

    @property
    def problems(self) -> list[RasIssue]:
        return [i for i in self.issues if i.kind in PROBLEM_WORDS]


def parse_ras(text: str) -> RasStatus:
    ras = RasStatus()
    section = ""
    current: RasIssue | None = None
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("# no RAS listener"):
            ras.listener = False
            continue
        if re.match(r"^(Failed to connect|Connection refused|ncclras: )", line):
            ras.error = ras.error or line.strip()
        m = re.match(r"^NCCL version (\S+)", line)
        if m:
            ras.nccl_version = m.group(1)
            continue
        if i + 1 < len(lines) and re.fullmatch(r"=+", lines[i + 1].strip() or "x"):
            section = line.split("...")[0].strip()
            current = None
            continue
        g = _GROUP.match(line)
        if g and section.startswith("Communicators"):
            errors = [e for e in g.group(8).split(",") if e and e != "OK"]
            ras.groups.append(
                RasGroup(int(g.group(1)), int(g.group(2)), int(g.group(5)), g.group(7), errors)
            )
            continue
        if section in ("Errors", "Warnings"):
            head = _BLOCK_HEAD.match(line.rstrip())
            if head:
                current = RasIssue(section, head.group(3), head.group(1))
                ras.issues.append(current)
            elif line.startswith("  ") and current is not None:
                current.lines.append(line.strip())
    return ras
