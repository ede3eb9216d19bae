"""`--show`: text and Markdown list the problems and what was not checked by default, with
PASS and INFO counted in one line; `--show all` lists everything; JSON always holds every
finding. Each report a person reads lists a code once, however many checks reported it.
Run on the shipped example bundles (an OOM-killed rank, a healthy cluster)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from hyperpod_nccl import cli


def _run(capsys: pytest.CaptureFixture[str], *extra: str) -> str:
    assert cli.main(["diagnose", "--example", "oom-one-rank", *extra]) == 0
    return capsys.readouterr().out


def _codes(findings: list[dict[str, Any]], status: str) -> int:
    """How many codes a report lists at `status`: one line per code, its most severe."""
    worst: dict[str, dict[str, Any]] = {}
    for f in findings:  # JSON is sorted: the root cause, then by status and priority
        worst.setdefault(f["code"], f)
    return sum(1 for f in worst.values() if f["status"] == status and not f["root_cause"])


def test_default_lists_problems_and_counts_the_rest(capsys: pytest.CaptureFixture[str]) -> None:
    every = json.loads(_run(capsys, "--format", "json"))["findings"]
    passes, infos = _codes(every, "PASS"), _codes(every, "INFO")
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
    assert len(re.findall(r"^\[[A-Z]+\] P\d ", text, re.M)) == len({f["code"] for f in every})
    assert "not listed" not in text
    fails_only = _run(capsys, "--show", "fail")
    assert "[WARN]" not in fails_only and "[FAIL]" in fails_only
    markdown = _run(capsys, "--format", "markdown")
    assert "| PASS |" not in markdown and "findings not listed" in markdown
    assert json.loads(_run(capsys, "--format", "json", "--show", "fail"))["findings"] == every


EXAMPLE = Path(__file__).resolve().parents[2] / "src" / "hyperpod_nccl" / "examples" / "bundles"


def _listed_codes(text: str, pattern: str) -> list[str]:
    return re.findall(pattern, text, re.M)


@pytest.mark.parametrize("name", ["healthy-eks", "oom-one-rank"])
def test_show_all_lists_each_code_once_in_text_markdown_and_html(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str
) -> None:
    """HEALTH_CHECK_FAILED and NODE_NOT_READY are each reported by two checks (HyperPod's node
    list and the Kubernetes nodes): JSON keeps both findings, every other format one line
    that holds what both checks said."""
    assert cli.main(["diagnose", "--example", name, "--format", "json"]) == 0
    every = json.loads(capsys.readouterr().out)["findings"]
    twice = {c for c in (f["code"] for f in every) if sum(g["code"] == c for g in every) > 1}
    assert {"HEALTH_CHECK_FAILED", "NODE_NOT_READY"} <= twice
    titles = {c: [f["title"] for f in every if f["code"] == c] for c in twice}

    assert cli.main(["diagnose", "--example", name, "--show", "all"]) == 0
    text = capsys.readouterr().out
    listed = _listed_codes(text, r"^\[[A-Z]+\] P\d (\S+):")
    assert sorted(listed) == sorted({f["code"] for f in every})
    for code, said in titles.items():
        (line,) = [s for s in text.splitlines() if re.match(rf"^\[[A-Z]+\] P\d {code}:", s)]
        assert all(title in line for title in said), line

    assert cli.main(["diagnose", "--example", name, "--show", "all", "--format", "markdown"]) == 0
    rows = _listed_codes(capsys.readouterr().out, r"^\| [A-Z]+ \| P\d \| `([A-Z0-9_]+)`")
    assert sorted(rows) == sorted({f["code"] for f in every})

    page = tmp_path / "report.html"
    assert cli.main(["diagnose", "--example", name, "-o", str(page)]) == 0
    capsys.readouterr()
    ids = re.findall(r'<tr class="finding" id="finding-([A-Z0-9_]+)"', page.read_text())
    assert sorted(ids) == sorted({f["code"] for f in every})  # ids are link targets: unique


def test_a_code_reported_pass_and_fail_shows_once_as_fail() -> None:
    """The merge keeps the most severe finding's status and priority and says what the other
    check found, so a FAIL is never hidden behind a PASS of the same code."""
    from hyperpod_nccl.model import Evidence, Finding, Priority, Status
    from hyperpod_nccl.report.show import one_per_code

    report = json.loads((EXAMPLE / "oom-one-rank" / "reports" / "report.json").read_text())
    passed = [f for f in report["findings"] if f["code"] == "NODE_NOT_READY"]
    assert len(passed) == 2 and {f["status"] for f in passed} == {"PASS"}
    # The same code failing on one node, as the Kubernetes node check reports it.
    failed = Finding(
        "NODE_NOT_READY",
        Status.FAIL,
        Priority.P0,
        "1 node not Ready: hyperpod-i-00005a3c7e9b1d202",
        hosts=["hyperpod-i-00005a3c7e9b1d202"],
        evidence=[Evidence("k8s/nodes.json", "hyperpod-i-00005a3c7e9b1d202 Ready=False")],
    )
    others = [
        Finding(f["code"], Status(f["status"]), Priority(f["priority"]), f["title"]) for f in passed
    ]
    (merged,) = one_per_code([failed, *others])
    assert merged.status is Status.FAIL and merged.priority is Priority.P0
    assert merged.title.startswith("1 node not Ready: hyperpod-i-00005a3c7e9b1d202; PASS: ")
    assert all(f"PASS: {f['title']}" in merged.title for f in passed)
    assert merged.hosts == ["hyperpod-i-00005a3c7e9b1d202"]
    assert merged.evidence == failed.evidence
    assert one_per_code([failed]) == [failed]
