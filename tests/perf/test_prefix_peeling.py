"""Launcher prefixes are peeled in one regex match; the result is the same as peeling them
one match at a time (the way the parser did it first, kept here as the reference), on every
line of the real fixtures and on those lines behind random stacks of real prefix forms."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from hyperpod_nccl.perf import prefixes

PERF = Path(__file__).parent.parent / "fixtures" / "perf"
_ONE = re.compile(rf"\s*(?:{prefixes._LABELLED}|{prefixes._UNLABELLED})")
PREFIX_FORMS = (
    "[1,3]<stdout>:", "[0,12]<stderr>:", "[2]", "[12] ", "[7]#", "0: ", "13:", "5:\n",
    "2024-05-01T10:00:00.123Z ", "2024-05-01 10:00:00,5+0100 ", "2024-05-01T10:00:00+01:00\t",
    "[2024-05-01 10:00:00]", "[2024-05-01T10:00:00.5]", "[pod/train-worker-0/main]",
    "node-1: ", "ip-10-1-2-3:", "x:", " ", "\t", "[", "1", "-",
)  # fmt: skip


def reference(line: str) -> tuple[str, str]:
    """Peel one prefix at a time, at most MAX_PREFIXES, the label from the first that has one."""
    pos, label = 0, ""
    for _ in range(prefixes.MAX_PREFIXES):
        m = _ONE.match(line, pos)
        if m is None:
            break
        pos = m.end()
        label = label or m["ompi"] or m["rank"] or m["srun"] or ""
    return (line[pos:].lstrip() if pos else line.lstrip()), label


def _fixture_lines() -> list[str]:
    lines: list[str] = []
    for path in sorted(PERF.rglob("*")):
        if path.is_file() and path.suffix in (".txt", ".log", ""):
            lines += path.read_text("utf-8", "replace").splitlines(keepends=True)
    return lines


def test_fixture_lines_peel_as_one_at_a_time() -> None:
    lines = _fixture_lines()
    assert len(lines) > 1000
    for line in lines:
        assert tuple(prefixes.strip_prefixes(line)) == reference(line), line


@pytest.mark.parametrize("seed", range(5))
def test_stacked_prefixes_peel_as_one_at_a_time(seed: int) -> None:
    rng = random.Random(seed)
    lines = _fixture_lines()
    labelled = 0
    for _ in range(5000):
        stack = "".join(rng.choice(PREFIX_FORMS) for _ in range(rng.randint(0, 9)))
        line = stack + rng.choice(lines)
        got = prefixes.strip_prefixes(line)
        assert tuple(got) == reference(line), line
        labelled += bool(got.label)
    assert labelled > 500  # the stacks reach the labelled forms, beyond the first prefix too
