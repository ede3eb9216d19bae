"""Talk to `hyperpod-nccl mcp` as an agent would: start it as a subprocess and use the MCP
SDK's own stdio client. Each `session()` is one server process."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import anyio
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.types import CallToolResult, TextContent

REPO = Path(__file__).resolve().parents[2]
T = TypeVar("T")


@dataclass
class Call:
    """One tool call's result and the progress notifications that came with it."""

    result: CallToolResult
    progress: list[tuple[float, float | None, str | None]] = field(default_factory=list)

    @property
    def error(self) -> bool:
        return bool(self.result.is_error)

    @property
    def text(self) -> str:
        parts = [c.text for c in self.result.content if isinstance(c, TextContent)]
        return "\n".join(parts)

    @property
    def data(self) -> dict[str, Any]:
        assert not self.result.is_error, self.text
        data: dict[str, Any] | None = self.result.structured_content
        assert data is not None
        # The text content carries the same JSON, for clients that read only text.
        assert json.loads(self.text) == data
        return data


def as_pasted(document: dict[str, Any], path: str) -> dict[str, Any]:
    """A report on the file `path` as the server reports the same text pasted."""
    relabelled: dict[str, Any] = json.loads(json.dumps(document).replace(path, "<pasted>"))
    return relabelled


class Agent:
    """The client side of one session."""

    def __init__(self, client: Client) -> None:
        self.client = client

    async def call(self, tool: str, arguments: dict[str, Any] | None = None) -> Call:
        call = Call(result=CallToolResult(content=[]))

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            call.progress.append((progress, total, message))

        call.result = await self.client.call_tool(
            tool, arguments or {}, progress_callback=on_progress
        )
        return call


@dataclass
class Server:
    """How to start the server; `stderr` collects what it logs."""

    stderr: Path
    env: dict[str, str] = field(default_factory=dict)
    cwd: Path = REPO

    def parameters(self) -> StdioServerParameters:
        return StdioServerParameters(
            command=sys.executable,
            args=["-m", "hyperpod_nccl.cli", "mcp"],
            cwd=str(self.cwd),
            env={**os.environ, **self.env},
        )

    def session(self, script: Callable[[Agent], Awaitable[T]]) -> T:
        """Start the server, run `script` against it, stop the server; return what it returned."""

        async def main() -> T:
            with open(self.stderr, "a", encoding="utf-8") as errlog:
                transport = stdio_client(self.parameters(), errlog=errlog)
                async with Client(transport) as client:
                    return await script(Agent(client))

        return anyio.run(main)

    def log(self) -> str:
        return self.stderr.read_text(encoding="utf-8") if self.stderr.exists() else ""

    def call(self, tool: str, arguments: dict[str, Any] | None = None) -> Call:
        """One call in a session of its own."""

        async def script(agent: Agent) -> Call:
            return await agent.call(tool, arguments)

        return self.session(script)
