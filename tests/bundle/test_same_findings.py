"""A bundle analyses to what the original run found: on every real corpus log, redacted and
obfuscated, `logs --bundle` names the same root cause with the same findings."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from bundle_helpers import corpus_cases, run_cli

from hyperpod_nccl.api import analyze_logs
from hyperpod_nccl.bundle.escalation import EscalationOptions, save_escalation_bundle
from hyperpod_nccl.bundle.logs import analyze_bundle_logs, ingest_logs
from hyperpod_nccl.model import Report
from hyperpod_nccl.snapshot import Snapshot

CASES = corpus_cases()


def _findings(report: Report | dict[str, Any]) -> list[dict[str, Any]]:
    data = report.to_dict() if isinstance(report, Report) else report
    return json.loads(json.dumps(data["findings"]))


def _bundle(
    tmp_path: Path, log: Path, plain: Report, obfuscate: bool
) -> tuple[Report, dict[str, Any]]:
    target = tmp_path / ("obfuscated.tar.gz" if obfuscate else "redacted.tar.gz")
    snapshot = Snapshot(meta={"command": "logs"})
    try:
        ingest_logs(snapshot, [str(log)], {})
        options = EscalationOptions(
            str(target), obfuscate=obfuscate, argv=["hyperpod-nccl", "logs", str(log)]
        )
        save_escalation_bundle(plain, snapshot, options)
    finally:
        snapshot.close()
    loaded = Snapshot.load(str(target))
    try:
        return analyze_bundle_logs(loaded), loaded.get_json("reports/report.json")
    finally:
        loaded.close()


def _unordered(finding: dict[str, Any]) -> dict[str, Any]:
    return {
        **finding,
        "hosts": sorted(finding["hosts"]),
        "title": sorted(finding["title"].replace(";", " ").replace(",", " ").split()),
        "evidence": sorted((e["source"], e["text"]) for e in finding["evidence"]),
        "details": json.dumps(finding["details"], sort_keys=True)
        if not finding["details"]
        else len(json.dumps(finding["details"])),
    }


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_bundle_reanalysis_finds_the_same(tmp_path: Path, case: dict[str, Any]) -> None:
    log = tmp_path / f"{case['id']}.log"
    log.write_text(case["log"], "utf-8")
    plain = analyze_logs([str(log)])
    root = plain.root_cause.code if plain.root_cause else None

    redacted, archived = _bundle(tmp_path, log, plain, obfuscate=False)
    assert (redacted.root_cause.code if redacted.root_cause else None) == root
    # Identical findings, down to evidence sources and texts (no secrets in these logs).
    assert _findings(redacted) == _findings(plain)
    assert _findings(archived) == _findings(plain)

    obfuscated, archived = _bundle(tmp_path, log, plain, obfuscate=True)
    assert (obfuscated.root_cause.code if obfuscated.root_cause else None) == root
    # The re-analysis of the obfuscated logs equals the obfuscated original report: every
    # identifier was rewritten the same way in the logs and in the report. (Stand-ins sort
    # differently from the names they replace, so lists are compared in any order.)
    assert [_unordered(f) for f in _findings(obfuscated)] == [
        _unordered(f) for f in _findings(archived)
    ]
    shape = [
        (f["code"], f["status"], f["priority"], f["ranks"], len(f["hosts"]))
        for f in _findings(plain)
    ]
    assert [
        (f["code"], f["status"], f["priority"], f["ranks"], len(f["hosts"]))
        for f in _findings(obfuscated)
    ] == shape


def test_logs_bundle_command_prints_the_same_report(tmp_path: Path) -> None:
    """The CLI round trip: `logs X --save-bundle B`, then `logs --bundle B`, as JSON."""
    job = tmp_path / "job"
    job.mkdir()
    picked = [c for c in CASES if c["label"] in ("NCCL_TIMEOUT", "CONTAINER_OOM")][:4]
    for n, case in enumerate(picked):
        (job / f"rank{n}.log").write_text(case["log"], "utf-8")
    bundle = tmp_path / "b.tar.gz"
    first = run_cli("logs", str(job), "--save-bundle", str(bundle), "--format", "json")
    again = run_cli("logs", "--bundle", str(bundle), "--format", "json")
    assert first.rc == again.rc == 0, first.stderr + again.stderr
    assert _findings(json.loads(again.stdout)) == _findings(json.loads(first.stdout))
    assert json.loads(again.stdout)["root_cause"] == json.loads(first.stdout)["root_cause"]


def test_logs_bundle_reports_inputs_that_were_not_readable(tmp_path: Path) -> None:
    log = tmp_path / "rank0.log"
    log.write_text(CASES[0]["log"], "utf-8")
    bundle = tmp_path / "b.tar.gz"
    fifo = tmp_path / "pipe.log"  # there, but not a regular file: skipped with its reason
    os.mkfifo(fifo)
    first = run_cli("logs", str(log), str(fifo), "--save-bundle", str(bundle))
    assert first.rc == 0, first.stderr
    again = run_cli("logs", "--bundle", str(bundle), "--format", "json")
    report = json.loads(again.stdout)
    assert {"check": str(fifo), "reason": "not a regular file (FIFO); skipped"} in report[
        "not_checked"
    ]


def test_a_bundle_can_be_saved_again_obfuscated(tmp_path: Path) -> None:
    """`logs --bundle B --save-bundle B2 --obfuscate`: obfuscate a bundle someone already made."""
    log = tmp_path / "ip-10-1-7-41.log"
    log.write_text(CASES[0]["log"], "utf-8")
    first, second = tmp_path / "first.tar.gz", tmp_path / "second.tar.gz"
    made = run_cli("logs", str(log), "--save-bundle", str(first), "--format", "json")
    again = run_cli(
        "logs", "--bundle", str(first), "--save-bundle", str(second), "--obfuscate", "--format", "json"
    )  # fmt: skip
    assert made.rc == again.rc == 0, made.stderr + again.stderr
    mapping = json.loads(Path(str(second) + ".mapping.json").read_text("utf-8"))
    assert "10.1.7.41" in mapping["ipv4"]
    replay = run_cli("logs", "--bundle", str(second), "--format", "json")
    assert json.loads(replay.stdout)["root_cause"] == json.loads(made.stdout)["root_cause"]
    assert "ip-10-1-7-41" not in replay.stdout


def test_logs_bundle_reads_the_pod_logs_of_a_diagnose_bundle(tmp_path: Path) -> None:
    oom = next(c for c in CASES if c["label"] == "CONTAINER_OOM")
    snapshot = Snapshot(meta={"command": "diagnose", "cluster": "ml-cluster"})
    snapshot.put_text("k8s/logs/training/train-worker-1/main.log", oom["log"], source="pods/log")
    snapshot.put_json("k8s/pods.json", {"items": []})
    try:
        snapshot.save(str(tmp_path / "diag"))
    finally:
        snapshot.close()
    result = run_cli("logs", "--bundle", str(tmp_path / "diag"), "--format", "json")
    assert result.rc == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["root_cause"] == "CONTAINER_OOM"
    sources = {e["source"].rsplit(":", 1)[0] for f in report["findings"] for e in f["evidence"]}
    assert sources == {"k8s/logs/training/train-worker-1/main.log"}
