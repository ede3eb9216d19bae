"""The fabric manager check on small Snapshots of probe outputs (nvidia-smi and the versions
probe): a fabric manager of another release than the driver fails, the driver's own passes, a
node without one is not checked."""

from __future__ import annotations

import pytest
from cases import FAIL, PASS, SKIP, Case, Want, run_case

from hyperpod_nccl.model import Priority

CASES = [
    Case(
        "node.fabric_manager",
        "node/fabric-manager-mismatch",
        [
            Want(
                "DRIVER_MISMATCH",
                FAIL,
                Priority.P0,
                hosts=["p4d-1"],
                title="fabric manager 450.102.04 with NVIDIA driver 580.126.09",
                evidence="Fabric Manager version is : 450.102.04",
                details={"fabric_manager": "450.102.04", "driver": "580.126.09"},
            ),
            Want(
                "DRIVER_MISMATCH",
                SKIP,
                hosts=["p4d-2"],
                title="no nv-fabricmanager on the node",
            ),
        ],
        "a driver update without its fabric manager",
    ),
    Case(
        "node.fabric_manager",
        "node/fabric-manager-match",
        [Want("DRIVER_MISMATCH", PASS, Priority.P2, hosts=["p4d-1"])],
        "the driver's own release",
    ),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_fabric_manager_check(case: Case) -> None:
    run_case(case)
