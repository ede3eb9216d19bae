"""TIMEOUT_SIZING: a starting collective timeout for a job of a given size.

This is the guide's heuristic (performance-testing.md#timeout-sizing), not documented vendor
behaviour: no vendor publishes a formula. The table below is copied from that section; tests
check that the two agree.
"""

from __future__ import annotations

from hyperpod_nccl.model import Finding, Priority, Status, SuggestedCommand
from hyperpod_nccl.perf.evidence import reference

# (largest world size in the band, starting timeout in minutes, how the guide words it)
TIMEOUT_BANDS: tuple[tuple[int | None, int, str], ...] = (
    (64, 10, "10 minutes (the PyTorch default)"),
    (512, 15, "15 minutes"),
    (2048, 30, "20 to 30 minutes"),
    (None, 30, "30 minutes, then measure"),
)
PAUSE_MARGIN = 1.5  # x the longest measured single-rank pause
STEP_MARGIN = 3.0  # x the 99th-percentile step time


def suggested_minutes(world_size: int) -> tuple[int, str]:
    for limit, minutes, wording in TIMEOUT_BANDS:
        if limit is None or world_size <= limit:
            return minutes, wording
    raise AssertionError("the last band has no limit")


def timeout_finding(world_size: int) -> Finding:
    minutes, wording = suggested_minutes(world_size)
    return Finding(
        code="TIMEOUT_SIZING",
        status=Status.INFO,
        priority=Priority.P2,
        title=(
            f"HEURISTIC, not documented behaviour: for {world_size:,} GPUs start with a collective "
            f"timeout of {wording}, and never less than {PAUSE_MARGIN:g} x the longest measured "
            f"single-rank pause + {STEP_MARGIN:g} x the p99 step time"
        ),
        reference=reference("TIMEOUT_SIZING"),
        suggested_commands=[
            SuggestedCommand(
                purpose=(
                    "find where the training code creates its process group, and pass it "
                    f"timeout=datetime.timedelta(minutes={minutes})"
                ),
                command="grep -rn --include='*.py' 'init_process_group' .   # in the training code",
                preconditions="measure checkpoint, evaluation and step times first; a longer timeout also delays detection of real hangs",
            )
        ],
        details={
            "heuristic": True,
            "world_size": world_size,
            "suggested_minutes": minutes,
            "guide_wording": wording,
            "pause_margin": PAUSE_MARGIN,
            "step_margin": STEP_MARGIN,
        },
    )
