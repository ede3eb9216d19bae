"""Run a blocking analysis off the event loop and report MCP progress while it runs.

The api functions are synchronous and give no progress of their own, so the server reports
what it knows: the start, a heartbeat with the elapsed time every few seconds (so a client
can tell a long live collection from a hung server), and the end with what was found.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar, cast

import anyio
import anyio.to_thread
from mcp.server.mcpserver import Context

T = TypeVar("T")

HEARTBEAT_S = 2.0


class Progress:
    """Progress notifications for one tool call; a no-op when the client asked for none."""

    def __init__(self, ctx: Context, what: str) -> None:
        self.ctx = ctx
        self.what = what
        self.step = 0
        self.started = time.monotonic()

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    async def report(self, message: str, *, final: bool = False) -> None:
        self.step += 1
        total = float(self.step) if final else None
        await self.ctx.report_progress(float(self.step), total, f"{self.what}: {message}")


async def run_with_progress(
    ctx: Context,
    what: str,
    work: Callable[[], T] | Callable[[], Awaitable[T]],
    outcome: Callable[[T], str],
    heartbeat_s: float = HEARTBEAT_S,
) -> T:
    """Run `work` (in a worker thread, or awaited when it is a coroutine function); report
    its start, a heartbeat, and `outcome(result)`."""
    progress = Progress(ctx, what)
    await progress.report("started")

    async def heartbeat() -> None:
        while True:
            await anyio.sleep(heartbeat_s)
            await progress.report(f"still running, {progress.elapsed():.0f} s so far")

    failure: Exception | None = None
    async with anyio.create_task_group() as group:
        group.start_soon(heartbeat)
        try:
            if inspect.iscoroutinefunction(work):
                result = await cast(Callable[[], Awaitable[T]], work)()
            else:
                result = await anyio.to_thread.run_sync(cast(Callable[[], T], work))
        except Exception as exc:  # re-raised below as itself, not inside an ExceptionGroup
            failure = exc
        finally:
            group.cancel_scope.cancel()
    if failure is not None:
        raise failure
    await progress.report(f"{outcome(result)} in {progress.elapsed():.1f} s", final=True)
    return result
