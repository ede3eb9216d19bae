"""Imported once by the MCP server's forkserver, so that every analysis child starts with the
analyses imported and the rule catalog loaded (see isolation.py)."""

from __future__ import annotations

from hyperpod_nccl.mcp_server import analyses  # noqa: F401 - imported for the children
from hyperpod_nccl.rules.catalog import load_catalog

load_catalog()
