"""The typed Meta (hyperpod_nccl.snapshot.meta) against the bundles on disk: each one loads, its
manifest's keys are all declared, and saving it again writes the same fields, unknown ones
included."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from hyperpod_nccl.examples import __file__ as examples_init
from hyperpod_nccl.snapshot import Snapshot
from hyperpod_nccl.snapshot.manifest import META, manifest_problem
from hyperpod_nccl.snapshot.meta import KEYS

EXAMPLES = Path(examples_init).parent / "bundles"
BUNDLES = sorted(p for p in EXAMPLES.iterdir() if (p / "manifest.json").is_file())
# `scrubbing` is rewritten by every save (what *this* save's scrubber did).
REWRITTEN_ON_SAVE = {"scrubbing", "items"}


def _manifest(path: Path) -> dict[str, Any]:
    data = json.loads((path / "manifest.json").read_text("utf-8"))
    assert isinstance(data, dict)
    return data


def test_the_manifest_schema_checks_exactly_the_meta_keys() -> None:
    assert set(META) - {"items"} == KEYS


def test_there_are_example_bundles() -> None:
    assert len(BUNDLES) >= 3


@pytest.mark.parametrize("bundle", BUNDLES, ids=lambda p: p.name)
def test_every_key_of_a_bundle_on_disk_is_declared(bundle: Path) -> None:
    manifest = _manifest(bundle)
    assert set(manifest) - {"items"} <= KEYS
    snapshot = Snapshot.load(str(bundle))
    try:
        assert snapshot.meta["command"] == manifest["command"] == "diagnose"
        assert snapshot.meta.get("cluster") == manifest["cluster"]
        probe = snapshot.meta.get("node_probe") or {}
        assert probe.get("nodes") == manifest["node_probe"]["nodes"] == 4
    finally:
        snapshot.close()


@pytest.mark.parametrize("bundle", BUNDLES, ids=lambda p: p.name)
def test_saving_a_loaded_bundle_keeps_its_meta_and_unknown_keys(
    bundle: Path, tmp_path: Path
) -> None:
    copy = tmp_path / "in"
    shutil.copytree(bundle, copy)
    manifest = _manifest(copy)
    # As a newer version might write it: a key this one does not know, nested data inside.
    manifest["from_a_later_version"] = {"flag": True, "names": ["a", "b"]}
    (copy / "manifest.json").write_text(json.dumps(manifest), "utf-8")
    snapshot = Snapshot.load(str(copy))
    try:
        saved = snapshot.save(str(tmp_path / "out.tar.gz"))
    finally:
        snapshot.close()
    again = Snapshot.load(str(saved))
    try:
        resaved = again.manifest()
    finally:
        again.close()
    assert manifest_problem(resaved) is None
    kept = {k: v for k, v in manifest.items() if k not in REWRITTEN_ON_SAVE}
    assert {k: v for k, v in resaved.items() if k not in REWRITTEN_ON_SAVE} == kept
    assert resaved["from_a_later_version"] == {"flag": True, "names": ["a", "b"]}
    assert {i["name"] for i in resaved["items"]} == {i["name"] for i in manifest["items"]}


def test_a_wrongly_typed_nested_field_is_refused_in_one_line(tmp_path: Path) -> None:
    copy = tmp_path / "bad"
    shutil.copytree(BUNDLES[0], copy)
    manifest = _manifest(copy)
    manifest["node_probe"]["elapsed_s"] = "soon"
    (copy / "manifest.json").write_text(json.dumps(manifest), "utf-8")
    problem = manifest_problem(manifest)
    assert (
        problem == "field node_probe.elapsed_s: expected an integer or a number or null, got 'soon'"
    )
