"""Open one side of a diff: a bundle (directory or .tar.gz, from `logs`, `perf`, `probe` or
`diagnose`), or plain logs (a directory of them, or files). A side that cannot be read is one
line and exit 1 (InputError), never a traceback."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from hyperpod_nccl.bundle.logs import LOGS_PREFIX, log_items
from hyperpod_nccl.exit_codes import InputError
from hyperpod_nccl.inputs import expand
from hyperpod_nccl.snapshot import MANIFEST, BundleError, Snapshot
from hyperpod_nccl.snapshot.items import SLURM_JOB_OUTPUT_PREFIX

_ARCHIVE = (".tar.gz", ".tgz", ".tar")
_NUMBERED = re.compile(r"^logs/\d+/")


@dataclass
class LogSource:
    """One log to read facts from: its file and the name facts are filed under."""

    scope: str
    path: str
    shown: str  # how evidence names it: the bundle item, or the path as given


@dataclass
class Side:
    role: str  # GOOD or BAD
    path: str
    kind: str  # diagnose, logs, perf, probe (a bundle's command) or "log files"
    snapshot: Snapshot | None = None
    paths: list[str] = field(default_factory=list)  # plain log inputs
    logs: list[LogSource] = field(default_factory=list)

    def close(self) -> None:
        if self.snapshot is not None:
            self.snapshot.close()


def is_bundle(path: str) -> bool:
    if os.path.isdir(path):
        return os.path.isfile(os.path.join(path, MANIFEST))
    return path.endswith(_ARCHIVE)


def open_side(role: str, path: str) -> Side:
    if not os.path.lexists(path):
        raise InputError(f"{role} {path}: no such file or directory")
    if is_bundle(path):
        try:
            snapshot = Snapshot.load(path)
        except BundleError as exc:
            raise InputError(f"{role} {exc}") from exc
        kind = str(snapshot.meta.get("command") or "logs")
        return Side(role, path, kind, snapshot=snapshot, logs=_bundle_logs(snapshot))
    inputs, problems = expand([path])
    files = [i for i in inputs if i.path is not None]
    if not files:
        reason = problems[0].reason if problems else "nothing to read"
        raise InputError(f"{role} {path}: {reason}")
    top = path if os.path.isdir(path) else os.path.dirname(path)
    logs = [
        LogSource(_scope(os.path.relpath(str(i.path), top)), str(i.path), i.name) for i in files
    ]
    return Side(role, path, "log files", paths=[str(i.path) for i in files], logs=logs)


def _bundle_logs(snapshot: Snapshot) -> list[LogSource]:
    """The logs a bundle holds that tell about the job: the inputs of a `logs`/`perf` bundle
    under the names they were given, the current container logs and job output of a
    `diagnose` bundle (a previous container's log is an earlier run, so it is left out)."""
    found = []
    for name in log_items(snapshot):
        path = snapshot.path_of(name)
        if path is None or "/previous/" in name:
            continue
        if name.startswith(LOGS_PREFIX):
            given = snapshot.items[name].source or _NUMBERED.sub("", name)
            scope = _scope(PurePosixPath(given).name)
        elif name.startswith(("k8s/logs/", SLURM_JOB_OUTPUT_PREFIX)):
            scope = _scope(PurePosixPath(name).name)
        else:
            continue  # CloudWatch streams repeat the pod logs and the lifecycle scripts
        found.append(LogSource(scope, str(path), name))
    return found


# Kubernetes' random suffixes (ReplicaSet hash and pod suffix) use this alphabet; they change
# with every rollout, so a pod is compared under the name without them.
_K8S_SUFFIX = re.compile(
    r"(?:-[bcdfghjklmnpqrstvwxz2456789]{6,10})?-[bcdfghjklmnpqrstvwxz2456789]{5}$"
)


def stable_name(name: str) -> str:
    """A pod or log name without the parts that change between runs of the same job."""
    return _K8S_SUFFIX.sub("", name)


def _scope(name: str) -> str:
    base = name[:-3] if name.endswith(".gz") else name
    stem, dot, ext = base.rpartition(".")
    if dot and ext in ("log", "txt", "out", "err"):
        base = stem
    return stable_name(base)
