"""Probe many nodes at once and write what came back into a Snapshot.

One session per node runs every selected probe (see `probes.batch`), so a node costs one SSM
session start (or one srun), not one per probe. Sessions run with bounded concurrency, behind a
start-rate limit (SSM allows about 3 StartSession calls a second per account; the default stays
at that), each with a per-node timeout, all under one overall deadline.

What lands in the Snapshot, for each node:
- `nodes/<node>/<probe-id>.txt`: the probe's output, or a missing record saying why there is
  none (tool not installed, timed out, session ended, node unreachable);
- `nodes/<node>/session.json`: transport, target, elapsed time and each probe's exit status;
  a missing record with the reason when the node could not be reached.
`snapshot.meta["node_probe"]` records the run: transport, nodes, probes, limits, timing.
Outputs are written as they arrive and not kept in memory, so memory does not grow with nodes.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TextIO

from hyperpod_nccl.collect.transports.base import NodeRun, Transport
from hyperpod_nccl.probes.catalog import PROBE_IDS, resolve
from hyperpod_nccl.snapshot import Snapshot
from hyperpod_nccl.snapshot.meta import NodeProbe

DEFAULT_START_RATE = 3.0  # session starts per second (SSM StartSession's per-account rate)
DEFAULT_CONCURRENCY = 64
DEFAULT_NODE_TIMEOUT_S = 180.0
DEFAULT_DEADLINE_S = 1800.0


class RateLimiter:
    """At most `rate` starts per second, evenly spaced; thread-safe, first come first served."""

    def __init__(self, rate: float, clock: Callable[[], float] = time.monotonic) -> None:
        if rate <= 0:
            raise ValueError("start rate must be positive")
        self.interval = 1.0 / rate
        self.clock = clock
        self._next = clock()
        self._lock = threading.Lock()

    def reserve(self) -> float:
        """Reserve the next slot; returns the clock time at which it may start."""
        with self._lock:
            now = self.clock()
            slot = max(now, self._next)
            self._next = slot + self.interval
            return slot


@dataclass
class ProbeRunSummary:
    transport: str
    nodes: int
    reached: list[str] = field(default_factory=list)
    unreachable: dict[str, str] = field(default_factory=dict)  # node -> reason
    elapsed_s: float = 0.0
    probes: tuple[str, ...] = ()

    def to_dict(self) -> NodeProbe:
        return {
            "transport": self.transport,
            "nodes": self.nodes,
            "reached": len(self.reached),
            "unreachable": dict(sorted(self.unreachable.items())),
            "elapsed_s": round(self.elapsed_s, 3),
            "probes": list(self.probes),
        }


class _Progress:
    """One status line on stderr, redrawn in place; only when stderr is a terminal."""

    def __init__(self, total: int, stream: TextIO | None, enabled: bool | None) -> None:
        self.stream = stream or sys.stderr
        isatty = getattr(self.stream, "isatty", None)
        self.enabled = bool(isatty and isatty()) if enabled is None else enabled
        self.total, self.done, self.failed = total, 0, 0
        self._lock = threading.Lock()
        self._last = 0.0

    def update(self, failed: bool) -> None:
        with self._lock:
            self.done += 1
            self.failed += int(failed)
            now = time.monotonic()
            if self.enabled and (now - self._last > 0.1 or self.done == self.total):
                self._last = now
                width = 30
                filled = int(width * self.done / max(self.total, 1))
                self.stream.write(
                    f"\rprobing nodes [{'#' * filled}{'.' * (width - filled)}] "
                    f"{self.done}/{self.total}, {self.failed} unreachable"
                )
                if self.done == self.total:
                    self.stream.write("\n")
                self.stream.flush()


def _record(
    snapshot: Snapshot, run: NodeRun, transport: Transport, probe_ids: Sequence[str]
) -> None:
    base = f"nodes/{run.node}"
    source = f"{transport.name}:{run.target}"
    if not run.reached or run.output is None:
        reason = run.reason or "no output"
        snapshot.missing(f"{base}/session.json", reason, source)
        for pid in probe_ids:
            snapshot.missing(f"{base}/{pid}.txt", f"node not reached: {reason}", source)
        return
    statuses = {}
    for pid in probe_ids:
        outcome = run.output.outcomes[pid]
        statuses[pid] = {"state": outcome.state, "rc": outcome.rc, "reason": outcome.reason}
        if outcome.state == "ok":
            snapshot.put_text(f"{base}/{pid}.txt", outcome.text, source)
        else:
            snapshot.missing(f"{base}/{pid}.txt", outcome.reason or outcome.state, source)
    snapshot.put_json(
        f"{base}/session.json",
        {
            "transport": transport.name,
            "target": run.target,
            "elapsed_s": round(run.elapsed_s, 3),
            "complete": run.output.complete,
            "probes": statuses,
        },
        source,
    )


def sample_nodes(nodes: Sequence[str], limit: int, prefer: Sequence[str] = ()) -> list[str]:
    """At most `limit` nodes: the preferred ones first (nodes of the failing job, suspect nodes),
    then an even spread over the rest, so a sample covers every part of a sorted node list.
    Deterministic, so two runs probe the same nodes."""
    if limit < 1:
        raise ValueError("the sample size must be at least 1")
    known = list(dict.fromkeys(nodes))
    chosen = [n for n in dict.fromkeys(prefer) if n in set(known)][:limit]
    rest = [n for n in known if n not in set(chosen)]
    count = min(limit - len(chosen), len(rest))
    if count > 0:
        step = len(rest) / count
        chosen += [rest[int(i * step)] for i in range(count)]
    return chosen


def probe_nodes(
    snapshot: Snapshot,
    transport: Transport,
    nodes: Sequence[str],
    *,
    probes: Sequence[str] | None = None,
    concurrency: int = DEFAULT_CONCURRENCY,
    start_rate: float = DEFAULT_START_RATE,
    node_timeout_s: float = DEFAULT_NODE_TIMEOUT_S,
    deadline_s: float = DEFAULT_DEADLINE_S,
    progress: bool | None = None,
    progress_stream: TextIO | None = None,
) -> ProbeRunSummary:
    """Probe `nodes` through `transport` and record the results in `snapshot` (see module doc).

    Every node ends up either reached (its outputs recorded) or in `summary.unreachable` with a
    reason: transport unusable here, session failed, per-node timeout, or the overall deadline
    passing before its turn.
    """
    probe_ids = tuple(p.id for p in resolve(list(probes) if probes else list(PROBE_IDS)))
    if concurrency < 1:
        raise ValueError("concurrency must be at least 1")
    unique_nodes = list(dict.fromkeys(nodes))
    summary = ProbeRunSummary(transport.name, len(unique_nodes), probes=probe_ids)
    started = time.monotonic()
    deadline = started + deadline_s
    lock = threading.Lock()
    bar = _Progress(len(unique_nodes), progress_stream, progress)

    def finish(run: NodeRun) -> None:
        _record(snapshot, run, transport, probe_ids)
        with lock:
            if run.reached:
                summary.reached.append(run.node)
            else:
                summary.unreachable[run.node] = run.reason or "no output"
        bar.update(not run.reached)

    blocked = transport.preflight()
    if blocked:
        for node in unique_nodes:
            finish(NodeRun(node, node, reason=blocked))
    else:
        limiter = RateLimiter(start_rate)

        def one(node: str) -> None:
            slot = limiter.reserve()
            if slot >= deadline:
                finish(
                    NodeRun(
                        node,
                        node,
                        reason=f"not probed: the overall deadline of {deadline_s:.0f}s passed before its turn",
                    )
                )
                return
            time.sleep(max(0.0, slot - time.monotonic()))
            remaining = deadline - time.monotonic()
            try:
                run = transport.run(node, probe_ids, min(node_timeout_s, max(remaining, 0.1)))
            except Exception as exc:  # one bad node must not lose the others' results
                run = NodeRun(node, node, reason=f"{type(exc).__name__}: {exc}")
            finish(run)

        with ThreadPoolExecutor(max_workers=min(concurrency, max(len(unique_nodes), 1))) as pool:
            for node in unique_nodes:
                pool.submit(one, node)
    summary.elapsed_s = time.monotonic() - started
    summary.reached.sort()
    snapshot.meta["node_probe"] = {
        **summary.to_dict(),
        "preflight": blocked,
        "concurrency": concurrency,
        "start_rate": start_rate,
        "node_timeout_s": node_timeout_s,
        "deadline_s": deadline_s,
    }
    return summary
