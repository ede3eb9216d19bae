"""`hyperpod-nccl diagnose`: what blocks NCCL on a HyperPod cluster now, read-only, live or
from a saved bundle."""

from __future__ import annotations

import argparse

from hyperpod_nccl import api
from hyperpod_nccl.api import DEFAULT_SAMPLE_NODES, DiagnoseRequest
from hyperpod_nccl.commands.options import (
    add_bundle_options,
    add_check_options,
    add_output_options,
    deliver,
    exit_code_for,
    notify,
    request_from,
)
from hyperpod_nccl.examples import example_path
from hyperpod_nccl.examples import names as example_names
from hyperpod_nccl.exit_codes import UsageError

EXAMPLES = """examples:
  hyperpod-nccl diagnose --example oom-one-rank   # replay a bundle shipped with the tool
  hyperpod-nccl diagnose --bundle case-1234.tar.gz  # replay a saved run, no AWS access
  hyperpod-nccl diagnose --cluster ml-cluster --region us-west-2
  hyperpod-nccl diagnose --cluster ml-cluster --namespace training --job llama-70b --since 6h
  hyperpod-nccl diagnose --cluster arn:aws-us-gov:sagemaker:us-gov-west-1:123456789012:cluster/abcd1234efgh
  hyperpod-nccl diagnose --cluster ml-cluster --save-bundle case-1234.tar.gz --format json
  hyperpod-nccl diagnose --cluster slurm-cluster --controller-group controller-machine
  hyperpod-nccl diagnose --bundle case-1234.tar.gz --save-bundle shared.tar.gz --obfuscate
  hyperpod-nccl diagnose                         # on a Slurm head node: the local Slurm only

Read-only: only Describe/List/Get AWS calls and Kubernetes get/list/log reads are made (any
other call is refused in-process); SSM sessions run only the probe catalog and allow-listed
read-only Slurm commands. Suggested fixes are printed, never run.

Permissions: `explain read-only-iam-policy` covers every check but the node probes (and Slurm
read over SSM from outside the cluster); those need ssm:StartSession, which is NOT read-only:
its document runs any command (`explain node-probe-iam-policy`). Without it they are SKIPPED.
"""


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser(
        "diagnose",
        help="find what blocks NCCL on a HyperPod cluster (EKS or Slurm), live and read-only, "
        "or from a bundle",
        description=(
            "Collect a HyperPod cluster's state read-only (SageMaker, EC2, CloudWatch; on EKS "
            "the Kubernetes objects and pod logs, on Slurm the controller's view through local "
            "Slurm commands or an SSM session; node probes over SSM), check it, and name the "
            "root cause. --save-bundle writes a redacted escalation bundle of everything "
            "collected; --bundle replays one offline."
        ),
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    target = parser.add_argument_group("cluster")
    target.add_argument("--cluster", metavar="NAME|ARN", help="HyperPod cluster name or ARN")
    target.add_argument(
        "--region",
        help="AWS region (default: the ARN's, then AWS_REGION/AWS_DEFAULT_REGION, then the profile's)",
    )
    target.add_argument("--profile", help="AWS profile (default: AWS_PROFILE or default chain)")
    target.add_argument(
        "--orchestrator",
        choices=("eks", "slurm"),
        help="override the orchestrator DescribeCluster reports",
    )
    scope = parser.add_argument_group("scope")
    scope.add_argument("--namespace", help="Kubernetes namespace of the job (default: all)")
    scope.add_argument(
        "--job", help="training job name (batch Job, PyTorchJob, MPIJob, HyperPodPyTorchJob)"
    )
    scope.add_argument(
        "--since",
        default="2h",
        help="time window for events and logs, e.g. 30m, 2h, 1d (default: 2h)",
    )
    nodes = scope.add_mutually_exclusive_group()
    nodes.add_argument(
        "--sample-nodes",
        type=int,
        metavar="N",
        help=f"probe N of the cluster's nodes (default: {DEFAULT_SAMPLE_NODES}: a cluster can "
        "have a thousand and each probe is an SSM session; failed instances and nodes in "
        "trouble first)",
    )
    nodes.add_argument("--all-nodes", action="store_true", help="probe every node")
    scope.add_argument(
        "--node",
        dest="nodes",
        action="append",
        default=[],
        metavar="ID",
        help="probe this instance (repeatable)",
    )
    slurm = parser.add_argument_group("slurm")
    slurm.add_argument(
        "--controller-group",
        metavar="NAME",
        help="instance group of the Slurm controller (default: the group whose SlurmConfig "
        "says Controller, else the one named like controller or head)",
    )
    kube = parser.add_argument_group("kubernetes")
    kube.add_argument(
        "--kubeconfig", help="kubeconfig file (default: KUBECONFIG or ~/.kube/config)"
    )
    kube.add_argument(
        "--context", help="kubeconfig context (default: the one for the cluster's EKS cluster)"
    )
    replay = parser.add_argument_group("replay")
    replay.add_argument(
        "--bundle", metavar="PATH", help="replay a saved bundle instead of collecting"
    )
    replay.add_argument(
        "--example",
        metavar="NAME",
        help="replay an example bundle shipped with the tool: "
        + ", ".join(example_names("bundles")),
    )
    add_check_options(parser, "checks or areas")
    add_output_options(parser)
    add_bundle_options(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.example is not None:
        if args.bundle or args.cluster:
            raise UsageError(
                "diagnose: --example replays a shipped bundle; drop --bundle/--cluster"
            )
        args.bundle = example_path("bundles", args.example)
    request = request_from(args, DiagnoseRequest)
    report = api.diagnose(request, notify=notify, deliver=deliver(args))
    return exit_code_for(report, args.fail_on)
