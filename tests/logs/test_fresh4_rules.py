"""The rules fresh4's misses led to (issue 18), on the real line of the miss and on the same
message as its program prints it elsewhere, with what must stay silent."""

from __future__ import annotations

from pathlib import Path

import pytest
from rule_cases import ENGINES, fired_on_healthy, root_of

from hyperpod_nccl.rules.paste import strip_url_encoding

NEW_RULES = {"nvlink-links-down", "nccl-connect-link-local", "torch-nccl-error-cut"}

LAUNCH = "[2023-04-14 13:11:27,885] [ERROR] [launch.py:434:sigkill_handler] ['python', 'main.py']"

CASES = [
    # deepspeed/launcher/launch.py sigkill_handler: '{cmd} exits with return code = {code}',
    # a negative code being the signal that killed the child (Python's subprocess).
    (f"{LAUNCH} exits with return code = -9", "CONTAINER_OOM"),
    (f"{LAUNCH} exits with return code = -11", "RANK_CRASH"),
    (f"{LAUNCH} exits with return code = -6", "RANK_CRASH"),
    (f"{LAUNCH} exits with return code = -15", "EXTERNAL_SIGNAL"),
    (LAUNCH, "UNCLASSIFIED_FAILURE"),
    # NVLink down: NCCL transport/p2p.cc, NVML via nvidia-smi, `nvidia-smi nvlink -s`.
    (
        "P2P is disabled between NVLINK connected GPUs 1 and 0. This should not be the case "
        "given their connectivity, and is probably due to a hardware issue.",
        "NVLINK_ERROR",
    ),
    ("NVML: Unable to retrieve NVLink information as all links are inActive", "NVLINK_ERROR"),
    ("GPU 3: Tesla V100-SXM2-32GB\n         Link 3: <inactive>", "NVLINK_ERROR"),
    # cudaGetErrorString(2) behind a glog CHECK (Caffe's syncedmem.cpp).
    (
        "F0718 15:20:34.923629 16833 syncedmem.cpp:56] Check failed: error == cudaSuccess "
        "(2 vs. 0)  out of memory",
        "CUDA_OOM",
    ),
    # NCCL transport/net_ib.cc: a peer posted another size for the same collective.
    (
        "host:1:2 [0] transport/net_ib.cc:1038 NCCL WARN NET/IB : req 0/1 tag 0 peer "
        "10.10.23.6<58683> collective mismatch error, local size 496640 remote size 65536",
        "NCCL_INVALID_USAGE",
    ),
    # NCCL graph/topo.h ncclTopoIdToIndex.
    ("host:1:2 [0] graph/topo.h:230 NCCL WARN Could not find NET with id 0", "NCCL_TOPOLOGY"),
    # A connect to a link-local IPv6 address (fe80::/10 routes on one link only).
    (
        "node:11172:11249 [3] misc/socket.cc:484 NCCL WARN socketStartConnect: Connect to "
        "fe80::20d:3aff:fef7:74b3%enP7906s1<51577> failed : Software caused connection abort",
        "SOCKET_IFNAME",
    ),
    # Ray's raylet on a task whose worker died.
    (
        "(raylet) A worker died or was killed while executing a task by an unexpected system "
        "error. To troubleshoot the problem, check the logs for the dead worker.",
        "PEER_EXITED",
    ),
    # A URL-encoded paste of the dynamic linker's error.
    ("libtorch_cuda.so:%20undefined%20symbol:%20ncclCommRegister", "NCCL_VERSION_MISMATCH"),
]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("line", "code"), CASES, ids=[c[0][:50] for c in CASES])
def test_line_gets_its_code(line: str, code: str, engine: str, tmp_path: Path) -> None:
    assert root_of(tmp_path, line, engine) == code


@pytest.mark.parametrize("engine", ENGINES)
def test_nccl_error_cut_before_its_reason_does_not_outrank_the_timeout(
    engine: str, tmp_path: Path
) -> None:
    text = (
        "  what():  [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(OpType=ALLREDUCE,"
        " Timeout(ms)=1800000) ran for 1804582 milliseconds before timing out.\n"
        "RuntimeError: NCCL error in: /opt/conda/conda-b"
    )
    assert root_of(tmp_path, text, engine) == "NCCL_TIMEOUT"


def test_url_decoding_only_touches_lines_whose_spaces_are_escaped() -> None:
    assert strip_url_encoding(b"a%20b%20c%3A\n") == b"a b c:\n"
    kept = b"progress 50% 20 steps\nformat %2d %20s\nline%0Abreak%20x%20y\n"
    assert strip_url_encoding(kept) == b"progress 50% 20 steps\nformat %2d %20s\nline%0Abreak x y\n"


@pytest.mark.parametrize("engine", ENGINES)
def test_new_rules_stay_silent_on_healthy_output(engine: str) -> None:
    assert fired_on_healthy(NEW_RULES, engine) == []
