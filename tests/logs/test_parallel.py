"""Scanning on several processes gives exactly the serial scan's report, line numbers of
split files included."""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path

import pytest
from logmix import corpus, job_lines

import hyperpod_nccl.rules.parallel as parallel
import hyperpod_nccl.rules.scan as scan
from hyperpod_nccl.api import analyze_logs


def _normalised(report: dict) -> str:  # type: ignore[type-arg]
    for key in ("elapsed_s", "workers"):
        report["summary"].pop(key)
    return json.dumps(report, sort_keys=True)


@pytest.fixture
def job(tmp_path: Path) -> Path:
    rng = random.Random(3)
    failures = {c["id"]: str(c["log"]) for c in corpus()}
    big = tmp_path / "combined.log"
    lines = list(job_lines(rng, 16, 40_000))
    # Failures early and late in the big file, so both halves hold findings.
    lines[1000:1000] = failures["b005"].splitlines()
    lines[35_000:35_000] = failures["a012"].splitlines()
    big.write_text("\n".join(lines) + "\n")
    (tmp_path / "rank3.log").write_text(failures["a055"])
    (tmp_path / "dmesg.txt.gz").write_bytes(gzip.compress(failures["b048"].encode()))
    return tmp_path


def test_parallel_report_equals_serial(job: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parallel, "PARALLEL_MIN_BYTES", 1024)
    monkeypatch.setattr(scan, "PARALLEL_MIN_BYTES", 1024)
    serial = analyze_logs([str(job)], workers=1).to_dict()
    split = analyze_logs([str(job)], workers=3).to_dict()
    assert split["summary"]["workers"] == 3
    assert _normalised(split) == _normalised(serial)
    evidence = [e["source"] for f in serial["findings"] for e in f["evidence"]]
    assert any(s.startswith(str(job / "combined.log")) for s in evidence)


def test_plan_cuts_big_files_at_line_starts(job: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parallel, "PARALLEL_MIN_BYTES", 1024)
    from hyperpod_nccl.inputs import expand

    inputs, _ = expand([str(job)])
    groups = parallel.plan(inputs, 3)
    ranges = [u for g in groups for u in g if u.end is not None]
    assert len(ranges) == 3
    data = (job / "combined.log").read_bytes()
    for unit in ranges[1:]:
        assert data[unit.start - 1 : unit.start] == b"\n"
    assert ranges[0].start == 0 and ranges[-1].end == len(data)
