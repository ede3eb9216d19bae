"""The real Slurm the tests run against (scripts/slurm-up.sh, started by scripts/services.d).

Tests that change Slurm's state hold a lock shared by every pytest process on the machine, and
the `live_slurm` fixture puts the cluster back afterwards: daemons running, nodes resumed, jobs
cancelled. When Slurm is not up the tests fail; they never skip.
"""

from __future__ import annotations

import fcntl
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from slurmlab import LOCK, SESSION_HOLDS_LOCK, node_states, restore_cluster, sh


@pytest.fixture(scope="session")
def slurm_lock() -> Iterator[None]:
    """One pytest process at a time changes the shared Slurm."""
    with open(LOCK, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        SESSION_HOLDS_LOCK[0] = True
        try:
            yield
        finally:
            SESSION_HOLDS_LOCK[0] = False


@pytest.fixture(scope="session")
def slurm_nodes(slurm_lock: None) -> list[str]:
    """The compute nodes of the running test Slurm; fails (never skips) when it is not up."""
    try:
        ping = sh("scontrol", "ping", check=False, timeout=30)
    except FileNotFoundError:
        pytest.fail("Slurm is not installed: run scripts/services-up.sh (make test does)")
    if "is UP" not in ping.stdout:
        pytest.fail(f"slurmctld is not up ({ping.stdout.strip()} {ping.stderr.strip()})")
    restore_cluster()
    nodes = sorted(node_states())
    if len(nodes) < 4:
        pytest.fail(f"the test Slurm has {len(nodes)} nodes; the tests need at least 4")
    return nodes


@pytest.fixture
def live_slurm(slurm_nodes: list[str]) -> Iterator[list[str]]:
    """The node names; after the test the cluster is healthy and idle again."""
    yield slurm_nodes
    restore_cluster()
