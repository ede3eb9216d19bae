"""The plumbing of `diagnose` between arguments and checks: validate what the user named,
collect live (or load a bundle), save a bundle. Errors come out as UsageError (exit 2) or
InputError (exit 1) with one-line messages."""

from __future__ import annotations

import os
from collections.abc import Sequence

import boto3
import botocore.exceptions

from hyperpod_nccl import targets
from hyperpod_nccl.collect.aws import CredentialsError
from hyperpod_nccl.collect.options import DEFAULT_SAMPLE_NODES, DiagnoseOptions
from hyperpod_nccl.exit_codes import InputError, UsageError
from hyperpod_nccl.snapshot import BundleError, Snapshot

ORCHESTRATORS = ("eks", "slurm")


def _profile_region(profile: str | None) -> str | None:
    """The region botocore would use: AWS_REGION/AWS_DEFAULT_REGION, else the profile's."""
    try:
        region = boto3.Session(profile_name=profile).region_name
        return str(region) if region else None
    except botocore.exceptions.ProfileNotFound as exc:
        raise UsageError(f"AWS profile not found: {exc}") from exc


def build_options(
    *,
    cluster: str | None,
    region: str | None,
    profile: str | None,
    namespace: str | None,
    job: str | None,
    orchestrator: str | None,
    since: str,
    sample_nodes: int | None,
    all_nodes: bool,
    nodes: Sequence[str],
    kubeconfig: str | None,
    context: str | None,
    save_bundle: str | None,
) -> DiagnoseOptions:
    if not cluster:
        raise UsageError("--cluster NAME|ARN is required (or --bundle PATH to replay a bundle)")
    ref = targets.parse_cluster(cluster)
    if orchestrator is not None and orchestrator not in ORCHESTRATORS:
        raise UsageError(f"invalid --orchestrator {orchestrator!r}: expected eks or slurm")
    if sample_nodes is not None and sample_nodes < 1:
        raise UsageError(f"invalid --sample-nodes {sample_nodes}: at least 1")
    if all_nodes and (sample_nodes is not None or nodes):
        raise UsageError("--all-nodes cannot be combined with --sample-nodes or --node")
    if nodes and sample_nodes is not None:
        raise UsageError("--node and --sample-nodes cannot be combined")
    if kubeconfig is not None and not os.path.isfile(kubeconfig):
        raise UsageError(f"--kubeconfig {kubeconfig}: no such file")
    if save_bundle is not None and os.path.exists(save_bundle):
        raise UsageError(f"--save-bundle {save_bundle} already exists; not overwriting it")
    resolved = targets.resolve_region(ref, region, None if region else _profile_region(profile))
    return DiagnoseOptions(
        cluster=ref,
        region=resolved,
        profile=profile,
        namespace=targets.parse_namespace(namespace) if namespace else None,
        job=targets.parse_job_name(job) if job else None,
        orchestrator=orchestrator,
        since=targets.parse_since(since),
        sample_nodes=sample_nodes or DEFAULT_SAMPLE_NODES,
        all_nodes=all_nodes,
        nodes=tuple(dict.fromkeys(targets.parse_node_id(n) for n in nodes)),
        kubeconfig=kubeconfig,
        context=context,
    )


def collect_or_load(options: DiagnoseOptions | None, bundle: str | None) -> Snapshot:
    if bundle is not None:
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
    assert options is not None
    from hyperpod_nccl.collect.run import collect

    try:
        return collect(options)
    except CredentialsError as exc:
        raise InputError(str(exc)) from exc


def save(snapshot: Snapshot, path: str) -> None:
    try:
        snapshot.save(path)
    except (BundleError, OSError) as exc:
        raise InputError(f"cannot save the bundle: {exc}") from exc
