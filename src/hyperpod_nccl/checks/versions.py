"""Consistency across a job's pods: the same image (by digest, since a tag can move between
pulls) and the same NCCL and libfabric settings. NCCL versions printed in the pods' logs are
compared by the log engine (NCCL_VERSION_MISMATCH from `diagnose`'s log scan)."""

from __future__ import annotations

from collections import defaultdict

from hyperpod_nccl.checks import check
from hyperpod_nccl.checks.env import container_env
from hyperpod_nccl.checks.findings import evidence, finding, listed, plural
from hyperpod_nccl.checks.jobsel import PODS, job_scope
from hyperpod_nccl.kube.objects import Obj, container_statuses, containers, name
from hyperpod_nccl.model import Finding, Priority, Status
from hyperpod_nccl.snapshot import Snapshot

# Settings that must agree across ranks. Launcher-set, per-process variables (RANK,
# LOCAL_RANK, CUDA_VISIBLE_DEVICES, ...) do not start with these prefixes.
SHARED_PREFIXES = ("NCCL_", "FI_", "TORCH_NCCL_")
PER_PROCESS = frozenset({"NCCL_COMM_ID"})


def _images(pod: Obj) -> dict[str, str]:
    """container -> image digest when the pod ran, else the image reference."""
    ids = {str(s.get("name")): str(s.get("imageID") or "") for s in container_statuses(pod)}
    found = {}
    for container in containers(pod):
        cname = str(container.get("name"))
        image_id = ids.get(cname, "")
        digest = image_id.split("@", 1)[1] if "@" in image_id else ""
        found[cname] = (
            f"{container.get('image')}@{digest}" if digest else str(container.get("image"))
        )
    return found


def _differences(values: dict[str, dict[str, str]]) -> dict[str, dict[str, list[str]]]:
    """key -> value -> pods, for the keys whose value is not the same in every pod."""
    spread: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for pod, mapping in values.items():
        for key, value in mapping.items():
            spread[key][value].append(pod)
    pods = set(values)
    result = {}
    for key, by_value in spread.items():
        holders = {p for ps in by_value.values() for p in ps}
        if len(by_value) > 1 or holders != pods:
            missing = sorted(pods - holders)
            merged = {v: sorted(ps) for v, ps in by_value.items()}
            if missing:
                merged["<unset>"] = missing
            result[key] = merged
    return result


@check("versions.consistency", "versions", ["NCCL_VERSION_MISMATCH"])
def consistency(snapshot: Snapshot) -> list[Finding]:
    code = "NCCL_VERSION_MISMATCH"
    groups, skipped = job_scope(
        snapshot,
        [],
        code,
        Priority.P1,
        "image and setting consistency",
    )
    if skipped:
        return skipped
    findings = []
    for job, pods in groups.items():
        if len(pods) < 2:
            continue
        images = _differences({name(p): _images(p) for p in pods})
        settings = _differences(
            {
                name(p): {
                    k: v
                    for c in containers(p)
                    for k, v in container_env(c).items()
                    if k.startswith(SHARED_PREFIXES) and k not in PER_PROCESS
                }
                for p in pods
            }
        )
        lines = [
            f"image of container {c}: "
            + "; ".join(f"{v} ({listed(ps, 3)})" for v, ps in by.items())
            for c, by in sorted(images.items())
        ] + [
            f"{k}: " + "; ".join(f"{v!s} ({listed(ps, 3)})" for v, ps in by.items())
            for k, by in sorted(settings.items())
        ]
        if lines:
            findings.append(
                finding(
                    code,
                    Status.FAIL,
                    Priority.P1,
                    f"pods of {job} differ in "
                    + " and ".join(
                        part
                        for part, present in (("image", images), ("NCCL settings", settings))
                        if present
                    )
                    + ": "
                    + lines[0],
                    evidence=[evidence(PODS, line) for line in lines[:8]],
                    details={"job": str(job), "images": images, "settings": settings},
                )
            )
        else:
            findings.append(
                finding(
                    code,
                    Status.PASS,
                    Priority.P1,
                    f"the {plural(len(pods), 'pod')} of {job} run the same image and NCCL settings",
                )
            )
    return findings or [
        finding(
            code,
            Status.INFO,
            Priority.P2,
            "every job has a single pod; nothing to compare",
        )
    ]
