"""Failure lines no rule reads, named from their words (rules/topics.py): a real line of each
shape gets the code its words point at with both engines, lines at an informational level, a
person's prose and teardown stay silent, and the diagnosis keeps inferred codes out of the
way of a classified failure they do not explain. Real lines keep their thread; the blind sets
fresh25-fresh29 (tests/fixtures/corpus) hold the whole pastes."""

from __future__ import annotations

from pathlib import Path

import pytest

from hyperpod_nccl.api import analyze_logs
from hyperpod_nccl.rules.analyzer import LogAnalyzer
from hyperpod_nccl.rules.catalog import load_catalog
from hyperpod_nccl.rules.topics import TOPIC_CODES, failure_topic, informational, prose

CATALOG = load_catalog()
ANALYZERS = {backend: LogAnalyzer(CATALOG, backend=backend) for backend in ("re", "hyperscan")}

# (line, the code it gives)
NAMED = [
    # github.com/NVIDIA/nccl/issues/706 (fresh25 ae014): a NCCL WARN no rule reads
    (
        "[15]worker-23:83:2526 [0] misc/socket.cc:503 NCCL WARN Net : Call to recv from "
        "100.96.188.199<41468> failed : Connection timed out",
        "NET_UNREACHABLE",
    ),
    # github.com/NVIDIA/caffe/issues/492 (fresh29 ai012), Markdown underscores of the paste
    ("_Check_ failed: result == ncclSuccess (1 vs. 0)  unhandled cuda _error_", "CUDA_ERROR"),
    # github.com/NVIDIA/nccl/issues/33 (fresh29 ai023): NCCL 1's init failure
    ("NCCL Init failed (10) 'cuda malloc failed'", "CUDA_OOM"),
    # github.com/NVIDIA/nccl/issues/1921 (fresh27 ag001): an aws-ofi-nccl warning, its level cut
    ("NET/OFI Unexpected number of remote rails for dev 0. Expected 3 but got 2", "EFA_ERROR"),
    # github.com/amzn/amzn-drivers/issues/308 (fresh27 ag014): a kernel trace in the EFA driver
    ("[68998.684313]  efa_remove_device+0xb5/0xd0 [efa]", "EFA_ERROR"),
    # the fabric manager's own log (fresh14 e027)
    ("[ERROR] not all local fabric manager instances finished their configuration", "NVLINK_ERROR"),
    # github.com/rapidsai/deployment/issues/523 (fresh85 cn003): RMM's allocator under XGBoost
    (
        "> xgboost.core.XGBoostError: [02:14:02] /home/conda/feedstock_root/build_artifacts/"
        "xgboost-split_1733189075592/work/src/c_api/../common/device_helpers.cuh:393: Memory "
        "allocation error on worker 0: std::bad_alloc: out_of_memory: CUDA error at: "
        "/opt/conda/include/rmm/mr/device/cuda_memory_resource.hpp",
        "CUDA_OOM",
    ),
]

SILENT = [
    # github.com/aws/aws-ofi-nccl/pull/850 (fresh27 ag028): NCCL INFO, a fallback it takes
    "NCCL INFO NET/OFI Could not disable CUDA API usage for HMEM, disabling GDR ",
    # github.com/NVIDIA/nccl/issues/258 (fresh25 ae022): the poster's own sentence, and
    # cuda-gdb's warning level
    "It can run successfully,But an error occurred when running the program with cuda-gdb.",
    "> warning: Cuda API error detected: cudaDeviceEnablePeerAccess returned (0x2c0)",
    # teardown, and a comment line
    "[3.123456] efa 0000:3b:00.0 efa_0: Failed to destroy qp-3 [-19]",
    "# nccl-tests failed on EFA until the security group was fixed",
]


def test_every_topic_code_is_a_code_the_generic_rules_may_give() -> None:
    generic = [r for r in CATALOG.rules if r.classify in ("failure_line", "failure_words")]
    assert len(generic) >= 5
    for rule in generic:
        assert set(TOPIC_CODES) <= set(rule.codes), rule.id


@pytest.mark.parametrize("backend", ["re", "hyperscan"])
@pytest.mark.parametrize(("line", "code"), NAMED, ids=lambda v: str(v)[:40])
def test_a_failure_line_gets_the_code_its_words_name(backend: str, line: str, code: str) -> None:
    reading = ANALYZERS[backend].reading(line.encode())
    assert reading is not None
    assert reading[1] == code == failure_topic(line), reading


@pytest.mark.parametrize("backend", ["re", "hyperscan"])
@pytest.mark.parametrize("line", SILENT, ids=lambda v: v[:40])
def test_informational_prose_and_teardown_lines_name_nothing(backend: str, line: str) -> None:
    reading = ANALYZERS[backend].reading(line.encode())
    assert reading is None or reading[1] is None or reading[0] == "benign", reading


def test_the_filters_read_what_they_say() -> None:
    assert informational("node1:1:1 [0] NCCL INFO NET/IB : No device found.")
    assert informational("[W506 00:43:56.240378877 TCPStore.cpp:125] [c10d] recvValue failed")
    assert not informational("Couldn't init a GPU test: Error: CUDA_ERROR_UNKNOWN")
    assert prose("It can run successfully,But an error occurred when running the program.")
    assert not prose("Job exceeded its walltime limit. Job was aborted")
    assert not prose("foo: cannot open /dev/shm/nccl-abc: Permission denied")


def _report(tmp_path: Path, *lines: str) -> dict[str, object]:
    log = tmp_path / "rank0.log"
    log.write_text("\n".join(lines) + "\n")
    return analyze_logs([str(log)]).to_dict()


def _statuses(report: dict[str, object]) -> dict[str, str]:
    findings = report["findings"]
    assert isinstance(findings, list)
    return {f["code"]: f["status"] for f in findings}


def test_an_inferred_code_is_the_root_cause_of_a_symptom_it_explains(tmp_path: Path) -> None:
    # github.com/bytedance/byteps (fresh29 ai003): a failed CUDA check, then the abort
    report = _report(
        tmp_path,
        "[2020-12-31 08:38:59.299027: F byteps/common/**shared_memory.cc:39**] **Check failed: "
        "e == cudaSuccess || e == cudaErrorCudartUnloading CUDA: invalid argument**",
        "Aborted (core dumped)",
    )
    assert report["root_cause"] == "CUDA_ERROR"


def test_a_classified_failure_it_does_not_explain_keeps_it_context(tmp_path: Path) -> None:
    report = _report(
        tmp_path,
        "[15]worker-23:83:2526 [0] misc/socket.cc:503 NCCL WARN Net : Call to recv from "
        "100.96.188.199<41468> failed : Connection timed out",
        "OSError: [Errno 28] No space left on device",
    )
    assert report["root_cause"] == "DISK_FULL"
    statuses = _statuses(report)
    assert statuses["NET_UNREACHABLE"] == "INFO"


def test_an_error_level_line_that_names_nothing_is_a_warning(tmp_path: Path) -> None:
    report = _report(tmp_path, "ERROR:root:evaluation shard 3 is missing, skipping it")
    assert report["root_cause"] is None
    statuses = _statuses(report)
    assert statuses["UNCLASSIFIED_FAILURE"] == "WARN"


@pytest.mark.parametrize("backend", ["re", "hyperscan"])
def test_a_one_letter_info_level_names_nothing(backend: str) -> None:
    # github.com/NVIDIA/TensorRT-LLM pull request (tests/fixtures/corpus/fresh20.jsonl i027):
    # TensorRT-LLM's '[I]' level, a probe that falls through to the next backend
    line = "[TRT-LLM] [I] NVLinkOneSided not available: Invalid Argument"
    reading = ANALYZERS[backend].reading(line.encode())
    assert reading is None or reading[1] is None, reading


def test_an_exception_whose_message_names_what_failed_is_that_failure(tmp_path: Path) -> None:
    # github.com/verl-project/verl (tests/fixtures/corpus/fresh37.jsonl aq008): vLLM's cumem
    # allocator raises with CUDA's own out-of-memory text, which no CUDA rule's shape reads
    report = _report(
        tmp_path,
        "RuntimeError: CUDA Error: out of memory at /workspace/csrc/cumem_allocator.cpp:62",
    )
    assert report["root_cause"] == "CUDA_OOM"
    finding = next(f for f in report["findings"] if f["code"] == "CUDA_OOM")  # type: ignore[attr-defined]
    assert finding["details"]["inferred"] is True


def test_an_exception_naming_a_device_stays_the_programs_error(tmp_path: Path) -> None:
    # github.com/pytorch/pytorch (tests/fixtures/corpus/fresh26.jsonl af029): 'cuda:1' names
    # a device, not a failed CUDA call
    report = _report(
        tmp_path,
        "[rank1]: RuntimeError: Expected all tensors to be on the same device, but found at "
        "least two devices, cpu and cuda:1!",
    )
    assert report["root_cause"] == "APP_EXCEPTION"


def test_an_inferred_exception_yields_to_a_classified_failure(tmp_path: Path) -> None:
    report = _report(
        tmp_path,
        "[rank0]:[E1201 10:11:12.000000000 ProcessGroupNCCL.cpp:632] [Rank 0] Watchdog caught "
        "collective operation timeout: WorkNCCL(SeqNum=5, OpType=ALLREDUCE, NumelIn=1, "
        "NumelOut=1, Timeout(ms)=600000) ran for 600013 milliseconds before timing out.",
        "ConnectionResetError: [Errno 104] Connection reset by peer",
    )
    assert report["root_cause"] == "NCCL_TIMEOUT"


@pytest.mark.parametrize(
    ("why", "code"),
    [
        # github.com/sgl-project/sglang/issues/4096 (fresh37 aq007)
        ("failed to format addr, unknown family=0", "RENDEZVOUS_FAILURE"),
        # tests/fixtures/corpus b071
        (
            "Connection reset by peer. This may indicate a possible application crash on rank 0 "
            "or a network set up issue.",
            "PEER_EXITED",
        ),
    ],
)
def test_a_failed_unique_id_exchange_is_named_by_the_stores_error(
    tmp_path: Path, why: str, code: str
) -> None:
    report = _report(
        tmp_path,
        "torch.distributed.DistBackendError: [1] is setting up NCCL communicator and retrieving "
        f"ncclUniqueId from [0] via c10d key-value store by key '0', but store->get('0') got "
        f"error: {why}",
    )
    assert report["root_cause"] == code


def test_an_exit_status_1_yields_to_the_unclassified_failure_before_it(tmp_path: Path) -> None:
    # github.com/fundamentalvision/BEVFormer/issues/230 (fresh66 bt007): an NCCL error whose
    # class names no cause, then torchelastic's report that the rank exited 1
    report = _report(
        tmp_path,
        "RuntimeError: NCCL error in: ../torch/lib/c10d/ProcessGroupNCCL.cpp:911, unhandled "
        "system error, NCCL version 2.7.8",
        "ncclSystemError: System call (socket, malloc, munmap, etc) failed.",
        "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 0 "
        "(pid: 439853) of binary",
    )
    assert report["root_cause"] == "UNCLASSIFIED_FAILURE"
    statuses = _statuses(report)
    assert statuses["APP_EXCEPTION"] == "FAIL"


def test_a_launchers_exit_report_yields_to_a_classified_exit_status(tmp_path: Path) -> None:
    # github.com/mosaicml/llm-foundry/issues/726 (fresh16 n020): composer's launcher reports
    # the exit status twice, once in a form only the generic exit-report rule reads
    report = _report(
        tmp_path,
        "ERROR:composer.cli.launcher:Rank 0 crashed with exit code 1.",
        "Global rank 0 (PID 147193) exited with code 1",
    )
    assert report["root_cause"] == "APP_EXCEPTION"
    statuses = _statuses(report)
    assert statuses["UNCLASSIFIED_FAILURE"] == "INFO"


def test_a_launchers_exit_report_alone_is_still_a_failure(tmp_path: Path) -> None:
    report = _report(tmp_path, "Global rank 0 (PID 147193) exited with code 1")
    assert report["root_cause"] == "UNCLASSIFIED_FAILURE"
