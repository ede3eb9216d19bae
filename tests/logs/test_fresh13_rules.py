"""The rules fresh13's to fresh21's misses led to (issue 18), on the real line of the miss (with
its page) and the same message as its program prints it elsewhere (marked "format")."""

from __future__ import annotations

from pathlib import Path

import pytest
from rule_cases import ENGINES, fired_on_healthy, root_of

NEW_RULES = {
    "mpich-ofi-call-failed",
    "mpi-fatal-error",
    "neuron-runtime-error",
    "neuron-cc-ops-mismatch",
    "ray-memory-monitor-kill",
    "etcd-rendezvous-error",
    "device-plugin-no-nvml",
    "slurm-host-unresolved",
    "fabric-manager-config-failed",
    "nccl-socket-closed-by-peer",
    "amdgpu-gpu-hang",
    "gpud-xid-event",
    "cuda-driver-error-name",
    "dcgm-diag-fail",
    "runc-init-oom-killed",
    "kubelet-devices-unavailable",
    "kai-scheduler-unschedulable",
    "image-pull-disk-full",
    "ucx-verbs-call-failed",
    "imex-memory-export-failed",
    "pbs-walltime-exceeded",
    "pbs-memory-exceeded",
    "nccl-proxy-recv-failed",
    "flight-recorder-mismatch",
}

CASES = [
    # MPICH / Intel MPI: a libfabric call at MPI_Init fails, and the fatal-error handler aborts.
    (
        "https://intel.com/content/www/us/en/docs/mpi-library/developer-guide-windows/2021-14/"
        "error-message-fatal-error.html",
        "Abort(1094543) on node 0 (rank 0 in comm 0): Fatal error in PMPI_Init: Other MPI error, "
        "error stack: \nMPIR_Init_thread(653)......: \nMPID_Init(860).............: \n"
        "MPIDI_NM_mpi_init_hook(698): OFI addrinfo() failed\n"
        "(ofi_init.h:698:MPIDI_NM_mpi_init_hook:No data available)",
        "EFA_ERROR",
    ),
    (
        "format",
        "MPIDI_OFI_mpi_init_hook(986): OFI addrinfo() failed "
        "(ofi_init.c:986:MPIDI_OFI_mpi_init_hook:No data available)",
        "EFA_ERROR",
    ),
    (
        "format",
        "Abort(1090447) on node 3 (rank 3 in comm 0): Fatal error in PMPI_Allreduce: Message "
        "truncated, error stack:",
        "UNCLASSIFIED_FAILURE",
    ),
    # RCCL's message for a HIP error: the CUDA classifier reads it.
    (
        "https://github.com/ROCm/rocm-systems/issues/8178",
        "[FATAL ERROR]: HIP failure: 'invalid device pointer'",
        "CUDA_ERROR",
    ),
    ("format", "[2] [FATAL ERROR]: HIP failure: 'out of memory'", "CUDA_OOM"),
    # Ray's memory monitor.
    (
        "https://github.com/WM-PO/WMPO/issues/3",
        "(raylet) [2025-12-07 09:57:19,206 E 393463 393463] (raylet) node_manager.cc:3277: 2 "
        "Workers (tasks / actors) killed due to memory pressure (OOM), 0 Workers crashed due to "
        "other reasons at ",
        "CONTAINER_OOM",
    ),
    (
        "format",
        "(raylet) node_manager.cc:3040: 1 Workers (tasks / actors) killed due to memory pressure "
        "(OOM), 0 Workers crashed due to other reasons at node (ID: 2c82620270df6b9dd7ae2791ef51ee"
        "4b5a9d5df9f795986c10dd219c, IP: 172.31.183.172) over the last time period.",
        "CONTAINER_OOM",
    ),
    # The Neuron runtime: a replica group whose graphs differ; its error-level records.
    (
        "https://github.com/aws-neuron/aws-neuron-sdk/issues/779",
        "2023-Oct-27 14:18:42.0222 35560:35755 ERROR   ENC:validate_neff_cc_ops                    "
        "[nec_dev 0] mismatching number of cc ops, expected 6 received 3. Check if ranks 1 and 0 "
        "are using the same neff",
        "NCCL_INVALID_USAGE",
    ),
    (
        "format",
        "2023-Oct-27 14:18:42.0222 35560:35755 ERROR  NMGR:dlr_kelf_stage                          "
        "Failed to load subgraph",
        "UNCLASSIFIED_FAILURE",
    ),
    # python-etcd's exceptions out of torchelastic's etcd rendezvous.
    (
        "https://github.com/JF-D/Parcae/issues/1",
        "etcd.EtcdKeyNotFound: Key not found : /torchelastic/p2p/run_c63361db-da0b-40ca-90a6-"
        "a59be99e2a0b/rdzv/next_strategy",
        "RENDEZVOUS_FAILURE",
    ),
    (
        "format",
        'etcd.EtcdConnectionFailed: Connection to etcd failed due to MaxRetryError("HTTPConnection'
        "Pool(host='etcd-server', port=2379): Max retries exceeded\")",
        "RENDEZVOUS_FAILURE",
    ),
    # The k8s device plugin with no NVML library on the node.
    (
        "https://github.com/awslabs/amazon-eks-ami/issues/1744",
        "I0402 12:47:47.247350       1 factory.go:104] Detected non-NVML platform: could not load "
        "NVML library: libnvidia-ml.so.1: cannot open shared object file: No such file or "
        "directory\nE0402 12:47:47.247405       1 factory.go:112] Incompatible platform detected",
        "DRIVER_MISMATCH",
    ),
    # Slurm resolving a node's name, in its old and its current words.
    (
        "https://github.com/aws/aws-parallelcluster/issues/2082",
        '[2020-09-28T14:32:15.900] error: Unable to resolve "compute-dy-g4dnxlarge-1": Unknown '
        "host",
        "MASTER_ADDR_DNS",
    ),
    (
        "format",
        "[2024-05-01T10:00:00.000] error: _xgetaddrinfo: getaddrinfo(gpu-st-p5-7:6818) failed: "
        "Name or service not known",
        "MASTER_ADDR_DNS",
    ),
    # Fabric Manager giving up on a node's NVLink fabric.
    (
        "https://github.com/pytorch/ci-infra/pull/552",
        "[ERROR] not all local fabric manager instances finished their configuration\n"
        "[ERROR] fabric manager error handler is called for unhandled config error type 8\n"
        "[ERROR] failed to configure all the available GPUs or NVSwitches",
        "NVLINK_ERROR",
    ),
    # aws-ofi-nccl's fi_enable with ENOMEM: the EFA endpoint's pools need locked memory.
    (
        "https://github.com/aws/aws-ofi-nccl/issues/44",
        "[1,3]<stdout>:ip-172-31-6-189:153:691 [3] create_nccl_ofi_component:496 NCCL WARN "
        "NET/OFI Couldn't enable endpoint. RC: -12, ERROR: Cannot allocate memory",
        "MEMLOCK",
    ),
    # A paste with one word in Markdown bold and a widened space.
    (
        "https://github.com/pytorch/pytorch/issues/17703",
        "_worker0-0d9gnb:15:91 [3] include/socket.h 398 NCCL WARN Call to **write** failed : "
        "Connection reset  by peer.\n"
        "worker0-0d9gnb:15:91 [3] transport.cu:153 NCCL WARN transport.cu:153 ->2 [Proxy thread "
        "error]_",
        "PEER_EXITED",
    ),
    # The socket transport over EKS Pod Identity's link-local interface.
    (
        "https://github.com/aws-samples/aws-do-eks/pull/54",
        "NET/Socket : Using [0]enp73s0:10.1.216.156<0> [1]pod-id-link0:169.254.170.23<0>\n"
        "socketPollConnect: connect to 169.254.170.23<43211> returned Connection refused, "
        "retrying (13/34)\n"
        "RuntimeError: NCCL error: remote process exited or there was a network error",
        "SOCKET_IFNAME",
    ),
]

CASES += [
    # The amdgpu driver's GPU hang and reset (AMD's counterpart of an Xid).
    (
        "https://github.com/ROCm/legacy-rocm-build/issues/3580",
        "nov 07 01:36:56 bernard kernel: amdgpu 0000:0a:00.0: amdgpu: ring gfx_0.0.0 timeout, "
        "signaled seq=3295304, emitted seq=3295306\n"
        "nov 07 01:36:56 bernard kernel: amdgpu 0000:0a:00.0: amdgpu: GPU reset begin!",
        "GPU_XID",
    ),
    (
        "format",
        "[ 1234.567890] [drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring sdma0 timeout, signaled "
        "seq=12345, emitted seq=12347",
        "GPU_XID",
    ),
    (
        "https://github.com/ROCm/legacy-rocm-build/issues/5724",
        "[  950.818166] amdgpu 0000:c5:00.0: amdgpu: MES failed to respond to msg=REMOVE_QUEUE",
        "GPU_XID",
    ),
    # gpud's Xid event: the Xid number decides, as for the kernel's own line.
    (
        "https://github.com/leptonai/gpud/pull/192",
        '        "message": "xid 119 detected by dmesg (47 minutes ago)",',
        "GPU_XID",
    ),
    ("format", '        "message": "xid 48 detected by dmesg (2 minutes ago)",', "GPU_ECC"),
    # NVML's unknown error through dcgm-exporter.
    (
        "https://github.com/NVIDIA/go-nvml/issues/164",
        'time=2025-09-09T20:19:25.195Z level=ERROR msg="Cannot init NVML library; err: Unknown '
        'Error"',
        "GPU_ACCESS_LOST",
    ),
    # The CUDA driver API's error names.
    (
        "https://github.com/wilicc/gpu-burn/issues/123",
        "Couldn't init a GPU test: Error: CUDA_ERROR_UNKNOWN",
        "CUDA_ERROR",
    ),
    ("format", "cuCtxSynchronize failed: CUDA_ERROR_ECC_UNCORRECTABLE", "GPU_ECC"),
    # DCGM: a GPU with every NVLink down; a diagnostic that failed on a GPU.
    (
        "https://github.com/NVIDIA/DCGM/issues/198",
        "GPUs:\n    gpuId 0:\n        D D D D D D D D D D D D D D D D D D",
        "NVLINK_ERROR",
    ),
    (
        "https://github.com/NVIDIA/go-dcgm/issues/52",
        "| Info                      | GPU 0 API call cudaStreamCreate failed: 'CUDA  |\n"
        "|                           | -capable device(s) is/are busy or unavailable  |\n"
        "|                           | Fail - GPU: 0                                  |",
        "CUDA_ERROR",
    ),
    # NVSHMEM's CUDA check, its message cut by the paste.
    (
        "https://github.com/NVIDIA/TensorRT-LLM/pull/17060",
        "[.../src/host/coll/barrier/barrier.cpp:21] cuda failed with an illegal memory access wa",
        "CUDA_ERROR",
    ),
]

CASES += [
    # Kubernetes: runc, the kubelet's device manager, KAI-Scheduler, an image pull on a full
    # disk; NVML's GPU_IS_LOST through the device plugin.
    (
        "https://github.com/kubeflow/trainer/issues/1661",
        'Warning  Failed  113s   kubelet  Error: container create failed: time="2022-09-14T11:35:13Z"'
        ' level=error msg="runc create failed: unable to start container process: container init '
        'was OOM-killed (memory limit too low?)"',
        "CONTAINER_OOM",
    ),
    (
        "https://github.com/kubernetes/kubernetes/issues/130145",
        "Message:         Pod Allocate failed due to requested number of devices unavailable for "
        "nvidia.com/gpu. Requested:1, Available: 0, which is unexpected",
        "POD_PENDING_RESOURCES",
    ),
    (
        "https://github.com/kai-scheduler/KAI-Scheduler/issues/39",
        "**Warning  Unschedulable  kai-scheduler  No nodes with enough resources were found: 2 "
        "node(s) didn't have enough resources: GPUs.**",
        "POD_PENDING_RESOURCES",
    ),
    (
        "https://github.com/kserve/kserve/issues/3408",
        'Warning  Failed     18m                  kubelet            Failed to pull image "nvcr.io/'
        'nvidia/tritonserver:23.05-py3": rpc error: code = Unknown desc = failed to register layer:'
        " write /opt/tritonserver/backends/tensorflow/libtensorflow_cc.so.2: no space left on "
        "device",
        "DISK_FULL",
    ),
    (
        "https://github.com/kubernetes/kubernetes/issues/97131",
        "Message:        Pod Allocate failed due to device plugin GetPreferredAllocation rpc failed "
        "with err: rpc error: code = Unknown desc = Unable to retrieve list of available devices: "
        "error creating nvml.Device 5: nvml: GPU is lost, which is unexpected",
        "GPU_XID",
    ),
    # The device plugin's own view of the same node: the admission failure follows from it.
    (
        "format",
        "Pod Allocate failed due to requested number of devices unavailable for nvidia.com/gpu. "
        "Requested: 1, Available: 0, which is unexpected\n"
        "Unable to determine the device handle for GPU 0000:C1:00.0: GPU is lost.  Reboot the "
        "system to recover this GPU",
        "GPU_XID",
    ),
    # Open MPI's launcher by its own name; UCX's verbs call; IMEX; TensorFlow's OOM.
    (
        "https://github.com/kubeflow/mpi-operator/issues/90",
        "mpirun.real noticed that process rank 1 with PID 39 on node mpi-test-2-mpijob-worker-1 "
        "exited on signal 9 (Killed).",
        "CONTAINER_OOM",
    ),
    (
        "https://github.com/NVIDIA/nccl-tests/issues/327",
        "ib_device.c:1380 UCX  ERROR   ibv_create_ah(dlid=49152 sl=0 port=1 src_path_bits=0 dgid="
        "fe80::f4f9:72ff:fe1d:ea79 \nflow_label=0xffffffff sgid_index=0 traffic_class=0) for RC "
        "DEVX QP connect on mlx5_15 failed: No such device",
        "IB_ERROR",
    ),
    (
        "https://github.com/kubernetes-sigs/dra-driver-nvidia-gpu/issues/948",
        "> [ERROR] Failed to get new memory reference with rc: 87\n"
        "> [ERROR] Failed to allocate memory reference.",
        "NVLINK_ERROR",
    ),
    (
        "https://github.com/kubeflow/trainer/issues/1158",
        "Non-OK-status: GpuLaunchKernel (FillPhiloxRandomKernelLaunch <Distribution>, num_blocks, "
        "block_size, 0, d.stream (), gen, data, size, dist) status: Internal: out of memory",
        "CUDA_OOM",
    ),
    # PBS and Moab: walltime, memory, preemption; NVML's version mismatch through NCCL.
    (
        "https://github.com/cBio/cbio-cluster/issues/256",
        "Aborted by PBS Server\nJob exceeded its walltime limit. Job was aborted",
        "EXTERNAL_SIGNAL",
    ),
    ("format", "=>> PBS: job killed: walltime 3623 exceeded limit 3600", "EXTERNAL_SIGNAL"),
    (
        "https://github.com/cBio/cbio-cluster/issues/251",
        "job 3132467 exceeded MEM usage hard limit (2528 > 1126)",
        "CONTAINER_OOM",
    ),
    ("format", "=>> PBS: job killed: mem 9437184kb exceeded limit 8388608kb", "CONTAINER_OOM"),
    (
        "https://github.com/cBio/cbio-cluster/issues/187",
        "job preempted (node failure)",
        "EXTERNAL_SIGNAL",
    ),
    (
        "https://github.com/NVIDIA/nccl/issues/726",
        "f11n13:3580085:3580085 [0] NCCL WARN nvmlInit_v2() failed: Driver/library version mismatch",
        "DRIVER_MISMATCH",
    ),
    # An exception quoted in prose with typographic quotes.
    (
        "https://github.com/ai4d-iasc/trixie/issues/52",
        "I keep getting the error of \u201cRuntimeError: Address already in use\u201d when trying to "
        "do so.",
        "RENDEZVOUS_FAILURE",
    ),
]

CASES += [
    # fresh22-24: Open MPI's signal banner alone, the Flight Recorder analyzer, torchft's
    # lighthouse (Rust's io::Error), ibv_wc_status_str's texts from Mooncake and mlx5.
    (
        "https://github.com/NVIDIA/nccl/issues/1669",
        "[rtptest1621:405884] *** Process received signal ***",
        "RANK_CRASH",
    ),
    (
        "https://github.com/pytorch/pytorch/issues/140563",
        "error msg: Culprit rank 22; Error type: SIZE_OR_SYNTAX_MISMATCH, Expected input sizes: "
        "'[[1025]]' does not match found input sizes: '[[262144]]'",
        "NCCL_INVALID_USAGE",
    ),
    (
        "format",
        "Error type: COLLECTIVE_TYPE_MISMATCH, Expected collective type",
        "NCCL_INVALID_USAGE",
    ),
    (
        "https://github.com/meta-pytorch/torchft/issues/30",
        "RuntimeError: Address already in use (os error 98)",
        "RENDEZVOUS_FAILURE",
    ),
    (
        "https://github.com/kvcache-ai/Mooncake/issues/851",
        "E0917 16:23:13.204995 4058290 worker_pool.cpp:294] Worker: Process failed for slice "
        "(opcode: 1, source_addr: 0x7fd2fc000800, length: 3584, dest_addr: 0x7fb9dc001000, "
        "local_nic: mlx5_7, peer_nic: 115.182.224.13:15004@mlx5_7, dest_rkey: 2136660, "
        "retry_cnt: 0): local protection error",
        "IB_ERROR",
    ),
    (
        "https://github.com/kvcache-ai/Mooncake/issues/3299",
        "[Wed Jul 29 14:40:27 2026] mlx5_bond_0/1: QP 51291 error: local length error (0x8e 0x0 "
        "0x0)",
        "IB_ERROR",
    ),
    ("format", "ibv_poll_cq: completion error: RNR retry counter exceeded", "IB_ERROR"),
]

# github.com/NVIDIA/nccl/issues/1117 (tests/fixtures/corpus/fresh14.jsonl e033): a working run
# whose NCCL listening port is reached by connections that are no NCCL peer.
FOREIGN = (
    " ip-10-192-10-178:3354:9681 [0] misc/socket.cc:432 NCCL WARN socketFinalizeAccept: wrong "
    "magic 16900000316 != 5327f0e088587e42\n"
    " ip-10-192-10-178:3358:13338 [2] misc/socket.cc:50 NCCL WARN socketProgress: Connection "
    "closed by remote peer 203.12.218.133<46494>\n"
    " ip-10-192-10-178:3358:13338 [2] NCCL INFO misc/socket.cc:58 -> 6\n"
    " ip-10-192-10-178:3358:13338 [2] NCCL INFO misc/socket.cc:430 -> 6\n"
    " ip-10-192-10-178:3358:13338 [2] proxy.cc:1494 NCCL WARN [Service thread] Accept failed "
    "Success"
)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("source", "text", "code"), CASES, ids=[c[1][:40] for c in CASES])
def test_text_gets_its_code(source: str, text: str, code: str, engine: str, tmp_path: Path) -> None:
    assert root_of(tmp_path, text, engine) == code, source


@pytest.mark.parametrize("engine", ENGINES)
def test_foreign_connections_to_nccls_port_are_no_peer_exit(engine: str, tmp_path: Path) -> None:
    assert root_of(tmp_path, FOREIGN, engine) is None


@pytest.mark.parametrize("engine", ENGINES)
def test_a_real_failure_beside_foreign_connections_still_counts(
    engine: str, tmp_path: Path
) -> None:
    # The same closes on a host that also timed out: the peer exit stands with the timeout.
    timeout = (
        "[rank2]:[E ProcessGroupNCCL.cpp:563] [Rank 2] Watchdog caught collective operation "
        "timeout: WorkNCCL(SeqNum=5, OpType=ALLREDUCE, Timeout(ms)=600000) ran for 600010 "
        "milliseconds before timing out."
    )
    assert root_of(tmp_path, FOREIGN + "\n" + timeout, engine) is not None


@pytest.mark.parametrize("engine", ENGINES)
def test_a_close_without_foreign_connections_is_a_peer_exit(engine: str, tmp_path: Path) -> None:
    closed = FOREIGN.splitlines()[1]
    assert root_of(tmp_path, closed, engine) == "PEER_EXITED"


@pytest.mark.parametrize("engine", ENGINES)
def test_ray_summary_with_no_kill_is_no_oom(engine: str, tmp_path: Path) -> None:
    line = (
        "(raylet) node_manager.cc:3040: 0 Workers (tasks / actors) killed due to memory pressure "
        "(OOM), 2 Workers crashed due to other reasons at node (ID: 2c82, IP: 10.0.0.1)"
    )
    assert root_of(tmp_path, line, engine) != "CONTAINER_OOM"


# github.com/deepseek-ai/DeepEP/issues/41 (tests/fixtures/corpus/fresh21.jsonl l010): every
# test passed, then NCCL's proxy loses the sockets of ranks that sent Close as they exit.
TEARDOWN = (
    "0bc8f5b83646:2374:2994 [0] proxy.cc:1458 NCCL WARN [Service thread] Accept failed Resource "
    "temporarily unavailable\n"
    "0bc8f5b83646:2374:2994 [0] proxy.cc:1497 NCCL WARN [Service thread] Could not receive type "
    "from localRank 0, res=3, closed=0\n"
    "0bc8f5b83646:2374:2994 [0] proxy.cc:1521 NCCL WARN [Proxy Service 0] Failed to execute "
    "operation Close from rank 0, retcode 3"
)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_ranks_socket_ending_after_its_close_is_no_peer_exit(engine: str, tmp_path: Path) -> None:
    assert root_of(tmp_path, TEARDOWN, engine) is None
    # res=3 is ncclInternalError, what NCCL's socket layer returns when this process's abort
    # flag is set (src/misc/socket.cc socketProgressOpt, 'abort called'): alone, still no peer
    # exit. A recv that failed returns ncclRemoteError (6): that rank's process went away.
    aborted = TEARDOWN.splitlines()[1]
    assert root_of(tmp_path, aborted, engine) is None
    lost = aborted.replace("res=3", "res=6")
    assert root_of(tmp_path, lost, engine) == "PEER_EXITED"


@pytest.mark.parametrize("engine", ENGINES)
def test_slurmstepd_running_the_task_in_tmp_is_no_failure(engine: str, tmp_path: Path) -> None:
    # github.com/NVIDIA/deepops/issues/1179 (tests/fixtures/corpus/fresh19.jsonl z018)
    line = (
        "slurmstepd: error: couldn't chdir to `/root/burst-buffer': No such file or directory: "
        "going to /tmp instead"
    )
    assert root_of(tmp_path, line, engine) is None


@pytest.mark.parametrize("engine", ENGINES)
def test_a_gpu_with_links_up_is_no_nvlink_error(engine: str, tmp_path: Path) -> None:
    text = "GPUs:\n    gpuId 0:\n        U U U U U U U U U U U U U U U U U U"
    assert root_of(tmp_path, text, engine) is None


@pytest.mark.parametrize("engine", ENGINES)
def test_healthy_output_raises_none_of_them(engine: str) -> None:
    assert fired_on_healthy(NEW_RULES, engine) == []
