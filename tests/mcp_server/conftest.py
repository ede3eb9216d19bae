"""The MCP server under test, started as `python -m hyperpod_nccl.cli mcp`."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

# Appended, not inserted first: another folder's `from conftest import ...` must not find ours.
sys.path.append(str(Path(__file__).parent))

from mcpclient import Server


@pytest.fixture
def server(tmp_path: Path) -> Server:
    """A server whose temporary files go to a directory of the test's own."""
    scratch = tmp_path / "server-tmp"
    scratch.mkdir()
    return Server(stderr=tmp_path / "server-stderr.log", env={"TMPDIR": str(scratch)})
