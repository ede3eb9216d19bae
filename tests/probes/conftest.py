"""Fixtures for the node-probe tests: real outputs under tests/fixtures/probes/ (each file opens
with a `# source:` line saying where it comes from), and Snapshots built from them."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from hyperpod_nccl.checks.node_report import node_report
from hyperpod_nccl.snapshot import Snapshot

sys.path.insert(0, str(Path(__file__).parents[1] / "commands"))
from command_verbs import command_problems

PROBE_FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "probes"


def read_sample(relpath: str) -> str:
    """The sample's text without its `# source:` header line."""
    text = (PROBE_FIXTURES / relpath).read_text("utf-8")
    lines = text.splitlines()
    assert lines and lines[0].startswith("# source:"), f"{relpath} lacks its # source: line"
    return "\n".join(lines[1:]) + "\n"


@pytest.fixture
def sample() -> Callable[[str], str]:
    return read_sample


def _add_node(
    snapshot: Snapshot, node: str, outputs: dict[str, str], absent: dict[str, str] | None = None
) -> None:
    """Record a reached node the way the runner does: each probe's text, absent probes as
    missing with a reason, and a session record."""
    for probe_id, text in outputs.items():
        snapshot.put_text(f"nodes/{node}/{probe_id}.txt", text)
    for probe_id, reason in (absent or {}).items():
        snapshot.missing(f"nodes/{node}/{probe_id}.txt", reason)
    snapshot.put_json(
        f"nodes/{node}/session.json", {"transport": "test", "probes": sorted(outputs)}
    )


@pytest.fixture
def add_node() -> Callable[..., None]:
    return _add_node


@pytest.fixture
def snapshot() -> Iterator[Snapshot]:
    """A Snapshot the test fills with probe outputs. Afterwards, whatever the test checked,
    the probe report of that Snapshot must print commands that run as printed
    (tests/commands): every probe scenario is also a suggested-command scenario."""
    snap = Snapshot()
    yield snap
    try:
        if any(n.startswith("nodes/") for n in snap.items):
            problems = command_problems(node_report(snap).findings)
            assert not problems, problems
    finally:
        snap.close()
