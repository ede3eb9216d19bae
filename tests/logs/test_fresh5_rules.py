"""The rules fresh5's misses led to (issue 18), on the real line of the miss and the same
message as its program prints it elsewhere."""

from __future__ import annotations

from pathlib import Path

import pytest
from rule_cases import ENGINES, root_of

CASES = [
    # ProcessGroupNCCL's ncclUniqueId exchange: the store's get timed out (rank 0 never wrote
    # its id), against a peer that reset the connection (PEER_EXITED, kept).
    (
        "RuntimeError: [4] is setting up NCCL communicator and retrieving ncclUniqueId from [0] "
        "via c10d key-value store by key '0', but store->get('0') got error: Socket Timeout",
        "RENDEZVOUS_FAILURE",
    ),
    (
        "RuntimeError: [15] is setting up NCCL communicator and retrieving ncclUniqueId from [0] "
        "via c10d key-value store by key '0', but store->get('0') got error: Connection reset by "
        "peer.",
        "PEER_EXITED",
    ),
    # cudaGetErrorString(cudaErrorPeerAccessUnsupported), as sglang's custom all-reduce prints it.
    (
        "Failed: Cuda error /workspace/csrc/custom_all_reduce.cuh:307 'peer access is not "
        "supported between these two devices'",
        "CUDA_ERROR",
    ),
    # NCCL's CUDACHECK ('CUDA failure %d '%s'') and its result name (fresh5 q006, as posted).
    ("CUDA failure 304 'OS call failed or operation not supported on this OS'", "CUDA_ERROR"),
    (
        "torch.distributed.DistBackendError: NCCL error ....... ncclUnhandledCudaError: CAll to "
        "CUDA function failed. ",
        "CUDA_ERROR",
    ),
    # rdma-core's mlx5 provider on a failed work completion.
    ("mlx5: host_unknown: got completion with error:", "IB_ERROR"),
]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("line", "code"), CASES, ids=[c[0][:50] for c in CASES])
def test_line_gets_its_code(line: str, code: str, engine: str, tmp_path: Path) -> None:
    assert root_of(tmp_path, line, engine) == code
