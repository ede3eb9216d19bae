"""Where `diagnose` gets its Snapshot: validate what the user named, then collect live, read
the local Slurm, or load a bundle. Errors come out as UsageError (exit 2) or InputError
(exit 1) with one-line messages."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

from hyperpod_nccl import targets
from hyperpod_nccl.api.requests import DiagnoseRequest
from hyperpod_nccl.collect.options import DEFAULT_SAMPLE_NODES, DiagnoseOptions
from hyperpod_nccl.exit_codes import InputError, UsageError
from hyperpod_nccl.snapshot import BundleError, Snapshot
from hyperpod_nccl.targets import parse_instance_group

ORCHESTRATORS = ("eks", "slurm")


def _profile_region(profile: str | None) -> str | None:
    """The region botocore would use: AWS_REGION/AWS_DEFAULT_REGION, else the profile's."""
    # Imported here: replaying a bundle must not load the AWS SDK (tests/test_layers.py).
    import boto3
    import botocore.exceptions

    try:
        region = boto3.Session(profile_name=profile).region_name
        return str(region) if region else None
    except botocore.exceptions.ProfileNotFound as exc:
        raise UsageError(f"AWS profile not found: {exc}") from exc


def build_options(request: DiagnoseRequest) -> DiagnoseOptions:
    if not request.cluster:
        raise UsageError("--cluster NAME|ARN is required (or --bundle PATH to replay a bundle)")
    ref = targets.parse_cluster(request.cluster)
    orchestrator, sample_nodes, nodes = request.orchestrator, request.sample_nodes, request.nodes
    if orchestrator is not None and orchestrator not in ORCHESTRATORS:
        raise UsageError(f"invalid --orchestrator {orchestrator!r}: expected eks or slurm")
    if sample_nodes is not None and sample_nodes < 1:
        raise UsageError(f"invalid --sample-nodes {sample_nodes}: at least 1")
    if request.all_nodes and (sample_nodes is not None or nodes):
        raise UsageError("--all-nodes cannot be combined with --sample-nodes or --node")
    if nodes and sample_nodes is not None:
        raise UsageError("--node and --sample-nodes cannot be combined")
    if request.kubeconfig is not None and not os.path.isfile(request.kubeconfig):
        raise UsageError(f"--kubeconfig {request.kubeconfig}: no such file")
    region = request.region
    resolved = targets.resolve_region(
        ref, region, None if region else _profile_region(request.profile)
    )
    group = request.controller_group
    return DiagnoseOptions(
        cluster=ref,
        region=resolved,
        profile=request.profile,
        namespace=targets.parse_namespace(request.namespace) if request.namespace else None,
        job=targets.parse_job_name(request.job) if request.job else None,
        orchestrator=orchestrator,
        since=targets.parse_since(request.since),
        sample_nodes=sample_nodes or DEFAULT_SAMPLE_NODES,
        all_nodes=request.all_nodes,
        nodes=tuple(dict.fromkeys(targets.parse_node_id(n) for n in nodes)),
        kubeconfig=request.kubeconfig,
        context=request.context,
        controller_group=parse_instance_group(group, "--controller-group") if group else None,
    )


@contextmanager
def open_snapshot(request: DiagnoseRequest) -> Iterator[Snapshot]:
    """The snapshot to analyse: a saved bundle (`bundle`), the local Slurm (no cluster named),
    or a live collection. Closed (its spool removed) when the block ends."""
    if request.bundle is not None:
        if request.cluster:
            raise UsageError("--bundle replays a saved run; it cannot be combined with --cluster")
        snapshot = load_bundle(request.bundle)
    elif not request.cluster and request.orchestrator in (None, "slurm"):
        # No cluster named: diagnose the Slurm this host can query (a head or login node).
        from hyperpod_nccl.collect.slurm_local import collect_local_slurm

        if request.nodes or request.sample_nodes is not None or request.all_nodes:
            raise UsageError(
                "node probes in diagnose run over SSM and need --cluster; on a Slurm head "
                "node, probe nodes with: hyperpod-nccl probe --slurm-nodes NODELIST"
            )

        snapshot = collect_local_slurm()
    else:
        snapshot = collect_live(build_options(request))
    try:
        yield snapshot
    finally:
        snapshot.close()


def load_bundle(bundle: str) -> Snapshot:
    try:
        snapshot = Snapshot.load(bundle)
    except BundleError as exc:
        raise InputError(str(exc)) from exc
    if snapshot.meta.get("command") != "diagnose":
        snapshot.close()
        raise InputError(
            f"{bundle}: not a diagnose bundle (it was made by {snapshot.meta.get('command')!r})"
        )
    return snapshot


def collect_live(options: DiagnoseOptions) -> Snapshot:
    from hyperpod_nccl.collect.aws import CredentialsError
    from hyperpod_nccl.collect.run import collect

    try:
        return collect(options)
    except CredentialsError as exc:
        raise InputError(str(exc)) from exc
