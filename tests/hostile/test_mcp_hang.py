"""The MCP server survives a hung or slow analysis: each call runs in a process of its own
within a per-call limit, no lock is held across a call, a cancelled call's process is
stopped, and errors carry their reason. Every client call here has a deadline of its own."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

sys.path.append(str(Path(__file__).parents[1] / "mcp_server"))

from mcpclient import REPO, Agent, Server

from hostile import exit_hard, fail_without_a_message, holders_of, sleep_for

OOM_EXAMPLE = str(REPO / "src" / "hyperpod_nccl" / "examples" / "logs" / "oom-one-rank")
DEADLINE_S = 60


@pytest.fixture
def slow_input(tmp_path: Path) -> Path:
    path = tmp_path / "nccl-tests.out"
    path.write_text("a\n" * 10_000_000)  # perf takes over 20 s on these
    return path


def _server(tmp_path: Path, timeout_s: float | None = None) -> Server:
    scratch = tmp_path / "server-tmp"
    scratch.mkdir(exist_ok=True)
    env = {"TMPDIR": str(scratch)}
    if timeout_s is not None:
        env["HYPERPOD_NCCL_MCP_TIMEOUT_S"] = str(timeout_s)
    return Server(stderr=tmp_path / "server-stderr.log", env=env)


def test_a_fifo_neither_hangs_the_call_nor_the_calls_after_it(tmp_path: Path) -> None:
    fifo = tmp_path / "rank0.log"
    os.mkfifo(fifo)
    server = _server(tmp_path)

    async def script(agent: Agent) -> tuple[Any, Any]:
        with anyio.fail_after(DEADLINE_S):
            first = await agent.call("analyze_logs", {"paths": [str(fifo)]})
        with anyio.fail_after(DEADLINE_S):
            second = await agent.call("analyze_logs", {"paths": [OOM_EXAMPLE]})
        return first, second

    first, second = server.session(script)
    assert first.error and "FIFO" in first.text, first.text
    assert second.data["root_cause"]
    assert "Traceback" not in server.log()


def test_a_call_past_the_limit_is_stopped_and_the_server_goes_on(
    tmp_path: Path, slow_input: Path
) -> None:
    server = _server(tmp_path, timeout_s=2)

    async def script(agent: Agent) -> tuple[Any, Any, float]:
        started = time.monotonic()
        with anyio.fail_after(DEADLINE_S):
            slow = await agent.call("analyze_perf", {"paths": [str(slow_input)]})
        took = time.monotonic() - started
        with anyio.fail_after(DEADLINE_S):
            after = await agent.call("analyze_logs", {"paths": [OOM_EXAMPLE]})
        return slow, after, took

    slow, after, took = server.session(script)
    assert slow.error and "stopped after 2 s" in slow.text, slow.text
    assert len(slow.text.splitlines()) == 1
    assert took < 10
    assert after.data["root_cause"]
    deadline = time.monotonic() + 10
    while holders_of(slow_input) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert holders_of(slow_input) == []  # the stopped analysis is gone


def test_a_slow_call_does_not_hold_up_a_quick_one(tmp_path: Path, slow_input: Path) -> None:
    server = _server(tmp_path, timeout_s=5)
    finished: list[str] = []

    async def script(agent: Agent) -> None:
        async def slow() -> None:
            await agent.call("analyze_perf", {"paths": [str(slow_input)]})
            finished.append("slow")

        async def quick() -> None:
            await anyio.sleep(0.5)  # the slow one is under way
            call = await agent.call("analyze_logs", {"paths": [OOM_EXAMPLE]})
            assert call.data["root_cause"]
            finished.append("quick")

        with anyio.fail_after(DEADLINE_S):
            async with anyio.create_task_group() as group:
                group.start_soon(slow)
                group.start_soon(quick)

    server.session(script)
    assert finished == ["quick", "slow"]


def test_a_cancelled_call_stops_its_analysis(tmp_path: Path, slow_input: Path) -> None:
    server = _server(tmp_path, timeout_s=120)

    async def script(agent: Agent) -> tuple[Any, float]:
        with anyio.move_on_after(1.5):
            await agent.call("analyze_perf", {"paths": [str(slow_input)]})
        started = time.monotonic()
        with anyio.fail_after(DEADLINE_S):
            after = await agent.call("analyze_logs", {"paths": [OOM_EXAMPLE]})
        return after, time.monotonic() - started

    after, took = server.session(script)
    assert after.data["root_cause"]
    assert took < 10  # not behind the cancelled call
    deadline = time.monotonic() + 5  # the analysis itself would run on for 10 s more
    while holders_of(slow_input) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert holders_of(slow_input) == []


# ------------------------------------------------------------------ the isolation itself
def test_an_error_without_a_message_still_names_itself() -> None:
    from hyperpod_nccl.mcp_server.isolation import InternalError, run_isolated

    with pytest.raises(InternalError, match="internal error: AssertionError"):
        anyio.run(run_isolated, fail_without_a_message)


def test_a_child_that_dies_is_reported_not_waited_for() -> None:
    from hyperpod_nccl.mcp_server.isolation import InternalError, run_isolated

    async def dies() -> None:
        with anyio.fail_after(DEADLINE_S):
            await run_isolated(exit_hard, 3)

    with pytest.raises(InternalError, match="exit code 3"):
        anyio.run(dies)


def test_the_limit_stops_a_child_and_results_come_back() -> None:
    from hyperpod_nccl.mcp_server.errors import AnticipatedError
    from hyperpod_nccl.mcp_server.isolation import run_isolated

    async def both() -> str:
        with pytest.raises(AnticipatedError, match=r"stopped after 0\.5 s"):
            await run_isolated(sleep_for, 30, timeout_s=0.5)
        result: str = await run_isolated(sleep_for, 0, timeout_s=30)
        return result

    started = time.monotonic()
    assert anyio.run(both) == "slept"
    assert time.monotonic() - started < 20
