"""Read a plain-text perf input in big chunks and hand on only the lines that can matter.

The line-by-line reader (`safeio.bounded_lines` into `TextParser.feed` and
`ProgressCollector.feed`) decodes every line and peels its prefixes with two regex matches.
Most lines of NCCL_DEBUG=INFO output do nothing there: an NCCL INFO line that names neither
the network nor the NCCL version, nor holds a progress word (opCount, nranks, ...), is
dropped unread by both, and one that names the network only marks where the run in progress
ends once its transport is known. Here each chunk is split at C speed, and what to do with a
line is decided once per distinct line with its digits made 0 (no prefix pattern and no word
looked for tells digits apart, so such lines are alike to both readers): drop it; hand an
NCCL INFO line naming the network to `TextParser.feed_net` with its label and the transports
it names; give a COLL line to the collector alone; hand any other line on with its prefixes'
end already known (`TextParser.feed_peeled`); or decode and feed it whole as the line reader
does, with the same line number.

COLL lines as NCCL prints them (progress.COLL_ROW, from the line's start) are found in the
whole chunk with one regex and handed to `ProgressCollector.feed_coll_rows` together, when no
other line of the chunk holds "opCount" (then no other line touches what they write, and they
can be read after the others): a COLL trace is mostly such lines.

The result is the same as feeding every line (tests/perf/test_fast_read.py compares them on
the fixtures and on generated variants). Where a chunk holds what the line-by-line reader
treats specially (a carriage return, a line near safeio.MAX_LINE_BYTES), that chunk goes
through the line-by-line reader itself; so does everything after a line longer than a chunk.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, BinaryIO

from hyperpod_nccl.perf.nccl_tests import TRANSPORTS, TextParser
from hyperpod_nccl.perf.prefixes import peel
from hyperpod_nccl.perf.progress import COLL_ROW, ProgressCollector
from hyperpod_nccl.safeio import MAX_LINE_BYTES, bounded_lines

CHUNK_BYTES = 4 * 1024 * 1024
INFO = b" NCCL INFO "
# What makes an NCCL INFO line matter. TextParser drops one without any of _USEFUL_INFO
# (nccl_tests.py); ProgressCollector.feed looks at a line only with one of its words (a
# superset here: `nranks` for `Init ... nranks`, `{` for a TorchComms row). None of these has a
# digit, so a line with its digits made 0 holds the same ones; and none can start in a
# line's start and end in the " NCCL INFO " after it, so the two are searched apart.
_NET_WORDS = (b"NET/", b"Using network", b"provider is")
_VERSION = b"NCCL version"
_PROGRESS_WORDS = (
    b"opCount",
    b"nranks",
    b"{",
    b"Not all ranks joining",
    b"didn't join collective",
    b"NCCL work",
    b"Watchdog caught",
)
_NET, _VERSION_WORD, _PROGRESS = 1, 2, 4  # what a line start or message holds
_TRANSPORT_WORDS = tuple((name, tuple(w.encode() for w in words)) for name, words in TRANSPORTS)
_ZEROS = bytes.maketrans(b"123456789", b"000000000")
MAX_CACHED = 1 << 16  # distinct lines (digits made 0) remembered; past that, looked at each time


# What the part of an NCCL INFO line before " NCCL INFO " holds and says, as a tuple (read
# once per line): its words; whether its body is ordinary NCCL INFO text (not a comment, a
# row, or cut short); where the label is; and, in the part of it that is in the body,
# whether there is a network word and which transports are named.
_Start = tuple[int, bool, int, int, bool, frozenset[str]]


def _words(text: bytes) -> int:
    kind = _NET if any(w in text for w in _NET_WORDS) else 0
    if _VERSION in text:
        kind |= _VERSION_WORD
    if any(w in text for w in _PROGRESS_WORDS):
        kind |= _PROGRESS
    return kind


def _transports(text: bytes) -> frozenset[str]:
    return frozenset(name for name, words in _TRANSPORT_WORDS if any(w in text for w in words))


def _start(zeroed: bytes) -> _Start:
    kind = _words(zeroed)
    if not zeroed.isascii():  # label positions would be characters, not bytes: read it whole
        return (kind | _VERSION_WORD, False, 0, 0, False, frozenset())
    probe = zeroed.decode("ascii") + INFO.decode()
    pos, start, end = peel(probe)
    body_at = len(probe) - len(probe[pos:].lstrip())
    body = probe[body_at:]
    # Like _Stream.feed: a body that is a comment, a row or a parameter line is parsed as one,
    # and one that starts at "NCCL INFO" (its space taken with the prefixes) is not a plain
    # NCCL INFO line there.
    plain = (
        body_at < len(zeroed)
        and body[0] not in "#0"
        and not (body[0] == "-" and body[1:2] == "0")
        and not body.startswith("nThread ")
    )
    in_body = zeroed[body_at:]
    return (kind, plain, start, end, bool(_words(in_body) & _NET), _transports(in_body))


# What to do with a line, from the line with its digits made 0: drop it, feed it whole, or
# (an NCCL INFO line naming the network) hand TextParser its label and the transports named.
# A line that is not an NCCL INFO line is handed on peeled (the prefixes' end is the last).
_DROP, _WHOLE, _NET_LINE, _PEELED, _PROGRESS_ONLY = 0, 1, 2, 3, 4
_Action = tuple[int, int, int, frozenset[str], int]  # what, label start, end, transports, pos
_FEED_WHOLE: _Action = (_WHOLE, 0, 0, frozenset(), 0)
_TO_PROGRESS: _Action = (_PROGRESS_ONLY, 0, 0, frozenset(), 0)


def _action(zeroed: bytes) -> _Action:
    i = zeroed.find(INFO)
    if i < 0:
        if not zeroed.isascii():
            return _FEED_WHOLE
        # Prefixes are told apart by character classes only, so they end at the same place.
        pos, start, end = peel(zeroed.decode("ascii"))
        return (_PEELED, start, end, frozenset(), pos)
    kind, plain, start, end, net, in_start = _start(zeroed[:i])
    message = zeroed[i:]
    words = _words(message)
    if not kind | words:
        return (_DROP, 0, 0, frozenset(), 0)  # dropped unread by both
    if (kind | words) == _PROGRESS:
        return _TO_PROGRESS  # TextParser drops it unread
    if kind | words != _NET or not plain:
        return _FEED_WHOLE
    # TextParser looks for transports only in a body with a network word.
    named = in_start | _transports(message) if net or words else frozenset()
    return (_NET_LINE, start, end, named, 0)


class _Prepended(io.RawIOBase):
    """`head` and then the rest of `stream`: to hand what was read back to the line reader."""

    def __init__(self, head: bytes, stream: BinaryIO) -> None:
        self._head = head
        self._stream = stream

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self._head:
            n = min(len(buffer), len(self._head))
            memoryview(buffer)[:n] = self._head[:n]
            self._head = self._head[n:]
            return n
        data = self._stream.read(len(buffer))
        memoryview(buffer)[: len(data)] = data
        return len(data)


@dataclass
class Counts:
    lines: int = 0
    chars: int = 0  # of the decoded text, as the line reader counts it


def _chunks(stream: BinaryIO, size: int) -> Iterator[tuple[bytes, bool]]:
    """(data, whole): data ends at a line end or the end of input. whole=False: the rest is
    one line longer than a chunk and what follows it, left to the line reader."""
    pending = b""  # the start of a line, after the last line end read; never a line end
    while True:
        data = stream.read(size)
        if not data:
            if pending:
                yield pending, True
            return
        cut = data.rfind(b"\n") + 1
        if cut:  # one copy of what is read at most (of its lines, after a line's start)
            if pending:
                yield b"".join((pending, memoryview(data)[:cut])), True
            else:
                yield (data if cut == len(data) else data[:cut]), True
            pending = data[cut:]
        else:
            pending += data
            if len(pending) > 2 * size:
                yield pending, False
                return


class FastReader:
    """Feed one text input to a TextParser and a ProgressCollector, chunk by chunk."""

    def __init__(
        self,
        name: str,
        parser: TextParser,
        collector: ProgressCollector,
        chunk_bytes: int = CHUNK_BYTES,
    ) -> None:
        self.name = name
        self.chunk_bytes = chunk_bytes
        self.parser = parser
        self.collector = collector
        self.counts = Counts()
        self._actions: dict[bytes, _Action] = {}  # by line, digits made 0
        self._interned: dict[_Action, _Action] = {}  # one object for equal actions

    def read(self, stream: BinaryIO) -> Counts:
        for data, whole in _chunks(stream, self.chunk_bytes):
            if not whole:
                rest = io.BufferedReader(_Prepended(data, stream))
                self.read_lines(bounded_lines(rest))
                break
            self._chunk(data)
        self.parser.lines = self.counts.lines
        return self.counts

    def read_lines(self, lines: Iterable[str]) -> Counts:
        """The line-by-line reader: feed every line (of `safeio.bounded_lines`) to both."""
        self._feed_lines(lines)
        return self.counts

    def _feed_lines(self, lines: Iterable[str]) -> None:
        parser, collector, name = self.parser, self.collector, self.name
        n = self.counts.lines
        for line in lines:
            n += 1
            self.counts.chars += len(line)
            parser.feed(n, line)
            collector.feed(name, n, line)
            self.counts.lines = n

    def _chunk(self, data: bytes) -> None:
        lines = data.split(b"\n")
        last = lines.pop()  # b"" after a final line end; else a last line without one
        if (
            b"\r" in data
            or max(map(len, lines), default=0) >= MAX_LINE_BYTES - 1
            or (len(last) >= MAX_LINE_BYTES - 1)
        ):
            self._feed_lines(bounded_lines(io.BytesIO(data)))  # as the line reader reads it
            return
        self.counts.chars += len(data) if data.isascii() else len(data.decode("utf-8", "replace"))
        # Whole COLL lines are read in bulk when no other line of the chunk reaches the
        # collector's COLL reading (a row holds "opCount" once): then they can be read after the
        # other lines. When every line is one, their line numbers follow from the first.
        if b": opCount " in data:
            n, opcounts = self.counts.lines, data.count(b"opCount")
            if opcounts == len(lines) and not last:
                rows = COLL_ROW.findall(data)
                if len(rows) == len(lines):
                    self.collector.feed_coll_rows(
                        self.name, rows, range(n + 1, n + 1 + len(rows)), lines.__getitem__
                    )
                    self.counts.lines = n + len(rows)
                    return
            else:
                matches = list(COLL_ROW.finditer(data))
                if matches and len(matches) == opcounts:
                    self._with_coll_rows(data, matches)
                    return
        self._last_line(last, self._lines(lines, self.counts.lines))

    def _with_coll_rows(self, data: bytes, rows: list[re.Match[bytes]]) -> None:
        """The lines between the COLL rows one by one, then the rows in bulk."""
        numbers: list[int] = []
        n, pos = self.counts.lines, 0
        for row in rows:
            start = row.start()
            if start != pos:  # data[pos:start] is whole lines, each ending in a line end
                n = self._lines(data[pos:start].split(b"\n")[:-1], n)
            n += 1
            numbers.append(n)
            pos = row.end()
        lines = data[pos:].split(b"\n")
        last = lines.pop()
        n = self._lines(lines, n)
        self.collector.feed_coll_rows(
            self.name, [r.groups() for r in rows], numbers, lambda i: rows[i].group()[:-1]
        )
        self._last_line(last, n)

    def _last_line(self, last: bytes, n: int) -> None:
        if last:  # the input's last line, without a line end
            n += 1
            line = last.decode("utf-8", "replace")
            self.parser.feed(n, line)
            self.collector.feed(self.name, n, line)
        self.counts.lines = n

    def _lines(self, lines: list[bytes], n: int) -> int:
        """Feed whole lines (without their line ends) numbered from n + 1; return the last number.

        An NCCL INFO line naming the network that feed_net took (it only marked where the run
        in progress ends) is followed, in NCCL_DEBUG=INFO output, by many of the same kind
        from the same task: one with the same action (the same label place and transports)
        and label, with only dropped lines since, would be taken the same way, as nothing it
        reads has changed; only the last one's number is handed to feed_net, before any other
        line is read (and at the end)."""
        parser, collector, name = self.parser, self.collector, self.name
        feed, feed_net, progress = parser.feed, parser.feed_net, collector.feed
        feed_peeled = parser.feed_peeled
        actions, zeros, interned = self._actions, _ZEROS, self._interned
        idle = collector.idle()  # it changes only when a line is fed to the collector
        taken: _Action | None = None  # the last network line's action, when feed_net took it
        taken_label, taken_text, taken_named, taken_at = b"", "", frozenset[str](), 0
        for raw in lines:
            n += 1
            if idle:
                key = raw.translate(zeros)
                action = actions.get(key)
                if action is None:
                    action = _action(key)
                    action = interned.setdefault(action, action)
                    if len(actions) < MAX_CACHED:
                        actions[key] = action
                what, start, end, named, pos = action
                if what == _DROP:
                    continue
                if what == _NET_LINE:
                    label_bytes = raw[start:end]
                    if action is taken and label_bytes == taken_label:
                        taken_at = n
                        continue
                    if taken_at:
                        feed_net(taken_at, taken_text, taken_named)
                        taken_at = 0
                    label = label_bytes.decode("ascii") if end else ""
                    if feed_net(n, label, named):
                        taken, taken_label, taken_text = action, label_bytes, label
                        taken_named = named
                        continue
                elif taken_at:
                    feed_net(taken_at, taken_text, taken_named)
                    taken_at = 0
                taken = None
                if what == _PROGRESS_ONLY:
                    progress(name, n, (raw + b"\n").decode("utf-8", "replace"))
                    idle = collector.idle()
                    continue
                if what == _PEELED:
                    line = (raw + b"\n").decode("ascii")
                    feed_peeled(n, line[start:end], line[pos:].lstrip())
                    progress(name, n, line)
                    idle = collector.idle()
                    continue
            line = (raw + b"\n").decode("utf-8", "replace")
            feed(n, line)
            progress(name, n, line)
            idle = collector.idle()
        if taken_at:
            feed_net(taken_at, taken_text, taken_named)
        return n
