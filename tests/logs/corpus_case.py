"""Judge one labelled corpus case the way the corpus tests score it: alone as one log file, or
spread over rank files among healthy output (logmix). Right means root_cause equals the label;
for HEALTHY, root_cause is null and no finding FAILs."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

from logmix import FIXTURES, spread_case

from hyperpod_nccl.api import analyze_logs
from hyperpod_nccl.codes import load_registry


def outcome(case: dict[str, Any], tmp_path: Path, spread: bool) -> tuple[bool, dict[str, Any]]:
    if spread:
        job = tmp_path / "job"
        job.mkdir()
        spread_case(case["log"], job, random.Random(case["id"]))
        report = analyze_logs([str(job)]).to_dict()
    else:
        path = tmp_path / f"{case['id']}.log"
        path.write_text(case["log"], "utf-8")
        report = analyze_logs([str(path)]).to_dict()
    fails = [f["code"] for f in report["findings"] if f["status"] == "FAIL"]
    if case["label"] == "HEALTHY":
        return report["root_cause"] is None and not fails, report
    return report["root_cause"] == case["label"], report


def _thread(url: str) -> str:
    # One thread is one source whether linked as an issue or a pull request.
    match = re.match(r"https://github\.com/([^/]+/[^/]+)/(?:issues|pull)/(\d+)", url)
    return f"{match[1].lower()}#{match[2]}" if match else url.lower()


def assert_new_corpus(
    cases: list[dict[str, Any]], prefix: str, others: tuple[str, ...], least: int, healthy: int
) -> None:
    """A blind set's shape: ids `<prefix>001`... in order, at least `least` cases and `healthy`
    HEALTHY ones, every label a registry code, and no thread shared with the `others` sets."""
    assert [c["id"] for c in cases] == [f"{prefix}{n:03d}" for n in range(1, len(cases) + 1)]
    assert len(cases) >= least
    assert sum(c["label"] == "HEALTHY" for c in cases) >= healthy
    codes = set(load_registry().codes) | {"HEALTHY"}
    seen = {
        _thread(json.loads(line)["source"])
        for name in others
        for line in (FIXTURES / "corpus" / name).read_text("utf-8").splitlines()
        if line.strip()
    }
    other_ids = {
        json.loads(line)["id"]
        for name in others
        for line in (FIXTURES / "corpus" / name).read_text("utf-8").splitlines()
        if line.strip()
    }
    assert not {c["id"] for c in cases} & other_ids  # a case id names one case in all sets
    sources = [_thread(c["source"]) for c in cases]
    assert len(sources) == len(set(sources))
    assert not set(sources) & seen
    for case in cases:
        # A public page: a GitHub thread, or a forum or Q&A thread (discuss.pytorch.org...).
        assert re.match(r"https://[a-z0-9.-]+\.[a-z]{2,}/\S+$", case["source"]), case["id"]
        assert case["label"] in codes and set(case["also"]) <= codes, case["id"]
        assert case["label"] not in case["also"], case["id"]
        assert case["log"].strip() and case["why"].strip(), case["id"]
