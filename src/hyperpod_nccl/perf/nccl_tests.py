"""Parse nccl-tests text output (any collective, old and new layouts) into Runs.

One input may hold several runs (a loop of tests, a pair sweep in one log), launcher prefixes,
NCCL INFO lines and error messages. Lines are fed one at a time, so inputs of any size are
read in one pass with memory bounded by the number of result rows.

Layouts handled: the column header names the fields (`time algbw busbw #wrong`, the older
`error` column, `cputime`, per-iteration columns `i_min ... i_cv%`, a trailing timestamp),
with or without the `root` column, and with extra leading columns a user added (for example a
node count). Without a header the standard layout is assumed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from hyperpod_nccl.perf import failures
from hyperpod_nccl.perf.model import Device, Measurement, Row, Run, RunError
from hyperpod_nccl.perf.prefixes import drop_inline_tags, strip_prefixes
from hyperpod_nccl.perf.summary import parse_summary_line

_DEVICE = re.compile(
    r"^#\s*Rank\s+(?P<rank>\d+)\s+(?:Group\s+(?P<group>\d+)\s+)?(?:Pid\s+(?P<pid>\d+)\s+)?"
    r"on\s+(?P<host>\S+)\s+device\s+(?P<dev>\d+)\s+\[(?P<bus>[^\]]*)\]\s*(?P<gpu>.*?)\s*$"
)
_TESTS_VERSION = re.compile(r"^#\s*nccl-tests version (?P<v>\S+)")
_COLLECTIVE_START = re.compile(r"^#\s*Collective test (?:starting|concluded):\s*(?P<bin>\S+)")
_PARAMS_LINE = re.compile(r"^#\s*nThread\s+\d+")
_PARAM = re.compile(
    r"(?P<key>nThread|nGpus|minBytes|maxBytes|warmup iters:|agg iters:|iters:|validation:|graph:)"
    r"\s*(?P<value>-?\d+)"
)
_NCCL_VERSION = re.compile(r"NCCL version (?P<v>\d+\.\d+\.\d+\S*)")
_BINARY = re.compile(r"\b(?P<name>[a-z][a-z0-9_]*?)_perf(?:_mpi)?\b")
_OUT_OF_BOUNDS = re.compile(r"^#\s*Out of bounds values\s*:\s*(?P<n>\d+)\s*(?P<verdict>OK|FAILED)?")
_AVG_BUSBW = re.compile(
    r"^#\s*Avg bus bandwidth\s*:\s*(?P<v>[-+\d.eE]+|nan|inf)\s*(?P<verdict>OK|FAILED)?"
)
_INT = re.compile(r"^-?\d+$")
_REDOP = re.compile(r"^[a-z]+$")
# NCCL INFO lines that name the network transport (NET/OFI is the aws-ofi-nccl plugin: EFA).
_TRANSPORTS = (
    (
        "efa",
        (
            "NET/OFI",
            "AWS Libfabric",
            "Using network Libfabric",
            "via NET/Libfabric",
            "Selected provider is efa",
        ),
    ),
    ("socket", ("Using network Socket", "via NET/Socket", "NET/Socket : Using")),
    ("ib", ("Using network IB", "via NET/IB", "NET/IB : Using")),
)
TRANSPORTS = _TRANSPORTS  # for perf/fastread.py, which looks for the same words
# Only these NCCL INFO lines matter here; the rest of NCCL_DEBUG=INFO output is skipped unread.
_USEFUL_INFO = ("NCCL version", "NET/", "Using network", "provider is")
_USEFUL_INFO_RE = re.compile("|".join(map(re.escape, _USEFUL_INFO)))
_TIME_NAMES = ("time", "cputime")
_PREAMBLE = ("size", "count", "type", "redop", "root")
_DEFAULT_HALF = ["time", "algbw", "busbw", "#wrong"]
_TYPES = re.compile(r"^[a-z]+\d*$|^[a-z]+\d*_[a-z0-9]+$")  # float, half, bfloat16, int8, f8e4m3...


@dataclass
class _Layout:
    """Where the fields of a result row are, from the column header."""

    labels: list[str]  # extra leading columns before `size`
    has_root: bool
    half: list[str]  # field names of one (out-of-place or in-place) half
    plan: _HalfPlan | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.plan = _half_plan(self.half)

    @classmethod
    def from_header(cls, names: list[str]) -> _Layout | None:
        if "size" not in names:
            return None
        start = names.index("size")
        labels = names[:start]
        rest = names[start:]
        has_root = "root" in rest[:5]
        body = rest[5:] if has_root else rest[4:]
        starts = [i for i, n in enumerate(body) if n in _TIME_NAMES]
        if not starts:
            return None
        width = (starts[1] - starts[0]) if len(starts) > 1 else len(body)
        return cls(labels, has_root, body[starts[0] : starts[0] + width])


@dataclass
class _Stream:
    """The runs of one output stream (one launcher label, or the whole input)."""

    source: str
    label: str
    runs: list[Run] = field(default_factory=list)
    current: Run | None = None
    layout: _Layout | None = None
    last_binary: str | None = None  # from the last command line that named an nccl-tests binary
    pending_version: str | None = None
    skipped: list[int] = field(default_factory=list)  # row-like lines that could not be read
    pending_errors: list[RunError] = field(default_factory=list)
    # The ranks of `current` that printed a device line, kept with the run they are of.
    _ranks_of: tuple[Run | None, set[int]] = field(
        default_factory=lambda: (None, set()), repr=False
    )

    def _ranks(self, run: Run) -> set[int]:
        of, ranks = self._ranks_of
        if of is not run:
            ranks = {d.rank for d in run.devices}
            self._ranks_of = (run, ranks)
        return ranks

    def _new_run(self, line: int) -> Run:
        if self.current is not None:
            self._close()
        run = Run(source=self.source, start_line=line, stream=self.label)
        run.errors, self.pending_errors = self.pending_errors, []
        if self.last_binary:
            run.collective, run.collective_from = self.last_binary, "command line"
        if self.pending_version:
            run.nccl_version = self.pending_version
        self.current = run
        self.layout = None
        return run

    def _run(self, line: int) -> Run:
        return self.current if self.current is not None else self._new_run(line)

    def _close(self) -> None:
        if self.current is not None:
            self.runs.append(self.current)
            self.current = None

    def _starts_new(self) -> bool:
        """A header line after rows or a footer means the next run has begun."""
        run = self.current
        return run is not None and (bool(run.rows) or run.has_footer)

    def feed(self, n: int, body: str) -> None:
        if not body:
            return
        if body.startswith("nThread "):
            body = "# " + body  # old nccl-tests printed the parameter line without its `#`
        if body[0] == "#":
            self._comment(n, body)
        elif body[0].isdigit() or (body[0] == "-" and body[1:2].isdigit()):
            self._row(n, body)
        else:
            self._other(n, body)
        if self.current is not None:
            self.current.end_line = n

    def _comment(self, n: int, body: str) -> None:
        m = _DEVICE.match(body)
        if m:
            rank_text, group, pid, host, dev, bus, gpu = m.groups()
            rank = int(rank_text)
            run = self.current
            if run is None or self._starts_new() or rank in self._ranks(run):
                run = self._new_run(n)
            run.devices.append(
                Device(
                    rank,
                    host,
                    int(pid) if pid else None,
                    int(group) if group else None,
                    int(dev),
                    bus,
                    gpu,
                )
            )
            self._ranks(run).add(rank)
            return
        if _PARAMS_LINE.match(body):
            run = self._new_run(n) if self._starts_new() or self._has_params() else self._run(n)
            for p in _PARAM.finditer(body):
                run.params[p["key"].rstrip(":").replace(" ", "_")] = int(p["value"])
            return
        m = _TESTS_VERSION.match(body)
        if m:
            run = self._new_run(n) if self._starts_new() or self._has_params() else self._run(n)
            run.tests_version = m["v"]
            return
        m = _COLLECTIVE_START.match(body)
        if m:
            if "starting" in body:
                run = self._new_run(n) if self._starts_new() else self._run(n)
                name = _binary_name(m["bin"])
                if name:
                    run.collective, run.collective_from = name, "nccl-tests header"
            return
        m = _OUT_OF_BOUNDS.match(body)
        if m and self.current is not None:
            self.current.out_of_bounds = int(m["n"])
            self.current.out_of_bounds_ok = m["verdict"] != "FAILED" if m["verdict"] else None
            return
        m = _AVG_BUSBW.match(body)
        if m and self.current is not None:
            try:
                self.current.avg_busbw = float(m["v"])
            except ValueError:
                self.current.avg_busbw = 0.0
            self.current.avg_busbw_failed = m["verdict"] == "FAILED"
            return
        names = _column_names(body)
        if names is not None:
            layout = _Layout.from_header(names)
            if layout is not None:
                run = self._new_run(n) if self._starts_new() else self._run(n)
                run.columns = names
                self.layout = layout
            return
        failure = failures.classify(body)
        if failure is not None:
            self._error(n, body, failure)

    def _has_params(self) -> bool:
        return self.current is not None and bool(self.current.params)

    def _row(self, n: int, body: str) -> None:
        tokens = drop_inline_tags(body).split()
        parsed = _parse_row(tokens, self.layout, n, body)
        if parsed is None:
            in_table = self.current is not None and bool(self.current.rows or self.current.columns)
            if in_table and parse_summary_line(body) is None:
                self.skipped.append(n)
            return
        run = self._run(n)
        if run.summary_busbw is not None or run.has_footer:
            run = self._new_run(n)
        labels, row = parsed
        if labels and run.rows and labels != run.labels:
            # A table whose extra leading column changes value holds one run per value.
            layout, columns = self.layout, run.columns
            run = self._new_run(n)
            self.layout, run.columns = layout, columns
        if labels:
            run.labels = labels
        if run.rows and _out_of_order(run.rows, row):
            run.interleaved = True
        run.rows.append(row)

    def _other(self, n: int, body: str) -> None:
        if " NCCL INFO " in body:
            self._nccl_info(n, body)  # by far the most common line in NCCL_DEBUG=INFO output
            return
        names = _column_names(body) if "size" in body or "bytes" in body else None
        if names is not None:
            # A column header without its `#` (a table someone pasted or assembled).
            layout = _Layout.from_header(names)
            if layout is not None:
                run = self._new_run(n) if self._starts_new() else self._run(n)
                run.columns = names
                self.layout = layout
                return
        summary = parse_summary_line(body)
        if summary is not None and (self.current is None or not self.current.rows):
            hosts, value = summary
            run = self._new_run(n)
            run.summary_hosts, run.summary_busbw = hosts, value
            run.collective, run.collective_from = "summary", "pair-sweep summary line"
            self._close()
            return
        if "_perf" in body:
            m = _BINARY.search(body)
            name = _binary_name(m.group(0)) if m else None
            if name:
                self.last_binary = name
                if (
                    self.current is not None
                    and not self.current.rows
                    and self.current.collective == "unknown"
                ):
                    self.current.collective, self.current.collective_from = name, "command line"
        if "NCCL version" in body:
            self._nccl_info(n, body)
        failure = failures.classify(body)
        if failure is not None:
            self._error(n, body, failure)

    def _nccl_info(self, n: int, body: str) -> None:
        """The NCCL version and the network transport, from NCCL INFO lines."""
        if "NCCL version" in body:
            m = _NCCL_VERSION.search(body)
            if m:
                self.pending_version = m["v"]
                if self.current is not None and self.current.nccl_version is None:
                    self.current.nccl_version = m["v"]
        if "NET/" in body or "Using network" in body or "provider is" in body:
            known = self.current.transports if self.current is not None else set()
            for transport, needles in _TRANSPORTS:
                if transport not in known and any(needle in body for needle in needles):
                    self._run(n).transports.add(transport)

    def _error(self, n: int, body: str, failure: failures.FailureLine) -> None:
        error = RunError(failure.kind, body.strip()[:500], n, failure.host)
        if self.current is None and not failure.own and not self.last_binary:
            # A generic error with no nccl-tests run around it (yet): keep it for the next run.
            if len(self.pending_errors) < 200:
                self.pending_errors.append(error)
            return
        run = self._run(n)
        if len(run.errors) < 200:  # a crash can print the same error from every rank
            run.errors.append(error)

    def finish(self) -> list[Run]:
        self._close()
        if self.pending_errors and self.last_binary:
            # Launch errors printed around an nccl-tests command line that never started a run.
            self._new_run(self.pending_errors[0].line)
            self._close()
        return [r for r in self.runs if _worth_reporting(r)]


def _worth_reporting(run: Run) -> bool:
    """A run is anything that shows nccl-tests ran or tried to: not a stray error alone."""
    return bool(
        run.rows
        or run.devices
        or run.params
        or run.has_footer
        or run.summary_busbw is not None
        or run.tests_version
        or run.columns
        or (run.errors and any(e.kind != "nccl-warn" for e in run.errors))
    )


# Below this, nccl-tests can print the same size twice (counts round down to the same value).
_MIN_DISTINCT_BYTES = 1024 * 1024


def _out_of_order(rows: list[Row], row: Row) -> bool:
    """Rows of one table grow in size. Going back to the first size is a new cycle (`-N`);
    any other step back, or the same large size twice in a row, means two tables mixed."""
    previous = rows[-1]
    if row.size < previous.size:
        return row.size != rows[0].size
    same_kind = (row.dtype, row.redop, row.root) == (previous.dtype, previous.redop, previous.root)
    return row.size == previous.size and row.size >= _MIN_DISTINCT_BYTES and same_kind


def _binary_name(text: str) -> str | None:
    m = _BINARY.search(text)
    if not m:
        return None
    name = m["name"].rsplit("/", 1)[-1]
    return name if name in KNOWN_COLLECTIVES else None


KNOWN_COLLECTIVES = {
    "all_reduce",
    "all_gather",
    "reduce_scatter",
    "alltoall",
    "alltoallv",
    "broadcast",
    "reduce",
    "sendrecv",
    "gather",
    "scatter",
    "hypercube",
}


# Column names of the oldest nccl-tests layout (NCCL 1.x era), and what they are called now.
_OLD_NAMES = {"bytes": "size", "N": "count", "op": "redop", "res": "error"}


def _column_names(body: str) -> list[str] | None:
    """The field names of a column header line, or None when the line is not one."""
    text = body.lstrip("#").split()
    if "bytes" in text and "size" not in text:
        text = [_OLD_NAMES.get(t, t) for t in text]
    if "size" not in text or "count" not in text or not any(t in text for t in _TIME_NAMES):
        return None
    return text


def _number(token: str) -> float | None:
    try:
        return float(token)
    except ValueError:
        return None


# Where a half's time, cputime, algbw, busbw and #wrong are among its tokens (_ABSENT where
# it has none), worked out once per layout; None when a name is there twice (then the values
# are looked up by name, as dict(zip(names, tokens)) holds them).
_HalfPlan = tuple[int, int, int, int, int]
_ABSENT = 1 << 30
_HALF_NAMES = ("time", "cputime", "algbw", "busbw", "#wrong")


def _half_plan(names: list[str]) -> _HalfPlan | None:
    if len(set(names)) != len(names):
        return None
    t, ct, a, b, w = (names.index(k) if k in names else _ABSENT for k in _HALF_NAMES)
    return t, ct, a, b, w


_DEFAULT_PLAN = _half_plan(_DEFAULT_HALF)


def _half(tokens: list[str], names: list[str], plan: _HalfPlan | None) -> Measurement | None:
    if plan is None:
        values = dict(zip(names, tokens, strict=False))  # a cut row has fewer tokens
        time_text = values.get("time", values.get("cputime", ""))
        algbw_text, busbw_text = values.get("algbw", ""), values.get("busbw", "")
        wrong_text = values.get("#wrong")
    else:
        k = len(tokens)  # a cut row has fewer tokens than names
        t, ct, a, b, w = plan
        time_text = tokens[t] if t < k else tokens[ct] if ct < k else ""
        algbw_text = tokens[a] if a < k else ""
        busbw_text = tokens[b] if b < k else ""
        wrong_text = tokens[w] if w < k else None
    time, algbw, busbw = _number(time_text), _number(algbw_text), _number(busbw_text)
    if time is None or algbw is None or busbw is None:
        return None
    wrong = _number(wrong_text) if wrong_text is not None else None
    if wrong is not None and wrong != int(wrong):
        wrong = None  # a fraction is an old-style maximum error, not a count of wrong values
    return Measurement(time, algbw, busbw, wrong)


def _parse_row(
    tokens: list[str], layout: _Layout | None, n: int, body: str
) -> tuple[dict[str, str], Row] | None:
    """One result row, with the values of any extra leading columns; None if it is not one."""
    if layout is not None:
        skip = len(layout.labels)
        has_root = layout.has_root
        half, plan = layout.half, layout.plan
    else:
        found = _leading_labels(tokens)
        if found is None:
            return None
        skip = found
        has_root = None
        half, plan = _DEFAULT_HALF, _DEFAULT_PLAN
    head = tokens[skip : skip + 4]
    if len(head) < 4 or not (_INT.match(head[0]) and _INT.match(head[1])):
        return None
    if not _TYPES.match(head[2]) or not _REDOP.match(head[3]):
        return None
    rest = tokens[skip + 4 :]
    if has_root is None:
        # Without a header: a root column is there when the rest splits into root + halves.
        has_root = bool(rest) and _INT.match(rest[0]) is not None and len(rest) % len(half) == 1
    root = None
    if has_root:
        if not rest or not _INT.match(rest[0]):
            return None
        root = int(rest[0])
        rest = rest[1:]
    width = len(half)
    halves = [rest[i : i + width] for i in range(0, min(len(rest), 2 * width), width)]
    measured = [_half(h, half, plan) for h in halves if len(h) >= 3]
    if not measured or measured[0] is None:
        return None
    out_of_place: Measurement | None = measured[0]
    in_place = measured[1] if len(measured) > 1 else None
    if len(measured) == 1 and len(halves) == 1:
        # Trace replay prints only the in-place half.
        out_of_place, in_place = None, measured[0]
    labels = {name: tokens[i] for i, name in enumerate(layout.labels)} if layout else {}
    if not layout and skip:
        labels = {f"column{i + 1}": tokens[i] for i in range(skip)}
    row = Row(
        size=int(head[0]),
        count=int(head[1]),
        dtype=head[2],
        redop=head[3],
        root=root,
        out_of_place=out_of_place,
        in_place=in_place,
        line=n,
        text=body.strip()[:300],
    )
    return labels, row


def _leading_labels(tokens: list[str]) -> int | None:
    """How many extra columns precede `size` in a row read without a header (0 to 2)."""
    for skip in range(3):
        window = tokens[skip : skip + 3]
        if (
            len(window) == 3
            and _INT.match(window[0])
            and _INT.match(window[1])
            and _TYPES.match(window[2])
        ):
            return skip
    return None


class TextParser:
    """Feed the lines of one input; `finish()` returns its runs.

    Lines carrying a launcher label go to a stream per label. When more than one label prints
    a result table, each label is an independent run (interleaved output of several tasks);
    otherwise every label belongs to the one job, and errors printed by other tasks are
    attached to the run that was in progress when they were printed.
    """

    def __init__(self, source: str) -> None:
        self.source = source
        self.streams: dict[str, _Stream] = {}
        self.lines = 0

    def feed(self, n: int, line: str) -> None:
        self.lines = n
        if " NCCL INFO " in line and _USEFUL_INFO_RE.search(line) is None:
            return
        stripped = strip_prefixes(line)
        self.feed_peeled(n, stripped.label, stripped.body)

    def feed_peeled(self, n: int, label: str, body: str) -> None:
        """A line that is not an NCCL INFO line, its prefixes already peeled off."""
        self.lines = n
        stream = self.streams.get(label)
        if stream is None:
            stream = self.streams[label] = _Stream(self.source, label)
        stream.feed(n, body)

    def feed_net(self, n: int, label: str, named: frozenset[str]) -> bool:
        """An NCCL INFO line with a network word, from task `label`, whose body is plain NCCL
        INFO text that names the transports `named` (perf/fastread.py found all this). When
        feeding it would only mark the end of the run in progress, do that and return True;
        else return False, and it is to be fed whole."""
        stream = self.streams.get(label)
        if stream is None:
            return False  # its stream starts here
        run = stream.current
        if run is None:
            return not named  # nothing to add a transport to, and none to add
        if not named <= run.transports:
            return False
        run.end_line = n
        self.lines = n
        return True

    def feed_all(self, lines: Iterable[str]) -> None:
        for n, line in enumerate(lines, 1):
            self.feed(n, line)

    @property
    def skipped_lines(self) -> list[int]:
        return sorted(n for s in self.streams.values() for n in s.skipped)

    def finish(self) -> list[Run]:
        per_stream = {label: s.finish() for label, s in self.streams.items()}
        with_tables = [
            label for label, runs in per_stream.items() if any(r.rows or r.columns for r in runs)
        ]
        if len(with_tables) > 1:
            runs = [r for runs in per_stream.values() for r in runs]
            for label in per_stream:
                if label not in with_tables:
                    _attach_orphans(per_stream[label], runs)
            return sorted(
                (r for r in runs if r.stream in with_tables or _has_substance(r)),
                key=lambda r: r.start_line,
            )
        main_label = (
            with_tables[0]
            if with_tables
            else max(per_stream, key=lambda k: len(per_stream[k]), default="")
        )
        main = per_stream.get(main_label, [])
        for label, runs in per_stream.items():
            if label != main_label:
                _attach_orphans(runs, main)
                main.extend(r for r in runs if _has_substance(r) and not _is_orphan(r))
        for run in main:
            run.stream = ""
        return sorted(main, key=lambda r: r.start_line)


def _has_substance(run: Run) -> bool:
    return bool(
        run.rows or run.devices or run.params or run.has_footer or run.summary_busbw is not None
    )


def _is_orphan(run: Run) -> bool:
    """A run made only of error lines printed by another task."""
    return not _has_substance(run) and not run.columns and not run.tests_version


def _attach_orphans(orphans: list[Run], targets: list[Run]) -> None:
    """Give error lines printed by other tasks to the run in progress at that line."""
    if not targets:
        return
    ordered = sorted(targets, key=lambda r: r.start_line)
    for orphan in orphans:
        if not _is_orphan(orphan):
            continue
        for error in orphan.errors:
            target = ordered[0]
            for run in ordered:
                if run.start_line <= error.line:
                    target = run
            if len(target.errors) < 200:
                target.errors.append(error)
        for transport in orphan.transports:
            for run in ordered:
                run.transports.add(transport)
