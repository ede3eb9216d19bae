"""Lines the analyzer has settled are passed over by the scanner from the next chunk on
(rules/engine.py, KNOWN_*): the report must be the one a scan that looks at every line
gives. One chunk holding the whole log is that scan (the scanner consults what is known
only between chunks); small chunks make nearly every repeated NCCL init line a passed-over
one, init completions included."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from logmix import corpus, healthy_sources, job_lines

import hyperpod_nccl.rules.engine as engine
from hyperpod_nccl.api import analyze_logs
from hyperpod_nccl.rules.analyzer import LogAnalyzer
from hyperpod_nccl.rules.catalog import load_catalog
from hyperpod_nccl.rules.lines import KNOWN_LAST


def _report(path: Path) -> dict:  # type: ignore[type-arg]
    report = analyze_logs([str(path)], workers=1).to_dict()
    report["summary"].pop("elapsed_s")
    return report


@pytest.mark.parametrize("share", [0.1, 0.5])
def test_small_chunks_give_the_whole_chunk_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, share: float
) -> None:
    rng = random.Random(7)
    failures = {c["id"]: str(c["log"]) for c in corpus()}
    lines = list(job_lines(rng, 16, 30_000, healthy_sources()[1], share))
    lines[20_000:20_000] = failures["a012"].splitlines()  # a failure after the init bursts
    log = tmp_path / "job.log"
    log.write_text("\n".join(lines) + "\n")
    assert log.stat().st_size < engine.CHUNK_BYTES  # the default: one chunk
    whole = _report(log)
    monkeypatch.setattr(engine, "CHUNK_BYTES", 16 * 1024)
    chunked = _report(log)
    assert json.dumps(chunked, sort_keys=True) == json.dumps(whole, sort_keys=True)
    assert whole["summary"]["matched_lines"] > 300
    assert any(f["status"] == "FAIL" for f in whole["findings"])
    # The small chunks did take the passing-over path, for plain repeats and completions.
    analyzer = LogAnalyzer(load_catalog())
    with open(log, "rb") as stream:
        stats = analyzer.scan(log.name, stream)
    assert stats.known_lines > 0
    assert KNOWN_LAST in analyzer._known.values()


def test_a_repeated_init_completion_keeps_its_last_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An init completion seen before counts again for its line number: a process that
    completed, then set up NVLS for another communicator and completed again, did not stall
    in NVLS set-up (diagnosis' NVLS-stall rule compares the two line numbers)."""
    complete = (
        "ip-10-1-2-3:77:90 [0] NCCL INFO comm 0x55d0 rank 0 nranks 16 cudaDev 0 nvmlDev 0 "
        "busId 53000 commId 0x1b2 - Init COMPLETE"
    )
    nvls = "ip-10-1-2-3:77:90 [0] NCCL INFO NVLS Bind mem 0xac0000000 UC handle 0x7f33 size 1024"
    filler = [f"step {n} loss 2.{n % 97:02d} lr 0.0003" for n in range(3000)]
    log = tmp_path / "job.log"
    # Seen twice, the completion is known; its third time comes chunks later.
    log.write_text("\n".join([complete, complete, *filler, nvls, *filler, complete]) + "\n")
    whole = _report(log)
    monkeypatch.setattr(engine, "CHUNK_BYTES", 16 * 1024)
    assert _report(log) == whole
    assert not [f for f in whole["findings"] if f["code"] == "NCCL_TOPOLOGY"]
    # Without the second completion the same log is an NVLS stall: the test can tell.
    log.write_text("\n".join([complete, complete, *filler, nvls, *filler]) + "\n")
    assert [f for f in _report(log)["findings"] if f["code"] == "NCCL_TOPOLOGY"]
