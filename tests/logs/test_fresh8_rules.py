"""The rules fresh8's to fresh12's misses led to (issue 18), on the real line of the miss (with
its page) and the same message as its program prints it elsewhere (marked "format"); and three
messages of the same programs found answered "none found" or misread while checking them."""

from __future__ import annotations

from pathlib import Path

import pytest
from rule_cases import ENGINES, fired_on_healthy, root_of

NEW_RULES = {
    "mpi-daemon-lost",
    "device-plugin-xid",
    "volcano-gang-unschedulable",
    "nvidia-smi-no-driver",
    "ucx-efa-completion-error",
    "ucx-mlx5-completion-error",
    "hydra-exit-signal",
    "gloo-loopback-peer",
    "ssh-connect-failed",
    "nccl-result-class",
    "k8s-pod-status-failed",
    "k8s-pod-status-pending",
    "k8s-event-failed",
}

CASES = [
    # Open MPI's error manager when a node's daemon goes away (ORTE; PRRTE in Open MPI 5).
    (
        "https://github.com/kubeflow/mpi-operator/issues/152",
        "ORTE has lost communication with a remote daemon.\n\n"
        "  HNP daemon   : [[43015,0],0] on node launcher-gdqv7\n"
        "  Remote daemon: [[43015,0],20] on node worker-19",
        "PEER_EXITED",
    ),
    ("format", "PRTE has lost communication with a remote daemon.", "PEER_EXITED"),
    # The Kubernetes device plugin's health check: the Xid number decides the code.
    (
        "https://github.com/NVIDIA/k8s-device-plugin/issues/189",
        "2020/08/10 19:09:42 XidCriticalError: Xid=69 on Device=GPU-7540a9b3-eeb9-1214-1526-"
        "f93c9ea826a8, the device will go unhealthy.",
        "GPU_XID",
    ),
    (
        "format",
        "I0601 10:00:00.000000 1 health.go:160] XidCriticalError: Xid=48 on Device=GPU-1; "
        "marking device as unhealthy.",
        "GPU_ECC",
    ),
    # Volcano's gang scheduling and queue quota.
    (
        "https://github.com/volcano-sh/volcano/issues/3220",
        "queue resource quota insufficient\n"
        "0/0 tasks in gang unschedulable: pod group is not ready, 1 minAvailable",
        "POD_PENDING_RESOURCES",
    ),
    (
        "format",
        "  Warning  Unschedulable  2m  volcano  3/4 tasks in gang unschedulable: pod group is not "
        "ready, 4 Pending, 4 minAvailable; Pending: 1 Unschedulable, 3 Schedulable",
        "POD_PENDING_RESOURCES",
    ),
    # Open MPI's own signal handler in the process (opal/util/stacktrace.c).
    (
        "https://github.com/NVIDIA/nccl/issues/291",
        "[tb2b03210:78142] *** Process received signal ***\n"
        "[tb2b03210:78142] Signal: Segmentation fault (11)\n"
        "[tb2b03210:78142] Signal code: Address not mapped (1)",
        "RANK_CRASH",
    ),
    ("format", "[node-3:04242] Signal: Aborted (6)", "RANK_CRASH"),
    # A Python launcher printing a child's returncode, negative for the signal that killed it.
    (
        "https://github.com/mosaicml/llm-foundry/issues/258",
        "ERROR:composer.cli.launcher:Rank 2 crashed with exit code -7.",
        "RANK_CRASH",
    ),
    ("format", "ERROR:composer.cli.launcher:Rank 0 crashed with exit code -9.", "CONTAINER_OOM"),
    # A full disk fails the image import that needs it: the disk is the cause.
    (
        "https://github.com/NVIDIA/pyxis/issues/53",
        "slurmstepd: error: pyxis: failed to import docker image\n"
        "slurmstepd: error: pyxis:     Write failed because No space left on device\n"
        "slurmstepd: error: pyxis:     FATAL ERROR:Failed to write to output filesystem",
        "DISK_FULL",
    ),
    # fresh10: NCCL 2.4's wording of the IB receive-size check (no comma), PyTorch before 1.9's
    # TCPStore bind error, Open MPI's signal report pasted without its [host:pid] column.
    (
        "https://github.com/tensorflow/tensorflow/issues/34375",
        "host2:14508:15205 [0] external/nccl_archive/src/transport/net_ib.cc:651 NCCL WARN "
        "NET/IB : collective mismatch error local size 348160 remote 32768 addr 7fb47b011000 "
        "rkey baa8 seq 5a/5a",
        "NCCL_INVALID_USAGE",
    ),
    (
        "https://github.com/open-mmlab/mmdetection/issues/2129",
        "    store = TCPStore(master_addr, master_port, world_size, start_daemon)\nRuntimeError: Address already in use",
        "RENDEZVOUS_FAILURE",
    ),
    (
        "https://github.com/chainer/chainer/issues/7586",
        "*** Process received signal ***\nSignal: Segmentation fault (11)\nSignal code: Address not "
        "mapped (1)",
        "RANK_CRASH",
    ),
    # fresh11: verbs and UCX completion errors, NCCL 2.27's capitalised error string, CUDA's
    # out of memory as TurboMind prints it.
    (
        "https://github.com/modelscope/ms-swift/issues/6107",
        "> [2025-10-13 10:12:54] iv-ydin754tmoxjd1twgixh:1458548:1480527 [0] misc/ibvwrap.cc:182 "
        "NCCL WARN Call to ibv_reg_mr_iova2 failed with error Invalid argument",
        "IB_ERROR",
    ),
    (
        "https://github.com/uccl-project/uccl/issues/641",
        "Failed to modify QP to RTR: Connection timed out\nerrno: 110",
        "IB_ERROR",
    ),
    (
        "https://github.com/NVIDIA/nccl-tests/issues/280",
        "c2211f46f318: Test NCCL failure common.cu:1005 'unhandled CUDA error'",
        "CUDA_ERROR",
    ),
    (
        "https://github.com/ai-dynamo/dynamo/issues/843",
        "[1745700389.902821] [labinit01:6274 :0]     ib_mlx5_log.c:179  UCX  ERROR Local "
        "protection error on mlx5_0:1/RoCE (synd 0x4 vend 0x51 hw_synd 0/2)",
        "IB_ERROR",
    ),
    (
        "https://github.com/ai-dynamo/nixl/issues/1983",
        "[1784621081.896649] [prefill-pod:537  :1]       srd_iface.c:221  UCX  ERROR send "
        "completion[0] with error on rdmap132s0/0x55cf4425cfb0: Work Request Flushed Error, "
        "vendor_err 0x1 wr_id 0x7f8b20022480",
        "EFA_ERROR",
    ),
    (
        "https://github.com/InternLM/lmdeploy/issues/2993",
        "Error: [rank3]: RuntimeError: [TM][ERROR] CUDA runtime error: out of memory "
        "/lmdeploy/src/turbomind/utils/memory_utils.cu:31",
        "CUDA_OOM",
    ),
    # fresh12: mpirun with the PID redacted, MPICH Hydra's exit banner, Gloo to loopback.
    (
        "format",
        "mpirun noticed that process rank 1 with PID xxxxxx on node xxxxxxxx exited on signal 9 "
        "(Killed).",
        "CONTAINER_OOM",
    ),
    (
        "format",
        "=   EXIT CODE: 9\nYOUR APPLICATION TERMINATED WITH THE EXIT STRING: Killed (signal 9)",
        "CONTAINER_OOM",
    ),
    (
        "format",
        "YOUR APPLICATION TERMINATED WITH THE EXIT STRING: Segmentation fault (signal 11)",
        "RANK_CRASH",
    ),
    (
        "format",
        "terminate called after throwing an instance of 'gloo::IoException'\n  what():  [/opt/conda/"
        "conda-bld/pytorch_1544084119927/work/third_party/gloo/gloo/transport/tcp/pair.cc:724] "
        "connect [127.0.1.1]:3210: Connection refused\nAborted (core dumped)",
        "SOCKET_IFNAME",
    ),
    # A launcher's ssh that cannot reach a node; PyTorch's description of a failed NCCL call's
    # class with nothing else in the log (a failure, its cause on another line).
    ("format", "ssh: connect to host node-2 port 22: Connection timed out", "NET_UNREACHABLE"),
    (
        "format",
        "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or "
        "device error.",
        "UNCLASSIFIED_FAILURE",
    ),
    # kubectl's views of pods that did not run: the STATUS column and the kubelet's Warning
    # events; srun aborting a step.
    (
        "format",
        "llama-worker-2   0/1     Error              1          10m",
        "UNCLASSIFIED_FAILURE",
    ),
    (
        "format",
        "llama-worker-3   0/1     Pending            0          10m",
        "POD_PENDING_RESOURCES",
    ),
    (
        "format",
        '  Warning  FailedMount  2m  kubelet  MountVolume.SetUp failed for volume "fsx-pv" : rpc '
        "error: code = Internal desc = Could not mount",
        "UNCLASSIFIED_FAILURE",
    ),
    (
        "format",
        "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.",
        "UNCLASSIFIED_FAILURE",
    ),
    # nvidia-smi when NVML finds no loaded kernel driver; torch.cuda when it counts no GPU;
    # torchelastic's error handler under Python logging's default format.
    (
        "format",
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure "
        "that the latest NVIDIA driver is installed and running.",
        "DRIVER_MISMATCH",
    ),
    ("format", "RuntimeError: No CUDA GPUs are available", "CUDA_ERROR"),
    (
        "format",
        'ERROR:torch.distributed.elastic.multiprocessing.errors.error_handler:{"message": '
        '{"message": "RuntimeError: oops", "extraInfo": {}}}',
        "UNCLASSIFIED_FAILURE",
    ),
]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("source", "text", "code"), CASES, ids=[c[1][:40] for c in CASES])
def test_text_gets_its_code(source: str, text: str, code: str, engine: str, tmp_path: Path) -> None:
    assert root_of(tmp_path, text, engine) == code, source


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    "line",
    [
        "llama-worker-3   0/1     Pending            0          12s",  # still being scheduled
        "llama-worker-0   1/1     Running            0          10m",
        "  Normal   Scheduled  1m  default-scheduler  Successfully assigned default/w-0 to node-1",
    ],
)
def test_pods_on_their_way_are_no_failure(line: str, engine: str, tmp_path: Path) -> None:
    assert root_of(tmp_path, line, engine) is None


@pytest.mark.parametrize("engine", ENGINES)
def test_healthy_output_raises_none_of_them(engine: str) -> None:
    assert fired_on_healthy(NEW_RULES, engine) == []
