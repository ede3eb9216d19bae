"""Every reference the tool prints resolves in the guide, every code has a section, and no
suggested command keeps a placeholder for a value its finding's evidence had."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

import hyperpod_nccl.kb as kb
from hyperpod_nccl.api import analyze_logs
from hyperpod_nccl.checks import load_checks

ROOT = Path(__file__).parents[2]
CORPUS = ROOT / "tests" / "fixtures" / "corpus"


def _log_reports(tmp: Path) -> list[dict[str, Any]]:
    reports = []
    for corpus in sorted(CORPUS.glob("*.jsonl")):
        for line in corpus.read_text().splitlines():
            case = json.loads(line)
            path = tmp / f"{case['id']}.log"
            path.write_text(case["log"])
            reports.append(analyze_logs([str(path)]).to_dict())
    reports.append(
        analyze_logs([str(ROOT / "src" / "hyperpod_nccl" / "examples" / "logs")]).to_dict()
    )
    reports.append(analyze_logs([str(ROOT / "tests" / "fixtures" / "captured")]).to_dict())
    return reports


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    return _log_reports(tmp_path_factory.mktemp("cases"))


def test_every_printed_reference_resolves(reports: list[dict[str, Any]]) -> None:
    seen = set()
    for report in reports:
        for finding in report["findings"]:
            if finding["reference"]:
                seen.add(finding["reference"])
                assert kb.resolve(finding["reference"]) is not None, finding["reference"]
    assert len(seen) > 20  # the corpus exercises most codes


def test_every_fail_points_at_a_section(reports: list[dict[str, Any]]) -> None:
    for report in reports:
        for finding in report["findings"]:
            if finding["status"] == "FAIL":
                assert finding["reference"], finding["code"]


def test_every_code_a_check_can_emit_has_a_section() -> None:
    missing = sorted(
        code
        for spec in load_checks().values()
        for code in spec.codes
        if kb.section_for_code(code) is None
    )
    assert missing == []


_PLACEHOLDER = re.compile(r"<([a-z][a-z-]*)>")


def test_no_placeholder_where_the_evidence_had_the_value(reports: list[dict[str, Any]]) -> None:
    checked = 0
    for report in reports:
        for finding in report["findings"]:
            for command in finding["suggested_commands"]:
                placeholders = set(_PLACEHOLDER.findall(command["command"]))
                checked += 1
                if "node" in placeholders:
                    assert not finding["hosts"], (finding["code"], command["command"])
                if "pid-of-training-process" in placeholders:
                    pids = {
                        m
                        for e in finding["evidence"]
                        for m in re.findall(r":(\d+):\d+ \[\d+\]", e["text"])
                    }
                    assert not pids, (finding["code"], command["command"], pids)
                assert "<instance-id-of-<" not in command["command"]
                for host in finding["hosts"]:
                    if re.fullmatch(r"i-[0-9a-f]{8,17}", host):
                        assert f"<instance-id-of-{host}>" not in command["command"]
    assert checked > 0
