"""The quick reference is generated from the catalog and cannot drift from it."""

from __future__ import annotations

from pathlib import Path

import hyperpod_nccl.kb as kb
from hyperpod_nccl.rules.catalog import load_catalog
from hyperpod_nccl.rules.quickref import render

QUICK = Path(kb.__file__).parent / "quick-reference.md"


def test_committed_quick_reference_equals_the_generated_one() -> None:
    assert QUICK.read_text() == render(load_catalog()), (
        "regenerate: python -m hyperpod_nccl.rules.quickref > src/hyperpod_nccl/kb/quick-reference.md"
    )


def test_every_rule_and_code_is_listed() -> None:
    text = QUICK.read_text()
    catalog = load_catalog()
    for rule in catalog.rules:
        assert f"`{rule.id}`" in text
    for code in catalog.codes:
        assert f"## {code}" in text


def test_quick_reference_anchors_resolve_and_do_not_clash_with_the_guide() -> None:
    assert kb.resolve("quick-reference.md#quick-reference") is not None
    assert kb.resolve("quick-reference.md#quick-container-oom") is not None
    assert not kb.duplicate_anchors()
