"""The scenario logs are only as good as their line formats: every line of them that the rule
catalog acts on must hit the same rule as a real line does, from the real samples copied in
tests/fixtures/eks/samples/ or the catalog's own examples (real lines, enforced by its tests).
And the tool's AWS allow-list must be covered by the read-only IAM policy the guide gives
users, or a user following the guide would get denials."""

from __future__ import annotations

import re
from pathlib import Path

from hyperpod_nccl import kb
from hyperpod_nccl.collect.aws import READ_ONLY_OPERATIONS
from hyperpod_nccl.rules.catalog import load_catalog

FIXTURES = Path(__file__).parents[1] / "fixtures" / "eks"


def _rules_hit(line: str) -> set[str]:
    return {
        rule.id
        for rule in load_catalog().rules
        if rule.role != "benign" and rule.regex.search(line)
    }


def _real_lines() -> list[str]:
    lines = []
    for sample in sorted((FIXTURES / "samples").glob("*.txt")):
        text = sample.read_text()
        assert text.startswith("# source: "), sample.name
        lines.extend(text.splitlines()[1:])
    for rule in load_catalog().rules:
        lines.extend(rule.examples)
    return lines


def test_every_rule_the_scenario_logs_hit_is_hit_by_a_real_line() -> None:
    real_hits: set[str] = set()
    for line in _real_lines():
        real_hits |= _rules_hit(line)
    scenario_hits: dict[str, str] = {}
    logs = sorted(FIXTURES.glob("*/logs/**/*.log"))
    assert len(logs) > 20
    for log in logs:
        for line in log.read_text().splitlines():
            for rule in _rules_hit(line):
                scenario_hits.setdefault(rule, f"{log.relative_to(FIXTURES)}: {line}")
    assert scenario_hits, "the scenario logs trigger no rule at all"
    invented = {rule: where for rule, where in scenario_hits.items() if rule not in real_hits}
    assert not invented, invented


def test_samples_keep_their_source_line() -> None:
    for sample in (FIXTURES / "samples").glob("*.txt"):
        first = sample.read_text().splitlines()[0]
        assert re.match(r"# source: https://github\.com/\S+", first), sample.name


def test_the_guides_read_only_policy_covers_every_call_the_tool_makes() -> None:
    section = kb.resolve("operations-reference.md#read-only-iam-policy")
    assert section is not None
    granted = set(re.findall(r'"([a-z0-9]+:[A-Za-z]+)"', section.markdown))
    needed = {f"{service}:{op}" for service, ops in READ_ONLY_OPERATIONS.items() for op in ops}
    assert needed <= granted, sorted(needed - granted)
