"""The runner: every node accounted for, bounded concurrency, start-rate limit, deadline, and the
Snapshot layout the checks read. Nodes are probed for real through the local transport (each
"node" is this machine); subclasses only observe or break runs."""

from __future__ import annotations

import io
import itertools
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import pytest

from hyperpod_nccl.checks.node_report import node_report
from hyperpod_nccl.collect.probes import RateLimiter, probe_nodes, sample_nodes
from hyperpod_nccl.collect.transports import LocalTransport, SsmTarget, SsmTransport
from hyperpod_nccl.collect.transports.base import NodeRun
from hyperpod_nccl.model import Status
from hyperpod_nccl.snapshot import Snapshot

PROBES = ["host_info", "shm", "processes"]


class Observed(LocalTransport):
    """The real local transport, recording when each run starts and how many overlap."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.running = 0
        self.peak = 0
        self.starts: list[float] = []

    def run(self, node: str, probe_ids: Sequence[str], timeout_s: float) -> NodeRun:
        with self.lock:
            self.starts.append(time.monotonic())
            self.running += 1
            self.peak = max(self.peak, self.running)
        try:
            return super().run(node, probe_ids, timeout_s)
        finally:
            with self.lock:
                self.running -= 1


def test_every_node_lands_in_the_snapshot(snapshot: Snapshot) -> None:
    nodes = [f"node{i:02d}" for i in range(12)] + ["node00"]  # a duplicate is probed once
    transport = Observed()
    summary = probe_nodes(snapshot, transport, nodes, probes=PROBES, concurrency=4, start_rate=200)
    assert summary.nodes == 12 and len(summary.reached) == 12 and summary.unreachable == {}
    assert transport.peak <= 4
    for node in nodes:
        for probe in PROBES:
            assert snapshot.has(f"nodes/{node}/{probe}.txt")
        assert snapshot.get_json(f"nodes/{node}/session.json")["complete"] is True
    meta = snapshot.meta["node_probe"]
    assert meta["reached"] == 12 and meta["concurrency"] == 4 and meta["probes"] == PROBES


def test_start_rate_spaces_session_starts(
    snapshot: Snapshot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each session starts no earlier than a slot of its own, and the slots are 50 ms apart at
    20 a second. Checked against the slots, not against wall-clock gaps between starts, which a
    loaded machine can shrink (a late thread then an on-time one) without the limiter failing."""
    slots: list[float] = []
    reserve = RateLimiter.reserve

    def recorded(self: RateLimiter) -> float:
        slot = reserve(self)
        slots.append(slot)
        return slot

    monkeypatch.setattr(RateLimiter, "reserve", recorded)
    transport = Observed()
    probe_nodes(
        snapshot,
        transport,
        [f"n{i}" for i in range(6)],
        probes=["host_info"],
        concurrency=6,
        start_rate=20,
    )
    slots.sort()
    assert len(slots) == 6
    assert all(b - a >= 0.05 - 1e-9 for a, b in itertools.pairwise(slots))
    assert all(start >= slot for start, slot in zip(sorted(transport.starts), slots, strict=True))


def test_rate_limiter_reserves_evenly_spaced_slots() -> None:
    now = [100.0]
    limiter = RateLimiter(4.0, clock=lambda: now[0])
    assert [limiter.reserve() for _ in range(4)] == [100.0, 100.25, 100.5, 100.75]
    now[0] = 200.0  # idle for a while: no burst of saved-up slots beyond the next one
    assert limiter.reserve() == 200.0 and limiter.reserve() == 200.25
    with pytest.raises(ValueError):
        RateLimiter(0)


def test_deadline_reports_the_nodes_it_cut_off(snapshot: Snapshot) -> None:
    nodes = [f"n{i}" for i in range(10)]
    summary = probe_nodes(
        snapshot, LocalTransport(), nodes, probes=["host_info"], start_rate=4, deadline_s=0.6
    )
    assert len(summary.reached) + len(summary.unreachable) == 10
    assert summary.reached and summary.unreachable
    assert all("overall deadline" in r for r in summary.unreachable.values())
    for node in summary.unreachable:
        assert "overall deadline" in (snapshot.why_missing(f"nodes/{node}/host_info.txt") or "")


def test_a_transport_exception_marks_only_that_node(snapshot: Snapshot) -> None:
    class Flaky(LocalTransport):
        def run(self, node: str, probe_ids: Sequence[str], timeout_s: float) -> NodeRun:
            if node == "bad":
                raise OSError("connection reset")
            return super().run(node, probe_ids, timeout_s)

    summary = probe_nodes(snapshot, Flaky(), ["good", "bad"], probes=["shm"])
    assert summary.reached == ["good"] and summary.unreachable == {
        "bad": "OSError: connection reset"
    }
    report = node_report(snapshot)
    (unreachable,) = [f for f in report.findings if f.code == "NODE_UNREACHABLE"]
    assert unreachable.hosts == ["bad"] and unreachable.status is Status.INCOMPLETE


def test_missing_plugin_skips_every_node_without_a_session(
    snapshot: Snapshot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    ids = ["i-0123456789abcdef0", "i-0123456789abcdef1"]
    transport = SsmTransport({i: SsmTarget("a1b2c3d4e5f6", "workers", i) for i in ids})
    summary = probe_nodes(snapshot, transport, ids, probes=["shm"])
    assert summary.reached == [] and set(summary.unreachable) == set(ids)
    report = node_report(snapshot)
    (finding,) = [f for f in report.findings if f.code == "NODE_UNREACHABLE"]
    assert finding.status is Status.SKIPPED and finding.hosts == ids
    assert "session-manager-plugin is not on PATH" in finding.title


def test_sample_prefers_job_and_suspect_nodes_then_spreads() -> None:
    nodes = [f"n{i:02d}" for i in range(20)]
    picked = sample_nodes(nodes, 5, prefer=["n07", "n13", "not-a-node"])
    assert picked[:2] == ["n07", "n13"] and len(picked) == 5 and len(set(picked)) == 5
    assert sample_nodes(nodes, 4) == ["n00", "n05", "n10", "n15"]
    assert sample_nodes(nodes[:3], 10) == nodes[:3]
    with pytest.raises(ValueError):
        sample_nodes(nodes, 0)


class _Stream(io.StringIO):
    def __init__(self, tty: bool) -> None:
        super().__init__()
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


@pytest.mark.parametrize("tty", [True, False])
def test_progress_line_only_on_a_terminal(snapshot: Snapshot, tty: bool) -> None:
    stream = _Stream(tty)
    probe_nodes(
        snapshot,
        LocalTransport(),
        ["a", "b", "c"],
        probes=["shm"],
        start_rate=100,
        progress_stream=stream,
    )
    text = stream.getvalue()
    if tty:
        assert "\rprobing nodes [" in text and text.endswith("3/3, 0 unreachable\n")
    else:
        assert text == ""
