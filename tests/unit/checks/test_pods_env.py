"""Pod status, pod environment and image/version checks on small Snapshots of pod lists."""

from __future__ import annotations

import pytest
from cases import FAIL, INFO, PASS, SKIP, WARN, Case, Want, run_case

from hyperpod_nccl.model import Priority

BAD_ENV = ["llama-pretrain-master-0", "llama-pretrain-worker-2"]

CASES = [
    Case(
        "pods.status",
        "pods/healthy",
        [Want("POD_FAILURES", PASS, Priority.P0, title="among 2 pods")],
    ),
    Case(
        "pods.status",
        "pods/oom-one-rank",
        [
            Want(
                "CONTAINER_OOM",
                FAIL,
                Priority.P0,
                hosts=["llama-pretrain-worker-1"],
                evidence="previous run terminated reason=OOMKilled exitCode=137",
                details={"pods": ["llama-pretrain-worker-1"]},
            ),
            Want(
                "POD_CRASHLOOP",
                FAIL,
                Priority.P0,
                hosts=["llama-pretrain-worker-1"],
                evidence="waiting reason=CrashLoopBackOff",
            ),
        ],
    ),
    Case("env.nccl", "pods/healthy", [Want("NCCL_ENV_MISCONFIGURED", PASS, Priority.P1)]),
    Case(
        "env.nccl",
        "pods/bad-env",
        [
            Want(
                "NCCL_ENV_MISCONFIGURED",
                FAIL,
                Priority.P0,
                hosts=BAD_ENV,
                evidence="FI_PROVIDER=tcp on a pod with EFA devices: libfabric will not use EFA",
                title="NCCL_SOCKET_IFNAME=lo selects lo",
            ),
            Want(
                "NCCL_ENV_MISCONFIGURED",
                WARN,
                Priority.P1,
                hosts=BAD_ENV,
                title="NCCL_P2P_DISABLE=1",
            ),
        ],
    ),
    Case(
        "env.shm",
        "pods/healthy",
        [Want("SHM_TOO_SMALL", PASS, Priority.P1, title="memory-backed volume")],
    ),
    Case(
        "env.shm",
        "pods/bad-env",
        [
            Want(
                "SHM_TOO_SMALL",
                FAIL,
                Priority.P0,
                hosts=BAD_ENV,
                evidence="container pytorch has no /dev/shm volume",
            )
        ],
    ),
    Case(
        "env.memlock",
        "pods/healthy",
        [
            Want(
                "MEMLOCK",
                INFO,
                Priority.P2,
                hosts=["llama-pretrain-master-0", "llama-pretrain-worker-0"],
                title="without IPC_LOCK",
            )
        ],
    ),
    # It never fails: without IPC_LOCK the node runtime's limit decides (node.limits reads it).
    Case(
        "env.memlock",
        "cluster/healthy",
        [
            Want(
                "MEMLOCK",
                SKIP,
                Priority.P2,
                title="IPC_LOCK of EFA pods not checked: not collected",
            )
        ],
        why="no pod list",
    ),
    Case(
        "versions.consistency",
        "pods/healthy",
        [Want("NCCL_VERSION_MISMATCH", PASS, Priority.P1, title="run the same image")],
    ),
    Case(
        "versions.consistency",
        "pods/bad-env",
        [
            Want(
                "NCCL_VERSION_MISMATCH",
                FAIL,
                Priority.P1,
                title="differ in image",
                evidence="llama-train:2026.11.28@sha256:",
            )
        ],
    ),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_pod_check(case: Case) -> None:
    run_case(case)
