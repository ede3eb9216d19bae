"""Helpers for tests against the real Slurm on loopback (scripts/slurm-up.sh): run its
commands, wait for states, bring it back to a healthy idle cluster."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from hyperpod_nccl.collect.runner import LocalRunner
from hyperpod_nccl.collect.slurm import collect_slurm
from hyperpod_nccl.snapshot import Snapshot

REPO = Path(__file__).resolve().parents[2]
SLURM_FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "slurm"
LOCK = Path("/tmp/hyperpod-nccl-slurm-tests.lock")
# Set while this process holds LOCK for its whole session (tests/slurm's fixture). flock belongs
# to an open file, so a test elsewhere in the same run that opened LOCK again would wait on its
# own process forever; it checks this instead.
SESSION_HOLDS_LOCK = [False]
CONTROLLER_PID = Path("/run/slurmctld.pid")
MUNGE_PID = Path("/run/munge/munged.pid")


def sh(*argv: str, check: bool = True, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, capture_output=True, text=True, check=check, timeout=timeout)


def wait_for(condition: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.5)
    pytest.fail(f"timed out after {timeout:.0f} s waiting for {what}")


def node_states() -> dict[str, str]:
    out = sh("sinfo", "-h", "-N", "-o", "%N %T").stdout
    return dict(line.split() for line in out.splitlines() if line.strip())


def pid_of(path: Path) -> int | None:
    try:
        return int(path.read_text().strip())
    except (OSError, ValueError):
        return None


def slurm_up() -> None:
    """Start whatever is missing (idempotent); keeps the controller's state when it runs."""
    result = subprocess.run(
        ["bash", str(REPO / "scripts" / "slurm-up.sh")], capture_output=True, text=True, timeout=180
    )
    if result.returncode != 0:
        pytest.fail(f"scripts/slurm-up.sh failed: {result.stderr.strip()[-2000:]}")


# The debug partition's limits that tests change, as scripts/slurm-up.sh's slurm.conf sets
# them, in the words `scontrol update` takes (DefMemPerNode=0 is Slurm's "no default").
PARTITION_DEFAULTS = ("maxtime=UNLIMITED", "maxnodes=UNLIMITED", "state=UP", "defmempernode=0")


def restore_partition() -> None:
    sh("scontrol", "update", "partitionname=debug", *PARTITION_DEFAULTS)


def restore_cluster() -> None:
    controller = pid_of(CONTROLLER_PID)
    if controller:
        with contextlib.suppress(ProcessLookupError):
            os.kill(controller, signal.SIGCONT)  # a test may have frozen it
    slurm_up()
    restore_partition()  # a test stopped midway may have left a limit changed
    jobs = sh("squeue", "-h", "-o", "%i").stdout.split()
    if jobs:
        sh("scancel", *jobs, check=False)
    for node, state in node_states().items():
        if state not in ("idle", "allocated", "mixed", "completing"):
            sh("scontrol", "update", f"nodename={node}", "state=resume", check=False)
    wait_for(
        lambda: all(s in ("idle", "completing") for s in node_states().values()),
        60,
        "every node back to idle",
    )


def collect(**options: object) -> Snapshot:
    snapshot = Snapshot()
    collect_slurm(snapshot, LocalRunner(), **options)  # type: ignore[arg-type]
    return snapshot
