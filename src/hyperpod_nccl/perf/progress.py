"""Per-rank progress in a live or hung job: which ranks did not reach which collective.

Three kinds of evidence, each read per communicator or process group:

- ``NCCL_DEBUG=INFO`` with ``NCCL_DEBUG_SUBSYS=COLL`` (typically one ``NCCL_DEBUG_FILE`` per
  process): NCCL logs every collective as it is enqueued, with the communicator's operation
  counter (``AllReduce: opCount 139e ... comm 0x... [nranks=128]``). The last opCount of each
  process is how far it got. Init lines (``comm 0x... rank 3 nranks 8 ... Init COMPLETE``)
  give the rank of each communicator.
- PyTorch Flight Recorder dumps (flight_recorder.py): per process group, the last collective
  sequence number enqueued, started and completed, and the recent entries.
- The text output of PyTorch's analyzer (``torchfrtrace`` / ``fr_trace``: ``Not all ranks
  joining collective ... missing ranks: {1}``) and of the TorchComms collectives table.

Findings use STALLED_RANKS with the meaning the ``logs`` command gives it (WARN, P1, ``ranks``
= the ranks that fell behind, ``details`` with ``seq`` and ``op``), and NCCL_INVALID_USAGE when
ranks disagree on which collective a sequence number is (a mismatch that hangs the job).
"""

from __future__ import annotations

import gzip
import io
import re
import zlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from itertools import repeat
from operator import itemgetter
from typing import Any

from hyperpod_nccl.inputs import UnreadableInput, expand
from hyperpod_nccl.model import Basis, Evidence, Finding, NotChecked, Priority, Status
from hyperpod_nccl.perf import flight_recorder
from hyperpod_nccl.perf.evidence import reference
from hyperpod_nccl.perf.reader import Content, open_content
from hyperpod_nccl.rules.titles import format_hosts, format_ranks

_COLL = re.compile(
    r"(?P<host>[\w.-]+):(?P<pid>\d+):(?P<tid>\d+) \[(?P<dev>\d+)\] NCCL INFO "
    r"(?P<op>[A-Za-z]+): opCount (?P<opcount>[0-9a-fA-F]+)\b(?P<rest>.*)"
)
# `\bcomm `, written to start with its word so that the regex engine can skip to it.
_COMM = re.compile(r"comm(?<!\wcomm) (?P<comm>0x[0-9a-fA-F]+)")
_NRANKS = re.compile(r"\[nranks=(?P<n>\d+)\]")
# A whole COLL line as NCCL prints it (enqueue.cc: "%s: opCount %lx sendbuff %p recvbuff %p
# count %zu datatype %d op %d root %d comm %p [nranks=%d] stream %p"), nothing before the host:
# for such a line _coll's three regexes find what these groups hold (host, pid, dev, op,
# opCount, comm, nranks; the match at the line's start), since the `\w+` values can hold no
# space, `[` or `/` (so no other `comm 0x`, `[nranks=`, nor any word TextParser keeps an NCCL
# INFO line for). perf/fastread.py finds them in a whole chunk and hands them to feed_coll_rows.
COLL_ROW = re.compile(
    rb"^([\w.-]+:\d+:\d+ \[\d+\]) NCCL INFO ([A-Za-z]+): opCount ([0-9a-fA-F]+) "
    rb"sendbuff \w+ recvbuff \w+ count \w+ datatype \w+ op \w+ root \w+ "
    rb"(comm 0x[0-9a-fA-F]+ \[nranks=\d+\]) stream \w+\n",
    re.MULTILINE,
)
# Its groups: who (`host:pid:tid [dev]`), op, opCount, and `comm 0x... [nranks=N]`; the first
# and the last are the same for many rows, so they are taken apart once per distinct pair.
_WHO = re.compile(rb"([\w.-]+):(\d+):\d+ \[(\d+)\]")
_COMM_SIZE = re.compile(rb"comm (0x[0-9a-fA-F]+) \[nranks=(\d+)\]")
_WHO_COMM = itemgetter(0, 3)
_INIT = re.compile(
    r"(?P<host>[\w.-]+):(?P<pid>\d+):\d+ \[\d+\] NCCL INFO .*?\bcomm (?P<comm>0x[0-9a-fA-F]+) "
    r"rank (?P<rank>\d+) nranks (?P<n>\d+)\b.*?(?:commId (?P<commid>0x[0-9a-fA-F]+))?.*Init (?:COMPLETE|START)"
)
_STAMP = re.compile(r"(\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?)")
_NOT_JOINING = re.compile(
    r"Not all ranks joining collective,?\s*(?:sequence number:\s*)?(?P<seq>\d+)(?:\s+at entry\s+(?P<entry>\d+))?"
)
# ProcessGroupNCCL watchdog lines: per rank, the last work enqueued and completed, and the
# collective that timed out (the `logs` command reports STALLED_RANKS from these already).
_WATCHDOG_PROGRESS = re.compile(
    r"\[PG (?:ID )?(?P<pg>\d+)(?: PG GUID (?P<guid>[^\s\]]+))? Rank (?P<rank>\d+)\].*?"
    r"last enqueued NCCL work: (?P<enqueued>\d+), last completed NCCL work: (?P<completed>\d+)"
)
_WATCHDOG_TIMEOUT = re.compile(
    r"\[Rank (?P<rank>\d+)\] Watchdog caught collective operation timeout: "
    r"WorkNCCL\(SeqNum=(?P<seq>\d+), OpType=(?P<op>\w+)"
)
_DESYNC = re.compile(
    r"\[(?P<rank>\d+)\] finished collective #(?P<done>\d+), but didn't join collective #(?P<seq>\d+)"
)
_FR_FIELD = re.compile(
    r"^\s*(?P<key>group info|collective|missing ranks|world size|expected ranks|collective state):\s*(?P<value>.*)$"
)
_TORCHCOMMS_ROW = re.compile(
    r"^\s*\d+\s+(?P<group>\S+)\s+(?:True|False)\s+(?P<seq>\d+)\s+(?P<op>\S+:\S+)\s+(?P<state>\w+)\s+\{(?P<missing>[\d,\s]+)\}"
)
MAX_EVIDENCE = 6
MAX_OPS_KEPT = 64  # recent ops per member, enough to spot a mismatch near the hang


@dataclass
class Member:
    """One rank (or one process, when its rank is unknown) in one communicator or group."""

    group: str
    label: str  # `rank 3`, or `host:pid [dev]` when the rank is unknown
    rank: int | None
    host: str | None
    last_seq: int
    last_op: str
    kind: str  # nccl-coll, flight-recorder
    evidence: Evidence
    last_completed: int | None = None
    last_time: str | None = None
    ops: dict[int, str] = field(default_factory=dict)

    @property
    def seq_text(self) -> str:
        """How the sequence number is written where it comes from: NCCL's opCount is hex."""
        return f"opCount 0x{self.last_seq:x}" if self.kind == "nccl-coll" else f"#{self.last_seq}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "group": self.group,
            "member": self.label,
            "rank": self.rank,
            "host": self.host,
            "last_seq": self.last_seq,
            "last_seq_text": self.seq_text,
            "last_op": self.last_op,
            "last_completed": self.last_completed,
            "last_time": self.last_time,
            "source": self.evidence.source,
            "kind": self.kind,
        }


@dataclass
class Group:
    key: str
    label: str
    kind: str
    size: int | None = None
    expected_ranks: list[int] = field(default_factory=list)
    members: dict[str, Member] = field(default_factory=dict)
    seq_format: str = "dec"  # hex for NCCL opCount

    def seq_text(self, seq: int) -> str:
        return f"opCount 0x{seq:x}" if self.seq_format == "hex" else f"#{seq}"


@dataclass
class ProgressResult:
    findings: list[Finding] = field(default_factory=list)
    members: list[Member] = field(default_factory=list)
    not_checked: list[NotChecked] = field(default_factory=list)
    inputs_with_progress: list[str] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        return {"members": [m.to_dict() for m in self.members]}


_CommKey = tuple[str, int, str]  # host, pid, comm pointer


@dataclass(frozen=True)
class _CollLine:
    op: str
    opcount: int
    device: int
    source: str
    text: str
    stamp: str | None
    line: int


# A COLL line as read: op, opCount, device, source, the line, where the match starts, line number.
_CollRead = tuple[str, int, int, str, str, int, int]


def _coll_line(read: _CollRead) -> _CollLine:
    op, opcount, device, source, line, start, n = read
    stamp = _STAMP.search(line[:start])
    return _CollLine(
        op, opcount, device, source, line.strip()[:300], stamp.group(1) if stamp else None, n
    )


def _coll_match(line: str) -> re.Match[str] | None:
    """_COLL.search(line), started close to the first " NCCL INFO " instead of at 0. A match
    ends its `host:pid:tid [dev]` at one of them, and the part from `host` on holds exactly one
    space; so none starts before the space that comes before the last space before the first
    one, and searching from there finds the same leftmost match."""
    i = line.find(" NCCL INFO ")
    if i < 0:
        return None
    space = line.rfind(" ", 0, i)
    start = line.rfind(" ", 0, space) + 1 if space > 0 else 0
    return _COLL.search(line, start)


def _parts(pattern: re.Pattern[bytes], text: bytes) -> tuple[bytes, ...]:
    """The groups of a COLL_ROW group that `pattern` takes apart (it always matches)."""
    m = pattern.fullmatch(text)
    if m is None:
        raise ValueError(f"not a COLL_ROW part: {text!r}")
    return m.groups()


def _keep_recent(ops: dict[int, str]) -> dict[int, str]:
    """Keep the MAX_OPS_KEPT highest opCounts. Pruning a member's ops only now and then gives
    the same as dropping the lowest at every line: an opCount once out of the highest never
    comes back into them, and one in them was never dropped."""
    if len(ops) > MAX_OPS_KEPT:
        for seq in sorted(ops)[: len(ops) - MAX_OPS_KEPT]:
            del ops[seq]
    return ops


@dataclass
class _Process:
    """NCCL debug state of one process (host, pid): its communicators."""

    comm_ranks: dict[str, tuple[int, int, str | None]] = field(
        default_factory=dict
    )  # comm -> rank, n, commId
    comm_order: dict[tuple[int, str], int] = field(default_factory=dict)  # (n, comm) -> ordinal


class ProgressCollector:
    """Feed lines and dumps; `result()` compares members of each group."""

    def __init__(self) -> None:
        self.groups: dict[str, Group] = {}
        self.processes: dict[tuple[str, int], _Process] = {}
        # Per (host, pid, comm): the last COLL line, the recent ops by opCount, and nranks.
        self.coll_last: dict[_CommKey, _CollRead] = {}
        self.coll_ops: dict[_CommKey, dict[int, str]] = {}
        self.coll_nranks: dict[_CommKey, int] = {}
        self.analyzer_reports: list[Finding] = []
        self.watchdog_ops: dict[tuple[int, int], str] = {}  # (rank, SeqNum) -> OpType
        self._fr_block: dict[str, Any] | None = None
        self.sources: set[str] = set()

    # ---- text -------------------------------------------------------------------------
    def feed(self, source: str, n: int, line: str) -> None:
        if "opCount" in line:
            self._coll(source, n, line)
        elif "Init " in line and "nranks" in line:
            self._init(line)
        elif "Not all ranks joining" in line or self._fr_block is not None:
            self._fr_trace(source, n, line)
        elif "didn't join collective" in line:
            self._desync(source, n, line)
        elif "NCCL work" in line or "Watchdog caught" in line:
            self._watchdog(source, n, line)
        elif "{" in line and ":" in line and "missing" not in line:
            self._torchcomms_row(source, n, line)

    def idle(self) -> bool:
        """No analyzer block is open: a line none of feed()'s words are in changes nothing."""
        return self._fr_block is None

    def feed_lines(self, source: str, lines: Iterable[str]) -> None:
        for n, line in enumerate(lines, 1):
            self.feed(source, n, line)
        self._flush_fr_block()

    def _coll(self, source: str, n: int, line: str) -> None:
        m = _coll_match(line)
        if not m:
            return
        host, pid, dev, op, hex_count, rest = m.group("host", "pid", "dev", "op", "opcount", "rest")
        comm_m = _COMM.search(rest)
        n_m = _NRANKS.search(rest)
        comm = comm_m["comm"] if comm_m else "?"
        # A cut line (no `[nranks=...]`) is resolved at the end to the most common size seen.
        nranks = int(n_m["n"]) if n_m else 0
        opcount = int(hex_count, 16)
        process = (host, int(pid))
        key = (host, process[1], comm)
        # Kept as read; made into a _CollLine (time stamp and all) only for the last line.
        self.coll_last[key] = (op, opcount, int(dev), source, line, m.start(), n)
        if self.coll_nranks.get(key) != nranks:  # else its (nranks, comm) is in comm_order
            proc = self.processes.get(process)
            if proc is None:
                proc = self.processes[process] = _Process()
            order_key = (nranks, comm)
            if order_key not in proc.comm_order:
                proc.comm_order[order_key] = sum(1 for k in proc.comm_order if k[0] == nranks)
            self.coll_nranks[key] = nranks
        self.sources.add(source)
        ops = self.coll_ops.get(key)
        if ops is None:
            ops = self.coll_ops[key] = {}
        ops[opcount] = op
        if len(ops) > 2 * MAX_OPS_KEPT:
            _keep_recent(ops)

    def feed_coll_rows(
        self,
        source: str,
        rows: Sequence[tuple[bytes, ...]],
        numbers: Sequence[int],
        text: Callable[[int], bytes],
    ) -> None:
        """COLL_ROW's groups of whole lines, in input order: what _coll does line by line, done
        for all at once. Row i is line numbers[i], and text(i) that line without its end. The
        caller sees to it that no other line among them reaches _coll, so only their order
        among themselves counts; a dictionary built from them in that order keeps what the
        last line of a key wrote, in the order the keys first came, as _coll's do."""
        if not rows:
            return
        # Each distinct (who, comm) once: its key (host, pid, comm) as _coll spells it (the
        # pid an int, so that "07" and "7" are one process), nranks and device; keys numbered.
        pairs = {pair: i for i, pair in enumerate(dict.fromkeys(map(_WHO_COMM, rows)))}
        number_of: dict[_CommKey, int] = {}
        key_of: list[int] = []  # by pair number
        spelled: list[tuple[int, int]] = []  # nranks and device, by pair number
        for who, comm_size in pairs:
            host_b, pid_b, dev_b = _parts(_WHO, who)
            comm_b, size_b = _parts(_COMM_SIZE, comm_size)
            spelled_key = (host_b.decode(), int(pid_b), comm_b.decode())
            key_of.append(number_of.setdefault(spelled_key, len(number_of)))
            spelled.append((int(size_b), int(dev_b)))
        keys = list(number_of)
        pair_ids = list(map(pairs.__getitem__, map(_WHO_COMM, rows)))
        ids = list(map(key_of.__getitem__, pair_ids))
        # Each (process, nranks, comm) gets its ordinal where it first appears, as in _coll.
        for pair in pairs.values():
            host, pid, comm = keys[key_of[pair]]
            size = spelled[pair][0]
            proc = self.processes.get((host, pid))
            if proc is None:
                proc = self.processes[(host, pid)] = _Process()
            if (size, comm) not in proc.comm_order:
                proc.comm_order[(size, comm)] = sum(1 for k in proc.comm_order if k[0] == size)
        last = dict(zip(ids, range(len(rows)), strict=True))  # each key's last row
        coll_ops = self.coll_ops
        for i, row in last.items():
            key = keys[i]
            size, dev = spelled[pair_ids[row]]
            _, op, hex_count, _ = rows[row]
            line = text(row).decode("ascii") + "\n"  # as _coll has it
            self.coll_last[key] = (
                op.decode(),
                int(hex_count, 16),
                dev,
                source,
                line,
                0,
                numbers[row],
            )
            self.coll_nranks[key] = size
            if key not in coll_ops:
                coll_ops[key] = {}
        ops_of = [coll_ops[key] for key in keys]
        op_names = {op: op.decode() for op in set(map(itemgetter(1), rows))}
        counts = map(int, map(itemgetter(2), rows), repeat(16))
        named = map(op_names.__getitem__, map(itemgetter(1), rows))
        # As _coll writes them, row by row; pruned at the end, which keeps the same most
        # recent ones (see _keep_recent).
        for i, opcount, op in zip(ids, counts, named, strict=True):
            ops_of[i][opcount] = op
        for ops in ops_of:
            if len(ops) > 2 * MAX_OPS_KEPT:
                _keep_recent(ops)
        self.sources.add(source)

    def _init(self, line: str) -> None:
        m = _INIT.search(line)
        if not m:
            return
        proc = self.processes.setdefault((m["host"], int(m["pid"])), _Process())
        proc.comm_ranks[m["comm"]] = (int(m["rank"]), int(m["n"]), m["commid"])

    def _fr_trace(self, source: str, n: int, line: str) -> None:
        m = _NOT_JOINING.search(line)
        if m:
            self._flush_fr_block()
            self._fr_block = {"seq": int(m["seq"]), "source": f"{source}:{n}", "text": line.strip()}
            return
        if self._fr_block is None:
            return
        f = _FR_FIELD.match(line)
        if f:
            self._fr_block[f["key"]] = f["value"].strip()
        elif not line.strip() or (not line.startswith((" ", "\t")) and ":" not in line):
            self._flush_fr_block()

    def _flush_fr_block(self) -> None:
        block, self._fr_block = self._fr_block, None
        if not block or "missing ranks" not in block:
            return
        missing = [int(r) for r in re.findall(r"\d+", block["missing ranks"])]
        op = block.get("collective")
        group = block.get("group info", "")
        self.analyzer_reports.append(
            _stalled_from_analyzer(
                missing, block["seq"], op, group, block["source"], block["text"], "fr-trace"
            )
        )
        self.sources.add(block["source"].rsplit(":", 1)[0])

    def _watchdog(self, source: str, n: int, line: str) -> None:
        m = _WATCHDOG_TIMEOUT.search(line)
        if m:
            self.watchdog_ops[(int(m["rank"]), int(m["seq"]))] = m["op"]
            return
        m = _WATCHDOG_PROGRESS.search(line)
        if not m:
            return
        rank, enqueued = int(m["rank"]), int(m["enqueued"])
        key = f"watchdog:{m['pg']}"
        label = f"process group {m['pg']}" + (f" ({m['guid']})" if m["guid"] else "")
        group = self.groups.setdefault(key, Group(key, label, "watchdog"))
        group.members[f"rank {rank}"] = Member(
            group=label,
            label=f"rank {rank}",
            rank=rank,
            host=None,
            last_seq=enqueued,
            last_op="?",
            kind="watchdog",
            evidence=Evidence(f"{source}:{n}", line.strip()[:300]),
            last_completed=int(m["completed"]),
        )
        self.sources.add(source)

    def _desync(self, source: str, n: int, line: str) -> None:
        m = _DESYNC.search(line)
        if not m:
            return
        self.analyzer_reports.append(
            _stalled_from_analyzer(
                [int(m["rank"])],
                int(m["seq"]),
                None,
                "",
                f"{source}:{n}",
                line.strip(),
                "desync-report",
            )
        )
        self.sources.add(source)

    def _torchcomms_row(self, source: str, n: int, line: str) -> None:
        m = _TORCHCOMMS_ROW.match(line)
        if not m:
            return
        missing = [int(r) for r in re.findall(r"\d+", m["missing"])]
        self.analyzer_reports.append(
            _stalled_from_analyzer(
                missing,
                int(m["seq"]),
                m["op"],
                m["group"],
                f"{source}:{n}",
                line.strip(),
                "torchcomms-fr",
            )
        )
        self.sources.add(source)

    # ---- flight recorder dumps --------------------------------------------------------
    def add_dump(self, source: str, dump: dict[str, Any]) -> None:
        rank = flight_recorder.rank_from_name(source)
        if rank is None and flight_recorder._int(dump.get("rank")) is not None:
            rank = int(dump["rank"])
        host = str(dump["hostname"]) if dump.get("hostname") else None
        for g in flight_recorder.group_states(dump):
            key = f"fr:{g.pg}"
            label = f"process group {g.pg}" + (
                f" ({g.desc})" if g.desc and g.desc != "undefined" else ""
            )
            group = self.groups.setdefault(key, Group(key, label, "flight-recorder"))
            if g.ranks:
                group.expected_ranks = sorted(set(group.expected_ranks) | set(g.ranks))
                group.size = len(group.expected_ranks)
            last = g.last_seq
            if last is None:
                continue
            member_label = f"rank {rank}" if rank is not None else source
            stamp = _ns_to_iso(g.last_created_ns)
            group.members[member_label] = Member(
                group=label,
                label=member_label,
                rank=rank,
                host=host,
                last_seq=last,
                last_op=g.ops.get(last, "?"),
                kind="flight-recorder",
                evidence=Evidence(
                    source,
                    f"pg {g.pg}: last enqueued {g.last_enqueued}, started {g.last_started}, "
                    f"completed {g.last_completed}; entries up to #{max(g.ops, default=0)}",
                ),
                last_completed=g.last_completed,
                last_time=stamp,
                ops=dict(g.ops),
            )
        self.sources.add(source)

    # ---- analysis ---------------------------------------------------------------------
    def _name_watchdog_ops(self) -> None:
        """A watchdog member's last op is the one that timed out, when it is the last enqueued."""
        for group in self.groups.values():
            if group.kind != "watchdog":
                continue
            for m in group.members.values():
                op = self.watchdog_ops.get((m.rank or 0, m.last_seq))
                if op is None:
                    timed_out = [s for (r, s) in self.watchdog_ops if r == m.rank]
                    if timed_out:
                        m.last_op = f"(timed out in {self.watchdog_ops[(m.rank or 0, max(timed_out))]} #{max(timed_out)})"
                else:
                    m.last_op = op

    def _coll_groups(self) -> None:
        sizes = [n for n in self.coll_nranks.values() if n]
        usual = max(set(sizes), key=sizes.count) if sizes else 0
        for key, read in self.coll_last.items():
            host, pid, comm = key
            last = _coll_line(read)
            proc = self.processes.get((host, pid), _Process())
            nranks = self.coll_nranks.get(key, 0) or usual
            known = proc.comm_ranks.get(comm)
            rank = known[0] if known else None
            if known and known[2]:
                gkey, glabel = f"coll:{known[2]}", f"communicator {known[2]} ({nranks} ranks)"
            else:
                ordinal = proc.comm_order.get((self.coll_nranks.get(key, 0), comm), 0)
                gkey = f"coll:n{nranks}:{ordinal}"
                glabel = f"NCCL communicator of {nranks} ranks" + (
                    f" (#{ordinal + 1})" if ordinal else ""
                )
            group = self.groups.setdefault(
                gkey, Group(gkey, glabel, "nccl-coll", size=nranks or None, seq_format="hex")
            )
            label = f"rank {rank}" if rank is not None else f"{host}:{pid} [{last.device}]"
            group.members[label] = Member(
                group=glabel,
                label=label,
                rank=rank,
                host=host,
                last_seq=last.opcount,
                last_op=last.op,
                kind="nccl-coll",
                evidence=Evidence(f"{last.source}:{last.line}", last.text),
                last_time=last.stamp,
                ops=_keep_recent(dict(self.coll_ops.get(key, {}))),
            )

    def result(self, watchdog_findings: bool = True) -> ProgressResult:
        """Compare the members of each group. With watchdog_findings False, watchdog lines only
        feed the per-rank view (for callers that report them already, like `logs`)."""
        self._flush_fr_block()
        self._coll_groups()
        self._name_watchdog_ops()
        out = ProgressResult(findings=list(self.analyzer_reports))
        for group in self.groups.values():
            out.members.extend(sorted(group.members.values(), key=_member_order))
            if group.kind != "watchdog" or watchdog_findings:
                out.findings.extend(_group_findings(group))
        if any(f.status is not Status.INFO for f in out.findings):
            # "Everyone reached the same collective" for one group is noise next to a stall in another.
            out.findings = [f for f in out.findings if f.status is not Status.INFO]
        out.inputs_with_progress = sorted(self.sources)
        return out


def _member_order(m: Member) -> tuple[int, str]:
    return (m.rank if m.rank is not None else 1 << 30, m.label)


def _ns_to_iso(ns: int | None) -> str | None:
    if not ns:
        return None
    try:
        return datetime.fromtimestamp(ns / 1e9, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    except (OverflowError, OSError, ValueError):
        return None


def _stalled_from_analyzer(
    missing: list[int], seq: int, op: str | None, group: str, source: str, text: str, kind: str
) -> Finding:
    op_text = f"{op} " if op else ""
    return Finding(
        code="STALLED_RANKS",
        status=Status.WARN,
        priority=Priority.P1,
        title=f"{format_ranks(missing)} did not join collective {op_text}#{seq}"
        + (f" in group {group}" if group else "")
        + _ANALYZER_NAMES.get(kind, ""),
        reference=reference("STALLED_RANKS"),
        ranks=missing,
        evidence=[Evidence(source, text)],
        details={"seq": seq, "op": op, "group": group, "source": kind, "behind_ranks": missing},
    )


_ANALYZER_NAMES = {
    "fr-trace": " (from the flight recorder analyzer)",
    "torchcomms-fr": " (from the TorchComms flight recorder table)",
    "desync-report": " (from ProcessGroupNCCL's desync report)",
}


def _group_findings(group: Group) -> list[Finding]:
    members = list(group.members.values())
    if not members:
        return []
    findings: list[Finding] = []
    mismatch = _mismatch(group)
    if mismatch is not None:
        findings.append(mismatch)
    target = max(m.last_seq for m in members)
    leaders = [m for m in members if m.last_seq == target]
    behind = sorted((m for m in members if m.last_seq < target), key=_member_order)
    known_op = next((m.last_op for m in leaders if not m.last_op.startswith(("?", "("))), None)
    op = known_op or "collective"
    seen_ranks = {m.rank for m in members if m.rank is not None}
    silent = [r for r in group.expected_ranks if r not in seen_ranks]
    unseen = (group.size - len(members)) if group.size and group.size > len(members) else 0
    details: dict[str, Any] = {
        "seq": target,
        "op": op,
        "group": group.label,
        "source": group.kind,
        "world_size": group.size,
        "behind": [
            {
                "member": m.label,
                "rank": m.rank,
                "host": m.host,
                "last_seq": m.last_seq,
                "last_op": m.last_op,
            }
            for m in behind
        ],
        "behind_ranks": [m.rank for m in behind if m.rank is not None],
        "reached": [m.label for m in leaders],
        "silent_ranks": silent,
        "members_without_evidence": unseen,
    }
    completed = [m.last_completed for m in members if m.last_completed is not None]
    if completed:
        details["stuck_seq"] = min(completed) + 1
    where = group.label
    missing_note = ""
    if unseen:
        missing_note = f"; {unseen} of {group.size} ranks have no evidence here"
    if behind:
        names = _names(behind)
        if len(behind) == 1:
            lagging = f"it last reached {behind[0].last_op} {group.seq_text(behind[0].last_seq)}"
        else:
            lagging = (
                "last reached: "
                + ", ".join(f"{m.label} {group.seq_text(m.last_seq)}" for m in behind[:4])
                + (" ..." if len(behind) > 4 else "")
            )
        title = (
            f"{names} did not reach {op} {group.seq_text(target)} in {where}, which "
            f"{len(leaders)} other member(s) reached ({lagging}){missing_note}"
        )
        status = Status.WARN
    elif silent:
        title = (
            f"{format_ranks(silent)} left no record in {where}; the {len(members)} member(s) that did all "
            f"reached {op} {group.seq_text(target)}"
        )
        status = Status.WARN
    else:
        title = f"all {len(members)} member(s) of {where} with evidence reached {op} {group.seq_text(target)}{missing_note}"
        status = Status.INFO
    ranks = [m.rank for m in behind if m.rank is not None] + silent
    hosts = sorted({m.host for m in behind if m.host})
    evidence = [m.evidence for m in behind[:MAX_EVIDENCE]] + [m.evidence for m in leaders[:2]]
    findings.append(
        Finding(
            code="STALLED_RANKS",
            status=status,
            priority=Priority.P1,
            title=title,
            reference=reference("STALLED_RANKS"),
            ranks=sorted(set(ranks)),
            hosts=hosts,
            first_seen=min((m.last_time for m in behind if m.last_time), default=None),
            evidence=evidence[:MAX_EVIDENCE],
            details=details,
            # NCCL COLL traces end wherever the log was cut, so a rank behind in them is a
            # lead, not a failure; a dump or a watchdog line was written because it hung.
            basis=Basis(roles=frozenset({"cause" if group.kind != "nccl-coll" else "symptom"})),
        )
    )
    return findings


def _names(members: Sequence[Member]) -> str:
    ranks = [m.rank for m in members if m.rank is not None]
    others = [m.label for m in members if m.rank is None]
    parts = [format_ranks(ranks)] if ranks else []
    if others:
        parts.append(
            ", ".join(others[:4]) + (f" (+{len(others) - 4} more)" if len(others) > 4 else "")
        )
    hosts = sorted({m.host for m in members if m.host and m.rank is not None})
    text = " and ".join(parts)
    return text + (f" on {format_hosts(hosts)}" if hosts else "")


def _mismatch(group: Group) -> Finding | None:
    """Members that ran different collectives under the same sequence number."""
    by_seq: dict[int, dict[str, list[Member]]] = {}
    for m in group.members.values():
        for seq, op in m.ops.items():
            by_seq.setdefault(seq, {}).setdefault(op, []).append(m)
    clashes = {seq: ops for seq, ops in by_seq.items() if len(ops) > 1}
    if not clashes:
        return None
    seq = min(clashes)
    ops = clashes[seq]
    parts = [f"{op} on {', '.join(m.label for m in ms[:4])}" for op, ms in sorted(ops.items())]
    involved = [m for ms in ops.values() for m in ms]
    minority = min(ops.values(), key=len)
    return Finding(
        code="NCCL_INVALID_USAGE",
        status=Status.FAIL,
        priority=Priority.P0,
        title=f"ranks disagree on collective {group.seq_text(seq)} in {group.label}: "
        + "; ".join(parts),
        reference=reference("NCCL_INVALID_USAGE"),
        ranks=sorted({m.rank for m in minority if m.rank is not None}),
        hosts=sorted({m.host for m in minority if m.host}),
        evidence=[m.evidence for m in involved[:MAX_EVIDENCE]],
        details={
            "seq": seq,
            "group": group.label,
            "ops": {op: [m.label for m in ms] for op, ms in ops.items()},
            "source": group.kind,
        },
    )


def analyze_progress(paths: Sequence[str], watchdog_findings: bool = True) -> ProgressResult:
    """Read NCCL COLL logs, flight recorder dumps and analyzer output from files, directories,
    .gz files or `-`, and report ranks that fell behind."""
    inputs, problems = expand(paths)
    collector = ProgressCollector()
    for item in inputs:
        try:
            with open_content(item) as content:
                read_into(collector, item.name, content)
        except UnreadableInput as exc:
            problems.append(NotChecked(item.name, str(exc)))
        except (OSError, *_DAMAGED) as exc:
            problems.append(NotChecked(item.name, f"could not be read in full ({exc})"))
    result = collector.result(watchdog_findings)
    result.not_checked.extend(problems)
    return result


def progress_findings(paths: Sequence[str]) -> list[Finding]:
    """STALLED_RANKS (and NCCL_INVALID_USAGE for mismatched collectives) for the given inputs.

    For the `logs` command: an input with no per-rank progress evidence adds nothing, and
    watchdog lines add nothing either, since `logs` reports STALLED_RANKS from them itself.
    """
    return analyze_progress(paths, watchdog_findings=False).findings


def read_into(collector: ProgressCollector, name: str, content: Content) -> bool:
    """Feed one input; True when it was a flight recorder dump (consumed whole)."""
    if content.kind in ("pickle", "json"):
        try:
            collector.add_dump(name, flight_recorder.load_dump(content.data))
            return True
        except flight_recorder.UnreadableDump as exc:
            if content.kind == "pickle":
                raise UnreadableInput(str(exc)) from exc
        collector.feed_lines(name, io.StringIO(content.data.decode("utf-8", errors="replace")))
        return False
    if content.lines is not None:
        collector.feed_lines(name, content.lines)
    return False


# What a damaged .gz input raises part way through.
_DAMAGED = (EOFError, gzip.BadGzipFile, zlib.error)
