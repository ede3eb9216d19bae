"""Rules read from the messages of the stacks beside PyTorch that drive NCCL and RDMA: XLA's
coordination service, rendezvous, GPU allocator and NCCL calls (JAX, TensorFlow), TensorFlow's
collective ops, MXNet's fault handler, NVSHMEM's error checks, DeepEP's kernel timeouts,
Mooncake's memory registration, CUDA driver calls checked by libraries, nvidia-smi's fabric
state. Each real line, from the thread of the blind set it came in (tests/fixtures/corpus,
fresh41-fresh46), gets its code with both engines, and a line of the same program in a healthy
state gets none."""

from __future__ import annotations

from pathlib import Path

import pytest
from rule_cases import ENGINES, root_of

# (line, the root cause it gives alone)
LINES = [
    # github.com/google/paxml/issues/77 (fresh41 au004): the agent's error status, a deadline
    (
        "> 2024-04-12 23:39:41.656900: E external/xla/xla/pjrt/distributed/client.cc:96] "
        "Coordination service agent in error status: DEADLINE_EXCEEDED: Deadline Exceeded",
        "RENDEZVOUS_FAILURE",
    ),
    # github.com/AI-Hypercomputer/gpu-recipes/issues/2 (fresh41 au005)
    (
        "Original error: DEADLINE_EXCEEDED: Barrier timed out. Id: "
        "[Init]Wait_for_all_tasks_to_register::0. This usually happens because a task "
        "triggered the barrier too early or too slowly.",
        "RENDEZVOUS_FAILURE",
    ),
    # github.com/marin-community/levanter/issues/432 (fresh41 au006): a program's own barrier
    (
        "jaxlib.xla_extension.XlaRuntimeError: DEADLINE_EXCEEDED: Barrier timed out. "
        "Barrier_id: multihost_broadcast_sync0. Timed out task names:",
        "RENDEZVOUS_FAILURE",
    ),
    # github.com/jax-ml/jax/issues/23599 (fresh44 ax001): a task's heartbeats stopped
    (
        "coordination_service.cc:1170] /job:jax_worker/replica:0/task:0 has been set to ERROR "
        "in coordination service: UNAVAILABLE: Task /job:jax_worker/replica:0/task:0 heartbeat "
        "timeout. This indicates that the remote task has failed, got preempted, or crashed "
        "unexpectedly.",
        "PEER_EXITED",
    ),
    # github.com/j-towns/vdvae-jax/issues/2 (fresh41 au007): a failed NCCL call's result
    (
        "RuntimeError: Internal: external/org_tensorflow/tensorflow/compiler/xla/service/gpu/"
        "nccl_all_reduce_thunk.cc:162: NCCL operation ncclAllReduce(send_buffer, recv_buffer, "
        "buffer.element_count, datatype, reduce_op, comm, *cu_stream) failed: invalid usage: "
        "while running replica 0 and partition 0 of a replicated computation",
        "NCCL_INVALID_USAGE",
    ),
    # github.com/tensorflow/tensorflow/issues/33979 (fresh41 au011)
    (
        "  (1) Internal:  Collective Op  has group_size 8 and group_key2 but that group has size 4",
        "NCCL_INVALID_USAGE",
    ),
    # github.com/horovod/horovod/issues/1533 (fresh41 au014): MXNet's fault handler
    ("Segmentation fault: 11", "RANK_CRASH"),
    # github.com/jax-ml/jax/issues/22740 (fresh41 au015), the second line as the paste cut it
    (
        "2024-07-29 17:14:59.920271: E external/xla/xla/service/rendezvous.cc:38] This thread "
        "has been waiting for `initialize clique for rank 0; clique=devices=",
        "NCCL_TIMEOUT",
    ),
    # github.com/jax-ml/jax/issues/6896 (fresh44 ax007): the older wording, in backticks
    (
        "`2021-06-01 12:09:19.912475: E external/org_tensorflow/tensorflow/compiler/xla/service/"
        "collective_ops_utils.h:209] This thread has been waiting for 5000ms for and may be "
        "stuck: participant for device ordinal 1, stream 0x5594682cb160 waiting for all "
        "participants to arrive at rendezvous RendezvousKey{",
        "NCCL_TIMEOUT",
    ),
    # github.com/deepmodeling/deepmd-kit/issues/1774 (fresh41 au001)
    (
        "hp-HP-Z8-G4-Workstation:779166:779172 [0] init.cc:255 NCCL WARN Cuda failure "
        "'CUDA driver is a stub library'",
        "DRIVER_MISMATCH",
    ),
    # github.com/google-research/l2p/issues/20 (fresh44 ax004)
    (
        "2022-08-05 10:00:26.835281: E external/org_tensorflow/tensorflow/compiler/xla/pjrt/"
        "pjrt_stream_executor_client.cc:2130] Execution of replica 0 failed: RESOURCE_EXHAUSTED: "
        "Out of memory while trying to allocate 9437184 bytes.",
        "CUDA_OOM",
    ),
    # github.com/jax-ml/jax/issues/788 (fresh44 ax006), wrapped after 'Out'
    (
        "[1] 2019-06-13 01:17:08.886805: E external/org_tensorflow/tensorflow/compiler/xla/python/"
        "local_client.cc:672] Execution of replica 0 failed: Resource exhausted: Out \n"
        "of memory while trying to allocate 5520758552 bytes.",
        "CUDA_OOM",
    ),
    # github.com/tensorflow/tensorflow/issues/42062 (fresh44 ax002): the step's own op failed
    (
        ">`2020-08-05 20:21:04.420413: E tensorflow/core/common_runtime/ring_alg.cc:274] "
        "Aborting RingReduce with Invalid argument: [_Derived_]indices[4] = 14 is not in [0, 14)",
        "APP_EXCEPTION",
    ),
    # github.com/mlcommons/training/issues/272 (fresh44 ax013): a peer's channel closed
    (
        "2019-05-19 15:08:13.128241: E tensorflow/core/common_runtime/ring_reducer.cc:369] "
        "Aborting RingReduce with Unavailable: Socket closed",
        "PEER_EXITED",
    ),
    # github.com/NVIDIA/nvshmem/issues/33 (fresh45 ay002): the IBGDA transport
    (
        "/opt/nvshmem/src/modules/transport/ibgda/ibgda.cpp:2234: NULL value Unable to create ah.",
        "IB_ERROR",
    ),
    # github.com/deepseek-ai/DeepEP/issues/157 (fresh45 ay013): CUresult 2, out of memory
    ("/nvshmem/src/host/mem/mem_heap.cpp:1509: non-zero status: 2 cuMemCreate failed", "CUDA_OOM"),
    # github.com/deepseek-ai/DeepEP/issues/55 (fresh45 ay020)
    (
        "/dvs/p4/build/sw/rel/gpgpu/toolkit/r12.0/main_nvshmem/src/host/transport/transport.cpp:"
        "nvshmemi_transport_init:275: init failed for transport: IBGDA",
        "IB_ERROR",
    ),
    # github.com/kvcache-ai/Mooncake/issues/454 (fresh45 ay009)
    (
        "E0605 17:54:16.878770 178707 rdma_context.cpp:198] Failed to register memory "
        "0x7f56e6600000: Numerical result out of range [34]",
        "IB_ERROR",
    ),
    # github.com/deepseek-ai/DeepEP/issues/60 (fresh45 ay011)
    (
        "DeepEP dispatch NVL receiver timeout, channel: 3, RDMA: 1, nvl: 0, src NVL: 2, "
        "head: 44, tail: 44",
        "NCCL_TIMEOUT",
    ),
    # github.com/pytorch/pytorch/issues/181610 (fresh46 az004): NCCL's register.cc:187
    ("  NCCL WARN Deregister: Could not find handle", "NCCL_INVALID_USAGE"),
    # github.com/kvcache-ai/Mooncake/issues/1297 (fresh46 az005): CUresult 800, not permitted
    ("NvlinkTransport: cuMemCreate failed: 800", "CUDA_ERROR"),
    # github.com/deepseek-ai/DeepEP/issues/487 (fresh46 az006), glued to a Chinese lead-in
    (
        "CU_CHECK(cuMemCreate(&handle, size, &fabric_prop_, 0));报错call='cuMemCreate(&handle, "
        "size, &fabric_prop_, 0)' Reason=operation not permitted.",
        "CUDA_ERROR",
    ),
    # github.com/Azure/azhpc-images/pull/506 (fresh46 az008): nvidia-smi -q's Fabric block
    (
        "Fabric\n    State                             : Completed\n"
        "    Status                            : Insufficient Resources\n"
        "    CliqueId                          : 0",
        "NVLINK_ERROR",
    ),
]

# Wave 7 (fresh48-fresh51): ROCm's runtime and driver, CuPy, the shell, Slurm's teardown.
LINES += [
    # github.com/ROCm/legacy-rocm-build/issues/4021 (fresh51 be011): ROCr's hardware exception
    ("HW Exception by GPU node-9 (Agent handle: 0x64ff272d8ab0) reason :GPU Hang", "GPU_XID"),
    # github.com/pop-os/cosmic-epoch/issues/3764 (fresh51 be018): amdgpu without its tag
    (
        "Aug 09 11:36:30.370347 kernel: amdgpu 0000:0c:00.0: ring gfx_0.0.0 timeout, "
        "signaled seq=5389552, emitted seq=5389554",
        "GPU_XID",
    ),
    # github.com/ROCm/legacy-rocm-build/issues/2494 (fresh51 be016): a warning, as Xid 31
    (
        "Memory access fault by GPU node-2 (Agent handle: 0x5561f711dfd0) on address "
        "0x7fb7a0d67000. Reason: Page not present or supervisor privilege.",
        "GPU_XID",
    ),
    # github.com/keras-team/keras/issues/13889 (fresh51 be008): the ROCm stream executor
    (
        "2023-11-01 16:19:17.812101: E tensorflow/compiler/xla/stream_executor/rocm/"
        "rocm_driver.cc:606] failed to allocate 127.99TiB (140729850295296 bytes) from device: "
        "HIP_ERROR_OutOfMemory",
        "CUDA_OOM",
    ),
    # github.com/ROCm/rccl/issues/908 (fresh51 be001): a HIP call failed in RCCL's P2P
    # transport, after RCCL's advisory about the kernel command line (benign)
    (
        "sharbox-ultra:204802:204802 [0] /home/elias/rccl/build/release/hipify/src/init.cc:125 "
        'NCCL WARN Missing "amd_iommu=on" from kernel command line which can lead to system '
        "instablity or hang!\n"
        "sharbox-ultra:204802:204836 [1] /home/elias/rccl/build/release/hipify/src/transport/"
        "p2p.cc:220 NCCL WARN hipIpcGetMemHandle failed : invalid argument",
        "CUDA_ERROR",
    ),
    # github.com/togethercomputer/OpenChatKit/issues/170 (fresh48 bb005): CuPy's CUDA error
    (
        "cupy_backends.cuda.api.runtime.CUDARuntimeError: cudaErrorInvalidDevice: invalid "
        "device ordinal",
        "CUDA_ERROR",
    ),
    # github.com/volcano-sh/kthena/issues/487 (fresh50 bd007): dash's command lookup
    ("sh: 1: Leader_Node_Address: not found", "APP_EXCEPTION"),
    # github.com/mir-group/nequip/issues/210 (fresh49 bc003): srun's teardown after the store
    # could not bind is no stop from outside
    (
        "torch.distributed.DistNetworkError: The server socket has failed to listen on any "
        "local network address. The server socket has failed to bind to [::]:18164 (errno: 98 "
        "- Address already in use).\n"
        "srun: error: nid001089: tasks 0,3: Exited with exit code 1\n"
        "srun: Terminating StepId=27928164.0\n"
        "slurmstepd: error: *** STEP 27928164.0 ON nid001089 CANCELLED AT 2024-07-11T00:33:51 ***",
        "RENDEZVOUS_FAILURE",
    ),
]

# Wave 8 (fresh52-fresh55): libfabric's shm provider, Ray's GCS, a C++ error raised into Python.
LINES += [
    # github.com/ofiwg/libfabric/issues/11329 (fresh53 bg002): the CMA copy under shm failed
    (
        "libfabric:54609:1754681986::core:core:cma_copy():58<warn> CMA error 14\n"
        "libfabric:54609:1754681986::shm:ep_ctrl:smr_start_common():790<warn> error processing op",
        "EFA_ERROR",
    ),
    # github.com/gpustack/gpustack/issues/5181 (fresh54 bh004): a worker cannot reach the head
    (
        "[2026-04-20 17:24:52,119 W 1 1] rpc_client.h:153: Failed to connect to GCS at address "
        "172.16.11.65:41000 within 5 seconds.",
        "NET_UNREACHABLE",
    ),
    # github.com/vllm-project/vllm/issues/43420 (fresh54 bh006): Gloo's timeout is the text of
    # the RuntimeError on the line before, which names only where it was raised
    (
        "ERROR ... [core.py:2178] RuntimeError: ... [/pytorch/third_party/gloo/gloo/transport/"
        "tcp/unbound_buffer.cc:78]\n"
        "Timed out waiting 1800000ms for recv operation to complete",
        "NCCL_TIMEOUT",
    ),
]

# Wave 9 (fresh56-fresh59)
LINES += [
    # github.com/sparticlesteve/pytorch-cuda-mpi-error (fresh56 bj009): UCX's CUDA transport,
    # then the crash and srun's own cancel of the step, which the crash explains
    (
        "0: [1579244748.838971] [cgpu12:56309:2]    cuda_ipc_md.c:62   UCX  ERROR "
        "cuCtxGetDevice(&cu_device) is failed. ret:invalid device context\n"
        "srun: error: cgpu12: task 0: Segmentation fault\n"
        "srun: Terminating job step 405737.0\n"
        "0: slurmstepd: error: *** STEP 405737.0 ON cgpu12 CANCELLED AT 2020-01-16T23:05:49 ***",
        "CUDA_ERROR",
    ),
    # github.com/zai-org/ChatGLM2-6B/issues/463 (fresh58 bl014): Hugging Face datasets
    (
        "OSError: Not enough disk space. Needed: Unknown size (download: Unknown size, "
        "generated: Unknown size, post-processed: Unknown size)",
        "DISK_FULL",
    ),
    # github.com/ymcui/Chinese-LLaMA-Alpaca/issues/636 (fresh59 bm002): the CUDA runtime's
    # text for cudaErrorCallRequiresNewerDriver, under NCCL's internal-check failure
    (
        "Last error:\nCuda failure 'API call is not supported in the installed CUDA driver'",
        "DRIVER_MISMATCH",
    ),
]

# Wave 10 (fresh60-fresh63)
LINES += [
    # github.com/Azure/azurehpc-health-checks/issues/72 (fresh61 bo003): NHC's failed check
    (
        "[1705939176] - ERROR:  nhc:  Health check failed:  check_all_reduce_dependencies: "
        "HPCX_DIR is not set. Ensure HPCX is installed and sourced correctly.",
        "UNCLASSIFIED_FAILURE",
    ),
    # github.com/openucx/ucx/issues/8469 (fresh60 bn006): MPI_Init without a pml
    ("No components were able to be opened in the pml framework.", "UNCLASSIFIED_FAILURE"),
    # github.com/cocktailpeanut/fluxgym/issues/302 (fresh63 bq006): a store that never starts
    (
        "RuntimeError: use_libuv was requested but PyTorch was build without libuv support",
        "RENDEZVOUS_FAILURE",
    ),
]

# Wave 11 (fresh64-fresh67)
LINES += [
    # github.com/NVIDIA/gpu-operator/issues/8 (fresh64 br007): the driver container's installer
    ("ERROR: Unable to load the kernel module 'nvidia.ko'.", "UNCLASSIFIED_FAILURE"),
    # github.com/NVIDIA/nccl/issues/1911 (fresh67 bu001): NCCL RAS's communicator report
    ("  Communicator ranks have different AllGather operation counts", "NCCL_TIMEOUT"),
    # github.com/deepspeedai/DeepSpeed/issues/4488 (fresh67 bu006), glued to a progress bar
    (
        "...17.07 examples/s][E ProcessGroupGloo.cpp:138] Rank 3 successfully reached "
        "monitoredBarrier, but received errors while waiting for send/recv from rank 0. Please "
        "check rank 0 logs for faulty r",
        "NCCL_TIMEOUT",
    ),
    # github.com/jpata/particleflow/issues/390 (fresh67 bu008): only the watchdog's frames
    (
        "frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::"
        "duration<long, std::ratio<1l, 1000l> > >) + 0x1d2 (0x7f1a in libtorch_cuda.so)",
        "NCCL_TIMEOUT",
    ),
    # github.com/pytorch/pytorch/pull/123023 (fresh67 bu010): the line broken after 'Watchdog'
    (
        "[E329 19:15:11.775879730 ProcessGroupNCCL.cpp:565] [Rank 0] Watchdog\n"
        "caught collective operation timeout: WorkNCCL(SeqNum=2,",
        "NCCL_TIMEOUT",
    ),
    # github.com/NVIDIA/TensorRT-LLM/issues/1131 (fresh65 bs002): its NCCLCHECK
    (
        "Failed, NCCL error /app/tensorrt_llm/cpp/tensorrt_llm/plugins/ncclPlugin/"
        "allreducePlugin.cpp:183 'unknown result code'",
        "UNCLASSIFIED_FAILURE",
    ),
    # github.com/vllm-project/vllm/issues/8691 (fresh65 bs013): pynccl's NCCL_CHECK
    (
        "RuntimeError: NCCL error: internal error - please report this issue to the NCCL "
        "developers",
        "UNCLASSIFIED_FAILURE",
    ),
    # github.com/huggingface/text-generation-inference/issues/2593 (fresh65 bs006)
    (
        "Exception raised from c10_cuda_check_implementation at "
        "/opt/conda/conda-bld/pytorch_1720538438750/work/c10/cuda/CUDAException.cpp:43 (most "
        "recent call first):",
        "CUDA_ERROR",
    ),
    # github.com/ai-dynamo/dynamo/issues/787 (fresh65 bs011): vLLM's CUDACHECK under Dynamo
    (
        "2025-04-23T03:35:43.390Z  INFO dynamo_engine_vllm::worker: VLLM: Failed: "
        "/workspace/csrc/custom_all_reduce.cuh:368 'invalid argument'",
        "CUDA_ERROR",
    ),
]

# The same programs when nothing failed: XLA's warning that proved early, a fabric that
# registered, a coordination service that started, DeepEP's and NVSHMEM's start-up lines.
HEALTHY = [
    "E0218 03:50:29.123456 4242 rendezvous.cc:104] Thread is unstuck! Warning above was a "
    "false-positive. Perhaps the timeout is too short.",
    "Fabric\n    State                             : Completed\n"
    "    Status                            : Success\n"
    "    CliqueId                          : 32766",
    "I0000 00:00:1712965181.656280 4242 coordination_service.cc:540] /job:jax_worker/replica:0/"
    "task:0 has connected to coordination service. Incarnation: 1234",
    "NVSHMEM configuration: NVSHMEM_IB_ENABLE_IBGDA=1 NVSHMEM_DISABLE_P2P=0",
    # RCCL's start-up advisory (ROCm/rccl init.cc) on a run that then worked
    'host:1:1 [0] init.cc:125 NCCL WARN Missing "amd_iommu=on" from kernel command line which '
    "can lead to system instablity or hang!",
]

# A bare cancel alone is still a stop from outside (an scancel): slurmstepd's line in the shape
# of github.com/IGNF/myria3d/issues/123 (tests/fixtures/corpus/heldout.jsonl h044), with a
# made-up job and host.
BARE_CANCEL = "slurmstepd: error: *** JOB 1234 ON ip-10-1-2-3 CANCELLED AT 2026-12-01T10:11:12 ***"


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("line", "code"), LINES, ids=[c for _, c in LINES])
def test_real_line_gets_its_code(line: str, code: str, engine: str, tmp_path: Path) -> None:
    assert root_of(tmp_path, line, engine) == code


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("line", HEALTHY)
def test_healthy_line_of_the_same_programs_names_nothing(
    line: str, engine: str, tmp_path: Path
) -> None:
    assert root_of(tmp_path, line, engine) is None


@pytest.mark.parametrize("engine", ENGINES)
def test_a_bare_cancel_alone_is_a_stop_from_outside(engine: str, tmp_path: Path) -> None:
    assert root_of(tmp_path, BARE_CANCEL, engine) == "EXTERNAL_SIGNAL"
