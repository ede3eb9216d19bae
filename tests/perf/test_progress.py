"""Per-rank progress: which ranks did not reach which collective (STALLED_RANKS)."""

from __future__ import annotations

import pickle
import shutil
from pathlib import Path
from typing import Any

from hyperpod_nccl.perf.flight_recorder import UnreadableDump, group_states, load_dump
from hyperpod_nccl.perf.progress import analyze_progress, progress_findings


def stalled(findings: list[Any]) -> list[Any]:
    return [f for f in findings if f.code == "STALLED_RANKS"]


def test_real_flight_recorder_pickles_name_the_rank_that_stopped(perf: Any) -> None:
    dumps = sorted(p for p in perf.flight_recorder.glob("trace_*") if p.suffix != ".json")
    assert len(dumps) == 4
    result = analyze_progress([str(p) for p in dumps])
    (finding,) = stalled(result.findings)
    assert (finding.status.value, finding.priority.value) == ("WARN", "P1")
    assert finding.ranks == [2]
    assert finding.details["seq"] == 5
    assert finding.details["op"] == "gloo:all_reduce"
    assert finding.details["behind"][0]["last_seq"] == 4
    assert finding.details["source"] == "flight-recorder"
    assert finding.reference == "debugging-guide.md#stalled-ranks"
    assert sorted(m.rank for m in result.members if m.group.startswith("process group 0")) == [
        0,
        1,
        2,
        3,
    ]


def test_real_flight_recorder_json_dumps_agree_with_the_pickles(perf: Any) -> None:
    dumps = sorted(str(p) for p in perf.flight_recorder.glob("trace_*.json"))
    (finding,) = stalled(analyze_progress(dumps).findings)
    assert finding.ranks == [2] and finding.details["seq"] == 5


def test_dump_with_a_rank_missing_entirely(perf: Any, tmp_path: Path) -> None:
    for rank in (0, 1, 3):
        shutil.copy(perf.flight_recorder / f"trace_{rank}", tmp_path / f"trace_{rank}")
    result = analyze_progress([str(tmp_path)])
    (finding,) = stalled(result.findings)
    # Ranks 0, 1, 3 all reached #5; rank 2 left no dump: named as silent.
    assert finding.ranks == [2]
    assert finding.details["silent_ranks"] == [2]


def test_group_states_read_status_and_entries(perf: Any) -> None:
    dump = load_dump((perf.flight_recorder / "trace_0").read_bytes())
    groups = {g.pg: g for g in group_states(dump)}
    assert groups["0"].last_enqueued == 5 and groups["0"].ops[4] == "gloo:broadcast"
    assert groups["0"].ranks == [0, 1]  # the real dump's pg_config quirk (see SOURCES.md)
    assert groups["1"].last_seq == 1


def test_a_pickle_that_would_run_code_is_refused(tmp_path: Path) -> None:
    marker = tmp_path / "ran"

    class Evil:
        def __reduce__(self) -> tuple[Any, tuple[str]]:
            import os

            return (os.system, (f"touch {marker}",))

    payload = pickle.dumps({"version": "2.5", "entries": [Evil()], "pg_status": {}}, protocol=2)
    try:
        load_dump(payload)
        raise AssertionError("loaded a pickle that refers to os.system")
    except UnreadableDump as exc:
        assert "system" in str(exc)
    assert not marker.exists()
    path = tmp_path / "trace_0"
    path.write_bytes(payload)
    result = analyze_progress([str(path)])
    assert result.findings == []
    assert [n.check for n in result.not_checked] == [str(path)]
    assert not marker.exists()


def test_a_damaged_dump_is_reported_not_raised(perf: Any, tmp_path: Path) -> None:
    data = (perf.flight_recorder / "trace_1").read_bytes()
    path = tmp_path / "trace_1"
    path.write_bytes(data[: len(data) // 2])
    result = analyze_progress([str(path)])
    assert result.findings == []
    (problem,) = result.not_checked
    assert "damaged pickle" in problem.reason


def test_nccl_coll_opcount_lines_show_the_process_behind(perf: Any) -> None:
    path = perf.progress / "coll-opcount-trace-128rank-allreduce-timeout-ranks-split-139d-139e.txt"
    (finding,) = stalled(analyze_progress([str(path)]).findings)
    assert finding.status.value == "WARN"
    assert finding.hosts == ["r24-02-22-23-29-0066-raycluster-lv52c-worker-l4-8-fqztx"]
    assert finding.details["seq"] == 0x139E and finding.details["op"] == "AllReduce"
    assert finding.details["behind"][0]["last_seq"] == 0x139D
    assert finding.details["world_size"] == 128
    assert finding.details["members_without_evidence"] == 124
    assert "opCount 0x139e" in finding.title


def test_ranks_running_different_collectives_are_a_mismatch(perf: Any) -> None:
    path = perf.progress / "coll-opcount-mismatch-allreduce-vs-allgather-rank2-desync.txt"
    findings = analyze_progress([str(path)]).findings
    (mismatch,) = [f for f in findings if f.code == "NCCL_INVALID_USAGE"]
    assert (mismatch.status.value, mismatch.priority.value) == ("FAIL", "P0")
    assert mismatch.details["ops"] == {
        "AllReduce": ["h03r3n06:45006 [0]"],
        "AllGather": ["h03r3n06:45012 [2]"],
    }
    assert mismatch.details["seq"] == 0x28C


def test_flight_recorder_analyzer_output(perf: Any) -> None:
    for name, seq in (
        ("torchfrtrace-not-all-ranks-joining-collective-missing-rank1.txt", 5),
        ("fr_trace-cli-mismatch-and-side-by-side-j-torchcomms.txt", 4),
        ("torchcomms-fr-text-dump-collectives-nccl-calls-tables.txt", 4),
        ("watchdog-desync-report-collective-mismatch.txt", 3),
    ):
        (finding,) = stalled(progress_findings([str(perf.progress / name)]))
        assert finding.ranks == [1], name
        assert finding.details["seq"] == seq, name


def test_inputs_without_progress_evidence_add_nothing(perf: Any) -> None:
    # Watchdog lines are the logs command's job; a plain nccl-tests log has no per-rank progress.
    assert (
        progress_findings(
            [
                str(
                    perf.progress
                    / "watchdog-timeout-8rank-allreduce-seqnum1580-last-enqueued-completed.txt"
                )
            ]
        )
        == []
    )
    assert (
        progress_findings(
            [str(perf.nccl_tests / "a100-sxm4-80gb-1node-8gpu-allreduce-healthy.txt")]
        )
        == []
    )


def test_perf_command_reports_progress_with_the_runs(cli: Any, perf: Any) -> None:
    result = cli("perf", perf.flight_recorder, "--format", "json")
    assert result.code == 0
    (finding,) = result.findings("STALLED_RANKS")
    assert finding["ranks"] == [2]
    members = result.json()["summary"]["progress"]
    assert {m["member"] for m in members} == {"rank 0", "rank 1", "rank 2", "rank 3"}


def test_watchdog_lines_feed_the_per_rank_view(cli: Any, perf: Any) -> None:
    path = perf.progress / "watchdog-timeout-8rank-allreduce-seqnum1580-last-enqueued-completed.txt"
    result = cli("perf", path, "--format", "json")
    members = {m["member"]: m for m in result.json()["summary"]["progress"]}
    assert set(members) == {"rank 0", "rank 3"}
    assert (members["rank 0"]["last_seq"], members["rank 0"]["last_completed"]) == (1582, 1579)
    assert members["rank 0"]["last_op"] == "(timed out in ALLREDUCE #1580)"
    (finding,) = result.findings("STALLED_RANKS")
    assert finding["status"] == "INFO"  # both ranks enqueued the same work: none fell behind here
    # The logs command reports STALLED_RANKS from watchdog lines itself: no second finding.
    assert progress_findings([str(path)]) == []


def test_newer_watchdog_format_with_pg_guid(perf: Any) -> None:
    path = perf.progress / "watchdog-timeout-pg-guid-format-and-fr-dump-wait.txt"
    result = analyze_progress([str(path)])
    assert {(m.group, m.label, m.last_seq, m.last_completed) for m in result.members} == {
        ("process group 0 (0(default_pg))", "rank 0", 811, 807),
        ("process group 0 (0(default_pg))", "rank 1", 811, 807),
    }
