"""The code registry is the one home of a code's facts: every code any part of the tool
reports is in it, its references resolve, its cause graph is acyclic, and the contract's
table and the rule catalog are generated from or checked against it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hyperpod_nccl import kb
from hyperpod_nccl.checks import load_checks
from hyperpod_nccl.codes import CodeRegistryError, load_registry, parse_registry
from hyperpod_nccl.codes.table import render, replace_table
from hyperpod_nccl.rules.catalog import load_catalog

ROOT = Path(__file__).resolve().parents[2]
REGISTRY = load_registry()


def test_every_code_a_check_declares_is_registered() -> None:
    declared = {code for spec in load_checks().values() for code in spec.codes}
    assert declared, "no check declares a code"
    assert sorted(declared - set(REGISTRY.codes)) == []


def test_every_code_a_log_rule_names_is_a_registered_log_code() -> None:
    for rule in load_catalog().rules:
        for code in rule.possible_codes():
            assert code in REGISTRY, (rule.id, code)
            assert REGISTRY[code].area == "logs", (rule.id, code)


def test_every_code_literal_in_the_source_is_registered() -> None:
    """A finding built anywhere with a literal code (`code="X"` or `finding("X", ...)`)."""
    pattern = re.compile(
        r'(?:code=|finding\(\s*|unavailable\(\s*\w+,\s*\w+,\s*)"([A-Z][A-Z0-9_]+)"'
    )
    found: dict[str, str] = {}
    for path in sorted((ROOT / "src" / "hyperpod_nccl").rglob("*.py")):
        for code in pattern.findall(path.read_text("utf-8")):
            found.setdefault(code, str(path.relative_to(ROOT)))
    assert len(found) > 30
    missing = {code: where for code, where in found.items() if code not in REGISTRY}
    assert missing == {}


def test_references_are_the_guides_own() -> None:
    for code, info in REGISTRY.codes.items():
        if info.reference is None:
            assert not info.can_be_root, f"{code} can be a root cause but has no guide section"
            continue
        assert kb.resolve(info.reference) is not None, (code, info.reference)
        assert kb.reference_for_code(code) == info.reference, code


def test_the_contract_table_is_generated_from_the_registry() -> None:
    text = (ROOT / "docs" / "contract.md").read_text("utf-8")
    assert replace_table(text, render(REGISTRY)) == text, (
        "regenerate: python -m hyperpod_nccl.codes.table docs/contract.md"
    )
    for code in REGISTRY.codes:
        assert f"| {code} |" in text


def test_the_registry_ships_inside_the_package() -> None:
    pyproject = (ROOT / "pyproject.toml").read_text("utf-8")
    assert '"codes/*.yaml"' in pyproject


def test_slurm_node_states_and_efa_requests_explain_the_log_symptoms() -> None:
    assert "NCCL_TIMEOUT" in REGISTRY["SLURM_NODE_DOWN"].explains
    assert "PEER_EXITED" in REGISTRY["SLURM_NODE_NOT_RESPONDING"].explains
    assert "EFA_TCP_FALLBACK" in REGISTRY["EFA_COUNT_MISMATCH"].explains
    assert "MEMLOCK" in REGISTRY["SLURM_MEMLOCK_NOT_PROPAGATED"].explains


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "AA_X: {area: logs, priority: P0, tier: 1, title: a, explains: [BB_X]}\n"
            "BB_X: {area: logs, priority: P0, tier: 2, title: b, explains: [AA_X]}\n",
            "cycle",
        ),
        ("AA_X: {area: logs, priority: P0, tier: 1, title: a, explains: [NOPE]}\n", "unknown"),
        ("AA_X: {area: logs, priority: P9, tier: 1, title: a}\n", "priority"),
        ("AA_X: {area: moon, priority: P0, tier: 1, title: a}\n", "area"),
        ("AA_X: {area: logs, priority: P0, title: a}\n", "missing tier"),
        ("AA_X: {area: logs, priority: P0, tier: 1, title: a, colour: red}\n", "unknown keys"),
        (
            "AA_X: {area: logs, priority: P0, tier: 1, title: a, root_cause: false, explains: [BB_X]}\n"
            "BB_X: {area: logs, priority: P0, tier: 2, title: b}\n",
            "explains nothing",
        ),
        ("aa: {area: logs, priority: P0, tier: 1, title: a}\n", "bad code name"),
    ],
)
def test_malformed_registries_are_rejected(text: str, message: str) -> None:
    with pytest.raises(CodeRegistryError, match=message):
        parse_registry(text)
