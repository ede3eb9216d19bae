"""The differences between two sides' Facts, aspect by aspect, only where both sides hold
the data (an aspect one side lacks is reported as not compared, never as a change)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hyperpod_nccl.diff.facts import (
    ASPECTS,
    DENSE,
    MEMBERS,
    NUMERIC,
    PER_SCOPE,
    UNSET,
    Facts,
)

# A measured bandwidth counts as changed when it drops by more than this fraction: run-to-run
# spread of nccl-tests at large sizes on a healthy cluster stays well inside it.
BUSBW_DROP = 0.15


@dataclass
class Change:
    aspect: str
    item: str
    kind: str  # added, removed, changed, mixed, dropped, replaced
    good: dict[str, list[str]] = field(default_factory=dict)  # value -> scopes
    bad: dict[str, list[str]] = field(default_factory=dict)
    source: str = ""  # where BAD's (else GOOD's) value was read

    def to_dict(self) -> dict[str, Any]:
        return {
            "aspect": self.aspect,
            "item": self.item,
            "change": self.kind,
            "good": self.good,
            "bad": self.bad,
            "source": self.source,
        }


def _spread(by_scope: dict[str, str], universe: set[str], dense: bool) -> dict[str, list[str]]:
    spread: dict[str, list[str]] = {}
    for scope, value in by_scope.items():
        spread.setdefault(value, []).append(scope)
    if dense:
        unset = sorted(universe - set(by_scope))
        if unset:
            spread.setdefault(UNSET, []).extend(unset)
    return {v: sorted(s) for v, s in sorted(spread.items())}


def _kind(good: dict[str, list[str]], bad: dict[str, list[str]]) -> str:
    good_values, bad_values = set(good) - {UNSET}, set(bad) - {UNSET}
    if not bad_values:
        return "removed"
    if not good_values:
        return "added"
    if len(good_values) == 1 and len(bad_values) > 1 and good_values < bad_values:
        return "mixed"
    return "changed"


def compare(good: Facts, bad: Facts) -> tuple[list[Change], list[str]]:
    """The changes, and the aspects only one side could show (not compared)."""
    both = good.covered & bad.covered
    changes: list[Change] = []
    for aspect, mode in ASPECTS.items():
        if aspect not in both:
            continue
        if mode == NUMERIC:
            changes += _numbers(aspect, good, bad)
            continue
        keys = sorted(
            {k for k in good.values if k[0] == aspect} | {k for k in bad.values if k[0] == aspect},
            key=lambda k: good.order.get(k) or bad.order.get(k) or k[1],
        )
        for key in keys:
            g, b = good.values.get(key, {}), bad.values.get(key, {})
            source = bad.sources.get(key) or good.sources.get(key, "")
            if mode == MEMBERS:
                changes += _members(key, g, b, source)
            elif mode == PER_SCOPE:
                changes += _per_scope(key, g, b, source)
            else:
                dense = mode == DENSE
                gs = _spread(g, good.scopes.get(aspect, set()), dense)
                bs = _spread(b, bad.scopes.get(aspect, set()), dense)
                if set(gs) != set(bs):
                    changes.append(Change(aspect, key[1], _kind(gs, bs), gs, bs, source))
    one_sided = sorted((good.covered | bad.covered) - both)
    return changes, one_sided


def _members(
    key: tuple[str, str], g: dict[str, str], b: dict[str, str], source: str
) -> list[Change]:
    added, removed = sorted(set(b) - set(g)), sorted(set(g) - set(b))
    if not added and not removed:
        return []
    kind = "replaced" if added and removed else ("added" if added else "removed")
    return [Change(key[0], key[1], kind, {"removed": removed}, {"added": added}, source)]


def _per_scope(
    key: tuple[str, str], g: dict[str, str], b: dict[str, str], source: str
) -> list[Change]:
    moved: dict[tuple[str, str], list[str]] = {}
    for scope in sorted(set(g) & set(b)):
        if g[scope] != b[scope]:
            moved.setdefault((g[scope], b[scope]), []).append(scope)
    return [
        Change(key[0], key[1], "changed", {before: scopes}, {after: scopes}, source)
        for (before, after), scopes in sorted(moved.items())
    ]


def _numbers(aspect: str, good: Facts, bad: Facts) -> list[Change]:
    found: list[tuple[float, Change]] = []
    for key in sorted(k for k in good.numbers if k[0] == aspect and k in bad.numbers):
        before, after = good.numbers[key], bad.numbers[key]
        if before > 0 and after < before * (1 - BUSBW_DROP):
            found.append(
                (
                    after / before,
                    Change(
                        aspect,
                        key[1],
                        "dropped",
                        {f"{before:g}": []},
                        {f"{after:g}": []},
                        bad.sources.get(key, ""),
                    ),
                )
            )
    # The largest drops first: they are what a reader should see.
    return [change for _, change in sorted(found, key=lambda pair: pair[0])]
