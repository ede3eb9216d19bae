"""Which pods belong to which training job.

A pod belongs to a job when its owner reference names one (batch Job, Kubeflow PyTorchJob or
MPIJob, HyperPod's HyperPodPyTorchJob), or when it carries a job label: the batch Job labels
(`batch.kubernetes.io/job-name`, `job-name`), the Kubeflow training-operator label
(`training.kubeflow.org/job-name`) or the older operator labels (`pytorch-job-name`,
`mpi-job-name`). HyperPod's training operator names its pods `<job>-pod-<n>`, which is the
fallback when --job names a HyperPodPyTorchJob and nothing else matches.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from hyperpod_nccl.kube.objects import Obj, labels, meta, name, namespace

JOB_KINDS = ("HyperPodPyTorchJob", "PyTorchJob", "MPIJob", "Job")
# label -> job kind it implies, most specific first.
JOB_LABELS = (
    ("training.kubeflow.org/job-name", "PyTorchJob"),
    ("pytorch-job-name", "PyTorchJob"),
    ("mpi-job-name", "MPIJob"),
    ("batch.kubernetes.io/job-name", "Job"),
    ("job-name", "Job"),
)
OPERATOR_LABEL = "training.kubeflow.org/operator-name"


@dataclass(frozen=True, order=True)
class JobKey:
    namespace: str
    kind: str
    name: str

    def __str__(self) -> str:
        return f"{self.kind} {self.namespace}/{self.name}"


def job_of(pod: Obj) -> JobKey | None:
    """The training job a pod belongs to, or None for pods of no job.

    Job labels come first: an MPIJob's launcher pod is owned by a batch Job named
    `<job>-launcher` but labelled with the MPIJob's name, like its workers.
    """
    ns = namespace(pod)
    owners = [
        (str(owner["kind"]), str(owner["name"]))
        for owner in meta(pod).get("ownerReferences") or []
        if isinstance(owner, dict) and owner.get("kind") in JOB_KINDS and owner.get("name")
    ]
    pod_labels = labels(pod)
    for label, kind in JOB_LABELS:
        value = pod_labels.get(label)
        if not value:
            continue
        owned = [k for k, n in owners if n == value]
        if owned:
            kind = owned[0]
        elif "mpi" in pod_labels.get(OPERATOR_LABEL, ""):
            kind = "MPIJob"
        return JobKey(ns, kind, value)
    if owners:
        kind, owner_name = owners[0]
        return JobKey(ns, kind, owner_name)
    return None


def group_job_pods(
    pods: list[Obj], job: str | None = None, hyperpod_jobs: frozenset[str] = frozenset()
) -> dict[JobKey, list[Obj]]:
    """Pods grouped by job; only the job named `job` when given.

    `hyperpod_jobs` are names of HyperPodPyTorchJobs known to exist, for the name-prefix
    fallback.
    """
    groups: dict[JobKey, list[Obj]] = defaultdict(list)
    for pod in pods:
        key = job_of(pod)
        if key is None and job and job in hyperpod_jobs and name(pod).startswith(f"{job}-pod"):
            key = JobKey(namespace(pod), "HyperPodPyTorchJob", job)
        if key is None or (job is not None and key.name != job):
            continue
        groups[key].append(pod)
    for members in groups.values():
        members.sort(key=name)
    return dict(sorted(groups.items()))
