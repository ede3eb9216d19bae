"""The rules and readings added for fresh91-fresh95's misses: NCCL's result strings inside
other programs' checks (XGBoost, RAFT, HugeCTR, PyTorch), exceptions that only relay another
one (py4j, Spark), UCX's error level and UCX-Py's unreachable endpoint, Open MPI's fatal
error handler, ENOSPC on /dev/shm, ATen's device-index assert, oneCCL's exception, NCCL's
proxy recv during its own abort, and CPython's 'Exception ignored in:'. None of them counts
on a line of the real healthy job logs or of a corpus case labelled HEALTHY; each reads the
real line it was made for (the lines are the blind sets' cases, quoted with their source)."""

from __future__ import annotations

import random
import tempfile
from pathlib import Path

import pytest
from logmix import spread_case
from rule_cases import ENGINES, fired_on_healthy, fired_on_healthy_cases, healthy_cases, root_of

from hyperpod_nccl.api import analyze_logs
from hyperpod_nccl.rules.paste import strip_autolinks

RULES = {
    "nccl-check-result",
    "ucx-error-level",
    "ucxpy-endpoint-unreachable",
    "openmpi-errors-are-fatal",
    "shm-write-enospc",
    "torch-device-index-assert",
    "oneccl-exception",
    "nccl-proxy-recv-failed",
    "torch-test-process-signal",
    "torch-test-process-timeout",
    "unittest-test-failed",
    "fsdp2-uneven-sharding",
    "stack-snapshot-in-collective",
    "pslite-no-ip",
    "job-pods-failed",
    "neuron-device-oom",
    "neuron-collectives-topology",
    "neuron-device-unavailable",
    "neuron-call-failed",
    "neuron-runtime-error",
    "ccom-bootstrap-timeout",
    "ccom-warn-unclassified",
    "ucx-component-error",
    "go-process-signal",
    "xla-ret-check-failed",
    "tf-gpu-libraries-missing",
    "ray-tune-trials-failed",
    "efa-eq-enomem",
    "nvrm-init-adapter-failed",
    "ray-raylet-terminated",
    "py-spy-dump",
}


@pytest.mark.parametrize("engine", ENGINES)
def test_silent_on_the_real_healthy_job_logs(engine: str) -> None:
    assert fired_on_healthy(RULES, engine) == []


@pytest.mark.parametrize("engine", ENGINES)
def test_no_failure_on_any_healthy_corpus_case(engine: str) -> None:
    fired = fired_on_healthy_cases(RULES, engine)
    # NCCL's proxy recv with res=3 is its own abort at teardown (l010, da014): matched, never
    # a finding. No other of these rules matches a healthy case at all.
    assert {rule for _, rules in fired for rule in rules} <= {"nccl-proxy-recv-failed"}
    logs = dict(healthy_cases())
    for case_id, _ in fired:
        report = _analyze_text(logs[case_id], engine)
        assert report["root_cause"] is None, case_id
        assert not [f for f in report["findings"] if f["status"] == "FAIL"], case_id  # type: ignore[attr-defined]


def _analyze_text(text: str, engine: str) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "case.log"
        path.write_text(text + "\n", "utf-8")
        report: dict[str, object] = analyze_logs([str(path)], backend=engine).to_dict()
    return report


RESULT_LINES = [
    # github.com/dmlc/xgboost via dask (fresh92 cu004), 2.x wording with a space after ':'
    (
        "Exception: \"XGBoostError('[09:10:41] /opt/conda/envs/rapids/conda-bld/xgboost/work/"
        "src/common/device_helpers.cuh:132: NCCL failure :unhandled system error",
        "UNCLASSIFIED_FAILURE",
    ),
    (
        "xgboost.core.XGBoostError: [10:11:12] /workspace/src/collective/nccl_device_"
        "communicator.cu:42: NCCL failure: unhandled cuda error",
        "CUDA_ERROR",
    ),
    # rapidsai/raft's nccl.pyx (fresh92 cu005, cu008)
    ("RuntimeError: NCCL_ERROR: b'unhandled system error'", "UNCLASSIFIED_FAILURE"),
    (
        "RuntimeError: NCCL_ERROR: b'remote process exited or there was a network error'",
        "PEER_EXITED",
    ),
    ("RuntimeError: NCCL_ERROR: b'invalid usage'", "NCCL_INVALID_USAGE"),
    # NVIDIA-Merlin/HugeCTR (fresh91 ct001): NCCL's own words, the call on the next line
    ("RuntimeError: Runtime error: unhandled system error", "UNCLASSIFIED_FAILURE"),
    # PyTorch's C10D_NCCL_CHECK with the result (fresh94 cw005) and cut before it
    (
        "RuntimeError: NCCL error in: /opt/conda/conda-bld/pytorch_1639180593867/work/torch/csrc/"
        "distributed/c10d/ProcessGroupNCCL.cpp:957, invalid usage, NCCL version 21.0.3",
        "NCCL_INVALID_USAGE",
    ),
    ("RuntimeError: NCCL error in: /opt/conda/conda-b", "UNCLASSIFIED_FAILURE"),
]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("line", "code"), RESULT_LINES, ids=[c[0][:30] for c in RESULT_LINES])
def test_a_wrapped_nccl_result_names_its_code(
    line: str, code: str, engine: str, tmp_path: Path
) -> None:
    assert root_of(tmp_path, line, engine) == code


# github.com/NVIDIA/spark-rapids-ml (fresh92 cu008): py4j relays Spark's abort, which relays
# the Python worker's traceback; the worker's NCCL error is the failure.
SPARK = """_py4j.protocol.Py4JJavaError: An error occurred while calling z:org.apache.spark.api.python.PythonRDD.collectAndServe.
: org.apache.spark.SparkException: Job aborted due to stage failure: Could not recover from a failed barrier ResultStage. Most recent failure reason: Stage failed because barrier task ResultTask(1, 1) finished unsuccessfully.
org.apache.spark.api.python.PythonException: Traceback (most recent call last):
File "nccl.pyx", line 151, in raft_dask.common.nccl.nccl.init
RuntimeError: NCCL_ERROR: b'remote process exited or there was a network error'"""


@pytest.mark.parametrize("engine", ENGINES)
def test_relaying_exceptions_leave_the_cause_to_what_they_relay(
    engine: str, tmp_path: Path
) -> None:
    assert root_of(tmp_path, SPARK, engine) == "PEER_EXITED"
    # Spark's abort alone, relaying nothing the log shows: still a failure, no cause named.
    alone = SPARK.splitlines()[1]
    assert root_of(tmp_path, alone, engine) == "UNCLASSIFIED_FAILURE"


UCX = [
    # github.com/rapidsai/ucx-py (fresh92 cu003): UCX's error level, no cause named
    (
        "[1574185843.165627] [exp02:50083:0]         select.c:438  UCX  ERROR no active "
        "messages transport to <no debug data>: Unsupported operation",
        "UNCLASSIFIED_FAILURE",
    ),
    # fresh92 cu002: UCX-Py's endpoint error callback, UCS_ERR_UNREACHABLE, at DEBUG level
    (
        "[1662343841.790321] [gpu12.cluster:3241] UCXPY  DEBUG Error callback for endpoint "
        "0x2b492843d3c8 called with status -6: Destination is unreachable",
        "NET_UNREACHABLE",
    ),
    # github.com/NVIDIA/cuda-quantum (fresh92 cu014): Open MPI's fatal error handler
    (
        "*** An error occurred in MPI_Allgatherv\n*** reported by process [351672370,508]\n"
        "*** on communicator MPI_COMM_WORLD\n*** MPI_ERR_TRUNCATE: message truncated\n"
        "*** MPI_ERRORS_ARE_FATAL (processes in this communicator will now abort,",
        "UNCLASSIFIED_FAILURE",
    ),
    # github.com/saforem2/vault (fresh93 cv003): the tmpfs filled, not the disk
    (
        "OSError: [Errno 28] No space left on device: '/lus/data/oc20/s2ef/data.0060.lmdb' -> "
        "'/dev/shm/oc20_data/s2ef/2M/train/data.0060.lmdb'",
        "SHM_TOO_SMALL",
    ),
    ("OSError: [Errno 28] No space left on device: '/scratch/ckpt/model.pt'", "DISK_FULL"),
    # github.com/ACEsuit/mace (fresh91 ct007): a device index past the visible GPUs
    (
        "RuntimeError: device >= 0 && device < num_gpus INTERNAL ASSERT FAILED\n"
        'at "../aten/src/ATen/cuda/CUDAContext.cpp":49\ndevice=1, num_gpus=1',
        "CUDA_ERROR",
    ),
    # fresh93 cv006: oneCCL's exception through torch-ccl
    (
        "RuntimeError: oneCCL: global.cpp:150 getenv_local_coord: EXCEPTION: to get "
        "local_idx/count from ATL, set CCL_ZE_IPC_EXCHANGE=sockets explicitly",
        "UNCLASSIFIED_FAILURE",
    ),
]


HARNESS = [
    # github.com/pytorch/pytorch's distributed test harness (fresh97 cz003-cz007, cz020)
    (
        "Nov 26 23:08:31 AssertionError: False is not true : Expected zero exit code but got -11",
        "RANK_CRASH",
    ),
    (
        "AssertionError: Scalars are not equal!\nExpected zero exit code but got -9 for pid: 3154",
        "CONTAINER_OOM",
    ),
    (
        "RuntimeError: Process 1 terminated or timed out after 100.07976341247559 seconds",
        "NCCL_TIMEOUT",
    ),
    (
        "  SIGABRT(6), PID: 15838, Thread 15843:\n   frame #0: c10::FatalSignalHandler::"
        "stacktraceSignalHandler(bool) + 0x59 (0x7f7c5e0ad009 in libc10.so)",
        "RANK_CRASH",
    ),
    (
        "05:56:08 test_broadcast (__main__.TestNCCL) ... FAIL\n05:56:08 FAIL: test_broadcast "
        "(__main__.TestNCCL)\nFAILED (failures=3)",
        "UNCLASSIFIED_FAILURE",
    ),
    # github.com/pytorch/torchtitan (fresh96 cy008): FSDP2's refusal, its second line alone
    ("torch.Size([2048, 4096]) is not divisible by FSDP world size 128.", "APP_EXCEPTION"),
]
UCX += HARNESS
OLDER = [
    # github.com/microsoft/CNTK (fresh99 db002): Windows' SIGSEGV
    ("CNTK: Caught Win32 exception 0xc0000005: Access violation.", "RANK_CRASH"),
    # github.com/apache/mxnet (fresh99 db003): ps-lite found no interface address
    (
        "mxnet.base.MXNetError: [13:30:33] src/van.cc:63: Check failed: !ip.empty() failed to "
        "get ip",
        "SOCKET_IFNAME",
    ),
    # chainer (fresh99 db006) and CuPy's newer wording; Caffe2's check (db007)
    (
        "Exception in main training loop: out of memory to allocate 205520896 bytes (total "
        "16068929536 bytes)",
        "CUDA_OOM",
    ),
    (
        "cupy.cuda.memory.OutOfMemoryError: Out of memory allocating 1,073,741,824 bytes "
        "(allocated so far: 15,032,385,536 bytes).",
        "CUDA_OOM",
    ),
    (
        "what():  [enforce fail at context_gpu.cu:343] error == cudaSuccess. 2 vs 0. Error at: "
        "/home/user/caffe2/caffe2/core/context_gpu.cu:343: out of memory",
        "CUDA_OOM",
    ),
    # JobSet's verdict alone (fresh98 da011): its jobs kept failing, as a Job's backoff limit
    (
        "    message: jobset failed due to one or more job failures (first failed job: "
        "fault-kill-rank-worker-3)\n    reason: FailedJobs",
        "POD_CRASHLOOP",
    ),
    # gdb and py-spy snapshots of ranks inside collectives (fresh100 dc010-dc012, fresh67 bu005)
    (
        "Thread 1 (Thread 0x7f16a03ad000 (LWP 496115)):\n#13 0x00007f16a0c82fe6 in "
        "cudaLaunchKernel () from /usr/local/lib/libnccl.so.2\n#14 0x00007f16a0b8d7bd in "
        "ncclLaunchKernel (comm=comm@entry=0x562475c915f0, plan=0x5624bb5223f0) at enqueue.cc:1092",
        "NCCL_TIMEOUT",
    ),
    (
        'Thread 8287 (active): "MainThread"\n    all_reduce (torch/distributed/'
        "distributed_c10d.py:2050)\n    backward (deepspeed/runtime/zero/stage3.py:2247)",
        "NCCL_TIMEOUT",
    ),
]
UCX += OLDER
NEURON = [
    # github.com/aws-neuron/aws-neuron-sdk and aws-k8s-tester (fresh101 dd001-dd017)
    (
        "2023-Aug-01 16:14:43.0210 332066:332508 [31] bootstrap.cc:89 CCOM WARN Timeout waiting "
        "for incoming connection (waited 120 sec)\n2023-Aug-01 16:14:43.0241 332066:332494 [29] "
        "include/socket.h:579 CCOM WARN Timeout waiting for RX (waited 120 sec) - retrying",
        "RENDEZVOUS_FAILURE",
    ),
    (
        "2024-Jul-30 14:22:30.244701 65191:65191 ERROR  TDRV:dmem_alloc_internal             "
        "        Failed to alloc DEVICE memory: 10485760",
        "CUDA_OOM",
    ),
    (
        "2024-Jun-02 04:05:36.428977   273:478   ERROR   NRT:nrt_load_collectives          "
        "          Unsupported topology. Supported number of Neuron Cores is 1, 2, 8, 16 or a "
        "multiple of 32",
        "NCCL_INVALID_USAGE",
    ),
    ("nrtd[1]: [TDRV:tdrv_init_mla_phase1] Could not open the device index:0", "CUDA_ERROR"),
    (
        'Nrt::BuildGlobalComm failed on NeuronCores 0-1(2):  nrt_status=1, message="Non '
        'specific failure".',
        "UNCLASSIFIED_FAILURE",
    ),
    # The failure dump: its context lines name no failure, its 'Failure:' line does.
    (
        "2025-Jun-28 22:19:15.499807  8652:8728  ERROR   NRT:nrt_infodump      Kernel: Linux "
        "6.1.115-126.197.amzn2023.x86_64 #1 SMP PREEMPT_DYNAMIC\n2025-Jun-28 22:19:15.504560  "
        "8652:8728  ERROR   NRT:nrt_infodump      Driver version: 2.19.64.0\n2025-Jun-28 "
        "22:19:15.504570  8652:8728  ERROR   NRT:nrt_infodump      Failure: NRT_INVALID in "
        "nrt_load()",
        "UNCLASSIFIED_FAILURE",
    ),
    (
        "^Csignal: interrupt\nFAIL    github.com/aws/aws-k8s-tester/test/cases/neuron 1735.234s",
        "EXTERNAL_SIGNAL",
    ),
    # mlcommons/mlperf-automations and NVIDIA/nccl (fresh103 df004, df007)
    (
        "[1725000000.1] [node:1:0]  ib_md.c:293  UCX  ERROR mlx5_0: allocate memory : Please "
        "set max locked memory (ulimit -l) to 'unlimited' (current: 8192 kbytes)",
        "MEMLOCK",
    ),
    (
        "[1723337199.099229] [ai-worker03:1382 :0]     tl_shm_team.c:617  TL_SHM ERROR Child "
        "failed to attach to shmseg, errno: Invalid argument",
        "UNCLASSIFIED_FAILURE",
    ),
]
UCX += NEURON
XLA = [
    # github.com/alpa-projects/alpa and jax-ml/jax (fresh102 de006, de016)
    (
        "jaxlib.xla_extension.XlaRuntimeError: UNKNOWN: Failed to start RPC server",
        "RENDEZVOUS_FAILURE",
    ),
    (
        "E0312 10:11:12.000000 1234 status_macros.cc:57] INTERNAL: RET_CHECK failure (external/"
        "xla/xla/pjrt/gpu/gpu_device.cc:345) local_device->device_ordinal() == "
        "local_topology.devices_size()",
        "UNCLASSIFIED_FAILURE",
    ),
]
UCX += XLA
LAUNCH = [
    # github.com/HongxinXiang/pytorch-multi-GPU-training-tutorial (fresh105 dh003): the store
    # barrier's reset connection, then torch.distributed.launch's check of the worker
    (
        "RuntimeError: Connection reset by peer\nsubprocess.CalledProcessError: Command "
        "'['/opt/conda/bin/python', '-u', 'train.py', '--local_rank=1']' returned non-zero exit "
        "status 1.",
        "PEER_EXITED",
    ),
    (
        "subprocess.CalledProcessError: Command '['/opt/conda/bin/python', '-u', 'train.py']' "
        "returned non-zero exit status 1.",
        "APP_EXCEPTION",
    ),
]
UCX += LAUNCH
UCX += [
    # github.com/ray-project/ray (fresh109 dl008): Tune's verdict, at its logger's ERROR level
    (
        "2022-11-15 19:26:36,618\tERROR tune.py:773 -- Trials did not complete: "
        "[TorchTrainer_96bfe_00000]",
        "UNCLASSIFIED_FAILURE",
    ),
]


# github.com/NVIDIA/nccl's proxy lines behind a tracker's automatic links (fresh91 ct003):
# an abort (res=3, 'abort called'), then the proxy's failed operation.
LINKED = (
    "A100-02:2358430:2358556 [1] [[proxy.cc:1495](http://proxy.cc:1495/)](http://proxy.cc:1495/) "
    "NCCL WARN [Service thread] Could not receive type from localRank 7, res=3, closed=0\n"
    "A100-02:2358430:2358556 [1] [[proxy.cc:1519](http://proxy.cc:1519/)](http://proxy.cc:1519/) "
    "NCCL WARN [Proxy Service 9] Failed to execute operation Connect from rank 15, retcode 3\n"
    "A100-02:2358430:2358556 [1] NCCL INFO socketProgressOpt: abort called"
)


def test_automatic_links_are_undone_and_written_links_kept() -> None:
    line = LINKED.splitlines()[0].encode()
    assert b"[1] proxy.cc:1495 NCCL WARN" in strip_autolinks(line)
    written = b"see [the NCCL docs](https://docs.nvidia.com/deeplearning/nccl/) for more"
    assert strip_autolinks(written) == written


@pytest.mark.parametrize("engine", ENGINES)
def test_a_linked_proxy_abort_is_a_failure_of_no_peer(engine: str, tmp_path: Path) -> None:
    report = _analyze_text(LINKED, engine)
    assert report["root_cause"] == "UNCLASSIFIED_FAILURE"
    codes = {f["code"] for f in report["findings"] if f["status"] == "FAIL"}  # type: ignore[attr-defined]
    assert "PEER_EXITED" not in codes


# github.com/rapidsai/cugraph (fresh91 ct017): exceptions CPython ignored at shutdown after
# the run printed its result.
IGNORED = """0.04763150215148926
Exception ignored in: <function Future.__del__ at 0x7f1d1c7e9e50>
Traceback (most recent call last):
  File "/root/miniconda3/envs/cugraph/lib/python3.9/site-packages/distributed/client.py", line 511, in __del__
TypeError: 'NoneType' object is not callable
Exception ignored in: <function Future.__del__ at 0x7f1d1c7e9e50>
Traceback (most recent call last):
  File "/root/miniconda3/envs/cugraph/lib/python3.9/site-packages/distributed/client.py", line 511, in __del__
TypeError: 'NoneType' object is not callable"""


@pytest.mark.parametrize("engine", ENGINES)
def test_an_ignored_exception_is_a_warning(engine: str, tmp_path: Path) -> None:
    report = _analyze_text(IGNORED, engine)
    assert report["root_cause"] is None
    statuses = {f["code"]: f["status"] for f in report["findings"]}  # type: ignore[attr-defined]
    assert statuses["APP_EXCEPTION"] == "WARN"
    # The same exception line with no header before it ends the process: a failure.
    raised = "\n".join(line for line in IGNORED.splitlines() if "ignored" not in line)
    assert root_of(tmp_path, raised, engine) == "APP_EXCEPTION"
    # An ignored exception beside one that was raised leaves the raised one a failure.
    both = IGNORED + "\nRuntimeError: CUDA out of memory in step 12\n"
    assert _analyze_text(both, engine)["root_cause"] is not None


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("seed", range(6))
def test_ignored_exceptions_split_over_rank_files_stay_warnings(
    seed: int, engine: str, tmp_path: Path
) -> None:
    # Spread over files among healthy output, a header and its exception line may land in
    # different files: the count of headers still accounts for the exception lines.
    paths = spread_case(IGNORED, tmp_path, random.Random(seed))
    report = analyze_logs([str(p) for p in paths], backend=engine).to_dict()
    assert report["root_cause"] is None
    assert not [f for f in report["findings"] if f["status"] == "FAIL"]


@pytest.mark.parametrize("engine", ENGINES)
def test_a_snapshot_warning_yields_to_a_failure(engine: str, tmp_path: Path) -> None:
    snapshot = "#8  0x00007f04fc98d6e6 in ncclGroupEnd () from /usr/lib/libnccl.so.2"
    crash = "[host:1234:0:1234] Caught signal 11 (Segmentation fault: address not mapped)"
    assert root_of(tmp_path, snapshot + "\n" + crash, engine) == "RANK_CRASH"
    report = _analyze_text(snapshot, engine)
    statuses = {f["code"]: f["status"] for f in report["findings"]}  # type: ignore[attr-defined]
    assert statuses["NCCL_TIMEOUT"] == "WARN"


@pytest.mark.parametrize("engine", ENGINES)
def test_tensorflows_warning_level_library_loads_are_no_failure(
    engine: str, tmp_path: Path
) -> None:
    # github.com/Oneflow-Inc/DLPerf (fresh105 dh004): a run that trained and evaluated.
    line = (
        "2020-08-26 21:39:39.568412: W tensorflow/stream_executor/platform/default/"
        "dso_loader.cc:59] Could not load dynamic library 'libcupti.so.10.1'; dlerror: "
        "libcupti.so.10.1: cannot open shared object file: No such file or directory"
    )
    assert root_of(tmp_path, line, engine) is None
    # TensorFlow's own verdict that the GPU libraries are missing stays a failure.
    failed = (
        "2020-08-26 21:39:39.570000: W tensorflow/core/common_runtime/gpu/gpu_device.cc:1753] "
        "Cannot dlopen some GPU libraries. Please make sure the missing libraries mentioned "
        "above are installed properly. Skipping registering GPU devices..."
    )
    assert root_of(tmp_path, line + "\n" + failed, engine) is not None


# github.com/NVIDIA/nccl-tests and NVIDIA/nccl (fresh107 dj001, dj002); github.com/ashleve/
# lightning-hydra-template and coqui-ai/STT (fresh108 dk004, dk005)
PEERS = [
    (
        "NAME :70918:70918 [0] NCCL INFO Bootstrap : Using lo:127.0.0.1<0>\n"
        "NAME :70918:70927 [0] misc/socket.cc:50 NCCL WARN socketProgress: Connection closed by "
        "remote peer localhost<56086>",
        "PEER_EXITED",
    ),
    (
        "[0] misc/socket.cc:71 NCCL WARN socketProgress: Connection closed by remote peer "
        "10.10.1.3<36138>\n[0] NCCL INFO bootstrap.cc:701 -> 6",
        "PEER_EXITED",
    ),
    (
        "The client socket has failed to connect to [ip6-localhost]:24355 (errno: 99 - Cannot "
        "assign requested address)",
        "NET_UNREACHABLE",
    ),
    ("RuntimeError: DataLoader worker is killed by signal: Killed.", "CONTAINER_OOM"),
]


@pytest.mark.parametrize("engine", ENGINES)
def test_c10ds_warning_level_connect_retries_are_benign(engine: str, tmp_path: Path) -> None:
    retry = (
        "[W socket.cpp:601] [c10d] The client socket has failed to connect to [localhost]:29500 "
        "(errno: 99 - Cannot assign requested address)."
    )
    assert root_of(tmp_path, retry, engine) is None


WAVE5 = [
    # Lightning-AI/pytorch-lightning (fresh113 dp007): bash's 'Terminated' after a tqdm bar
    (
        "Epoch 1:  29%|##   | 9413/32393 [3:28:18<8:28:33,  1.33s/it, loss=3.23, v_num=9]Terminated ",
        "EXTERNAL_SIGNAL",
    ),
    # fresh114 dq004, dq006: NVRM's adapter init; an Xid record's continuation lines
    ("[   38.773762] NVRM: RmInitAdapter failed! (0x26:0xffff:1127)", "GPU_XID"),
    (
        "[1234.5] NVRM: Xid (PCI:0000:05:00): 13, name=llama-server, Graphics SM Warp Exception\n"
        "      Graphics Exception: channel 0x09, Class 0000c7c0, Offset 00000000, Data 00000000",
        "GPU_XID",
    ),
    # github.com/aws/aws-ofi-nccl (fresh115 dr001, dr002, dr005)
    (
        "[0]:Unable to write to EQ: Missing or unavailable event queue. err: Unknown error -12 "
        "(-12) prov_errno: Unknown error -12 (-12) prov/efa/src/rxr/rxr.h:993",
        "MEMLOCK",
    ),
    (
        "Unable to write to EQ: Missing or unavailable event queue. err: Input/output error (5) "
        "prov_errno: Unknown error -114 (-114) prov/rxr/src/rxr.h:1042",
        "EFA_ERROR",
    ),
    ("$ fi_info -p efa\nfi_getinfo: -61 (No data available)", "EFA_TCP_FALLBACK"),
    # github.com/vllm-project/vllm (fresh111 dn007): Ray's raylet died, reasons only listed
    (
        "(EngineCore_DP0 pid=3639978) (raylet) Raylet is terminated. Termination is unexpected. "
        "Possible reasons include: (1) SIGKILL by the user or system OOM killer, (2) Invalid "
        "memory access from Raylet causing SIGSEGV or SIGBUS, (3) Other termination signals.",
        "PEER_EXITED",
    ),
    # py-spy's dump of a stuck rank whose pasted frames stop outside any collective (fresh100
    # dc002): a hang's warning
    (
        'Thread 4888 (idle): "MainThread"\n    backward (torch/autograd/__init__.py:289)\n'
        "Thread 8287 (active)\n    partition_grads (deepspeed/runtime/zero/stage3.py:1500)",
        "NCCL_TIMEOUT",
    ),
    # A Python exception named plain 'Exception' still reads as one.
    ("Exception: Training failed at step 100", "APP_EXCEPTION"),
    ("[rank3]: Exception: Training failed at step 100", "APP_EXCEPTION"),
]

# Every program line above, one table: each names its code as the root of a one-file log.
LINES = UCX + PEERS + WAVE5


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("text", "code"), LINES, ids=[c[0][:30] for c in LINES])
def test_program_failure_lines(text: str, code: str, engine: str, tmp_path: Path) -> None:
    assert root_of(tmp_path, text, engine) == code
