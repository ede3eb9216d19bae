"""The literal strings a pattern cannot match without: the pure-Python engine's first cut.

Every match of a rule's prefilter contains at least one of its *required literals* (for
`NVRM: Xid \\(` that is `NVRM: Xid (`; for `Connect(?:ion)? refused|Broken pipe` it is the set
{`Connect`, `Broken pipe`}). Finding those few strings with `bytes.find` runs at memory speed;
only the lines that hold one are handed to the rule's regex. A pattern with no usable literal
(a very short one, or one made of classes) gets `None` and keeps its whole-buffer regex.

Patterns are read with the standard library's own regex parser, so what is required follows
from the pattern's real structure, not from a second hand-written reading of its syntax.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import Any, cast

from hyperpod_nccl.rules.bytefreq import chance

if sys.version_info >= (3, 11):
    from re import _constants as sre_c
    from re import _parser as sre_parse
else:  # pragma: no cover - Python 3.10
    import sre_constants as sre_c
    import sre_parse

# Keep expansions small: `[Ee]xit [Cc]ode` is four literals, a digit class is ten.
MAX_CLASS = 10
MAX_SET = 64
# A required literal shorter than this occurs too often to be worth a search of its own.
MIN_LITERAL = 3

Literals = frozenset[bytes]
_EMPTY: Literals = frozenset({b""})


class _Info:
    """What one regex node says: `exact`, every string it can match when that set is small
    (else None); `required`, a set one of whose members every match contains (else None)."""

    __slots__ = ("exact", "required")

    def __init__(self, exact: Literals | None, required: Literals | None) -> None:
        self.exact = exact
        self.required = required


def _better(a: Literals | None, b: Literals | None) -> Literals | None:
    """The more selective of two required sets: the one less likely to occur by chance."""
    if a is None or b"" in a:
        return None if b is None or b"" in b else b
    if b is None or b"" in b:
        return a
    return a if _expected(a) <= _expected(b) else b


def _expected(literals: Literals) -> float:
    return sum(chance(x) for x in literals)


def _product(a: Literals, b: Literals) -> Literals | None:
    if len(a) * len(b) > MAX_SET:
        return None
    return frozenset(x + y for x in a for y in b)


def _class(items: list[tuple[Any, Any]]) -> Literals | None:
    members: set[int] = set()
    for op, av in items:
        if op is sre_c.LITERAL:
            members.add(av)
        elif op is sre_c.RANGE and av[1] - av[0] < MAX_CLASS:
            members.update(range(av[0], av[1] + 1))
        else:  # NEGATE, a category (\d, \w), a wide range
            return None
    if len(members) > MAX_CLASS or max(members, default=0) > 0x7F:
        return None  # a non-ASCII member is several bytes in UTF-8: no one-byte set
    return frozenset(bytes([m]) for m in members)


def _sequence(items: Iterable[tuple[Any, Any]]) -> _Info:
    best: Literals | None = None
    run: Literals | None = _EMPTY  # the product of the exact nodes since the last gap
    all_exact = True
    for op, av in items:
        info = _node(op, av)
        best = _better(best, info.required)
        if info.exact is None:
            best = _better(best, run)
            run, all_exact = _EMPTY, False
            continue
        joined = _product(run, info.exact) if run is not None else None
        if joined is None:  # too many combinations: close the run, start again here
            best = _better(best, run)
            all_exact = False
            joined = info.exact
        run = joined
    best = _better(best, run)
    return _Info(run if all_exact else None, best)


def _node(op: Any, av: Any) -> _Info:
    if op is sre_c.LITERAL:
        byte = frozenset({bytes([av])})
        return _Info(byte, byte)
    if op is sre_c.IN:
        members = _class(av)
        return _Info(members, members)
    if op in (sre_c.AT, sre_c.ASSERT, sre_c.ASSERT_NOT):
        return _Info(_EMPTY, None)  # consumes nothing: the text around it stays contiguous
    if op is sre_c.SUBPATTERN:
        _group, add_flags, del_flags, pattern = av
        if (add_flags | del_flags) & sre_c.SRE_FLAG_IGNORECASE:
            return _Info(None, None)
        return _sequence(pattern)
    if op is sre_c.BRANCH:
        infos = [_sequence(alt) for alt in av[1]]
        exact: Literals | None = frozenset()  # every alternative's exact strings, if few
        for info in infos:
            if exact is None or info.exact is None or len(exact) + len(info.exact) > MAX_SET:
                exact = None
            else:
                exact = exact | info.exact
        # One of the alternatives matched, so one of their required sets is present.
        required: Literals | None = frozenset()
        for info in infos:
            options = info.required
            if options is None or b"" in options or required is None:
                required = None
                break
            required = required | options
        return _Info(exact, required)
    if op in (sre_c.MAX_REPEAT, sre_c.MIN_REPEAT, getattr(sre_c, "POSSESSIVE_REPEAT", None)):
        low, high, pattern = av
        inner = _sequence(pattern)
        if low == 0:  # may match nothing: required of nothing, at most optional text
            optional = inner.exact | _EMPTY if high == 1 and inner.exact is not None else None
            return _Info(optional, None)
        return _Info(inner.exact if low == high == 1 else None, inner.required)
    if op is getattr(sre_c, "ATOMIC_GROUP", None):
        return _sequence(av)
    return _Info(None, None)  # any character, a category, a back-reference, ...


def required_literals(pattern: bytes) -> Literals | None:
    """Literals one of which every match of `pattern` contains, or None when there is no
    useful set (then the pattern must be searched for as it is)."""
    parsed: Any = sre_parse.parse(cast(Any, pattern))  # the parser takes bytes as well
    if parsed.state.flags & sre_c.SRE_FLAG_IGNORECASE:
        return None
    found = _sequence(list(parsed)).required
    if found is None or b"" in found or min(len(x) for x in found) < MIN_LITERAL:
        return None
    return found
