"""Which collective a run measured, when its output does not name the binary.

nccl-tests computes busbw = algbw x a factor of the collective and the rank count n
(performance-testing.md#algbw-vs-busbw, from nccl-tests' PERFORMANCE.md): 2(n-1)/n for
AllReduce, (n-1)/n for ReduceScatter, AllGather and AlltoAll, 1 for Broadcast, Reduce and
SendRecv. The ratio in the rows, with the reduction and root columns, narrows it down.
"""

from __future__ import annotations

import statistics

from hyperpod_nccl.perf.model import Run

# Rows this small round algbw and busbw to two decimals too coarsely to compare them.
_MIN_ALGBW = 1.0


def busbw_factor(collective: str, n: int) -> float | None:
    if n < 1:
        return None
    if collective == "all_reduce":
        return 2 * (n - 1) / n
    if collective in ("reduce_scatter", "all_gather", "alltoall"):
        return (n - 1) / n
    if collective in ("broadcast", "reduce", "sendrecv"):
        return 1.0
    return None


def _ratio(run: Run) -> float | None:
    ratios = [r.busbw / r.algbw for r in run.rows if r.algbw >= _MIN_ALGBW and r.busbw > 0]
    return statistics.median(ratios) if ratios else None


def infer_collective(run: Run, file_hint: str = "") -> None:
    """Fill in run.collective from the file name or the rows, when the output did not say."""
    if run.collective != "unknown":
        return
    hint = _from_name(file_hint)
    if hint:
        run.collective, run.collective_from = hint, "file name"
        return
    guess = _from_rows(run)
    if guess:
        run.collective, run.collective_from = guess, "busbw/algbw ratio"


_NAME_HINTS = (
    ("all_reduce", ("all_reduce", "allreduce", "all-reduce")),
    ("all_gather", ("all_gather", "allgather", "all-gather")),
    ("reduce_scatter", ("reduce_scatter", "reducescatter", "reduce-scatter")),
    ("alltoall", ("alltoall", "all_to_all", "all-to-all")),
    ("sendrecv", ("sendrecv", "send_recv")),
    ("broadcast", ("broadcast",)),
)


def _from_name(name: str) -> str | None:
    lowered = name.lower().rsplit("/", 1)[-1]
    for collective, needles in _NAME_HINTS:
        if any(n in lowered for n in needles):
            return collective
    return None


def _from_rows(run: Run) -> str | None:
    if not run.rows:
        return None
    ratio = _ratio(run)
    if ratio is None:
        return None
    redops = {r.redop for r in run.rows}
    roots = {r.root for r in run.rows if r.root is not None}
    n = run.world_size
    if redops == {"none"}:
        if roots and max(roots) >= 0:
            return "broadcast"
        return None  # all_gather, alltoall and sendrecv look alike
    if roots and max(roots) >= 0:
        return "reduce"
    if n:
        for candidate in ("all_reduce", "reduce_scatter"):
            factor = busbw_factor(candidate, n)
            if factor is not None and abs(ratio - factor) <= 0.02 * factor + 0.01:
                return candidate
        return None
    # Without the rank count: AllReduce's factor is 1 or more, ReduceScatter's below 1.
    return "all_reduce" if ratio > 1.02 else None
