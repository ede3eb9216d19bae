"""The pure-Python engine's plan (literals and anchors) comes from the user cache when there:
the cached plan finds what a fresh one finds, and a damaged cache is rebuilt, never trusted."""

from __future__ import annotations

import marshal
from pathlib import Path

import pytest

from hyperpod_nccl.rules import engine
from hyperpod_nccl.rules.catalog import load_catalog
from hyperpod_nccl.rules.prefilter import prefilter_pattern

SCANNED = [r for r in load_catalog().rules if r.role != "benign"]
PATTERNS = tuple((r.index, prefilter_pattern(r.pattern).encode()) for r in SCANNED)
FIXTURE = Path(__file__).parents[1] / "fixtures" / "logs" / "healthy"


def _plan(cache: Path, monkeypatch: pytest.MonkeyPatch) -> engine._Plan:
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    return engine._regex_plan.__wrapped__(PATTERNS)


def _sample() -> bytes:
    return b"".join(p.read_bytes() for p in sorted(FIXTURE.glob("*.txt")))


def test_a_cached_plan_finds_the_same_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, _, fresh = _plan(tmp_path, monkeypatch)
    assert list((tmp_path / "hyperpod-nccl").glob("re-plan-*.marshal"))
    _, _, cached = _plan(tmp_path, monkeypatch)
    assert cached.rules == fresh.rules and cached.alone == fresh.alone
    data = _sample()
    found = list(fresh.lines(data, len(data)))
    assert found and list(cached.lines(data, len(data))) == found


def test_a_damaged_plan_is_rebuilt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _, _, fresh = _plan(tmp_path, monkeypatch)
    (cache,) = (tmp_path / "hyperpod-nccl").glob("re-plan-*.marshal")
    # Empty, not marshal, cut short, and well-formed but another catalog's (no anchors).
    other = marshal.dumps(([], ([], [])))
    for damage in (b"", b"not marshal", cache.read_bytes()[:-7], other):
        cache.write_bytes(damage)
        _, _, rebuilt = _plan(tmp_path, monkeypatch)
        assert rebuilt.rules == fresh.rules and rebuilt.alone == fresh.alone
