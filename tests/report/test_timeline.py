"""The cross-rank timeline's data: the first failing line of each rank and host, and the axis
the report draws them on, from the example job's real logs and bundle."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hyperpod_nccl.api import analyze_logs
from hyperpod_nccl.cli import main
from hyperpod_nccl.report.timeline import build_timeline
from hyperpod_nccl.rules.attribution import event_clock, glog_text, parse_glog_text

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE_LOGS = ROOT / "src" / "hyperpod_nccl" / "examples" / "logs" / "oom-one-rank"
EXAMPLE_BUNDLE = ROOT / "src" / "hyperpod_nccl" / "examples" / "bundles" / "oom-one-rank"


def test_both_of_pytorchs_glog_shapes_give_a_clock() -> None:
    cpp = (EXAMPLE_LOGS / "rank0.log").read_text("utf-8").splitlines()[49]
    agent = (EXAMPLE_LOGS / "torchrun-ip-10-1-7-41.log").read_text("utf-8").splitlines()[1]
    cpp_clock, agent_clock = event_clock(cpp), event_clock(agent)
    assert cpp_clock is not None and agent_clock is not None
    assert glog_text(cpp_clock) == "11-30 10:41:07.073371"
    assert glog_text(agent_clock) == "11-30 10:31:02.424000"
    assert parse_glog_text(glog_text(agent_clock)) == pytest.approx(agent_clock, abs=1e-6)
    assert event_clock("{'loss': 2.200, 'grad_norm': 1.21}") is None


def test_logs_summary_keeps_each_ranks_first_failure() -> None:
    report = analyze_logs([str(EXAMPLE_LOGS)])
    events = report.summary["timeline"]
    by_rank = {(e["rank"], e["code"]) for e in events if e["clock"]}
    assert {(0, "NCCL_TIMEOUT"), (1, "NCCL_TIMEOUT"), (3, "NCCL_TIMEOUT")} <= by_rank
    host = [e for e in events if e["rank"] is None and e["host"] == "ip-10-1-7-41" and e["clock"]]
    assert [(e["code"], e["clock"]) for e in host] == [("CONTAINER_OOM", "11-30 10:31:02.424000")]
    # The kernel's OOM line has no clock but names rank 2's pid: it counts for rank 2.
    rank2 = [e for e in events if e["rank"] == 2]
    assert rank2 and rank2[0]["code"] == "CONTAINER_OOM" and rank2[0]["clock"] is None
    # A catch-all line never stands for a rank's first failure.
    assert all(e["code"] != "UNCLASSIFIED_FAILURE" for e in events)


def test_logs_timeline_is_on_glogs_clock_with_the_root_cause_first() -> None:
    timeline = build_timeline(analyze_logs([str(EXAMPLE_LOGS)]))
    assert timeline is not None and timeline.axis == "glog"
    rows = {r.label: r for r in timeline.rows}
    oom = rows["ip-10-1-7-41"].mark
    timeout = rows["rank 0"].mark
    assert oom is not None and timeout is not None and oom.x is not None and timeout.x is not None
    assert timeline.root_x == oom.x
    assert timeout.x - oom.x == pytest.approx(605.0, abs=1.0)  # 10:31:02 -> 10:41:07
    assert rows["rank 2"].root and rows["rank 2"].never_reached == (
        "never reached ALLREDUCE SeqNum 4181"
    )


def test_diagnose_timeline_places_glog_lines_beside_the_api_times(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["diagnose", "--bundle", str(EXAMPLE_BUNDLE), "--format", "json"]) == 0
    summary = json.loads(capsys.readouterr().out)["summary"]
    assert any(e["clock"] for e in summary["timeline"])
    from hyperpod_nccl.api import analyze_snapshot
    from hyperpod_nccl.snapshot import Snapshot

    snapshot = Snapshot.load(str(EXAMPLE_BUNDLE))
    try:
        report = analyze_snapshot(snapshot, bundle=str(EXAMPLE_BUNDLE))
    finally:
        snapshot.close()
    timeline = build_timeline(report)
    assert timeline is not None and timeline.axis == "utc"
    rows = {r.label: r for r in timeline.rows}
    oom = rows["llama-pretrain-worker-1"]
    assert oom.root and oom.mark is not None and oom.mark.code == "CONTAINER_OOM"
    assert not oom.mark.approximate  # the pod's lastState time, from the API
    # Rank 8's timeout is only in its pod's log, stamped by PyTorch's glog clock; rank 0's
    # is also in CloudWatch, stamped in UTC. The example is built on one clock, so both land
    # on the same second, ten minutes after the OOM-kill.
    rank8, rank0 = rows["rank 8"].mark, rows["rank 0"].mark
    assert rank8 is not None and rank8.approximate and rank8.x is not None
    assert rank0 is not None and not rank0.approximate and rank0.x is not None
    assert oom.mark.x is not None and rank8.x > oom.mark.x
    assert abs(rank8.x - rank0.x) < 1 and 590 < rank0.x - oom.mark.x < 620
    # LOGS_SCANNED no longer carries the events: they live in the summary only.
    assert all("timeline" not in f.details for f in report.findings)
