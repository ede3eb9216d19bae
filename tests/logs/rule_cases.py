"""What the tests of new rules share: the engines to run, the root cause a small log gets, and
the rules that fire on the project's healthy output (which must be none of the new ones)."""

from __future__ import annotations

import io
import json
from pathlib import Path

from logmix import CORPORA, healthy_sources

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


def healthy_cases() -> list[tuple[str, str]]:
    """(id, log) of every corpus case labelled HEALTHY: real healthy logs of many jobs."""
    cases = []
    for path in CORPORA:
        for line in path.read_text("utf-8").splitlines():
            if line.strip() and (case := json.loads(line))["label"] == "HEALTHY":
                cases.append((case["id"], case["log"]))
    return cases


def fired_on_healthy_cases(rules: set[str], engine: str) -> list[tuple[str, set[str]]]:
    """(case id, the given rules that count on one of its lines) for every HEALTHY corpus
    case where any does."""
    catalog = load_catalog()
    cases = healthy_cases()
    assert len(cases) > 300
    fired = []
    for case_id, log in cases:
        verdicts = LogAnalyzer(catalog, backend=engine).line_verdicts(io.BytesIO(log.encode()))
        hits = {rule for rule, _ in verdicts.values()} & rules
        if hits:
            fired.append((case_id, hits))
    return fired
