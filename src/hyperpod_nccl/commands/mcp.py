"""`hyperpod-nccl mcp`: serve the analyses to AI agents over the Model Context Protocol."""

from __future__ import annotations

import argparse

from hyperpod_nccl.exit_codes import ExitCode, InputError

MISSING_SDK = "the MCP server needs the 'mcp' package: pip install 'hyperpod-nccl[mcp]'"

_EPILOG = """tools:
  analyze_logs      job logs (paths or pasted text)      -> report JSON
  analyze_perf      nccl-tests output, flight recorder   -> report JSON
  diagnose_cluster  a HyperPod cluster, live, read-only  -> report JSON, with progress
  diagnose_bundle   a bundle saved by diagnose           -> report JSON
  explain           a finding code or guide section      -> the guide's section
  list_codes        finding codes and guide sections

Reports follow the JSON contract of `--format json`. The server only reads: it runs no
commands, and suggested commands come back as data for the user to run.

an MCP client configuration (the usual "mcpServers" form):
  {"mcpServers": {"hyperpod-nccl": {"command": "hyperpod-nccl", "args": ["mcp"]}}}

Each analysis runs in a process of its own, stopped after HYPERPOD_NCCL_MCP_TIMEOUT_S seconds
(default 1800); a hung or slow call never holds up the others.

The server speaks MCP on standard input and output; it logs on standard error."""


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser(
        "mcp",
        help="serve the analyses to AI agents (Model Context Protocol over stdio)",
        description=(
            "Run a Model Context Protocol server on standard input and output, so an AI agent "
            "can analyse logs, nccl-tests output, bundles and live clusters, and read the "
            "guide. Read-only, like every other command."
        ),
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    try:
        from hyperpod_nccl.mcp_server.server import serve
    except ImportError as exc:
        if exc.name is not None and exc.name.split(".")[0] in ("mcp", "pydantic", "anyio"):
            raise InputError(MISSING_SDK) from exc
        raise
    serve()
    return ExitCode.OK
