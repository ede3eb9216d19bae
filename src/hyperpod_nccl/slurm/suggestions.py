"""Commands a Slurm finding suggests, filled with the real node names (and instance IDs when the
SageMaker node list is known). hyperpod-nccl prints them; it never runs them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from hyperpod_nccl.model import SuggestedCommand
from hyperpod_nccl.slurm import hostlists
from hyperpod_nccl.slurm.instances import ClusterInstance


def node_list(names: Sequence[str]) -> str:
    """A compact Slurm hostlist: node[02-03,05]."""
    return hostlists.compress(names)


def inspect(names: Sequence[str]) -> SuggestedCommand:
    nodes = node_list(names)
    return SuggestedCommand(
        purpose="read the nodes' state, reason and last contact",
        command=f"scontrol show node {nodes}; sinfo -R -n {nodes}",
    )


def resume(names: Sequence[str]) -> SuggestedCommand:
    return SuggestedCommand(
        purpose="return the nodes to service once the cause is fixed",
        command=f"scontrol update nodename={node_list(names)} state=resume",
        preconditions="you fixed what took the nodes out (read the reason first); Slurm admin",
        changes_state=True,
        blast_radius="jobs may be scheduled on these nodes at once",
    )


def drain(names: Sequence[str], why: str) -> SuggestedCommand:
    return SuggestedCommand(
        purpose="keep new jobs off the nodes while you investigate",
        command=f'scontrol update nodename={node_list(names)} state=drain reason="{why}"',
        preconditions="Slurm admin",
        changes_state=True,
        blast_radius="no new jobs on these nodes; running jobs continue",
    )


def hyperpod_reboot(
    names: Sequence[str], instances: Mapping[str, ClusterInstance], cluster: str | None
) -> SuggestedCommand:
    """Reboot through HyperPod: the API when every instance ID is known, else the exact Slurm
    reason string HyperPod acts on."""
    ids = [instances[n].instance_id for n in names if n in instances]
    if ids and len(ids) == len(names):
        command = (
            f"aws sagemaker batch-reboot-cluster-nodes --cluster-name {cluster or '<cluster-name>'}"
            f" --node-ids {' '.join(ids)}"
        )
    else:
        command = f'scontrol update nodename={node_list(names)} state=fail reason="Action:Reboot"'
    return SuggestedCommand(
        purpose="have HyperPod reboot the instances behind these nodes",
        command=command,
        preconditions="jobs on these nodes will be lost; no replacement in progress for them",
        changes_state=True,
        blast_radius="every process on the nodes; instance IDs and volumes are kept",
    )


def watch_hyperpod(
    names: Sequence[str], instances: Mapping[str, ClusterInstance], cluster: str | None
) -> SuggestedCommand:
    ids = [instances[n].instance_id for n in names if n in instances]
    if ids:
        command = "; ".join(
            f"aws sagemaker describe-cluster-node --cluster-name {cluster or '<cluster-name>'}"
            f" --node-id {i}"
            for i in ids[:5]
        )
    else:
        command = f"sinfo -R -n {node_list(names)}   # the reason clears when HyperPod is done"
    return SuggestedCommand(
        purpose="follow HyperPod's reboot or replacement; do not change these nodes meanwhile",
        command=command,
    )


def slurmd_status(names: Sequence[str]) -> SuggestedCommand:
    return SuggestedCommand(
        purpose="see whether slurmd runs on each node and why it stopped (on the node, via SSM)",
        command="systemctl status slurmd; journalctl -u slurmd --since -1h | tail -50",
        preconditions=f"a shell on {node_list(names)} (aws ssm start-session, see ssm-target-format)",
    )
