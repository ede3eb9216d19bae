"""`--show`: text and Markdown list the problems and what was not checked by default, with
PASS and INFO counted in one line; `--show all` lists everything; JSON always holds every
finding. Run on the shipped example bundle of an OOM-killed rank."""

from __future__ import annotations

import json
import re

import pytest

from hyperpod_nccl import cli


def _run(capsys: pytest.CaptureFixture[str], *extra: str) -> str:
    assert cli.main(["diagnose", "--example", "oom-one-rank", *extra]) == 0
    return capsys.readouterr().out


def test_default_lists_problems_and_counts_the_rest(capsys: pytest.CaptureFixture[str]) -> None:
    every = json.loads(_run(capsys, "--format", "json"))["findings"]
    passes = sum(1 for f in every if f["status"] == "PASS")
    infos = sum(1 for f in every if f["status"] == "INFO" and not f["root_cause"])
    assert passes and infos
    text = _run(capsys)
    assert "[PASS]" not in text and "[INFO]" not in text
    assert f"{passes} PASS and {infos} INFO findings not listed (--show all lists them)" in text
    listed = re.findall(r"^\[(FAIL|WARN|SKIPPED|INCOMPLETE)\] \S+ (\S+):", text, re.M)
    expected = [f for f in every if f["status"] in ("FAIL", "WARN", "SKIPPED", "INCOMPLETE")]
    assert len(listed) == len(expected)
    assert "Root cause: CONTAINER_OOM" in text


def test_show_all_lists_every_finding_and_fail_drops_warnings(
    capsys: pytest.CaptureFixture[str],
) -> None:
    every = json.loads(_run(capsys, "--format", "json"))["findings"]
    text = _run(capsys, "--show", "all")
    assert len(re.findall(r"^\[[A-Z]+\] P\d ", text, re.M)) == len(every)
    assert "not listed" not in text
    fails_only = _run(capsys, "--show", "fail")
    assert "[WARN]" not in fails_only and "[FAIL]" in fails_only
    markdown = _run(capsys, "--format", "markdown")
    assert "| PASS |" not in markdown and "findings not listed" in markdown
    assert json.loads(_run(capsys, "--format", "json", "--show", "fail"))["findings"] == every
