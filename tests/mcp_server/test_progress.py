"""run_with_progress, the helper every analysis tool runs through, on a tool whose work takes
longer than the heartbeat (as a live collection does): served in-process by the SDK, with
the SDK's client receiving the notifications."""

from __future__ import annotations

import time

import anyio
from mcp import Client
from mcp.server.mcpserver import Context, MCPServer

from hyperpod_nccl.exit_codes import InputError
from hyperpod_nccl.mcp_server.progress import run_with_progress

HEARTBEAT_S = 0.05
WORK_S = 0.5


def slow_work() -> str:
    time.sleep(WORK_S)
    return "collected 12 items"


def failing_work() -> str:
    raise InputError("cluster ml-cluster not found in us-west-2")


def make_server() -> MCPServer[None]:
    server: MCPServer[None] = MCPServer("progress-test")

    @server.tool()
    async def collect(ctx: Context, fail: bool = False) -> str:
        work = failing_work if fail else slow_work
        try:
            return await run_with_progress(ctx, "collecting", work, str, HEARTBEAT_S)
        except InputError as exc:  # the work's own exception, not an ExceptionGroup
            return f"InputError: {exc}"

    return server


def call(fail: bool) -> tuple[str, list[tuple[float, float | None, str | None]]]:
    seen: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))

    async def main() -> str:
        async with Client(make_server()) as client:
            result = await client.call_tool(
                "collect", {"fail": fail}, progress_callback=on_progress
            )
            assert not result.is_error
            assert result.structured_content is not None
            return str(result.structured_content["result"])

    return anyio.run(main), seen


def test_a_long_call_sends_heartbeats_between_start_and_outcome() -> None:
    result, seen = call(fail=False)
    assert result == "collected 12 items"
    messages = [m for _, _, m in seen]
    assert messages[0] == "collecting: started"
    heartbeats = [m for m in messages[1:-1] if m and m.startswith("collecting: still running")]
    assert len(heartbeats) >= 3  # about WORK_S / HEARTBEAT_S of them
    assert len(heartbeats) == len(messages) - 2
    assert str(messages[-1]).startswith("collecting: collected 12 items in 0.")
    steps = [p for p, _, _ in seen]
    assert steps == [float(n) for n in range(1, len(seen) + 1)]
    assert [t for _, t, _ in seen[:-1]] == [None] * (len(seen) - 1)
    assert seen[-1][1] == seen[-1][0]


def test_the_work_s_exception_reaches_the_tool_as_itself_and_stops_the_heartbeat() -> None:
    result, seen = call(fail=True)  # returns at all: the heartbeat task was cancelled
    assert result == "InputError: cluster ml-cluster not found in us-west-2"
    assert [m for _, _, m in seen] == ["collecting: started"]
