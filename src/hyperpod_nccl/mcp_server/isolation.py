"""Each analysis in a process of its own, with a time limit, so that one call that hangs or
runs long (a FIFO, an enormous input, an unreachable cluster) never holds up the others.

The server used to run analyses in threads behind one lock (the log engine hands work to its
forked workers through a module global), so one hung analysis held the lock forever and every
later call timed out. Now a call forks a fresh child from a forkserver (started once, with the
analysis modules already imported, and with /dev/null as its standard input and output, never
the MCP channel), waits for its result without blocking the event loop, and kills the child's
whole process group when the call runs past its limit or is cancelled. No lock is held across
a call: at most MAX_CONCURRENT analyses run at once, and a slot comes back when its call ends,
is stopped or is cancelled.

Errors come back with their reason: anticipated ones as their one line, anything else as
`internal error: <type>: <message>` (its traceback goes to the server's standard error).
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import sys
import traceback
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

import anyio
import anyio.to_thread

from hyperpod_nccl.mcp_server.errors import ANTICIPATED, AnticipatedError, describe, one_line

DEFAULT_TIMEOUT_S = 1800.0  # a live diagnosis's own deadline for node probes
TIMEOUT_ENV = "HYPERPOD_NCCL_MCP_TIMEOUT_S"
MAX_CONCURRENT = 4
_PRELOAD = ["hyperpod_nccl.mcp_server.warm"]

_context: Any = None
_limiter: anyio.CapacityLimiter | None = None


class InternalError(Exception):
    """An analysis failed in a way no input explains (a bug); the message names the error."""


def call_timeout_s() -> float:
    """The per-call limit: HYPERPOD_NCCL_MCP_TIMEOUT_S, else DEFAULT_TIMEOUT_S."""
    text = os.environ.get(TIMEOUT_ENV, "")
    try:
        value = float(text)
    except ValueError:
        return DEFAULT_TIMEOUT_S
    return value if value > 0 else DEFAULT_TIMEOUT_S


def _mp_context() -> Any:
    global _context
    if _context is None:
        if "forkserver" in multiprocessing.get_all_start_methods():
            _context = multiprocessing.get_context("forkserver")
            _context.set_forkserver_preload(_PRELOAD)
        else:  # pragma: no cover - not on Linux
            _context = multiprocessing.get_context("spawn")
    return _context


def start() -> None:
    """Start the forkserver now, before the MCP channel is in use, with /dev/null as its
    standard input and output: the channel is the server's own, never a child's."""
    context = _mp_context()
    if context.get_start_method() != "forkserver":  # pragma: no cover
        return
    from multiprocessing import forkserver

    saved = [os.dup(0), os.dup(1)]
    devnull = os.open(os.devnull, os.O_RDWR)
    try:
        os.dup2(devnull, 0)
        os.dup2(devnull, 1)
        forkserver.ensure_running()
    finally:
        os.dup2(saved[0], 0)
        os.dup2(saved[1], 1)
        for fd in (*saved, devnull):
            os.close(fd)


def _child(writer: Connection, function: Callable[..., Any], args: tuple[Any, ...]) -> None:
    # Its own process group, so that stopping it stops the scan workers it forks too.
    with contextlib.suppress(OSError):
        os.setpgrp()
    os.dup2(2, 1)  # nothing a child prints may reach the MCP channel
    try:
        outcome: tuple[str, Any] = ("ok", function(*args))
    except ANTICIPATED as exc:
        outcome = ("anticipated", describe(exc))
    except BaseException as exc:
        traceback.print_exc(file=sys.stderr)
        message = one_line(str(exc)) if str(exc).strip() else ""
        outcome = (
            "internal",
            f"{type(exc).__name__}: {message}" if message else type(exc).__name__,
        )
    try:
        writer.send(outcome)
    except Exception as exc:  # the result could not be sent (pickling, a closed pipe)
        with contextlib.suppress(Exception):
            writer.send(("internal", f"result not sent ({type(exc).__name__}: {exc})"))
    finally:
        writer.close()


def _stop(process: Any) -> None:
    """Kill the child and everything it started (while it is running: a reaped child's
    process group id may belong to someone else by now); reap it."""
    if process.pid is not None and process.exitcode is None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
        with contextlib.suppress(ProcessLookupError):
            process.kill()
    process.join(5)


async def _receive(reader: Connection, process: Any) -> tuple[str, Any]:
    delay = 0.005
    closed = False  # the child closed its end without sending (it died)
    while True:
        if not closed and reader.poll():
            try:
                outcome: tuple[str, Any] = await anyio.to_thread.run_sync(reader.recv)
            except EOFError:
                closed = True
            else:
                return outcome
        if not process.is_alive():
            code = process.exitcode
            died = f"signal {-code}" if code is not None and code < 0 else f"exit code {code}"
            return ("internal", f"the analysis process ended without a result ({died})")
        await anyio.sleep(delay)
        delay = min(delay * 2, 0.1)


async def run_isolated(
    function: Callable[..., Any], *args: Any, timeout_s: float | None = None
) -> Any:
    """`function(*args)` in a child process, within `timeout_s` (default: call_timeout_s()).

    Raises AnticipatedError with the analysis's own one line, or with what stopped it, and
    InternalError naming an unexpected exception.
    """
    global _limiter
    if _limiter is None:
        _limiter = anyio.CapacityLimiter(MAX_CONCURRENT)
    limit = call_timeout_s() if timeout_s is None else timeout_s
    async with _limiter:
        context = _mp_context()
        reader, writer = context.Pipe(duplex=False)
        process = context.Process(target=_child, args=(writer, function, args), daemon=False)
        try:
            await anyio.to_thread.run_sync(process.start)
            writer.close()
            with anyio.fail_after(limit):
                kind, value = await _receive(reader, process)
        except TimeoutError:
            raise AnticipatedError(
                f"stopped after {limit:g} s: the analysis did not finish within the server's "
                f"per-call limit ({TIMEOUT_ENV}); the server goes on serving other calls"
            ) from None
        finally:
            with anyio.CancelScope(shield=True):
                await anyio.to_thread.run_sync(_stop, process)
            reader.close()
    if kind == "ok":
        return value
    if kind == "anticipated":
        raise AnticipatedError(value)
    raise InternalError(f"internal error: {value}")
