"""Meta: the run's context a Snapshot carries, saved as the top-level fields of a bundle's
`manifest.json` (beside `items`).

One TypedDict names every key, its type and what it says, so that a misspelt key or a wrong
type is a mypy error wherever meta is read or written. It is a TypedDict rather than a
dataclass because meta *is* the JSON object in the manifest: the shape on disk stays exactly
what earlier versions wrote, and keys this version does not know (from a newer or an older
bundle) ride along untouched when a bundle is loaded and saved again. The manifest schema
(snapshot/manifest.py) checks each key's type before a loaded bundle becomes a Meta.
"""

from __future__ import annotations

from typing import Any, TypedDict, cast

from hyperpod_nccl import __version__


class Window(TypedDict, total=False):
    """The span of time a run looked at."""

    start: str | None  # ISO 8601
    end: str | None
    zone: str | None  # "UTC", or how the logs gave their times


class Scrubbing(TypedDict, total=False):
    """What was done to the bundle before it was written (snapshot/scrub.py)."""

    secrets_redacted: bool | None
    obfuscated: bool | None
    redacted: dict[str, int] | None  # rule name -> how many values it replaced


class NodeProbe(TypedDict, total=False):
    """How the node-probe pass went (collect/probes.py)."""

    transport: str | None  # ssm, ssh, kubectl, local...
    nodes: int | None  # nodes asked for
    reached: int | None
    unreachable: dict[str, str] | None  # node -> why it was not reached
    elapsed_s: float | None
    probes: list[str] | None  # probe ids run
    preflight: str | None  # why no node was tried at all (e.g. no session-manager-plugin)
    concurrency: int | None
    start_rate: float | None
    node_timeout_s: float | None
    deadline_s: float | None


class SlurmAccess(TypedDict, total=False):
    """How the Slurm controller was reached (collect/slurm_ssm.py)."""

    via: str | None  # local | ssm
    controller_group: str | None
    controller_instance: str | None
    found_by: str | None  # how the controller's instance group was picked
    target: str | None  # the SSM target of the controller
    hostname: str | None  # what the controller answered to `hostname`
    ssm_sessions: int | None  # SSM sessions opened


class Meta(TypedDict, total=False):
    """Every key a Snapshot's meta may hold. All are optional: which ones a run writes depends
    on the command (a `logs` bundle names no cluster)."""

    schema: str  # bundle format, hyperpod-nccl/bundle/v1
    tool_version: str  # the hyperpod-nccl version that collected
    created_at: str  # when the Snapshot was made, UTC ISO 8601
    command: str  # diagnose | logs | probe | perf
    command_line: list[str] | None  # argv, redacted, program path reduced to its name
    cluster: str | None  # HyperPod cluster name
    cluster_arn: str | None
    region: str | None
    orchestrator: str | None  # eks | slurm: the one the checks used
    orchestrator_detected: str | None  # the one DescribeCluster names
    orchestrator_unknown: str | None  # why neither was known (orchestrator checks skipped)
    namespace: str | None  # Kubernetes namespace of the job
    job: str | None  # the job asked about
    since_seconds: int | None  # --since, in seconds
    window_start: str | None  # the live run's window, ISO 8601
    window_end: str | None
    window: Window | None  # the window the summary shows (the run's, or the logs' span)
    cluster_arns_in_logs: list[str] | None  # cluster ARNs a logs-only bundle found in its logs
    scrubbing: Scrubbing | None
    probe_since: str | None  # probe --since: kernel-log events before it are ignored
    node_probe: NodeProbe | None
    node_instance_types: dict[str, str] | None  # node -> EC2 instance type, when known
    slurm_access: SlurmAccess | None


SCHEMA = "hyperpod-nccl/bundle/v1"
# The keys above, for the manifest schema's drift test and for readers of raw manifests.
KEYS: frozenset[str] = frozenset(Meta.__annotations__)


def fill_defaults(meta: Meta, now: str) -> Meta:
    """`meta` (changed in place) with the schema, tool version and creation time where absent."""
    meta.setdefault("schema", SCHEMA)
    meta.setdefault("tool_version", __version__)
    meta.setdefault("created_at", now)
    return meta


def from_manifest(manifest: dict[str, Any]) -> Meta:
    """The meta of a manifest already checked by bundle.manifest (so every known key has its
    type), without its `items`. Unknown keys are kept as they are."""
    return cast(Meta, {k: v for k, v in manifest.items() if k != "items"})


def to_manifest(meta: Meta) -> dict[str, Any]:
    """The manifest's top-level fields: meta as it is, unknown keys included."""
    return dict(meta)
