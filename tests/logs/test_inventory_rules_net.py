"""Rules derived from NCCL's, aws-ofi-nccl's and libfabric's own messages (issue 18): each
template below, as tests/logs/messages.py instantiates it with its logger's prefix, is the
root cause the inventory gives it, with both scanning engines; the same messages as real logs
print them (the corpus, older releases, launcher prefixes) read the same; and none of the
new or widened rules fires on healthy output or on the known-benign lines."""

from __future__ import annotations

from pathlib import Path

import pytest
from logmix import BENIGN_LINES
from messages import Template, failure_templates
from rule_cases import ENGINES, fired_on_healthy, root_of

NCCL, OFI, FABRIC = "NVIDIA/nccl", "aws/aws-ofi-nccl", "ofiwg/libfabric"

# (repo, file, line) of the templates a rule was added or widened for; catalog.yaml cites
# each source line in the rule's comment.
DERIVED = [
    # nccl-invalid-usage: WARNs that return ncclInvalidUsage / ncclInvalidArgument
    (NCCL, "src/init.cc", 3426),
    (NCCL, "src/init.cc", 2501),
    (NCCL, "src/init.cc", 2607),
    (NCCL, "src/init.cc", 2265),
    (NCCL, "src/bootstrap.cc", 437),
    (NCCL, "src/transport/nvls.cc", 254),
    (NCCL, "src/enqueue.cc", 1160),
    (NCCL, "src/enqueue.cc", 1164),
    (NCCL, "src/enqueue.cc", 2596),
    (NCCL, "src/group.cc", 61),
    (NCCL, "src/group.cc", 776),
    (NCCL, "src/misc/strongstream.cc", 91),
    # nccl-comm-in-progress
    (NCCL, "src/init.cc", 430),
    # nccl-duplicate-gpu
    (NCCL, "src/init.cc", 1057),
    # nccl-peer-version-mismatch
    (NCCL, "src/init.cc", 1043),
    (NCCL, "src/dev_runtime.cc", 1428),
    (NCCL, "src/dev_runtime.cc", 1444),
    # nccl-no-address, nccl-no-socket-interface, nccl-no-net-plugin
    (NCCL, "src/bootstrap.cc", 114),
    (NCCL, "src/bootstrap.cc", 577),
    (NCCL, "src/plugin/net.cc", 349),
    # nccl-bootstrap-root-mismatch, nccl-bootstrap-truncated
    (NCCL, "src/bootstrap.cc", 335),
    (NCCL, "src/bootstrap.cc", 348),
    (NCCL, "src/bootstrap.cc", 224),
    # connection-reset (proxy service), nccl-ras-peer-lost, nccl-ras-peer-unreachable
    (NCCL, "src/proxy.cc", 1874),
    (NCCL, "src/ras/rasnet.cc", 813),
    (NCCL, "src/ras/rasnet.cc", 254),
    # nccl-ib-fatal, nccl-topology-error (MNNVL), nccl-driver-too-old, cuda-setup-failed
    (NCCL, "src/transport/net_ib/common.cc", 32),
    (NCCL, "src/mnnvl.cc", 74),
    (NCCL, "src/mnnvl.cc", 86),
    (NCCL, "src/proxy.cc", 959),
    # ofi-no-provider
    (OFI, "src/nccl_ofi_net.cpp", 651),
    (OFI, "src/nccl_ofi_net.cpp", 345),
    (OFI, "src/nccl_ofi_api.cpp", 79),
    (OFI, "src/nccl_ofi_api.cpp", 84),
    (OFI, "src/nccl_ofi_rdma.cpp", 7315),
    (OFI, "src/nccl_ofi_sendrecv.cpp", 2253),
    # cuda-setup-failed, nccl-driver-too-old
    (OFI, "src/nccl_ofi_net.cpp", 215),
    (OFI, "src/nccl_ofi_cuda.cpp", 152),
    (OFI, "src/nccl_ofi_cuda.cpp", 233),
    # ofi-topology-failed, ofi-config-invalid
    (OFI, "src/nccl_ofi_net.cpp", 225),
    (OFI, "src/nccl_ofi_topo.cpp", 841),
    (OFI, "src/nccl_ofi_topo.cpp", 848),
    (OFI, "src/nccl_ofi_rdma.cpp", 7218),
    (OFI, "src/nccl_ofi_rdma.cpp", 7155),
    (OFI, "src/nccl_ofi_rdma.cpp", 7023),
    (OFI, "include/nccl_ofi_param_impl.h", 221),
    # libfabric-enomem (the RX pool), efa-create-ah-einval, efa-peer-gone, efa-cq-poll-error,
    # efa-message-truncated, efa-peer-unreachable, efa-provider-internal-error
    (FABRIC, "prov/efa/src/rdm/efa_rdm_ep_utils.c", 921),
    (FABRIC, "prov/efa/src/efa_ah.c", 111),
    (FABRIC, "prov/efa/src/rdm/efa_rdm_cq.c", 631),
    (FABRIC, "prov/efa/src/efa_cq.c", 105),
    (FABRIC, "prov/efa/src/rdm/efa_rdm_ope.c", 1158),
    (FABRIC, "prov/efa/src/efa_strerror.c", 67),
    (FABRIC, "prov/efa/src/efa_strerror.c", 71),
    (FABRIC, "prov/efa/src/efa_strerror.c", 81),
    (FABRIC, "prov/efa/src/efa_errno.h", 74),
    (FABRIC, "prov/efa/src/efa_errno.h", 72),
    (FABRIC, "prov/efa/src/efa_errno.h", 68),
    (FABRIC, "prov/efa/src/efa_errno.h", 67),
    (FABRIC, "prov/efa/src/efa_errno.h", 109),
    (FABRIC, "prov/efa/src/efa_errno.h", 111),
    (FABRIC, "prov/efa/src/efa_errno.h", 64),
    (FABRIC, "prov/efa/src/efa_errno.h", 66),
    # fi-getinfo-efa-empty (libfabric core), nccl-driver-too-old, cuda-setup-failed
    (FABRIC, "src/fabric.c", 1400),
    (FABRIC, "src/fabric.c", 623),
    (FABRIC, "src/hmem_cuda.c", 618),
    (FABRIC, "src/hmem_cuda.c", 713),
]

# The same messages as logs print them: real lines where the corpus has one (its case and
# source given), and other releases' or launchers' shapes with real values.
REAL = [
    # github.com/vllm-project/vllm/issues/7201 (corpus fresh5 q015)
    (
        "iZ1pp06qu51oiorg7t0nrwZ:3615176:3615176 [0] misc/strongstream.cc:53 NCCL WARN NCCL "
        "cannot be captured in a graph if either it wasn't built with CUDA runtime >= 11.3 or if "
        "the installed CUDA driver < R465.",
        "NCCL_INVALID_USAGE",
    ),
    # github.com/sail-sg/zero-bubble-pipeline-parallelism/issues/60 (corpus extra x065)
    (
        "lzm-h200-10:74737:74737 [1] init.cc:290 NCCL WARN Attempt to use communicator before "
        "the previous operation returned ncclSuccess",
        "NCCL_INVALID_USAGE",
    ),
    # github.com/NVIDIA/nccl/issues/1905 (corpus fresh4 m036)
    (
        "2025-11-09 15:39:31.043 +08:00 [2025-11-09 07:39:30] h100-28:238:1313 [0] "
        "transport/net_ib.cc:139 NCCL WARN communicator encountered a fatal error (detected in "
        "ncclIbTest)",
        "IB_ERROR",
    ),
    # github.com/aws/aws-ofi-nccl/issues/141 (corpus extra x058), libfabric before 1.18 (rxr_)
    (
        "libfabric:718892:1658904526::efa:cq:rxr_ep_grow_rx_pkt_pools():1585<warn> cannot "
        "allocate memory for EFA's RX packet pool. error: Cannot allocate memory",
        "MEMLOCK",
    ),
    # github.com/aws/aws-ofi-nccl/issues/990 (corpus fresh f073): a plugin fault, EFA_ERROR
    (
        "accept_wait_for_connection(nccl_net_ofi_rdma_domain_t*, nccl_net_ofi_rdma_listen_comm_t*,"
        " nccl_net_ofi_rdma_recv_comm_t**):4909 NCCL WARN NET/OFI Unexpected number of remote "
        "rails for dev 3. Expected",
        "EFA_ERROR",
    ),
    # Older NCCL (no timestamp, file or function) under mpirun's rank prefix.
    (
        "[1,3]<stdout>:node-2:4711:4790 [3] NCCL WARN Invalid rank requested : 8/8",
        "NCCL_INVALID_USAGE",
    ),
    (
        "[1,0]<stdout>:node-1:4711:4790 [0] NCCL WARN Mismatched NCCL version detected : rank 0 "
        "version 21805 rank 1 version 21903",
        "NCCL_VERSION_MISMATCH",
    ),
    # PyTorch's rank prefix over NCCL's 'Last error' text (ncclGetLastError).
    ("[rank1]: Bootstrap Root : rank 1 of 16 ranks has already checked in", "RENDEZVOUS_FAILURE"),
    # The errno decides the plugin's and the provider's registration failures.
    (
        "ip-10-1-2-3:12:40 [0] nccl_ofi_mr_regattr:468 NCCL WARN NET/OFI Couldn't register "
        "memory region with regattr. RC: -12, ERROR: Cannot allocate memory",
        "MEMLOCK",
    ),
    (
        "ip-10-1-2-3:12:40 [0] nccl_ofi_mr_regattr:468 NCCL WARN NET/OFI Couldn't register "
        "memory region with regattr. RC: -14, ERROR: Bad address",
        "EFA_ERROR",
    ),
    (
        "libfabric:4242:1764583872::efa:mr:efa_mr_reg_impl():518<warn> Unable to register MR of "
        "2097152 bytes: Cannot allocate memory, flags 0, ibv pd: 0x55d0c2a1b2c0, total mr reg "
        "size 104857600, mr reg count 51",
        "MEMLOCK",
    ),
    (
        "libfabric:4242:1764583872::efa:core:efa_fork_support_is_enabled():133<warn> Unexpected "
        "error during ibv_reg_mr in efa_fork_support_is_enabled(): Cannot allocate memory",
        "MEMLOCK",
    ),
    (
        "ip-10-1-2-3:12:40 [0] nccl_net_ofi_gpu_mem_alloc:287 NCCL WARN NET/OFI cuMemAlloc "
        "failed: CUDA_ERROR_OUT_OF_MEMORY (out of memory)",
        "CUDA_OOM",
    ),
    (
        "ip-10-1-2-3:12:40 [0] nccl_net_ofi_gpu_mem_alloc:287 NCCL WARN NET/OFI cuMemAlloc "
        "failed: CUDA_ERROR_NOT_INITIALIZED (initialization error)",
        "CUDA_ERROR",
    ),
    # The EFA status inside aws-ofi-nccl's completion error: the status names the cause.
    (
        "ip-10-1-2-3:12:40 [0] void Platform::log_cq_error(void*, fid_cq*, fi_cq_err_entry*, "
        "const char*):125 NCCL WARN NET/OFI Request 0x7f3a5c001200 (send) completed with error: "
        "err: 5, flags: 0, prov_errno: 15, strerror: Unreachable remote - never received a "
        "response My EFA addr: fi_addr_efa://[fe80::4a8:a1ff:fe5a:3b1d]:0:1072483550, len: 0",
        "NET_UNREACHABLE",
    ),
    (
        "ip-10-1-2-3:12:40 [0] void Platform::log_cq_error(void*, fid_cq*, fi_cq_err_entry*, "
        "const char*):125 NCCL WARN NET/OFI Request 0x7f3a5c001200 (recv) completed with error: "
        "err: 5, flags: 0, prov_errno: 4124, strerror: Unresponsive receiver (connection "
        "previously established), len: 0",
        "PEER_EXITED",
    ),
    # NCCL_OOB_NET_IFNAME excluding every device ('^' list).
    (
        "ip-10-1-2-3:3:3 [3] bootstrap.cc:579 NCCL WARN no device found after excluding "
        "rdmap16s27, verify NCCL_OOB_NET_IFNAME",
        "SOCKET_IFNAME",
    ),
]

# Lines that stay silent: the transport-choice INFO lines (the fallback is derived across
# lines), the flush of a QP being destroyed, and enqueue.cc's algorithm WARN without the
# NCCL_ALGO/NCCL_PROTO that makes it a usage error (NCCL returns an internal error then).
SILENT = [
    # corpus extra x109 (HEALTHY), github.com/vllm-project/vllm/issues/10626
    "ae05277d311f:55933:55933 [1] NCCL INFO NET/IB : No device found.",
    # tests/fixtures/captured/gpu/duplicate-gpu-2ranks-1gpu.log
    "vm:890:890 [0] NCCL INFO Failed to initialize NET plugin IB",
    # corpus fresh5 q029 (github.com/EleutherAI/gpt-neox, NCCL 2.14.3)
    "node1: node1:15874:17284 [4] NCCL INFO P2P is disabled between connected GPUs 4 and 3. You "
    "can repress this message with NCCL_IGNORE_DISABLED_P2P=1.",
    "ip-10-1-2-3:3:3 [3] NCCL INFO NET/OFI No eligible providers were found",
    "libfabric:4242:1764583872::efa:cq:efa_cq_write_error_data():105<info> Encountered error "
    "during CQ polling. err: Operation canceled (125), prov_errno: Flushed during queue pair "
    "destroy (1)",
]

NEW_RULES = {
    "nccl-no-net-plugin",
    "efa-peer-unreachable",
    "efa-create-ah-einval",
    "efa-peer-gone",
    "efa-cq-poll-error",
    "efa-message-truncated",
    "efa-cq-flush-or-peer-abort",
    "nccl-comm-in-progress",
    "nccl-bootstrap-root-mismatch",
    "nccl-bootstrap-truncated",
    "cuda-setup-failed",
    "ofi-topology-failed",
    "ofi-config-invalid",
    "nccl-ras-peer-lost",
    "nccl-ras-peer-unreachable",
}
WIDENED = {
    "nccl-no-socket-interface",
    "ofi-no-provider",
    "fi-getinfo-efa-empty",
    "efa-provider-internal-error",
    "libfabric-enomem",
    "cuda-oom-generic",
    "nccl-duplicate-gpu",
    "nccl-invalid-usage",
    "nccl-peer-version-mismatch",
    "nccl-topology-error",
    "nccl-driver-too-old",
    "nccl-ib-fatal",
    "connection-reset",
    "nccl-no-address",
}


def _templates(key: tuple[str, str, int]) -> list[Template]:
    repo, file, line = key
    templates = failure_templates(file, line, repo)
    assert templates, key
    return templates


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("key", DERIVED, ids=[f"{f}:{n}" for _, f, n in DERIVED])
def test_instantiated_template_is_its_code(
    key: tuple[str, str, int], engine: str, tmp_path: Path
) -> None:
    for t in _templates(key):
        assert root_of(tmp_path, t.instantiate(), engine) == t.code, t.instantiate()


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("line", "code"), REAL, ids=[c[0][:60] for c in REAL])
def test_real_line_gets_its_code(line: str, code: str, engine: str, tmp_path: Path) -> None:
    assert root_of(tmp_path, line, engine) == code


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("line", [*SILENT, *BENIGN_LINES], ids=lambda s: s[:60])
def test_context_and_benign_lines_name_no_cause(line: str, engine: str, tmp_path: Path) -> None:
    assert root_of(tmp_path, line, engine) is None


@pytest.mark.parametrize("engine", ENGINES)
def test_the_new_and_widened_rules_stay_silent_on_healthy_output(engine: str) -> None:
    assert fired_on_healthy(NEW_RULES | WIDENED, engine) == []
