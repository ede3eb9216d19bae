"""Turn a catalog pattern into a prefilter for the multi-pattern engine.

The multi-pattern engine (Hyperscan) only says *where* a pattern may match; Python's `re` then
confirms the line and extracts the named captures. Two rewrites make patterns fit that role:

- named groups `(?P<name>...)` become plain groups (Hyperscan has no named captures);
- unbounded tails such as `(?P<message>.*)` at the end of an alternative are dropped. Hyperscan
  reports every end offset of a match, so a `.*` tail would call back once per character of the
  rest of the line. Dropping a tail only widens the prefilter; `re` still has the last word.
"""

from __future__ import annotations

import re

_NAMED_GROUP = re.compile(r"\(\?P<[A-Za-z_][A-Za-z0-9_]*>")
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


def _last_atom_start(alt: str) -> int:
    """Index where the last atom of `alt` starts (a char, escape, class or group)."""
    if alt.endswith(")"):
        depth = 0
        for i in range(len(alt) - 1, -1, -1):
            if alt[i] == ")" and not _escaped(alt, i):
                depth += 1
            elif alt[i] == "(" and not _escaped(alt, i):
                depth -= 1
                if depth == 0:
                    return i
        return 0
    if alt.endswith("]") and not _escaped(alt, len(alt) - 1):
        i = alt.rfind("[")
        while i > 0 and _escaped(alt, i):
            i = alt.rfind("[", 0, i)
        return max(i, 0)
    if len(alt) >= 2 and _escaped(alt, len(alt) - 1):
        return len(alt) - 2
    return len(alt) - 1


def _escaped(text: str, index: int) -> bool:
    slashes = 0
    j = index - 1
    while j >= 0 and text[j] == "\\":
        slashes += 1
        j -= 1
    return slashes % 2 == 1


def _strip_tail(alt: str) -> str:
    while alt:
        quantifier = next((q for q in ("*?", "+?", "*", "+") if alt.endswith(q)), None)
        if quantifier and not _escaped(alt, len(alt) - len(quantifier)):
            body = alt[: -len(quantifier)]
            start = _last_atom_start(body)
            atom = body[start:]
            if atom == "." or atom.startswith("[") or atom.startswith("("):
                alt = body[:start]
                continue
            return alt
        if alt.endswith(")") and not _escaped(alt, len(alt) - 1):
            start = _last_atom_start(alt)
            group = alt[start:]
            head_match = re.match(r"\((?:\?:)?", group)
            head = head_match.group(0) if head_match else "("
            inner = group[len(head) : -1]
            parts = [_strip_tail(p) for p in _split_top_level(inner)]
            if all(p == "" for p in parts):
                alt = alt[:start]
                continue
            if any(p == "" for p in parts):
                # One branch of the group may now be empty: the group can match nothing, so it
                # no longer constrains the end of the match. Drop it.
                alt = alt[:start]
                continue
            return alt[:start] + head + "|".join(parts) + ")"
        return alt
    return alt


def prefilter_pattern(pattern: str) -> str:
    """The pattern Hyperscan scans for; a superset of what `pattern` matches on one line."""
    plain = _NAMED_GROUP.sub("(", pattern)
    alternatives = [_strip_tail(a) for a in _split_top_level(plain)]
    if any(a == "" for a in alternatives):
        # Stripping would leave an alternative that matches everywhere; keep the tail instead.
        return plain
    return "|".join(alternatives)
