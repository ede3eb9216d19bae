"""What the tests of new rules share: the engines to run, the root cause a small log gets, and
the rules that fire on the project's healthy output (which must be none of the new ones)."""

from __future__ import annotations

from pathlib import Path

from logmix import healthy_sources

from hyperpod_nccl.api import analyze_logs
from hyperpod_nccl.rules.analyzer import LogAnalyzer
from hyperpod_nccl.rules.catalog import load_catalog
from hyperpod_nccl.rules.engine import hyperscan_available

ENGINES = ["re", "hyperscan"] if hyperscan_available() else ["re"]


def root_of(tmp_path: Path, text: str, engine: str) -> str | None:
    """The root cause `logs` names for `text` as one log file."""
    path = tmp_path / "case.log"
    path.write_text(text + "\n", "utf-8")
    root: str | None = analyze_logs([str(path)], backend=engine).to_dict()["root_cause"]
    return root


def fired_on_healthy(rules: set[str], engine: str) -> list[tuple[str, set[str]]]:
    """(healthy file, the given rules that count on one of its lines), for every file where
    any does. Every rule named must be in the catalog: a misspelt or renamed id would make an
    empty answer mean nothing."""
    catalog = load_catalog()
    unknown = rules - {rule.id for rule in catalog.rules}
    assert not unknown, f"not catalog rules: {sorted(unknown)}"
    fired: list[tuple[str, set[str]]] = []
    for source in healthy_sources():
        with source.open("rb") as stream:
            verdicts = LogAnalyzer(catalog, backend=engine).line_verdicts(stream)
        hits = {rule for rule, _ in verdicts.values()} & rules
        if hits:
            fired.append((source.name, hits))
    return fired
