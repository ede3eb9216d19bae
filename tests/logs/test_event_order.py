"""Reasoning that depends on when things happened or on warnings: a watchdog stuck after an
earlier collective timeout is that timeout's symptom (by ISO timestamps or by the year-less
glog clocks of PyTorch's C++ lines), and an application-class Xid with nothing failing is
still named as what went wrong, as a warning."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hyperpod_nccl.api import analyze_logs
from hyperpod_nccl.cli import main
from hyperpod_nccl.rules.attribution import glog_clock

# Real lines from tests/fixtures/corpus/heldout.jsonl h009 (snowflakedb/ArcticTraining#219),
# with the glog stamp made a parameter so the order of the two can be swapped.
STUCK = (
    "[rank7]:[E626 {clock} ProcessGroupNCCL.cpp:1743] [PG ID 0 PG GUID 0(default_pg) Rank 7] "
    "ProcessGroupNCCL's watchdog got stuck for 480 seconds without making progress in "
    "monitoring enqueued collectives."
)
TIMEOUT = (
    "[rank2]:[E626 {clock} ProcessGroupNCCL.cpp:632] [Rank 2] Watchdog caught collective "
    "operation timeout: WorkNCCL(SeqNum=120049, OpType=_ALLGATHER_BASE, NumelIn=16384000, "
    "NumelOut=131072000, Timeout(ms)=1800000) ran for 1800065 milliseconds before timing out."
)
# h052 (vllm-project/vllm#5901): an Xid 13 with nothing else in the log.
XID_13 = (
    "[93297.027938] NVRM: Xid (PCI:0000:43:00): 13, pid='<unknown>', name=<unknown>, "
    "Graphics Exception: ESR 0x52e7b0=0x101000e 0x52e7b4=0x4 0x52e7a8=0xc81eb60 0x52e7ac=0x1174"
)


def _report(tmp_path: Path, lines: list[str]) -> dict[str, Any]:
    path = tmp_path / "job.log"
    path.write_text("\n".join(lines) + "\n", "utf-8")
    return analyze_logs([str(path)]).to_dict()


def _finding(report: dict[str, Any], code: str) -> dict[str, Any]:
    return next(f for f in report["findings"] if f["code"] == code)


def test_glog_clock_orders_lines_of_one_run() -> None:
    early = glog_clock(TIMEOUT.format(clock="05:06:30.929096625"))
    late = glog_clock(STUCK.format(clock="05:14:36.393067540"))
    assert early is not None and late is not None
    assert late - early == pytest.approx(485.463970915)
    # Month 12, day 31 is later than month 1, day 1; the day is two digits, the month not.
    december, january = glog_clock("[I1231 23:59:59 x.cpp:1] a"), glog_clock("[W101 00:00:00] b")
    assert december is not None and january is not None and december > january


@pytest.mark.parametrize(
    "line",
    [
        "[rank0]:[E ProcessGroupNCCL.cpp:1316] [PG 5 Rank 0] Heartbeat monitor timed out!",
        "[E1399 05:14:36.393 x.cpp:1] month 13 is no month",
        "2024-06-26 05:14:36,393 - ERROR - no glog stamp here",
    ],
)
def test_glog_clock_is_none_without_a_glog_stamp(line: str) -> None:
    assert glog_clock(line) is None


def test_watchdog_stuck_after_an_earlier_timeout_is_its_symptom(tmp_path: Path) -> None:
    report = _report(
        tmp_path,
        [STUCK.format(clock="05:14:36.393067540"), TIMEOUT.format(clock="05:06:30.929096625")],
    )
    assert report["root_cause"] == "NCCL_TIMEOUT"
    assert "WATCHDOG_HANG" in _finding(report, "NCCL_TIMEOUT")["explains"]
    assert _finding(report, "WATCHDOG_HANG")["status"] == "FAIL"


def test_watchdog_stuck_before_any_timeout_stays_the_root_cause(tmp_path: Path) -> None:
    report = _report(
        tmp_path,
        [STUCK.format(clock="05:06:30.929096625"), TIMEOUT.format(clock="05:14:36.393067540")],
    )
    assert report["root_cause"] == "WATCHDOG_HANG"
    assert "WATCHDOG_HANG" not in _finding(report, "NCCL_TIMEOUT")["explains"]


def test_order_by_iso_timestamps_across_rank_files(tmp_path: Path) -> None:
    (tmp_path / "rank2.log").write_text(
        "2025-06-26T05:06:30Z " + TIMEOUT.format(clock="05:06:30.929096625") + "\n", "utf-8"
    )
    (tmp_path / "rank7.log").write_text(
        "2025-06-26T05:14:36Z " + STUCK.format(clock="05:14:36.393067540") + "\n", "utf-8"
    )
    assert analyze_logs([str(tmp_path)]).to_dict()["root_cause"] == "NCCL_TIMEOUT"


def test_stuck_watchdog_with_no_clocks_keeps_its_rank(tmp_path: Path) -> None:
    # Without any clock the order of events is unknown: no order-based explanation.
    stuck = STUCK.replace("[E626 {clock} ", "[E ")
    timeout = TIMEOUT.replace("[E626 {clock} ", "[E ")
    assert _report(tmp_path, [stuck, timeout])["root_cause"] == "WATCHDOG_HANG"


def test_application_xid_alone_is_the_root_cause_as_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = _report(tmp_path, [XID_13])
    assert (report["root_cause"], report["issues_found"]) == ("GPU_XID", 0)
    assert _finding(report, "GPU_XID")["status"] == "WARN"
    # A warning never trips --fail-on, even when it is the root cause.
    assert main(["logs", str(tmp_path / "job.log"), "--fail-on", "P0"]) == 0
    assert "Root cause: GPU_XID" in capsys.readouterr().out


def test_application_xid_beside_a_failure_is_not_the_root_cause(tmp_path: Path) -> None:
    report = _report(tmp_path, [XID_13, TIMEOUT.format(clock="05:06:30.929096625")])
    assert report["root_cause"] == "NCCL_TIMEOUT"
    assert _finding(report, "GPU_XID")["root_cause"] is False
