"""`probe`: run the node probe catalog on this node (or on Slurm nodes) and report GPU, EFA and
host problems; with a bundle, re-analyse saved probe results without running anything."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from hyperpod_nccl import targets
from hyperpod_nccl.api.requests import ProbeRequest
from hyperpod_nccl.api.runs import (
    Deliver,
    NothingRead,
    Notify,
    build,
    check_inputs_exist,
    check_save,
    escalation,
    inputs_of,
    left_out,
    quiet,
)
from hyperpod_nccl.checks.node_report import AREA, node_report
from hyperpod_nccl.checks.selection import Selection, parse_selection
from hyperpod_nccl.exit_codes import InputError, UsageError
from hyperpod_nccl.model import Report
from hyperpod_nccl.probes.catalog import CATALOG, PROBE_IDS, UnknownProbe
from hyperpod_nccl.slurm import hostlists
from hyperpod_nccl.snapshot import BundleError, Snapshot

NO_NODE = "no node could be probed"


@dataclass(frozen=True)
class CatalogEntry:
    """One read-only command of the probe catalog."""

    id: str
    title: str
    timeout_s: int
    argv: tuple[str, ...]


def probe_catalog() -> list[CatalogEntry]:
    """Every probe `probe` may run, in catalog order (`probe --list`)."""
    return [CatalogEntry(p.id, p.title, p.timeout_s, tuple(p.argv)) for p in CATALOG.values()]


def _ids(values: Sequence[str]) -> list[str]:
    """`["a,b", "c"]` -> [a, b, c]."""
    return [n.strip() for v in values for n in v.split(",") if n.strip()]


def selected_probes(only: Sequence[str], skip: Sequence[str]) -> list[str]:
    chosen = _ids(only) or list(PROBE_IDS)
    unknown = [p for p in chosen + _ids(skip) if p not in CATALOG]
    if unknown:
        raise UsageError(f"unknown probe id(s): {', '.join(unknown)} (see --list)")
    out = [p for p in chosen if p not in set(_ids(skip))]
    if not out:
        raise UsageError("no probes left to run")
    return out


def is_probe_id(name: str) -> bool:
    return name in CATALOG


def parse_since(value: str | None, now: datetime | None = None) -> str | None:
    """The Xid window's start as an ISO time, from --since as every command reads it."""
    if not value:
        return None
    now = now or datetime.now(timezone.utc)
    return (now - targets.parse_since(value, now)).isoformat()


def expand_nodes(spec: str) -> list[str]:
    """'gpu-[01-03,07],login' -> gpu-01, gpu-02, gpu-03, gpu-07, login."""
    from hyperpod_nccl.collect.transports import TransportError
    from hyperpod_nccl.collect.transports.slurm import validate_node

    try:
        out = hostlists.expand(spec)
    except hostlists.HostlistError as exc:
        raise UsageError(f"not a Slurm host list: {exc}") from None
    try:
        return [validate_node(n.strip()) for n in out if n.strip()]
    except TransportError as exc:
        raise UsageError(str(exc)) from None


def probe(
    request: ProbeRequest | None = None,
    /,
    *,
    notify: Notify = quiet,
    deliver: Deliver | None = None,
    **fields: Any,
) -> Report:
    """Probe this node (or `slurm_nodes` through srun), or re-analyse `bundle`; save a bundle
    when asked; return the Report of the node checks that `checks`/`skip` select.

    `deliver` gets the report before the bundle is written. Raises UsageError for invalid
    requests, InputError for an unreadable bundle, and NothingRead (carrying the report) when
    no node could be probed.
    """
    from hyperpod_nccl.collect import probes as defaults

    request = build(ProbeRequest, request, fields)
    node_timeout = request.node_timeout_s
    node_timeout = defaults.DEFAULT_NODE_TIMEOUT_S if node_timeout is None else node_timeout
    deadline = defaults.DEFAULT_DEADLINE_S if request.deadline_s is None else request.deadline_s
    concurrency = request.concurrency
    concurrency = defaults.DEFAULT_CONCURRENCY if concurrency is None else concurrency
    start_rate = defaults.DEFAULT_START_RATE if request.start_rate is None else request.start_rate
    if node_timeout <= 0 or deadline <= 0 or concurrency < 1 or start_rate <= 0:
        raise UsageError(
            "--node-timeout, --deadline, --start-rate must be positive and --concurrency at least 1"
        )
    try:
        probes = selected_probes(request.probes, request.skip_probes)
    except UnknownProbe as exc:
        raise UsageError(str(exc)) from None
    selection = parse_selection(request.checks, request.skip)
    inputs = inputs_of((), request.bundle)
    check_save(request, inputs)
    if request.refuse_missing:  # after the usage checks: a conflict is exit 2, a typo exit 1
        check_inputs_exist("probe", inputs, redact=request.redact)
    since = parse_since(request.since)
    if request.bundle:
        try:
            snapshot = Snapshot.load(request.bundle)
        except BundleError as exc:
            raise InputError(str(exc)) from None
        try:
            if since:
                snapshot.meta["probe_since"] = since
            return _finish(snapshot, request, selection, notify, deliver)
        finally:
            snapshot.close()

    from hyperpod_nccl.collect.probes import probe_nodes, sample_nodes
    from hyperpod_nccl.collect.transports import LocalTransport, SlurmTransport, TransportError
    from hyperpod_nccl.collect.transports.base import Transport
    from hyperpod_nccl.collect.transports.local import local_node_name

    transport: Transport
    if request.slurm_nodes:
        nodes = expand_nodes(request.slurm_nodes)
        if request.sample_nodes is not None:
            if request.sample_nodes < 1:
                raise UsageError("--sample-nodes must be at least 1")
            prefer = expand_nodes(request.prefer_nodes) if request.prefer_nodes else []
            nodes = sample_nodes(nodes, request.sample_nodes, prefer)
        try:
            transport = SlurmTransport(job_id=request.slurm_job, time_limit_s=int(node_timeout))
        except TransportError as exc:
            raise UsageError(str(exc)) from None
    else:
        if request.slurm_job or request.sample_nodes or request.prefer_nodes:
            raise UsageError("--slurm-job, --sample-nodes and --prefer-nodes need --slurm-nodes")
        nodes, transport = [local_node_name()], LocalTransport()
    snapshot = Snapshot(meta={"command": "probe"})
    try:
        if since:
            snapshot.meta["probe_since"] = since
        summary = probe_nodes(
            snapshot,
            transport,
            nodes,
            probes=probes,
            concurrency=concurrency,
            start_rate=start_rate,
            node_timeout_s=node_timeout,
            deadline_s=deadline,
        )
        notify(
            f"hyperpod-nccl: probed {len(summary.reached)} of {summary.nodes} node(s) through "
            f"{summary.transport} in {summary.elapsed_s:.1f}s"
        )
        report = _finish(snapshot, request, selection, notify, deliver)
    finally:
        snapshot.close()
    if not summary.reached:
        raise NothingRead(NO_NODE, report)
    return report


def _finish(
    snapshot: Snapshot,
    request: ProbeRequest,
    selection: Selection,
    notify: Notify,
    deliver: Deliver | None,
) -> Report:
    """The node report of the snapshot, delivered, then saved when asked."""
    from hyperpod_nccl.bundle.escalation import save_requested_bundle

    report = node_report(snapshot, wants=selection.wants)
    report.not_checked += left_out(selection, [AREA])
    if deliver is not None:
        deliver(report)
    options = escalation(request)
    if options is not None:  # redacted (and obfuscated) like any bundle
        save_requested_bundle(report, snapshot, options, notify)
    return report
