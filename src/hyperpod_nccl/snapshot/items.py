"""Names of the items a Snapshot holds, and readers of the documents in them that need no
I/O. Collectors write these items and checks read them; both import the names from here, so
re-analysing a bundle never imports a collector (nor boto3 or the Kubernetes client)."""

from __future__ import annotations

from typing import Any

# SageMaker HyperPod, EC2, EKS, STS
CLUSTER = "aws/sagemaker/describe_cluster.json"
NODES = "aws/sagemaker/list_cluster_nodes.json"
EVENTS = "aws/sagemaker/list_cluster_events.json"
NODE_DETAIL = "aws/sagemaker/describe_cluster_node/{node}.json"
SECURITY_GROUPS = "aws/ec2/describe_security_groups.json"
SUBNETS = "aws/ec2/describe_subnets.json"
INSTANCE_TYPES = "aws/ec2/describe_instance_types.json"
EKS_CLUSTER = "aws/eks/describe_cluster.json"
IDENTITY = "aws/sts/caller_identity.json"
# CloudWatch Logs
LOG_GROUPS = "aws/logs/log_groups.json"
QUERY = "aws/logs/insights_query.json"
LOG_PREFIX = "aws/logs/streams/"
# Kubernetes
ACCESS = "k8s/access.json"
LOGS_INDEX = "k8s/logs_index.json"
LOG_ROOT = "k8s/logs/"
# Slurm (local commands or over SSM)
SLURM_INSTANCES = "slurm/instances.json"
SLURM_CONFIG = "slurm/config.txt"
SLURM_CONTEXT = "slurm/context.json"
SLURM_SINFO = "slurm/sinfo.json"
SLURM_SQUEUE = "slurm/squeue.json"
SLURM_SQUEUE_TEXT = "slurm/squeue.txt"
SLURM_PING = "slurm/ping.json"
SLURM_MUNGE = "slurm/munge.json"
SLURM_SDIAG = "slurm/sdiag.txt"
SLURM_SHOW_NODE = "slurm/scontrol_show_node.txt"
SLURM_PARTITIONS = "slurm/scontrol_show_partition.txt"
SLURM_LOGIND_PREFIX = "slurm/logind/"
SLURM_LOGIND_CONTROLLER = "slurm/logind/controller.json"
SLURM_JOB_OUTPUT_PREFIX = "slurm/job_output/"
# Node probes
PROBE_RESULTS = "probes/index.json"
PROBE_TARGETS = "probes/targets.json"
NODES_PREFIX = "nodes/"


def node_item(node: str, probe: str) -> str:
    """One probe's output on one node: `nodes/NODE/PROBE.txt`."""
    return f"{NODES_PREFIX}{node}/{probe}.txt"


def node_session(node: str) -> str:
    """How the probe session on a node went: `nodes/NODE/session.json`."""
    return f"{NODES_PREFIX}{node}/session.json"


def list_item(kind: str) -> str:
    """A listed Kubernetes kind: `pods`, `nodes`, `networkpolicies`..."""
    return f"k8s/{kind}.json"


def eks_cluster_name(cluster: dict[str, Any]) -> str | None:
    """The EKS cluster behind a DescribeCluster document, from its orchestrator ARN."""
    arn = ((cluster.get("Orchestrator") or {}).get("Eks") or {}).get("ClusterArn")
    return arn.rsplit("/", 1)[-1] if isinstance(arn, str) and "/" in arn else None


def security_group_ids(cluster: dict[str, Any]) -> list[str]:
    """The cluster's groups and every instance group's override groups."""
    ids = list((cluster.get("VpcConfig") or {}).get("SecurityGroupIds") or [])
    for group in cluster.get("InstanceGroups") or []:
        ids.extend((group.get("OverrideVpcConfig") or {}).get("SecurityGroupIds") or [])
    return sorted(set(ids))
