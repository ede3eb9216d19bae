"""What each operation is asked for: one frozen dataclass per operation, the one place its
parameters are spelled out. The CLI builds them from its arguments and the MCP server from its
tool arguments; the api functions take them (or the same fields as keywords).

Values are as the user gave them; the operation validates them (UsageError, exit 2) before
any work. Nothing here imports a collector: replaying a bundle loads no SDK.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from hyperpod_nccl.collect.options import DEFAULT_SAMPLE_NODES as DEFAULT_SAMPLE_NODES


@dataclass(frozen=True)
class SaveOptions:
    """`--save-bundle PATH [--obfuscate | --no-redact]`: an escalation bundle of the run."""

    save_bundle: str | None = None  # .tar.gz or a directory; never overwritten
    obfuscate: bool = False  # also replace host names, IPs, account and instance ids
    redact: bool = True  # redact secrets in the bundle and in messages naming the inputs
    argv: Sequence[str] = ()  # the command line for the bundle's manifest; () = sys.argv


@dataclass(frozen=True)
class LogsRequest(SaveOptions):
    """`logs`: log files (or `-`), or a saved bundle."""

    paths: Sequence[str] = ()
    bundle: str | None = None
    engine: str = "auto"  # auto | hyperscan | re
    # A path that does not exist ends the run (InputError) before any analysis, as the CLI
    # wants; otherwise it is listed as not checked, as the MCP server reports it.
    refuse_missing: bool = False


@dataclass(frozen=True)
class PerfRequest(SaveOptions):
    """`perf`: nccl-tests output, flight recorder dumps, NCCL COLL logs, or a saved bundle."""

    paths: Sequence[str] = ()
    bundle: str | None = None
    instance_type: str | None = None  # EC2 name (p5.48xlarge), as perf.expected knows it
    transport: str | None = None  # efa | ib | socket
    expected_busbw: float | None = None  # GB/s at large sizes, measured on healthy nodes
    world_size: int | None = None  # GPUs in the job: a suggested collective timeout
    refuse_missing: bool = False  # as in LogsRequest


@dataclass(frozen=True)
class ProbeRequest(SaveOptions):
    """`probe`: run the probe catalog on this node or on Slurm nodes, or re-analyse a bundle
    of probe results (`bundle`) without running anything."""

    probes: Sequence[str] = ()  # probe ids to run (empty: every probe)
    skip_probes: Sequence[str] = ()
    checks: Sequence[str] = ()  # check ids or areas to run on the results (empty: every one)
    skip: Sequence[str] = ()  # check ids or areas to leave out
    since: str | None = None  # Xid window: a duration or an ISO time (None: 24h)
    bundle: str | None = None
    slurm_nodes: str | None = None  # comma list, `[a-b]` ranges; None: this node
    slurm_job: str | None = None  # run as an overlapping step of this job
    sample_nodes: int | None = None  # at most N of slurm_nodes (None: all, see collect/options.py)
    prefer_nodes: str | None = None  # sampled first (suspects)
    node_timeout_s: float | None = None  # None: collect.probes' defaults
    deadline_s: float | None = None
    concurrency: int | None = None
    start_rate: float | None = None
    refuse_missing: bool = False  # as in LogsRequest (the bundle)


@dataclass(frozen=True)
class DiagnoseRequest(SaveOptions):
    """`diagnose`: a live cluster (read-only), the local Slurm (no cluster), or a saved bundle."""

    cluster: str | None = None  # name or ARN
    region: str | None = None
    profile: str | None = None
    namespace: str | None = None
    job: str | None = None
    orchestrator: str | None = None  # eks | slurm; None: as DescribeCluster says
    since: str = "2h"
    sample_nodes: int | None = None  # None: DEFAULT_SAMPLE_NODES (why: collect/options.py)
    all_nodes: bool = False
    nodes: Sequence[str] = ()  # instance ids to probe
    kubeconfig: str | None = None
    context: str | None = None
    controller_group: str | None = None  # Slurm: the controller's instance group
    bundle: str | None = None  # replay this bundle instead of collecting
    checks: Sequence[str] = ()  # check ids or areas to run (empty: every one)
    skip: Sequence[str] = ()
