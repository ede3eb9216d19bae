"""The first failing line of each rank, host and process, for the cross-rank timeline.

"Who failed first" is how engineers read a multi-rank failure: the rank whose process died
at 10:31 explains the ranks that timed out at 10:41. The scan keeps, per rank, per host and
per (host, pid) of a line without a rank, the earliest FAIL or WARN line on each clock the
lines carry: a full timestamp, the year-less glog clock of PyTorch's C++ and Python logs,
and, for lines with neither, the position in the input. Which clock the timeline draws is
the report's choice; the scan only keeps one line per identity and clock (bounded memory).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hyperpod_nccl.model import Status
from hyperpod_nccl.rules.attribution import event_clock, glog_text, iso
from hyperpod_nccl.rules.occurrences import Occurrence, time_key

MAX_IDENTITIES = 65536
MAX_TEXT = 300
COUNTED = (Status.FAIL, Status.WARN)
# A line no rule classifies says little about who failed first next to the classified ones
# (PyTorch's "taking the entire process down" follows the timeout it reports).
UNCOUNTED_CODES = frozenset({"UNCLASSIFIED_FAILURE"})
Identity = tuple[Any, ...]


@dataclass
class FirstError:
    code: str
    status: Status
    occurrence: Occurrence
    kind: str  # "time", "glog" or "order"
    glog: float | None = None
    pid: int | None = None

    def value(self) -> Any:
        if self.kind == "time":
            return time_key(self.occurrence.timestamp)
        if self.kind == "glog":
            return self.glog
        return self.occurrence.order  # read at comparison: a parallel merge renumbers it


@dataclass
class FirstErrors:
    slots: dict[Identity, dict[str, FirstError]] = field(default_factory=dict)

    def add(self, code: str, status: Status, occ: Occurrence, pid: int | None = None) -> None:
        if status not in COUNTED or code in UNCOUNTED_CODES:
            return
        if occ.timestamp is not None:
            first = FirstError(code, status, occ, "time", pid=pid)
        else:
            clock = event_clock(occ.text)
            kind = "glog" if clock is not None else "order"
            first = FirstError(code, status, occ, kind, glog=clock, pid=pid)
        for identity in _identities(occ, pid):
            self._keep(identity, first)

    def _keep(self, identity: Identity, first: FirstError) -> None:
        slot = self.slots.get(identity)
        if slot is None:
            if len(self.slots) >= MAX_IDENTITIES:
                return
            slot = self.slots[identity] = {}
        held = slot.get(first.kind)
        if held is None or first.value() < held.value():
            slot[first.kind] = first

    def merge(self, later: FirstErrors) -> None:
        for identity, slot in later.slots.items():
            for first in slot.values():
                self._keep(identity, first)

    def occurrences(self) -> list[Occurrence]:
        return [f.occurrence for slot in self.slots.values() for f in slot.values()]

    def events(self, comm_ranks: dict[tuple[str, int, int], int]) -> list[dict[str, Any]]:
        """The JSON form (report summary `timeline`): one event per identity and clock.
        A process line without a rank counts for the rank that process initialised."""
        by_pid = {(h, pid): r for (h, pid, _dev), r in comm_ranks.items()}
        host_of: dict[int, str] = {}
        for (comm_host, _pid, _dev), comm_rank in comm_ranks.items():
            host_of.setdefault(comm_rank, comm_host)
        merged = FirstErrors()
        for identity, slot in self.slots.items():
            target = identity
            if identity[0] == "proc":
                owner = by_pid.get((identity[1], identity[2]))
                if owner is None:
                    continue
                target = ("rank", owner)
            for first in slot.values():
                merged._keep(target, first)
        # Positions as ranks among the events kept: the raw order of a parallel scan carries
        # per-worker offsets, its rank among these lines is the same as a serial scan's.
        orders = sorted(
            {f.occurrence.order for slot in merged.slots.values() for f in slot.values()}
        )
        position = {order: index for index, order in enumerate(orders)}
        out = []
        for identity, slot in sorted(merged.slots.items(), key=lambda kv: _sort_key(kv[0])):
            rank: int | None = identity[1] if identity[0] == "rank" else None
            for kind in ("time", "glog", "order"):
                found = slot.get(kind)
                if found is None:
                    continue
                first = found
                occ = first.occurrence
                host: str | None = (
                    identity[1]
                    if identity[0] == "host"
                    else (occ.host or (host_of.get(rank) if rank is not None else None))
                )
                text = occ.text.strip()
                out.append(
                    {
                        "rank": rank,
                        "host": host,
                        "code": first.code,
                        "status": first.status.value,
                        "time": iso(occ.timestamp) if kind == "time" else None,
                        "clock": glog_text(first.glog) if first.glog is not None else None,
                        "order": position[occ.order],
                        "source": f"{occ.source}:{occ.line_no}",
                        "text": text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 3] + "...",
                    }
                )
        return out


def _identities(occ: Occurrence, pid: int | None) -> list[Identity]:
    found: list[Identity] = []
    if occ.rank is not None:
        found.append(("rank", occ.rank))
    if occ.host is not None:
        found.append(("host", occ.host))
        process = occ.pid if occ.pid is not None else pid
        if occ.rank is None and process is not None:
            found.append(("proc", occ.host, process))
    return found


def _sort_key(identity: Identity) -> tuple[int, int, str]:
    if identity[0] == "rank":
        return (0, int(identity[1]), "")
    return (1, 0, str(identity[1]))
