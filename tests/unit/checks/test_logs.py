"""The log scan on small Snapshots of pod logs: the log rules' codes come out of logs.scan (the
harness accepts them for the logs area), with what the scan covered and what it could not read."""

from __future__ import annotations

import pytest
from cases import FAIL, INCOMPLETE, INFO, SKIP, Case, Want, run_case

from hyperpod_nccl.model import Priority

NO_GROUP = "CloudWatch logs: NotFound: no CloudWatch log group for the cluster"

CASES = [
    Case(
        "logs.scan",
        "logs/watchdog",
        [
            Want(
                "NCCL_TIMEOUT",
                FAIL,
                Priority.P0,
                hosts=["llama-pretrain-worker-0"],
                evidence="Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1580",
                title="collective ALLREDUCE (SeqNum 1580) timed out after 600 s on ranks 0, 3",
            ),
            # Both ranks in the log wait in the same collective: none fell behind.
            Want(
                "STALLED_RANKS",
                INFO,
                Priority.P1,
                title="no rank in these logs fell behind",
            ),
            Want(
                "LOGS_SCANNED",
                INFO,
                title="scanned 4 lines: 1 pod log, 0 CloudWatch streams",
            ),
            Want("LOGS_INCOMPLETE", INCOMPLETE, Priority.P2, title=NO_GROUP),
        ],
    ),
    # A clean pod log, but CloudWatch was not read: no failure, and not a PASS either.
    Case(
        "logs.scan",
        "logs/healthy",
        [
            Want("LOGS_SCANNED", INFO, title="scanned 19 lines: 1 pod log"),
            Want("NO_FAILURE_SIGNATURE", INFO, Priority.P2, title="in 19 lines from 1 log"),
            Want("LOGS_INCOMPLETE", INCOMPLETE, title=NO_GROUP),
        ],
    ),
    Case(
        "logs.scan",
        "pods/healthy",
        [
            Want("NO_FAILURE_SIGNATURE", SKIP, title="no pod or CloudWatch log was collected"),
            Want(
                "LOGS_INCOMPLETE",
                INCOMPLETE,
                title="pod logs: not collected; CloudWatch logs: not collected",
            ),
        ],
        why="no logs",
    ),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_log_check(case: Case) -> None:
    run_case(case)
