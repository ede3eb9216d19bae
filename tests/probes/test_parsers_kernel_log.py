"""Kernel-log parser on real Xid/SXid lines (tests/fixtures/probes/xid) in every time format
seen: dmesg -T, dmesg --time-format iso, seconds since boot, journalctl, bare kmsg."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path

import pytest

from hyperpod_nccl.probes.parsers.kernel_log import parse_kernel_log

Sample = Callable[[str], str]
CAPTURED_GPU = Path(__file__).resolve().parents[1] / "fixtures" / "captured" / "gpu"


@pytest.mark.parametrize(
    ("fixture", "xids"),
    [
        ("xid/xid79-fallen-off-bus-with-nvswitch-sxid20034.txt", [79]),
        ("xid/xid48-dbe-then-xid63-row-remap-then-xid94-contained-h100class.txt", [48, 63, 94]),
        ("xid/xid13-sm-exceptions-then-xid109-ctx-switch-timeout.txt", [13, 13, 13, 109]),
        ("xid/xid31-xid32-legacy-format.txt", [32, 32, 31]),
        ("xid/xid38-xid109-journalctl-format-rtx5080.txt", [38, 109, 109]),
        ("xid/xid43-mig-channel-format-line.txt", [43]),
        ("xid/xid63-row-remapper-a100.txt", [63]),
        ("xid/xid74-nvlink-fatal-error-link14-7-registers.txt", [74]),
        ("xid/xid145-xid137-nvlink-rlw-b200-redacted.txt", [145, 137]),
        ("xid/xid120-gsp-task-exception-store-access-page-fault.txt", [120]),
    ],
)
def test_xid_numbers_in_order(sample: Sample, fixture: str, xids: list[int]) -> None:
    log = parse_kernel_log(sample(fixture))
    assert [e.number for e in log.events if e.kind == "xid"] == xids


def test_xid_fields_pid_name_and_pci(sample: Sample) -> None:
    log = parse_kernel_log(sample("xid/xid119-gsp-rpc-timeout-full-dmesg.txt"))
    events = [e for e in log.events if e.kind == "xid"]
    assert [e.process for e in events] == ["nvidia-smi"] * 3 + ["cache_mgr_main", "gpud"]
    event = events[0]
    assert (event.number, event.pci) == (119, "0000:9b:00")
    assert event.time == datetime(2025, 2, 23, 16, 24, 18, tzinfo=timezone.utc)
    assert event.message.startswith("Timeout after 6s of waiting for RPC response")


def test_iso_timestamps_with_offset(sample: Sample) -> None:
    log = parse_kernel_log(sample("xid/xid13-sm-warp-exceptions-then-xid43.txt"))
    first = log.events[0]
    assert first.number == 13 and first.time is not None
    assert first.time.isoformat().startswith("2025-01-21T04:41:44.283302")
    assert {e.number for e in log.events} == {13, 43}


def test_sxid_fatal_and_nonfatal(sample: Sample) -> None:
    fatal = parse_kernel_log(sample("xid/xid79-fallen-off-bus-with-nvswitch-sxid20034.txt"))
    sxids = [e for e in fatal.events if e.kind == "sxid"]
    assert sxids and {e.number for e in sxids} == {20034}
    assert any(e.fatal for e in sxids)
    nonfatal = parse_kernel_log(sample("xid/sxid22013-nvswitch-nonfatal-minion-dlreq-h100-hgx.txt"))
    assert {e.fatal for e in nonfatal.events if e.kind == "sxid"} >= {False}
    assert not any(e.fatal for e in nonfatal.events)


def test_fallen_off_bus_split_over_lines_without_xid(sample: Sample) -> None:
    log = parse_kernel_log(sample("xid/fallen-off-bus-without-xid-multiline-570.txt"))
    assert [(e.kind, e.pci) for e in log.events] == [("fell_off_bus", "0000:b3:00.0")]


def test_window_uses_the_nodes_clock_and_boot_time(sample: Sample) -> None:
    # The probe puts the node's clock and uptime before the lines; seconds-since-boot stamps
    # then get a wall time and the window can be applied.
    lines = sample("xid/xid149-netir-fatal-then-xid154-recovery-action-gb200.txt")
    text = "# now: 2026-11-30T12:00:00+00:00\n# uptime_s: 171200.0\n# source: dmesg\n" + lines
    log = parse_kernel_log(text)
    assert log.source == "dmesg" and log.now == datetime(2026, 11, 30, 12, tzinfo=timezone.utc)
    assert all(e.time is not None for e in log.events)
    assert len(log.within(datetime(2026, 11, 30, 11, 59, tzinfo=timezone.utc))) == len(log.events)
    assert log.within(datetime(2026, 11, 30, 12, 1, tzinfo=timezone.utc)) == []


def test_events_without_a_time_are_kept_in_any_window(sample: Sample) -> None:
    log = parse_kernel_log(sample("xid/xid63-row-remapper-a100.txt"))
    assert log.events[0].time is None
    assert len(log.within(datetime(2030, 1, 1, tzinfo=timezone.utc))) == 1


def test_probe_error_line_marks_the_log_unreadable() -> None:
    log = parse_kernel_log(
        "# now: 2026-11-30T00:00:00+00:00\n# error: dmesg: read kernel buffer failed: Operation not permitted\n"
    )
    assert log.error == "dmesg: read kernel buffer failed: Operation not permitted"


def test_captured_h200_dmesg_has_no_nvidia_events() -> None:
    text = (CAPTURED_GPU / "dmesg-tail.txt").read_text("utf-8")
    log = parse_kernel_log(text)
    assert log.lines > 10 and log.events == []
