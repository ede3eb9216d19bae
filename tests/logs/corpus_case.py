"""Judge one labelled corpus case the way the corpus tests score it: alone as one log file, or
spread over rank files among healthy output (logmix). Right means root_cause equals the label;
for HEALTHY, root_cause is null and no finding FAILs."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from logmix import spread_case

from hyperpod_nccl.api import analyze_logs


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
