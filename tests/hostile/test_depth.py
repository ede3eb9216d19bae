"""Directory trees deeper than Python's recursion limit are walked: inputs, and directory
bundles."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from hostile import assert_no_traceback, deep_tree, remove_tree, run

DEPTH = 1100  # over the default recursion limit of 1000
DISK_FULL = "OSError: [Errno 28] No space left on device\n"
NCCL_TESTS = Path(__file__).parents[1] / "fixtures" / "perf" / "nccl-tests"


@pytest.fixture(scope="module")
def deep(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    top = deep_tree(tmp_path_factory.mktemp("deep") / "tree", DEPTH, "rank0.log", DISK_FULL)
    yield top
    remove_tree(top)


def test_logs_walks_a_deep_tree(tmp_path: Path, deep: Path) -> None:
    result = run("logs", str(deep), "--format", "json", tmp=tmp_path)
    assert_no_traceback(result)
    assert result.code == 0, result.err
    assert result.json()["root_cause"] == "DISK_FULL"


def test_perf_walks_a_deep_tree(tmp_path: Path) -> None:
    text = (NCCL_TESTS / "a100-sxm4-80gb-1node-8gpu-allreduce-healthy.txt").read_text()
    top = deep_tree(tmp_path / "deep", DEPTH, "nccl.out", text)
    try:
        result = run("perf", str(top), "--format", "json", tmp=tmp_path)
    finally:
        remove_tree(top)
    assert_no_traceback(result)
    assert result.code == 0, result.err
    assert result.json()["summary"]["runs_found"] >= 1


def test_a_deep_directory_bundle_is_refused_in_one_line(tmp_path: Path) -> None:
    bundle = deep_tree(tmp_path / "bundle", DEPTH, "rank0.log", DISK_FULL)
    name = "/".join(["d"] * DEPTH) + "/rank0.log"
    items = [{"name": name, "status": "collected", "kind": "text", "bytes": len(DISK_FULL)}]
    manifest = {"schema": "hyperpod-nccl/bundle/v1", "command": "logs", "items": items}
    (bundle / "manifest.json").write_text(json.dumps(manifest))
    try:
        for command in (["logs", "--bundle"], ["bundle", "summary"], ["diagnose", "--bundle"]):
            result = run(*command, str(bundle), tmp=tmp_path)
            assert_no_traceback(result)
            assert result.code == 1, result.err
            assert result.err.count("\n") == 1 and "deeper than 32 levels" in result.err
    finally:
        remove_tree(bundle)  # pytest's own clean-up cannot remove a tree this deep


def test_walk_order_is_os_walk_order(tmp_path: Path) -> None:
    from hyperpod_nccl.safeio import walk_files

    for name in ("b/2.log", "b/1.log", "a/z/3.log", "c.log", "a/0.log", "a.log"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x")
    found = [Path(p).relative_to(tmp_path).as_posix() for p in walk_files(str(tmp_path))]
    assert found == ["a.log", "c.log", "a/0.log", "a/z/3.log", "b/1.log", "b/2.log"]
