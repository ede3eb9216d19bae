"""What a live `diagnose` run was asked to look at, already validated (see targets.py)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone

from hyperpod_nccl.targets import ClusterRef

DEFAULT_SINCE = timedelta(hours=2)
# `diagnose --sample-nodes`: how many of the cluster's nodes it probes unless told otherwise. A
# cluster can have a thousand and each probe is an SSM session (at most 3 starts a second), so
# it probes a few: failed instances first, then those of nodes or pods in trouble. `probe
# --slurm-nodes` has no such default: it probes every node the user named, and --sample-nodes
# N caps that list. The help of both commands says so.
DEFAULT_SAMPLE_NODES = 4
# Pod logs: how much of each container's log to read, and how many containers at most.
DEFAULT_LOG_TAIL_LINES = 20_000
DEFAULT_MAX_LOG_CONTAINERS = 512
DEFAULT_LOG_WORKERS = 8


@dataclass(frozen=True)
class DiagnoseOptions:
    cluster: ClusterRef
    region: str
    profile: str | None = None
    namespace: str | None = None
    job: str | None = None
    orchestrator: str | None = None  # eks | slurm; None: from DescribeCluster
    since: timedelta = DEFAULT_SINCE
    sample_nodes: int = DEFAULT_SAMPLE_NODES
    all_nodes: bool = False
    nodes: tuple[str, ...] = ()
    kubeconfig: str | None = None
    context: str | None = None
    controller_group: str | None = None  # Slurm: the controller's instance group (else found)
    log_tail_lines: int = DEFAULT_LOG_TAIL_LINES
    max_log_containers: int = DEFAULT_MAX_LOG_CONTAINERS
    log_workers: int = DEFAULT_LOG_WORKERS
    aws_max_attempts: int = 5
    now: datetime = field(default_factory=lambda: datetime.now(timezone.utc))

    @property
    def window_start(self) -> datetime:
        return self.now - self.since
