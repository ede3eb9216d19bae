"""Run the probe batch on a HyperPod node through an SSM session.

`aws ssm start-session --target sagemaker-cluster:<cluster-id>_<group>-<instance-id>
--document-name AWS-StartNonInteractiveCommand --parameters '{"command": [<script>]}'`, which
the AWS CLI hands to session-manager-plugin. Every input is validated against the patterns of
the SageMaker API before any command is built, and the plugin's presence is checked before any
session starts. The plugin does not return the remote exit status, so the batch markers carry
each probe's status instead.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Mapping
from dataclasses import dataclass

from hyperpod_nccl.collect.transports.base import Transport, TransportError
from hyperpod_nccl.probes.batch import BatchScript

DOCUMENT = "AWS-StartNonInteractiveCommand"
PLUGIN = "session-manager-plugin"
PLUGIN_DOC = "https://docs.aws.amazon.com/systems-manager/latest/userguide/session-manager-working-with-install-plugin.html"

# Patterns from the SageMaker API reference (DescribeClusterNode): the cluster ARN ends in a
# 12-character id; instance group names; EC2 instance ids.
_CLUSTER_ID = re.compile(r"^[a-z0-9]{12}$")
_GROUP = re.compile(r"^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}$")
_INSTANCE = re.compile(r"^i-[a-f0-9]{8}(?:[a-f0-9]{9})?$")
_REGION = re.compile(r"^[a-z]{2}(-[a-z]+)+-\d$")
_PROFILE = re.compile(r"^[A-Za-z0-9_.+=,@-]{1,64}$")
_BANNER = re.compile(r"^(Starting|Exiting) session with [sS]essionId: \S+\s*$")
_AWS_ERROR = re.compile(r"An error occurred \((\w+)\) when calling the (\w+) operation: (.*)")


@dataclass(frozen=True)
class SsmTarget:
    cluster_id: str
    group: str
    instance_id: str

    def __post_init__(self) -> None:
        if not isinstance(self.cluster_id, str) or not _CLUSTER_ID.fullmatch(self.cluster_id):
            raise TransportError(
                f"not a HyperPod cluster id (12 lower-case letters or digits, the end of the "
                f"cluster ARN): {self.cluster_id!r}"
            )
        if not isinstance(self.group, str) or not _GROUP.fullmatch(self.group):
            raise TransportError(f"not a valid instance group name: {self.group!r}")
        if not isinstance(self.instance_id, str) or not _INSTANCE.fullmatch(self.instance_id):
            raise TransportError(f"not an EC2 instance id: {self.instance_id!r}")

    @classmethod
    def from_cluster_arn(cls, arn: str, group: str, instance_id: str) -> SsmTarget:
        m = re.fullmatch(r"arn:aws[a-z-]*:sagemaker:[a-z0-9-]*:\d{12}:cluster/([a-z0-9]{12})", arn)
        if not m:
            raise TransportError(f"not a HyperPod cluster ARN: {arn!r}")
        return cls(m.group(1), group, instance_id)

    @property
    def target(self) -> str:
        return f"sagemaker-cluster:{self.cluster_id}_{self.group}-{self.instance_id}"


class SsmTransport(Transport):
    """Nodes are named by instance id; `targets` maps each to its SSM target."""

    name = "ssm"

    def __init__(
        self,
        targets: Mapping[str, SsmTarget],
        region: str | None = None,
        profile: str | None = None,
        aws: str = "aws",
    ) -> None:
        for node, target in targets.items():
            if not isinstance(target, SsmTarget):
                raise TransportError(f"{node}: target must be an SsmTarget")
        if region is not None and not _REGION.fullmatch(region):
            raise TransportError(f"not an AWS region: {region!r}")
        if profile is not None and not _PROFILE.fullmatch(profile):
            raise TransportError(f"not a valid profile name: {profile!r}")
        self.targets = dict(targets)
        self.region = region
        self.profile = profile
        self.aws = aws

    def preflight(self) -> str | None:
        if shutil.which(PLUGIN) is None:
            return f"{PLUGIN} is not on PATH; SSM sessions need it ({PLUGIN_DOC})"
        if shutil.which(self.aws) is None:
            return f"the AWS CLI ({self.aws}) is not on PATH"
        return None

    def target_of(self, node: str) -> str:
        try:
            return self.targets[node].target
        except KeyError:
            raise TransportError(f"no SSM target known for node {node!r}") from None

    def _argv(self, node: str, script: BatchScript) -> list[str]:
        return self.session_argv(node, script.text)

    def session_argv(self, node: str, command: str) -> list[str]:
        """`aws ssm start-session` running `command` on `node`. Callers build `command` only
        from vetted input: a verified probe batch, or an allow-listed Slurm argv
        (collect.slurm_ssm)."""
        argv = [
            self.aws,
            "ssm",
            "start-session",
            "--target",
            self.target_of(node),
            "--document-name",
            DOCUMENT,
            "--parameters",
            json.dumps({"command": [command]}),
        ]
        if self.region:
            argv += ["--region", self.region]
        if self.profile:
            argv += ["--profile", self.profile]
        return argv

    def _clean(self, stdout: str) -> str:
        return "\n".join(ln for ln in stdout.splitlines() if not _BANNER.match(ln.strip()))

    def _failure(self, returncode: int, stdout: str, stderr: str) -> str:
        return self.session_failure(returncode, stdout, stderr)

    def session_failure(self, returncode: int | None, stdout: str, stderr: str) -> str:
        """Why a session gave no output: the AWS error, a missing plugin, or its last line."""
        text = f"{stderr}\n{stdout}"
        m = _AWS_ERROR.search(text)
        if m:
            return f"{m.group(1)}: {m.group(3).strip()}"
        if "SessionManagerPlugin is not found" in text:
            return f"{PLUGIN} is not installed ({PLUGIN_DOC})"
        for line in reversed(text.splitlines()):
            if line.strip() and not _BANNER.match(line.strip()):
                return line.strip()
        return f"aws ssm start-session exited with status {returncode} and printed nothing"
