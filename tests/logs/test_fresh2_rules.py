"""The rules fresh2's misses led to (issue 18), on the real line of the miss and on lines
instantiated from the same message template of the program's source, with the cases that
must keep their old reading beside them."""

from __future__ import annotations

from pathlib import Path

import pytest
from rule_cases import ENGINES, fired_on_healthy, root_of

from hyperpod_nccl.api import analyze_logs

NEW_RULES = {
    "nccl-connect-retry",
    "semaphore-shm-full",
    "nccl-collective-mismatch",
}

CASES = [
    # Triton passes cuGetErrorString's text through; CuPy and others do the same.
    (
        "ERROR 04-15 00:31:11 worker_base.py:574] RuntimeError: Triton Error [CUDA]: an illegal "
        "memory access was encountered",
        "CUDA_ERROR",
    ),
    ("RuntimeError: Triton Error [CUDA]: unspecified launch failure", "CUDA_ERROR"),
    (
        "cupy_backends.cuda.api.runtime.CUDARuntimeError: cudaErrorLaunchOutOfResources: too "
        "many resources requested for launch",
        "CUDA_ERROR",
    ),
    # NCCL socketConnectCheck: the last counted retry (2.16-2.26 and 2.27+ wordings) ...
    (
        "zgiot:1183664:1184669 [0] NCCL INFO socketPollConnect: connect returned No route to "
        "host, retrying (34/34) after sleep for 3400 msec",
        "NET_UNREACHABLE",
    ),
    (
        "ip-10-1-2-3:3:3 [3] NCCL INFO ncclOsSocketPollConnect: connect to 10.1.2.4<40123> "
        "returned Connection timed out, retrying (5/5) after sleep for 500 msec",
        "NET_UNREACHABLE",
    ),
    # ... and 2.24-2.26's give-up, which names no peer.
    (
        "ip-10-1-2-3:3:3 [3] misc/socket.cc:543 NCCL WARN socketPollConnect: connect returned "
        "Connection refused, exceeded error retry count (35)",
        "NET_UNREACHABLE",
    ),
    # joblib's SemLock probe: sem_open creates its file in /dev/shm.
    (
        "/root/miniconda3/envs/vits/lib/python3.8/site-packages/joblib/_multiprocessing_helpers"
        ".py:46: UserWarning: [Errno 28] No space left on device.  joblib will operate in serial "
        "mode",
        "SHM_TOO_SMALL",
    ),
    (
        "/usr/lib/python3/dist-packages/joblib/_multiprocessing_helpers.py:52: UserWarning: "
        "[Errno 28] No space left on device.  joblib will operate in serial mode",
        "SHM_TOO_SMALL",
    ),
    # The errno alone is still a full disk.
    ("OSError: [Errno 28] No space left on device", "DISK_FULL"),
    # NCCL 2.4-2.7 init.cc: WARN("Mismatched collective detected, ... around rank %d. ...").
    (
        "`init.cc:1247 NCCL WARN Mismatched collective detected, please check your collective "
        "calls at and around rank 39. You can use NCCL_DEBUG=INFO and NCCL_DEBUG_SUBSYS=COLL to "
        "see the collective logs`",
        "NCCL_INVALID_USAGE",
    ),
    (
        "ip-10-1-2-3:3:3 [3] init.cc:1197 NCCL WARN Mismatched collective detected, please "
        "check your collective calls at and around rank 3. You can use NCCL_DEBUG=INFO and "
        "NCCL_DEBUG_SUBSYS=COLL to see the collective logs",
        "NCCL_INVALID_USAGE",
    ),
    # kube-scheduler ErrNoNodesAvailable, in a cluster dump and as kubectl describe's event.
    ('            **"message": "no nodes available to schedule pods",**', "POD_PENDING_RESOURCES"),
    (
        "  Warning  FailedScheduling  12s (x3 over 40s)  default-scheduler  no nodes available "
        "to schedule pods",
        "POD_PENDING_RESOURCES",
    ),
]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("line", "code"), CASES, ids=[c[0][:50] for c in CASES])
def test_line_gets_its_code(line: str, code: str, engine: str, tmp_path: Path) -> None:
    assert root_of(tmp_path, line, engine) == code


@pytest.mark.parametrize("engine", ENGINES)
def test_an_earlier_connect_retry_is_no_failure(engine: str, tmp_path: Path) -> None:
    retries = "\n".join(
        f"zgiot:1183664:1184669 [0] NCCL INFO socketPollConnect: connect returned {why}, "
        f"retrying ({n}/34) after sleep for {n * 100} msec"
        for n in range(1, 34)
        for why in ("Connection refused", "No route to host")
    )
    report = analyze_logs([str(_write(tmp_path, retries))], backend=engine).to_dict()
    assert report["root_cause"] is None
    assert [f["code"] for f in report["findings"]] == ["NO_FAILURE_SIGNATURE"]
    # The last one names the network, with the earlier ones around it.
    last = retries + (
        "\nzgiot:1183664:1184669 [0] NCCL INFO socketPollConnect: connect returned No route to "
        "host, retrying (34/34) after sleep for 3400 msec"
    )
    assert root_of(tmp_path, last, engine) == "NET_UNREACHABLE"


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "retries.log"
    path.write_text(text + "\n", "utf-8")
    return path


@pytest.mark.parametrize("engine", ENGINES)
def test_dataloader_bus_error_wrapped_at_spaces(engine: str, tmp_path: Path) -> None:
    # torch/csrc/DataLoader.cpp: "DataLoader worker (pid {pid}) is killed by signal: {signal}. "
    # then the shm hint, broken at spaces by the text box it was pasted through (fresh2 g020),
    # and the same message broken elsewhere.
    fresh2 = (
        "DataLoader worker (pid 270071) is killed by signal: \n"
        "Bus error. It is possible that dataloader's workers are out of shared memory. \n"
        "Please try to raise your shared memory limit. \n"
    )
    other = (
        "RuntimeError: DataLoader worker (pid \n"
        "4242) is killed by signal: Bus \n"
        "error. It is possible that dataloader's workers are out of shared memory.\n"
    )
    assert root_of(tmp_path, fresh2, engine) == "SHM_TOO_SMALL"
    assert root_of(tmp_path, other, engine) == "SHM_TOO_SMALL"


@pytest.mark.parametrize("engine", ENGINES)
def test_new_rules_stay_silent_on_healthy_output(engine: str) -> None:
    assert fired_on_healthy(NEW_RULES, engine) == []
