"""The user cache (hyperpod_nccl.diskcache): parsed YAML comes back equal from it, a damaged
or unwritable cache only costs a parse, and values marshal cannot hold are parsed each time."""

from __future__ import annotations

import marshal
from pathlib import Path

import pytest

from hyperpod_nccl.codes import load_registry, parse_registry
from hyperpod_nccl.diskcache import cache_file, load_yaml

TEXT = "AA: {area: logs, priority: P0, tier: 1, title: a, count: 3, on: true, none: null}\n"


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    return tmp_path / "hyperpod-nccl"


def test_cached_yaml_equals_the_parse_and_is_read_back(cache: Path) -> None:
    parsed = load_yaml(TEXT)
    assert load_yaml(TEXT, cached=True) == parsed
    [stored] = cache.glob("yaml-*.marshal")
    assert marshal.loads(stored.read_bytes()) == parsed
    # What the cache holds is what a cached load returns: it is not parsed again.
    stored.write_bytes(marshal.dumps({"AA": {"title": "from the cache"}}))
    assert load_yaml(TEXT, cached=True) == {"AA": {"title": "from the cache"}}
    assert load_yaml(TEXT + "# changed\n", cached=True) == parsed  # another text, another key


def test_a_damaged_cache_file_is_parsed_again(cache: Path) -> None:
    load_yaml(TEXT, cached=True)
    [stored] = cache.glob("yaml-*.marshal")
    stored.write_bytes(b"\x00not marshal")
    assert load_yaml(TEXT, cached=True) == load_yaml(TEXT)


def test_values_marshal_cannot_hold_are_not_cached(cache: Path) -> None:
    text = "when: 2024-05-01\n"  # YAML reads a date
    assert str(load_yaml(text, cached=True)["when"]) == "2024-05-01"
    assert not list(cache.glob("yaml-*.marshal"))


def test_an_unwritable_cache_is_no_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    assert load_yaml(TEXT, cached=True) == load_yaml(TEXT)
    assert not cache_file("x").parent.exists()


def test_the_shipped_registry_is_the_same_cached_or_not() -> None:
    from importlib import resources

    text = resources.files("hyperpod_nccl.codes").joinpath("codes.yaml").read_text("utf-8")
    assert parse_registry(text, cached=True).codes == parse_registry(text).codes
    assert load_registry().codes == parse_registry(text).codes


def test_the_catalog_is_checked_once_per_text_then_loads_from_the_cache(cache: Path) -> None:
    from hyperpod_nccl.rules.catalog import load_catalog

    first = load_catalog.__wrapped__()  # past the in-process cache: a fresh run
    assert list(cache.glob("catalog-*.checked"))  # every pattern compiled, the stamp written
    assert list(cache.glob("yaml-*.marshal"))  # the parsed catalog
    again = load_catalog.__wrapped__()
    assert [(r.id, r.pattern) for r in again.rules] == [(r.id, r.pattern) for r in first.rules]
    assert all(r.regex.pattern == r.pattern for r in again.rules)  # compiled on first use
