"""Turn a catalog pattern into a prefilter for the multi-pattern engine.

The multi-pattern engine (Hyperscan) only says *where* a pattern may match; Python's `re` then
confirms the line and extracts the named captures. Two rewrites make patterns fit that role:

- named groups `(?P<name>...)` become plain groups (Hyperscan has no named captures);
- negated classes `[^...]` exclude the newline too, so no candidate match spans lines: a
  match that runs into the next line would hide that line's own match from `re`'s
  non-overlapping search (Hyperscan reports every end offset, so the engines disagreed);
- unbounded tails such as `(?P<message>.*)` at the end of an alternative are dropped. Hyperscan
  reports every end offset of a match, so a `.*` tail would call back once per character of the
  rest of the line. Dropping a tail only widens the prefilter; `re` still has the last word.
- unbounded heads with no literal of their own, such as `\b[a-z0-9][-a-z0-9.]* +` (a pod
  name before kubectl's STATUS column), are dropped when the literals that select the line
  lie after them. Hyperscan runs
  such a head as an automaton from every place it can start, which is almost everywhere: that
  one rule took a fifth of the scan's time. Dropping a head also only widens the prefilter
  (the rest still ends where the whole did), and the literal cut is the same.
"""

from __future__ import annotations

import functools
import re

from hyperpod_nccl.rules.literals import required_literals

_NAMED_GROUP = re.compile(r"\(\?P<[A-Za-z_][A-Za-z0-9_]*>")
_NEGATED_CLASS = re.compile(r"(?<!\\)\[\^")
_UNBOUNDED = ("*", "+", "*?", "+?")


def _split_top_level(pattern: str) -> list[str]:
    """Split on `|` outside groups and character classes."""
    parts: list[str] = []
    depth = 0
    in_class = False
    start = 0
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            i += 2
            continue
        if in_class:
            if ch == "]":
                in_class = False
        elif ch == "[":
            in_class = True
            # A `]` right after `[` or `[^` is a literal member of the class.
            if pattern[i + 1 : i + 2] == "^":
                i += 1
            if pattern[i + 1 : i + 2] == "]":
                i += 1
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "|" and depth == 0:
            parts.append(pattern[start:i])
            start = i + 1
        i += 1
    parts.append(pattern[start:])
    return parts


def _skip_class(text: str, i: int) -> int:
    """Index just after the character class starting at text[i] == '['."""
    j = i + 1
    if text[j : j + 1] == "^":
        j += 1
    if text[j : j + 1] == "]":  # a leading ']' is a member
        j += 1
    while j < len(text) and text[j] != "]":
        j += 2 if text[j] == "\\" else 1
    return j + 1


def _skip_group(text: str, i: int) -> int:
    """Index just after the group starting at text[i] == '(' (classes and escapes honoured)."""
    depth = 0
    j = i
    while j < len(text):
        ch = text[j]
        if ch == "\\":
            j += 2
            continue
        if ch == "[":
            j = _skip_class(text, j)
            continue
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return j + 1
        j += 1
    return j


def _skip_quantifier(text: str, j: int) -> int:
    while j < len(text) and text[j] in "*+?{":
        j = text.index("}", j) + 1 if text[j] == "{" and "}" in text[j:] else j + 1
    return j


def _atoms(alt: str) -> list[tuple[int, int, int]]:
    """Top-level atoms of one alternative: (start, end of the atom, end with its quantifier)."""
    atoms = []
    i = 0
    while i < len(alt):
        ch = alt[i]
        if ch == "\\":
            end = i + 2
        elif ch == "[":
            end = _skip_class(alt, i)
        elif ch == "(":
            end = _skip_group(alt, i)
        else:
            end = i + 1
        after = _skip_quantifier(alt, end)
        atoms.append((i, end, after))
        i = after
    return atoms


def _strip_tail(alt: str) -> str:
    """Drop unbounded repeats (`.*`, `[^ ]+`, `(...)*`) at the end of one alternative, and look
    inside a final group for the same."""
    while alt:
        start, end, after = _atoms(alt)[-1]
        atom, quantifier = alt[start:end], alt[end:after]
        if quantifier in ("*", "+", "*?", "+?") and (atom == "." or atom[0] in "[("):
            alt = alt[:start]
            continue
        if quantifier == "" and atom.startswith("(") and not atom.startswith("(?="):
            head_match = re.match(r"\((?:\?:)?", atom)
            head = head_match.group(0) if head_match else "("
            parts = [_strip_tail(p) for p in _split_top_level(atom[len(head) : -1])]
            if any(p == "" for p in parts):
                # A branch that now matches the empty string leaves the group no say over
                # where the match ends: drop the whole group.
                alt = alt[:start]
                continue
            return alt[:start] + head + "|".join(parts) + ")"
        return alt
    return alt


def _required(alt: str) -> frozenset[bytes] | None:
    try:
        return required_literals(alt.encode())
    except (re.error, UnicodeEncodeError):  # a piece that is no regex alone: keep it whole
        return None


def _strip_head(alt: str) -> str:
    """Drop a head that holds no literal of its own, up to and with its last unbounded
    repeat, when the literals selecting the alternative lie after it (see the module's
    note); otherwise leave the alternative as it is."""
    if alt.startswith("(?"):  # inline flags or a lookbehind at the start: keep
        return alt
    cuts = [after for _start, end, after in _atoms(alt) if alt[end:after] in _UNBOUNDED]
    wanted: frozenset[bytes] | None = None
    best = alt
    for after in cuts:  # most alternatives have none, and cost no parse
        head, rest = alt[:after], alt[after:]
        if not rest or _required(head) is not None:
            break  # the head has text of its own that selects lines: keep it
        wanted = wanted or _required(alt)
        if wanted is None:
            break
        if _required(rest) == wanted:
            best = rest
    return best


# Reading heads parses each alternative with the regex parser: an analyzer of the pure-Python
# engine rewrites every rule when it starts, so a process keeps the results.
@functools.lru_cache(maxsize=4096)
def prefilter_pattern(pattern: str) -> str:
    """The pattern Hyperscan scans for; a superset of what `pattern` matches on one line."""
    plain = _NEGATED_CLASS.sub(r"[^\\n", _NAMED_GROUP.sub("(", pattern))
    alternatives = [_strip_head(_strip_tail(a)) for a in _split_top_level(plain)]
    if any(a == "" for a in alternatives):
        # Stripping would leave an alternative that matches everywhere; keep the tail instead.
        return plain
    return "|".join(alternatives)
