"""Suggested commands carry the values the run knows. A check or a log rule writes a
placeholder where it cannot know a value itself (`<cluster-name>`, `<region>`,
`<instance-id>`, `<instance-id-of-HOST>`): the log rules are shared with `hyperpod-nccl logs`,
which knows no cluster, and a node check sees one node's probes only. After the checks,
`diagnose` fills every placeholder the Snapshot answers, and gives AWS CLI commands the
run's region; what stays in angle brackets is something the run did not learn (a PID, a peer
address)."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable

from hyperpod_nccl.checks.known import Known, known
from hyperpod_nccl.model import Finding, SuggestedCommand
from hyperpod_nccl.snapshot import Snapshot

_PLACEHOLDER = re.compile(r"<([a-z][a-z0-9-]*)>")
_INSTANCE_OF = re.compile(r"<instance-id-of-([^<>\s]+)>")
# An AWS CLI command the region can be appended to: one command, no pipe, no comment.
_AWS_CLI = re.compile(r"^aws [a-z0-9-]+ [a-z0-9-]+(?: [^|#;&]*)?$")


def _instance(finding: Finding, k: Known) -> str | None:
    """The one instance the finding is about, when its hosts name exactly one."""
    found = {i for h in finding.hosts if (i := k.instance_of(h))}
    return found.pop() if len(found) == 1 else None


def fill_text(text: str, values: dict[str, str | None], k: Known) -> str:
    text = _INSTANCE_OF.sub(lambda m: k.instance_of(m.group(1)) or m.group(0), text)
    return _PLACEHOLDER.sub(lambda m: values.get(m.group(1)) or m.group(0), text)


_KUBECTL = re.compile(r"\bkubectl (?!.*(?:\s-n\s|\s-A\b|--namespace|--all-namespaces))")


def _namespaced(text: str, k: Known) -> str:
    """`kubectl` commands about the job's pods get their namespace: the context's default
    namespace is often another one."""
    found = {ns for pod, ns in k.namespaces.items() if re.search(rf"\b{re.escape(pod)}\b", text)}
    if len(found) != 1 or not _KUBECTL.search(text):
        return text
    return _KUBECTL.sub(f"kubectl -n {found.pop()} ", text)


def _fill(command: SuggestedCommand, values: dict[str, str | None], k: Known) -> SuggestedCommand:
    text = _namespaced(fill_text(command.command, values, k), k)
    if k.region and _AWS_CLI.match(text) and "--region" not in text:
        text += f" --region {k.region}"
    return dataclasses.replace(
        command,
        command=text,
        preconditions=fill_text(command.preconditions, values, k),
        runs_on=fill_text(command.runs_on, values, k),
    )


def fill_commands(findings: Iterable[Finding], snapshot: Snapshot) -> None:
    k = known(snapshot)
    base: dict[str, str | None] = {
        "cluster-name": k.cluster,
        "cluster-arn": k.cluster_arn,
        "region": k.region,
        "eks-cluster": k.eks_name,
    }
    for finding in findings:
        if not finding.suggested_commands:
            continue
        values = {**base, "instance-id": _instance(finding, k)}
        finding.suggested_commands = [_fill(c, values, k) for c in finding.suggested_commands]
