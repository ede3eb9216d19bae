"""The pure-Python engine's first cut: every rule's required literals really are required, and
the anchor search finds every line that holds one, for every rule of the catalog."""

from __future__ import annotations

import random
import re

import pytest
from logmix import corpus, job_lines

from hyperpod_nccl.rules.anchors import ANCHOR_BYTES, AnchorIndex, choose_anchors
from hyperpod_nccl.rules.catalog import Rule, load_catalog
from hyperpod_nccl.rules.literals import required_literals
from hyperpod_nccl.rules.prefilter import prefilter_pattern

CATALOG = load_catalog()
SCANNED = [r for r in CATALOG.rules if r.role != "benign"]


def _prefilter(rule_pattern: str) -> bytes:
    return prefilter_pattern(rule_pattern).encode()


def _scanned_index() -> AnchorIndex:
    literals = {}
    for rule in SCANNED:
        found = required_literals(_prefilter(rule.pattern))
        if found is not None:
            literals[rule.index] = found
    return AnchorIndex(literals)


def _real_lines() -> list[bytes]:
    """Every example line of the catalog and every line of the dev corpus (real logs)."""
    lines = [e.encode() for r in CATALOG.rules for e in r.examples]
    lines += [line.encode() for row in corpus() for line in str(row["log"]).splitlines()]
    return lines


LINES = _real_lines()


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        (rb"NVRM: Xid \(([^)]*)\): ([0-9]+),", {b"NVRM: Xid ("}),
        (
            rb"Connection (?:reset by peer|refused)",
            {b"Connection reset by peer", b"Connection refused"},
        ),
        (rb"[Ee]xit code: 137", {b"Exit code: 137", b"exit code: 137"}),
        (rb"Killed(?: process)? ([0-9]+)", {b"Killed process ", b"Killed "}),
        (rb"^[ \t]*Killed[ \t]*$", {b"Killed"}),
        (rb"Broken pipe|[0-9]+:[0-9]+", None),  # one branch has no literal of 3 bytes
        (rb"Broken pipe|[0-9]+ ms", {b"Broken pipe", b" ms"}),
        (rb"(?i)nccl error", None),  # case-insensitive: no byte string is required
        (rb"[0-9a-f]+:[0-9]+", None),
    ],
)
def test_required_literals_of_small_patterns(pattern: bytes, expected: set[bytes] | None) -> None:
    found = required_literals(pattern)
    assert (set(found) if found is not None else None) == expected


@pytest.mark.parametrize("rule", SCANNED, ids=lambda r: r.id)
def test_every_real_match_holds_a_required_literal(rule: Rule) -> None:
    pattern = _prefilter(rule.pattern)
    literals = required_literals(pattern)
    regex = re.compile(pattern, re.MULTILINE)
    matched = [line for line in LINES if regex.search(line)]
    assert matched or rule.role == "context", "no real line matches the rule"
    if literals is None:
        return  # searched over the whole buffer instead
    for line in matched:
        assert any(literal in line for literal in literals), line


def test_anchor_search_finds_every_matching_line_with_its_rule() -> None:
    index = _scanned_index()
    literals = {i for rs in index.rules.values() for i in rs}
    assert len(literals) > 100
    data = b"\n".join(LINES) + b"\n"
    offsets = [0]
    for line in LINES:
        offsets.append(offsets[-1] + len(line) + 1)
    by_start = {start: set(rules) for start, _stop, rules in index.lines(data, len(data))}
    missed = []
    for number, line in enumerate(LINES):
        for rule in SCANNED:
            if rule.index not in literals:
                continue
            matches = re.search(_prefilter(rule.pattern), line, re.MULTILINE) is not None
            if matches and rule.index not in by_start.get(offsets[number], set()):
                missed.append((rule.id, line))
    assert missed == []


def test_overlapping_anchors_are_both_found() -> None:
    # "Xid (" ends where "(core dumped)" begins: a search resuming after the first match
    # would miss the second.
    index = AnchorIndex({1: frozenset({b"NVRM: Xid ("}), 2: frozenset({b"(core dumped)"})})
    data = b"fine\nNVRM: Xid (core dumped) 79\nfine\n"
    assert list(index.lines(data, len(data))) == [(5, data.index(b"\n", 5), {1, 2})]


def test_an_anchor_starts_at_a_rare_byte_and_keeps_enough_of_the_literal() -> None:
    literals = [
        b"Watchdog caught collective operation timeout",
        b"abc",
        b"connection timed out after",
    ]
    chosen = choose_anchors(literals)
    assert (
        chosen[b"Watchdog caught collective operation timeout"]
        == b"Watchdog caught collective operation timeout"
    )
    assert chosen[b"abc"] in (b"abc", None)  # all of a short literal, or searched on its own
    anchor = chosen[b"connection timed out after"]
    assert anchor is None or (
        len(anchor) >= ANCHOR_BYTES and anchor in b"connection timed out after"
    )


def test_common_first_bytes_are_left_out_of_the_trie() -> None:
    # Across the catalog's literals, no anchor starts at the commonest bytes of a log: a
    # space, a colon, a dot or a digit would make the trie try a match at most positions.
    literals = [x for rule in SCANNED for x in required_literals(_prefilter(rule.pattern)) or ()]
    anchors = [a for a in choose_anchors(literals).values() if a is not None]
    assert len(anchors) > 100
    assert not {a[0] for a in anchors} & set(b" :.0123456789-e")


def test_training_progress_is_seldom_a_candidate_line() -> None:
    # What most of a real log is: progress lines (tests/logs/logmix.py, real templates with
    # their numbers advanced). An anchor made only of the trie's first bytes and a space
    # ('D D', of dcgmi's link-state row) matched 'x m' in 'max mem:' once the buffer was
    # translated, making every such line a candidate for 60 rules: the pure-Python engine
    # then ran some 50x slower on benchmarks/logs_throughput.py's mix.
    rng = random.Random(3)
    lines = [
        line.encode()
        for line in job_lines(rng, ranks=8, count=4000, nccl_share=0.0)
        if "NCCL" not in line
    ]
    data = b"\n".join(lines) + b"\n"
    hits = list(_scanned_index().lines(data, len(data)))
    assert len(hits) <= len(lines) // 50, len(hits)


def test_a_candidate_line_holds_an_anchor_of_each_of_its_rules() -> None:
    # The trie runs over a copy of the buffer whose first bytes are all one mark; with
    # hundreds of anchors, `+0x` became mark-0-mark (most hexadecimal numbers) and an
    # IB verbs status name five marks in a row (most words), which made nearly every NCCL
    # INFO line a candidate for 20 to 40 rules. Lines are now handed on only with the rules
    # whose anchors they really hold.
    rng = random.Random(5)
    lines = [line.encode() for line in job_lines(rng, ranks=16, count=6000, nccl_share=0.5)]
    data = b"\n".join(lines) + b"\n"
    index = _scanned_index()
    found = list(index.lines(data, len(data)))
    assert found
    # Each rule's own anchors: a short one stands for the longer ones that hold it.
    own: dict[int, set[bytes]] = {}
    for anchor, rs in index.rules.items():
        entries = index.spelled.get(anchor, ((anchor, 0, rs),))
        for text, _at, indexes in entries:
            for i in indexes:
                own.setdefault(i, set()).add(text)
    for start, stop, rules in found:
        line = data[start:stop]
        assert rules, line
        assert all(any(text in line for text in own[i]) for i in rules), line
    assert len(found) <= len(lines) // 4, len(found)


def test_an_anchor_common_once_translated_is_searched_on_its_own() -> None:
    index = _scanned_index()
    assert b"+0x" in index.alone
