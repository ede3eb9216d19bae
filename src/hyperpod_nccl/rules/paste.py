"""Undo what pasting does to a log before the rules see it.

Logs reach us through terminals, issue trackers and chat: coloured with ANSI escapes, hard-
wrapped at the terminal's width (a message cut mid-word goes on at the start of the next
line), quoted with `> `, or with stray backticks from a code fence. Quote marks and
backticks are peeled where a line's prefixes are read (attribution); this module handles
those that change the bytes the rules match:

- ANSI escape sequences (colour, cursor, OSC titles) are removed, on any input size, and so
  are colour codes whose ESC a syslog daemon wrote as `#033`;
- on small inputs (pastes; a log file a program wrote has none of this):
  - hard wrapping is undone: when many lines have exactly the same length and none is
    longer, each such line is joined with the one that continues it;
  - Markdown bold around a whole line (`**text**`, an issue writer's emphasis) or a word or
    span in it (`Call to **write** failed`) is removed;
  - a line that went through a URL (`undefined%20symbol:%20ncclCommRegister`) is decoded;
  - typographic quotes (“ ” ‘ ’) are made ASCII ones;
  - a tracker's automatic links around file names (`[proxy.cc:1495](http://proxy.cc:1495/)`)
    are undone;
  - word wrapping is undone: a text box or e-mail client that breaks a message at a space
    leaves that one space at the end of the line (or at the start of the next), and the next
    line goes on with no record
    prefix of its own (no rank, host, process or time); such lines are joined when the rules
    read the whole as a message the parts do not show (the analyzer says what they read).
  A joined line is followed by an empty line for each line it absorbed, so line numbers of
  everything else stay the same.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable

from hyperpod_nccl.rules.attribution import attribute

# CSI sequences (ESC [ ... final byte), OSC sequences (ESC ] ... BEL or ESC \), and the
# two-byte escapes; 8-bit CSI (0x9b) is left alone: in UTF-8 text it is a continuation byte.
ANSI = re.compile(rb"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])")

# Inputs up to this size are checked for hard wrapping.
UNWRAP_MAX_BYTES = 4 * 1024 * 1024
_MIN_WIDTH = 60
_MIN_WRAPPED = 2


# The same colour codes after a syslog daemon escaped their ESC byte as '#033' (rsyslog's
# control-character escaping, on by default): Ray's '#033[2m#033[33m(raylet)#033[0m'.
SYSLOG_ANSI = re.compile(rb"#033\[[0-?]*[ -/]*[@-~]")


def strip_ansi(data: bytes) -> bytes:
    return ANSI.sub(b"", data) if b"\x1b" in data else data


def strip_syslog_ansi(data: bytes) -> bytes:
    """After unwrapping: a terminal does not count escapes in its width, but a paste of
    syslog's '#033[..m' text wrapped them as the characters they are."""
    return SYSLOG_ANSI.sub(b"", data) if b"#033[" in data else data


def _continues(line: bytes, following: bytes) -> bool:
    """`following` reads as the rest of `line`, not as a record of its own: records of one
    log start alike (a timestamp, `host:pid:tid`, `[rank3]:`), a continuation does not. Two
    records can start differently (a counter or pid column: `[80746] [rank0]:` then
    `[80747] [rank4]:`) and happen to be the same length, so a line that starts a record
    (a leading time, or a rank, host or process prefix) is never a continuation."""
    return bool(following) and following[:10] != line[:10] and not _is_record(following, line)


def wrap_width(lines: list[bytes]) -> int | None:
    """The width a paste was hard-wrapped at, or None: the longest line length, shared by at
    least two different lines that are each followed by their continuation."""
    if not lines:
        return None
    width = max(len(line) for line in lines)
    if width < _MIN_WIDTH:
        return None
    cut = {
        line
        for line, following in itertools.pairwise(lines)
        if len(line) == width and _continues(line, following)
    }
    return width if len(cut) >= _MIN_WRAPPED else None


def unwrap(data: bytes) -> bytes:
    """Join hard-wrapped lines back, keeping the line count (see the module text)."""
    if len(data) > UNWRAP_MAX_BYTES or b"\n" not in data:
        return data
    crlf = b"\r\n" in data
    text = data.replace(b"\r\n", b"\n") if crlf else data
    lines = text.split(b"\n")
    width = wrap_width(lines)
    if width is None:
        return data
    out: list[bytes] = []
    i = 0
    while i < len(lines):
        joined = lines[i]
        absorbed = 0
        while (
            len(lines[i + absorbed]) == width
            and i + absorbed + 1 < len(lines)
            and _continues(lines[i + absorbed], lines[i + absorbed + 1])
        ):
            absorbed += 1
            joined += lines[i + absorbed]
            if len(lines[i + absorbed]) != width:
                break
        out.append(joined)
        out.extend([b""] * absorbed)
        i += absorbed + 1
    return b"\n".join(out)


# A whole line in Markdown bold: `**` after the indent and `**` at the end, neither part of a
# longer run of stars (Slurm's `*** JOB ... CANCELLED ***` is no emphasis).
_BOLD_LINE = re.compile(rb"^([ \t]*)\*\*(?!\*)(.*?[^*\s])\*\*([ \t\r]*)$", re.MULTILINE)
# A line cut at a space: one space left at its end, after a character that is not one.
_WORD_CUT = re.compile(rb"[^ \t] $")


# Markdown bold inside a line, a word (`Call to **write** failed`) or a span (`F byteps/
# common/**shared_memory.cc:39**] **Check failed: ...**`): stars on both sides, no space just
# inside them, no star or word character just outside (Python's `f(**a, **b)` has no pair).
_BOLD_WORD = re.compile(rb"(?<![*\w])\*\*(?=[^\s*])([^*\n]*?[^\s*])\*\*(?![*\w])")


def strip_bold(data: bytes) -> bytes:
    if b"**" not in data:
        return data
    return _BOLD_WORD.sub(rb"\1", _BOLD_LINE.sub(rb"\1\2\3", data))


# A time at the start of a line (ISO, US, dmesg -T, syslog, glog): a record's own stamp. A
# time further on belongs to the text ('CANCELLED AT 2022-08-12T02:06:12').
_LEADING_TIME = re.compile(
    rb"^[ \t\[(|]*(?:\d{4}-\d\d-\d\d|\d\d/\d\d/\d{4}|[A-Z][a-z]{2} (?:[A-Z][a-z]{2} +)?\d{1,2} "
    rb"\d\d:|[IWEF]\d{4} \d\d:)"
)


def _is_record(line: bytes, previous: bytes | None = None) -> bool:
    """The line starts a record of its own: a leading time, or a prefix attribution reads
    (rank, host, process). A host label alone (`gpu004: `) counts only where the line before
    has one too: pdsh and the DeepSpeed launcher label every line, and a cut can leave a word
    and a colon at a continuation's start (`c.so.2: no space left on device`)."""
    if _LEADING_TIME.match(line):
        return True
    ctx = attribute(line[:400].decode("utf-8", "replace"))
    if ctx.rank is None and ctx.pid is None and ctx.host is not None and previous is not None:
        return attribute(previous[:400].decode("utf-8", "replace")).host is not None
    return not (ctx.rank is None and ctx.host is None and ctx.pid is None)


# Paste marks a continuation repeats from the line it continues (indent, quote, backtick).
_MARKS = re.compile(rb"^[ \t]*(?:(?:>[ \t]?)+|`+)?[ \t]*")
_MAX_ABSORBED = 8


def _rest_of(line: bytes, following: bytes) -> bytes | None:
    """`following` without the paste marks it shares with `line`, when it reads as the rest
    of `line` broken at a space; else None."""
    if _WORD_CUT.search(line) is None:
        return _space_led_rest(line, following)
    rest = _without_marks(line, following)
    if rest[:1] in (b"", b" ", b"\t", b"\r") or not _continues(line, following):
        return None
    return None if _is_record(rest, line) else rest


def _without_marks(line: bytes, following: bytes) -> bytes:
    """`following` without the paste marks of `line` (an indented or quoted paste repeats
    them on every line; a text box wraps without indenting, so it may have none)."""
    marks = _MARKS.match(line)
    prefix = marks.group(0) if marks else b""
    return following[len(prefix) :] if following.startswith(prefix) else following


def _space_led_rest(line: bytes, following: bytes) -> bytes | None:
    """A break that carried its space to the start of the next line ('2 Workers (tasks /' then
    ' actors) killed ...'): the next line, its one leading space kept, when it reads as the
    rest of `line`; else None."""
    following = _without_marks(line, following)
    if line[-1:] in (b"", b" ", b"\t", b"\r") or following[:1] != b" ":
        return None
    rest = following[1:]
    if rest[:1] in (b"", b" ", b"\t", b"\r") or not _continues(line, rest):
        return None
    return None if _is_record(rest, line) else following


def _join_length(run: list[bytes], verdict: Callable[[bytes], object]) -> int:
    """How many of the continuations in run[1:] to join to run[0]: the most for which the
    whole reads as something none of its lines reads alone, or as a later line reads when
    the first line, cut at a space, reads as something else (its own reading was of a part:
    an exception line whose NCCL result string went on to the next line). A join that only
    moves a reading from a line that read nothing (two messages of their own) is not made."""
    parts = [verdict(run[0])]
    joined = run[0]
    best = 0
    for k, line in enumerate(run[1:], start=1):
        joined += line
        parts.append(verdict(line))
        reading = verdict(joined)
        if reading is not None and (reading not in parts or parts[0] not in (None, reading)):
            best = k
    return best


def join_word_wrapped(data: bytes, verdict: Callable[[bytes], object]) -> bytes:
    """Join lines broken at a space back into one (see the module text). `verdict` names what
    the rules read on a line (None: nothing)."""
    if b" \n" not in data and b" \r\n" not in data and b"\n " not in data:
        return data
    crlf = b"\r\n" in data
    lines = (data.replace(b"\r\n", b"\n") if crlf else data).split(b"\n")
    out: list[bytes] = []
    i = 0
    changed = False
    while i < len(lines):
        run = [lines[i]]
        while len(run) <= _MAX_ABSORBED and i + len(run) < len(lines):
            previous, following = lines[i + len(run) - 1], lines[i + len(run)]
            rest = _rest_of(previous, following)
            if rest is None:
                break
            run.append(rest)
            if _WORD_CUT.search(previous) is None:
                break  # a space-led rest ends the run: its own indent is no mark to go by
        absorbed = _join_length(run, verdict) if len(run) > 1 else 0
        out.append(b"".join(run[: absorbed + 1]) if absorbed else lines[i])
        out.extend([b""] * absorbed)
        changed = changed or absorbed > 0
        i += absorbed + 1
    return b"\n".join(out) if changed else data


# A line that went through a URL (a link's query, a browser's address bar): its spaces are
# `%20`. Two of them on one line is that, not a printf format or a percentage.
_URL_ENCODED_LINE = re.compile(rb"^.*%20.*%20.*$", re.MULTILINE)
_PERCENT_ESCAPE = re.compile(rb"%([0-9A-Fa-f]{2})")


def strip_url_encoding(data: bytes) -> bytes:
    """Decode percent escapes on lines whose spaces are `%20` (the line count is kept: an
    encoded newline, %0A, is left as it is)."""
    if b"%20" not in data:
        return data

    def decode(line: re.Match[bytes]) -> bytes:
        return _PERCENT_ESCAPE.sub(
            lambda m: (
                m.group(0) if m.group(1).lower() in (b"0a", b"0d") else bytes([int(m.group(1), 16)])
            ),
            line.group(0),
        )

    return _URL_ENCODED_LINE.sub(decode, data)


# A chat or issue tracker's automatic link around text that looks like a domain (NCCL's
# `proxy.cc:1495`, `.cc` being a country's domain): `[proxy.cc:1495](http://proxy.cc:1495/)`,
# nested when the paste was linked twice. Only links whose address holds their own text are
# undone, so a link someone wrote stays.
_AUTOLINK = re.compile(rb"\[([^\[\]\n]+)\]\((https?://[^)\s]*)\)")


def strip_autolinks(data: bytes) -> bytes:
    if b"](http" not in data:
        return data

    def undo(link: re.Match[bytes]) -> bytes:
        text, address = link.group(1), link.group(2)
        return text if text in address else link.group(0)

    while True:
        undone = _AUTOLINK.sub(undo, data)
        if undone == data:
            return data
        data = undone


# Typographic quotes a word processor or forum puts for ASCII ones (“RuntimeError: ...”,
# couldn’t): programs print the ASCII ones the rules read.
_SMART_QUOTES = {"\u201c": '"', "\u201d": '"', "\u201e": '"', "\u2018": "'", "\u2019": "'"}
_SMART = [(k.encode(), v.encode()) for k, v in _SMART_QUOTES.items()]


def plain_quotes(data: bytes) -> bytes:
    if b"\xe2\x80" not in data:
        return data
    for smart, plain in _SMART:
        data = data.replace(smart, plain)
    return data


def normalize(data: bytes, verdict: Callable[[bytes], object] | None = None) -> bytes:
    """Undo paste damage; word wrapping only with the rules' `verdict` on a line at hand."""
    data = strip_ansi(data)
    data = strip_url_encoding(strip_bold(strip_syslog_ansi(unwrap(plain_quotes(data)))))
    data = strip_autolinks(data)
    return join_word_wrapped(data, verdict) if verdict is not None else data
