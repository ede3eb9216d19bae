"""PyTorch Flight Recorder dumps: load them safely and read each rank's progress per group.

With ``TORCH_NCCL_TRACE_BUFFER_SIZE`` set, ProcessGroupNCCL keeps its recent collectives and
each rank writes them to ``<TORCH_NCCL_DEBUG_INFO_TEMP_FILE><rank>`` on a timeout
(debugging-guide.md#stalled-ranks). The file is a pickle written by libtorch's C++ pickler:
plain dicts, lists, tuples, strings and numbers, with containers wrapped in
``torch.jit._pickle.restore_type_tag(value, type)``. Recent releases can also dump JSON with
the same keys (numbers in ``pg_status`` then are strings).

A pickle can run code when loaded, so dumps are read with an unpickler that resolves no
global except libtorch's container tags, which it turns into the plain value. The rank is the
number at the end of the file name, as PyTorch's own analyzer reads it.
"""

from __future__ import annotations

import ast
import io
import json
import pickle
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

PICKLE_PROTOCOL_MARK = 0x80
_RANK_SUFFIX = re.compile(r"(\d+)(?:\.(?:pkl|pickle|json))?$")


class UnreadableDump(Exception):
    """The file is not a flight recorder dump we can read; the message says why."""


def _identity(value: Any, *_: Any) -> Any:
    return value


# The only globals a libtorch pickle of plain data refers to; each returns its first argument.
_ALLOWED_GLOBALS: dict[tuple[str, str], Callable[..., Any]] = {
    ("torch.jit._pickle", name): _identity
    for name in (
        "restore_type_tag",
        "build_intlist",
        "build_doublelist",
        "build_boollist",
        "build_tensorlist",
    )
}


class _PlainDataUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        allowed = _ALLOWED_GLOBALS.get((module, name))
        if allowed is None:
            raise UnreadableDump(
                f"the pickle refers to {module}.{name}; a flight recorder dump holds only plain "
                "data, so it was not loaded"
            )
        return allowed


def looks_like_pickle(head: bytes) -> bool:
    return len(head) >= 2 and head[0] == PICKLE_PROTOCOL_MARK and 2 <= head[1] <= 5


def load_dump(data: bytes) -> dict[str, Any]:
    """Decode one dump (pickle or JSON) into a dict; raise UnreadableDump with the reason."""
    if looks_like_pickle(data[:2]):
        try:
            value = _PlainDataUnpickler(io.BytesIO(data)).load()
        except UnreadableDump:
            raise
        except Exception as exc:  # a damaged pickle raises many kinds of errors
            raise UnreadableDump(f"damaged pickle ({type(exc).__name__}: {exc})") from exc
    else:
        text = data.decode("utf-8", errors="replace")
        try:
            value = json.loads(text)
        except ValueError as exc:
            value = _printed_dump(text)
            if value is None:
                raise UnreadableDump(f"not JSON and not a pickle ({exc})") from exc
    if not isinstance(value, dict) or not is_dump(value):
        raise UnreadableDump(
            "no 'entries', 'pg_config' or 'pg_status' keys: not a flight recorder dump"
        )
    return value


MAX_PRINTED_DUMP_CHARS = 64 * 1024 * 1024


def _printed_dump(text: str) -> Any:
    """A dump as Python prints it after unpickling (tuples, None) or as PyTorch's tutorial shows
    it (JSON-like with tuples and `...` elisions). ast.literal_eval evaluates literals only."""
    if len(text) > MAX_PRINTED_DUMP_CHARS or ("entries" not in text and "pg_status" not in text):
        return None
    cleaned = re.sub(r",\s*\.\.\.(?=\s*[\]}])", "", text)
    cleaned = re.sub(r"\bnull\b", "None", cleaned)
    cleaned = re.sub(r"\btrue\b", "True", cleaned)
    cleaned = re.sub(r"\bfalse\b", "False", cleaned)
    try:
        return ast.literal_eval(cleaned)
    except (ValueError, SyntaxError, RecursionError, MemoryError, TypeError):
        return None


def is_dump(value: dict[str, Any]) -> bool:
    return "version" in value and any(k in value for k in ("entries", "pg_status", "pg_config"))


def rank_from_name(name: str) -> int | None:
    m = _RANK_SUFFIX.search(name.rsplit("/", 1)[-1])
    return int(m.group(1)) if m else None


@dataclass
class GroupState:
    """One rank's view of one process group in its dump."""

    pg: str  # process group name as pg_config keys it ("0", "1", ...)
    desc: str
    ranks: list[int]  # global ranks in the group, from pg_config
    last_enqueued: int | None
    last_started: int | None
    last_completed: int | None
    ops: dict[int, str] = field(default_factory=dict)  # collective_seq_id -> profiling name
    states: dict[int, str] = field(default_factory=dict)  # collective_seq_id -> entry state
    last_created_ns: int | None = None

    @property
    def last_seq(self) -> int | None:
        """The last collective this rank reached (enqueued), from the status and the entries."""
        values = [v for v in (self.last_enqueued, max(self.ops, default=None)) if v is not None]
        return max(values) if values else None


def _int(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _ranks(value: Any) -> list[int]:
    if isinstance(value, list):
        return [int(v) for v in value if _int(v) is not None]
    if isinstance(value, str):
        return [int(v) for v in re.findall(r"-?\d+", value)]
    return []


def _mapping(value: Any) -> dict[str, Any]:
    return {str(k): v for k, v in value.items()} if isinstance(value, dict) else {}


def group_states(dump: dict[str, Any]) -> list[GroupState]:
    """Per process group: status counters and the collectives recorded (p2p excluded).

    Groups are keyed by pg id (``pg_status`` keys and each entry's ``pg_id``). ``pg_config`` is
    keyed by group name and, in some builds, by an empty name shared by every group (seen in
    real torch 2.14 Gloo dumps); its member list is used when the name matches, or when it holds
    a single group.
    """
    config = _mapping(dump.get("pg_config"))
    status = _mapping(dump.get("pg_status"))
    groups: dict[str, GroupState] = {}

    def group(pg: str) -> GroupState:
        if pg not in groups:
            groups[pg] = GroupState(
                pg=pg, desc="", ranks=[], last_enqueued=None, last_started=None, last_completed=None
            )
        return groups[pg]

    for pg, st in status.items():
        if isinstance(st, dict):
            g = group(str(pg))
            g.last_enqueued = _int(st.get("last_enqueued_collective"))
            g.last_started = _int(st.get("last_started_collective"))
            g.last_completed = _int(st.get("last_completed_collective"))
    names: dict[str, str] = {}
    entries = dump.get("entries")
    for entry in entries if isinstance(entries, list) else []:
        if not isinstance(entry, dict) or entry.get("is_p2p"):
            continue
        pg_name = entry.get("process_group")
        name, desc = (
            (str(pg_name[0]), str(pg_name[1]))
            if isinstance(pg_name, (list, tuple)) and len(pg_name) == 2
            else ("", "")
        )
        pg = str(entry["pg_id"]) if _int(entry.get("pg_id")) is not None else name
        seq = _int(entry.get("collective_seq_id"))
        if not pg or seq is None or seq <= 0:
            continue
        g = group(pg)
        names[pg] = name
        g.desc = g.desc or desc
        g.ops[seq] = str(entry.get("profiling_name", "?"))
        g.states[seq] = str(entry.get("state", "?"))
        created = _int(entry.get("time_created_ns"))
        if created is not None and (g.last_created_ns is None or created > g.last_created_ns):
            g.last_created_ns = created
    only = next(iter(config.values())) if len(config) == 1 else None
    for pg, g in groups.items():
        cfg = config.get(names.get(pg, pg)) or config.get(pg) or only
        if isinstance(cfg, dict):
            g.ranks = _ranks(cfg.get("ranks"))
            g.desc = g.desc or str(cfg.get("desc") or "")
    return [g for g in groups.values() if g.last_seq is not None]
