"""The rules fresh3's misses led to (issue 18), on the real line of the miss and on lines
instantiated from the same message of the program's source, with the lines that must stay
silent beside them."""

from __future__ import annotations

from pathlib import Path

import pytest
from rule_cases import ENGINES, fired_on_healthy, root_of

NEW_RULES = {"verbs-completion-failed", "ray-actor-died"}

CASES = [
    # NCCL graph/rings.cc: WARN("Error : ring %d does not loop back to start (%d != %d)") and
    # the 'does not contain rank' check after it (fresh3 k046, k047).
    (
        "[7] graph/rings.cc:38 NCCL WARN Error : ring 0 does not loop back to start (13 != 15).",
        "NCCL_TOPOLOGY",
    ),
    (
        "ip-10-1-2-3:3:3 [3] graph/rings.cc:55 NCCL WARN Error : ring 1 does not contain rank 0",
        "NCCL_TOPOLOGY",
    ),
    # libibverbs ibv_wc_status as UCCL's CHECK and MSCCL++'s exception print it (k012, k043).
    (
        "F20250821 13:22:09.976752 3186121 rdma_io.cc:811] Check failed: wc->status == "
        "IBV_WC_SUCCESS RC send CQ state error: 12, 0",
        "IB_ERROR",
    ),
    (
        "terminate called after throwing an instance of 'mscclpp::IbError'\n"
        "  what():  a work item failed: status 12 (Ib failure: Cannot allocate memory)",
        "IB_ERROR",
    ),
    # ncclGetErrorString's text behind another wrapper's 'NCCL Error <n>:' (k006).
    (
        "[2023-07-11 15:20:41,680 E 42067 42067] logging.cc:97: Unhandled exception: "
        "St13runtime_error. what(): NCCL Error 5: invalid usage",
        "NCCL_INVALID_USAGE",
    ),
    # Exit status 128 + 11 (k042), as an IDE, a shell and the kubelet report it.
    ("Process finished with exit code 139 (interrupted by signal 11: SIGSEGV)", "RANK_CRASH"),
    ("      exitCode: 139", "RANK_CRASH"),
    # Ray's GCS on an actor whose worker process died (k025).
    (
        "The actor is dead because its worker process has died. Worker exit type: SYSTEM_ERROR "
        "Worker exit detail: Worker unexpectedly exits with a connection error code 2. End of "
        "file.",
        "PEER_EXITED",
    ),
    (
        "ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.",
        "PEER_EXITED",
    ),
    # A glog CHECK that names nothing known still says the process failed.
    (
        "F0102 03:04:05.678901 4242 some_file.cc:12] Check failed: x == y (1 vs. 2)",
        "UNCLASSIFIED_FAILURE",
    ),
]

SILENT = [
    # An actor that called exit_actor() ended on purpose.
    "The actor is dead because its worker process has died. Worker exit type: "
    "INTENDED_USER_EXIT Worker exit detail: Worker exits by an user request. exit_actor() is "
    "called.",
    # NCCL's ring lines on a healthy run.
    "node1:42:99 [0] NCCL INFO Channel 00/08 :    0   1   2   3   4   5   6   7",
    "Process finished with exit code 0",
]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("line", "code"), CASES, ids=[c[0][:50] for c in CASES])
def test_line_gets_its_code(line: str, code: str, engine: str, tmp_path: Path) -> None:
    assert root_of(tmp_path, line, engine) == code


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("line", SILENT, ids=[s[:40] for s in SILENT])
def test_what_is_no_failure_stays_none(line: str, engine: str, tmp_path: Path) -> None:
    assert root_of(tmp_path, line, engine) is None


@pytest.mark.parametrize("engine", ENGINES)
def test_new_rules_stay_silent_on_healthy_output(engine: str) -> None:
    assert fired_on_healthy(NEW_RULES, engine) == []
