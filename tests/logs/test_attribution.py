"""Rank, host, process and time from the prefixes real launchers and libraries print.
Each line below is a real line from tests/fixtures (corpus or captures)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from hyperpod_nccl.rules.attribution import attribute, file_defaults, iso

CASES = [
    # `kubectl logs --prefix` before the torchrun prefix (captured line above, as kubectl adds it)
    (
        "[pod/llama-pretrain-worker-1/pytorch] [rank2]:[E1130 00:29:38.073370612 "
        "ProcessGroupNCCL.cpp:689] [Rank 2] Watchdog caught",
        2,
        "llama-pretrain-worker-1",
        None,
    ),
    # kubectl's prefix, then NCCL's own host:pid:tid, which names the process (corpus h015)
    (
        "[pod/train-pod-0/pytorch] e57377aacbb6:1203:1227 [0] misc/socket.cc:480 NCCL WARN "
        "socketStartConnect: Connect to 172.17.0.2<38847> failed : Software caused connection abort",
        None,
        "e57377aacbb6",
        1203,
    ),
    # torchrun per-rank prefix (captured, torch 2.11)
    (
        "[rank0]:[E1130 00:29:38.073370612 ProcessGroupNCCL.cpp:689] [Rank 0] Watchdog caught",
        0,
        None,
        None,
    ),
    # Open MPI tag and NCCL's host:pid:tid [dev] (corpus a049)
    (
        "[1,2]<stdout>:smc-gpu-03:29880:30398 [0] init.cc:497 NCCL WARN Duplicate GPU detected",
        2,
        "smc-gpu-03",
        29880,
    ),
    # pdsh/DeepSpeed host label in front of NCCL's own prefix (corpus a018)
    (
        "node01: VM-0-14-centos:108:593 [0] transport/net_ib.cc:816 NCCL WARN NET/IB",
        None,
        "VM-0-14-centos",
        108,
    ),
    # DeepSpeed launcher host label alone (corpus b071)
    ("gpu004: RuntimeError: [15] is setting up NCCL communicator", None, "gpu004", None),
    # srun -l label
    ("12: Traceback (most recent call last):", 12, None, None),
    # CloudWatch Logs console columns (probes, efa-ofi-1.11.0-init-p4d-sagemaker-cloudwatch)
    (
        "  | 2024-11-28T07:42:11.526Z | algo-1:17775:17847 [2] NCCL INFO NET/OFI Setting provider_filter to efa",
        None,
        "algo-1",
        17775,
    ),
    # Ray actor prefix (corpus b029)
    (
        "(Runner pid=868697) Error while creating shared memory segment /dev/shm/nccl-UmqSM9",
        None,
        None,
        868697,
    ),
    # a log viewer's counter column before PyTorch's rank prefix (hiyouga/LlamaFactory#7396)
    (
        "[80747] [rank4]:[E321 02:07:08.414640780 ProcessGroupNCCL.cpp:607] [Rank 4] Watchdog caught",
        4,
        None,
        None,
    ),
    # syslog with the host after the time
    (
        "Apr 25 19:05:01 netlogo01 kernel: [ 7097.005193] [  pid  ]   uid  tgid total_vm",
        None,
        "netlogo01",
        None,
    ),
]


@pytest.mark.parametrize(("line", "rank", "host", "pid"), CASES)
def test_prefixes(line: str, rank: int | None, host: str | None, pid: int | None) -> None:
    ctx = attribute(line)
    assert (ctx.rank, ctx.host, ctx.pid) == (rank, host, pid)


def test_words_that_look_like_labels_are_not_hosts() -> None:
    for line in (
        "RuntimeError: CUDA error: unknown error",
        "WARNING: something",
        "Epoch: [7]  [ 0/1251]",
    ):
        assert attribute(line).host is None


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (
            "[2024-05-28 14:04:27,954] torch.distributed.elastic.multiprocessing.api: [WARNING]",
            "2024-05-28T14:04:27",
        ),
        (
            "[Fri Aug 30 11:43:09 2024] NVRM: Xid (PCI:0000:cb:00): 13, pid='<unknown>'",
            "2024-08-30T11:43:09",
        ),
        (
            "192.168.11.119: kern: warning: [2026-04-22T21:27:51.291882381Z]: NVRM: Xid",
            "2026-04-22T21:27:51.291Z",
        ),
        (
            "kern  :warn  : 2025-01-21T04:41:44,283302+00:00 NVRM: Xid (PCI:0000:38:00): 13",
            "2025-01-21T04:41:44.283Z",
        ),
        ("gpu004: 02/11/2024 22:38:34 - INFO - llmtuner.model.loader", "2024-02-11T22:38:34"),
        ("ip-10-0-0-1:123:456 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC", None),
    ],
)
def test_timestamps(line: str, expected: str | None) -> None:
    assert iso(attribute(line).timestamp) == expected


def test_zoned_timestamps_are_reported_in_utc() -> None:
    ctx = attribute("  | 2025-05-16T16:39:51.208-07:00 | ip-10-36-29-253:79:79 [0] NCCL INFO x")
    assert ctx.timestamp == datetime(2025, 5, 16, 23, 39, 51, 208000, tzinfo=timezone.utc)


@pytest.mark.parametrize(
    ("name", "rank", "host"),
    [
        ("logs/rank3.log", 3, None),
        ("out/rank_12.txt.gz", 12, None),
        ("pytorch-job-worker-2.log", None, "pytorch-job-worker-2"),
        ("nccl.ip-10-1-2-3.1234.txt", None, "ip-10-1-2-3"),
        ("dmesg-i-0db7083f3fcbebb65.txt", None, "i-0db7083f3fcbebb65"),
        ("train.log", None, None),
    ],
)
def test_file_names(name: str, rank: int | None, host: str | None) -> None:
    assert file_defaults(name) == (rank, host)
