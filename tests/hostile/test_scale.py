"""Ranks, hosts and files at scale: the analyses stay linear and within memory. Each run is a
child process with a timeout far above a linear run's time (a hang bound, not a speed check)
and an address-space cap."""

from __future__ import annotations

import pickle
from pathlib import Path

from hostile import assert_no_traceback, run

WATCHDOG = (
    "[rank{r}]:[E626 06:24:44.903881913 ProcessGroupNCCL.cpp:616] [Rank {r}] Watchdog caught "
    "collective operation timeout: WorkNCCL(SeqNum={seq}, OpType=ALLREDUCE, NumelIn=9801523, "
    "NumelOut=9801523, Timeout(ms)=600000) ran for 600020 milliseconds before timing out.\n"
    "[rank{r}]:[E626 06:24:44.906457629 ProcessGroupNCCL.cpp:1785] [PG ID 0 PG GUID "
    "0(default_pg) Rank {r}] Exception (either an error or timeout) detected by watchdog at "
    "work: {seq}, last enqueued NCCL work: {seq}, last completed NCCL work: {done}.\n"
)


def _timeouts(path: Path, ranks: int) -> Path:
    """Every rank timing out; the odd ones one collective behind the even ones."""
    with open(path, "w") as out:
        for r in range(ranks):
            seq = 808 if r % 2 == 0 else 807
            out.write(WATCHDOG.format(r=r, seq=seq, done=seq - 1))
    return path


def test_perf_with_50000_ranks_timing_out(tmp_path: Path) -> None:
    log = _timeouts(tmp_path / "ranks.log", 50_000)
    result = run("perf", str(log), "--format", "json", tmp=tmp_path, timeout=300)
    assert_no_traceback(result)
    stalled = [f for f in result.json()["findings"] if f["code"] == "STALLED_RANKS"]
    assert stalled


def test_logs_with_200000_ranks_timing_out(tmp_path: Path) -> None:
    log = _timeouts(tmp_path / "ranks.log", 200_000)
    result = run("logs", str(log), "--format", "json", tmp=tmp_path, timeout=120)
    assert_no_traceback(result)
    report = result.json()
    # Every rank timed out and nothing deeper shows: the timeout is the root cause, and the
    # odd ranks, one collective behind, are named as the ones that did not get there.
    assert report["root_cause"] == "NCCL_TIMEOUT"
    stalled = next(f for f in report["findings"] if f["code"] == "STALLED_RANKS")
    assert len(stalled["details"]["behind_ranks"]) == 100_000


def test_logs_with_20000_files_of_which_many_are_dumps(tmp_path: Path) -> None:
    # Flight recorder dumps are set apart from the text inputs: that was a list scan per file.
    logs = tmp_path / "logs"
    logs.mkdir()
    dump = pickle.dumps({"version": "2.4", "pg_config": {}, "entries": []})
    for n in range(10_000):
        (logs / f"nccl_trace_rank_{n}").write_bytes(dump)
        (logs / f"rank{n}.log").write_text("step 1 loss 2.3\n")
    result = run("logs", str(logs), "--format", "json", tmp=tmp_path, timeout=300)
    assert_no_traceback(result)
    assert result.json()["summary"]["inputs"] == 20_000
