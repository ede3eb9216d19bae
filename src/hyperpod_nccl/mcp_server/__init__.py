"""The MCP server (`hyperpod-nccl mcp`): hyperpod-nccl's analyses as tools for AI agents.

Needs the optional `mcp` package (`pip install 'hyperpod-nccl[mcp]'`); importing
`hyperpod_nccl.mcp_server.server` without it raises ImportError.
"""
