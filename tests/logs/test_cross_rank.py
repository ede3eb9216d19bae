"""Reasoning across ranks: versions, the ranks that fell behind, benign lines."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hyperpod_nccl.api import analyze_logs

# Real NCCL banner and watchdog line shapes (tests/fixtures/corpus/dev.jsonl, b073 and a055).
BANNER = "ip-10-0-{n}-5:9822:9822 [0] NCCL INFO NCCL version {v}+cuda12.9"
COMM = "ip-10-0-{n}-5:9822:9928 [0] NCCL INFO comm 0x55d0e1 rank {r} nranks 4 cudaDev 0 busId 53000 commId 0x1b2 - Init COMPLETE"
WATCHDOG = "[rank{r}]:[E ProcessGroupNCCL.cpp:1537] [PG 0 Rank {r}] Timeout at NCCL work: {seq}, last enqueued NCCL work: {enq}, last completed NCCL work: {done}."
WATCHDOG2 = "[rank{r}]:[E ProcessGroupNCCL.cpp:737] [Rank {r}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={seq}, OpType=ALLREDUCE, Timeout(ms)=600000) ran for 600123 milliseconds before timing out."


def _report(tmp_path: Path, files: dict[str, list[str]]) -> dict[str, Any]:
    for name, lines in files.items():
        (tmp_path / name).write_text("\n".join(lines) + "\n")
    return analyze_logs([str(tmp_path)]).to_dict()


def _finding(report: dict[str, Any], code: str) -> dict[str, Any]:
    return next(f for f in report["findings"] if f["code"] == code)


def test_versions_seen_only_in_banners_are_information_beside_the_timeout(
    tmp_path: Path,
) -> None:
    # Banners alone do not place both versions in one job (two jobs' logs look the same).
    files = {
        f"rank{r}.log": [
            BANNER.format(n=r, v="2.21.5" if r < 3 else "2.18.1"),
            WATCHDOG2.format(r=r, seq=12),
        ]
        for r in range(4)
    }
    report = _report(tmp_path, files)
    assert report["root_cause"] == "NCCL_TIMEOUT"
    mismatch = _finding(report, "NCCL_VERSION_MISMATCH")
    assert mismatch["status"] == "INFO"
    assert "2.21.5" in mismatch["title"] and "2.18.1" in mismatch["title"]


def test_version_difference_without_any_failure_is_no_warning_nor_cause(tmp_path: Path) -> None:
    files = {f"rank{r}.log": [BANNER.format(n=r, v="2.21.5" if r else "2.18.1")] for r in range(2)}
    report = _report(tmp_path, files)
    assert report["root_cause"] is None
    assert _finding(report, "NCCL_VERSION_MISMATCH")["status"] == "INFO"


def test_a_failing_line_outranks_a_banner_version_difference(tmp_path: Path) -> None:
    files = {f"rank{r}.log": [BANNER.format(n=r, v="2.21.5" if r else "2.18.1")] for r in range(2)}
    files["rank1.log"].append(
        "[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 1 has a total capacity of 79.10 GiB"
    )
    report = _report(tmp_path, files)
    assert report["root_cause"] == "CUDA_OOM"


def test_ranks_that_enqueued_fewer_collectives_are_named(tmp_path: Path) -> None:
    files = {
        "rank0.log": [WATCHDOG.format(r=0, seq=6075, enq=6139, done=6074)],
        "rank1.log": [WATCHDOG.format(r=1, seq=6075, enq=6139, done=6074)],
        "rank2.log": [WATCHDOG.format(r=2, seq=6070, enq=6070, done=6069)],
    }
    report = _report(tmp_path, files)
    stalled = _finding(report, "STALLED_RANKS")
    assert stalled["status"] == "WARN"
    assert stalled["ranks"] == [2]
    assert stalled["details"]["seq"] == 6075
    assert "rank 2 did not reach collective" in stalled["title"]


def test_ranks_missing_from_the_timeout_are_named_when_world_size_is_known(tmp_path: Path) -> None:
    files = {f"rank{r}.log": [COMM.format(n=r, r=r)] for r in range(4)}
    for r in (0, 1, 3):
        files[f"rank{r}.log"].append(WATCHDOG2.format(r=r, seq=749))
    report = _report(tmp_path, files)
    assert report["root_cause"] == "NCCL_TIMEOUT"
    stalled = _finding(report, "STALLED_RANKS")
    assert stalled["ranks"] == [2]
    assert stalled["details"]["silent_ranks"] == [2]
    assert _finding(report, "NCCL_TIMEOUT")["ranks"] == [0, 1, 3]


def test_known_benign_lines_never_fail(tmp_path: Path) -> None:
    benign = [
        "[W socket.cpp:601] [c10d] The IPv6 network addresses of (localhost, 51595) cannot be retrieved (gai error: -2 - Name or service not known).",
        "kolyoz2:25146:25852 [0] NCCL INFO [Service thread] Connection closed by localRank 0",
        "[1,0]<stdout>:test-nccl-efa-worker-0:21:21 [0] NCCL INFO NET/Plugin: Failed to find ncclCollNetPlugin_v5 symbol.",
    ]
    report = _report(tmp_path, {"rank0.log": benign * 50})
    assert report["root_cause"] is None and report["issues_found"] == 0


def test_root_cause_names_rank_and_host_from_prefixes(tmp_path: Path) -> None:
    lines = [
        "[1,5]<stdout>:p5-worker-1:29880:30398 [5] include/alloc.h:178 NCCL WARN Cuda failure 'out of memory'",
        "[1,2]<stdout>:p5-worker-0:29881:30401 [2] misc/socket.cc:49 NCCL WARN socketProgress: Connection closed by remote peer p5-worker-1<51159>",
    ]
    report = _report(tmp_path, {"mpirun.out": lines})
    root = _finding(report, "CUDA_OOM")
    assert report["root_cause"] == "CUDA_OOM"
    assert root["ranks"] == [5] and root["hosts"] == ["p5-worker-1"]
    assert root["explains"] == ["PEER_EXITED"]
    assert root["evidence"][0]["source"].endswith("mpirun.out:1")


def test_first_seen_uses_timestamps_across_files(tmp_path: Path) -> None:
    files = {
        "a.log": ["2026-11-29T10:12:00Z OSError: [Errno 28] No space left on device"],
        "b.log": ["2026-11-29T10:10:01Z OSError: [Errno 28] No space left on device"],
    }
    report = _report(tmp_path, files)
    assert _finding(report, "DISK_FULL")["first_seen"] == "2026-11-29T10:10:01Z"


def test_a_rank_seen_with_two_versions_is_no_evidence_of_a_mismatch(tmp_path: Path) -> None:
    # One process loads one libnccl: rank 1's file holding banners of 2.18.1 and 2.21.5 is
    # two runs' output (or two jobs') together, so the timeout is the finding, not versions.
    files = {f"rank{r}.log": [BANNER.format(n=r, v="2.21.5")] for r in range(4)}
    files["rank1.log"].insert(0, BANNER.format(n=7, v="2.18.1"))
    for r in range(4):
        files[f"rank{r}.log"].append(WATCHDOG2.format(r=r, seq=12))
    report = _report(tmp_path, files)
    assert report["root_cause"] == "NCCL_TIMEOUT"
    assert not [f for f in report["findings"] if f["code"] == "NCCL_VERSION_MISMATCH"]


# Real line shapes: NCCL's bootstrap interface and its communicator summary (nNodes), as in
# tests/fixtures/corpus/fresh.jsonl f014 and tests/logs/test_single_node_fallback.py.
LOOPBACK = "{h}:1287:1287 [0] NCCL INFO Bootstrap : Using lo:127.0.0.1<0>"
NODES = "{h}:1287:1328 [0] NCCL INFO comm 0xbde4170 rank 0 nRanks 2 nNodes {k} localRanks 2"


def test_loopback_on_a_host_whose_communicators_span_one_node_is_no_fault(
    tmp_path: Path,
) -> None:
    # Another host's timeout beside a single-node job's log that bootstraps on lo.
    files = {
        "rank0.log": [LOOPBACK.format(h="box-a"), NODES.format(h="box-a", k=1)],
        "rank1.log": ["box-b:11:11 [0] NCCL INFO x", WATCHDOG2.format(r=1, seq=3)],
    }
    report = _report(tmp_path, files)
    assert report["root_cause"] == "NCCL_TIMEOUT"
    assert not [f for f in report["findings"] if f["code"] == "SOCKET_IFNAME"]
    # The same host in a two-node communicator: loopback reaches no other node.
    files["rank0.log"][1] = NODES.format(h="box-a", k=2)
    report = _report(tmp_path, files)
    assert report["root_cause"] == "SOCKET_IFNAME"


def _two_jobs(comm_ids: tuple[str, str]) -> dict[str, list[str]]:
    """Ranks 0-1 on NCCL 2.21.5 and ranks 2-3 on 2.18.1, each naming its communicator."""
    files = {}
    for r in range(4):
        version, comm_id = ("2.21.5", comm_ids[0]) if r < 2 else ("2.18.1", comm_ids[1])
        files[f"rank{r}.log"] = [
            BANNER.format(n=r, v=version),
            COMM.format(n=r, r=r).replace("commId 0x1b2", f"commId {comm_id}"),
            WATCHDOG2.format(r=r, seq=12),
        ]
    return files


def test_versions_in_one_communicator_explain_the_timeout(tmp_path: Path) -> None:
    report = _report(tmp_path, _two_jobs(("0x1b2", "0x1b2")))
    assert report["root_cause"] == "NCCL_VERSION_MISMATCH"
    mismatch = _finding(report, "NCCL_VERSION_MISMATCH")
    assert "NCCL_TIMEOUT" in mismatch["explains"] and "one communicator" in mismatch["title"]


def test_versions_in_one_communicator_without_a_failure_are_a_warning(tmp_path: Path) -> None:
    files = _two_jobs(("0x1b2", "0x1b2"))
    for lines in files.values():
        del lines[2]  # no timeout
    report = _report(tmp_path, files)
    assert _finding(report, "NCCL_VERSION_MISMATCH")["status"] == "WARN"


def test_versions_of_communicators_that_share_no_id_are_no_mismatch(tmp_path: Path) -> None:
    # Processes of one communicator print its commId: two ids, two jobs' logs side by side.
    report = _report(tmp_path, _two_jobs(("0x1b2", "0x9f4")))
    assert report["root_cause"] == "NCCL_TIMEOUT"
    assert _finding(report, "NCCL_VERSION_MISMATCH")["status"] == "INFO"


# NVIDIA/nccl#1634 (tests/fixtures/corpus/dev.jsonl c051): one host loads the SHARP net plugin,
# the other none.
PLUGINS = (
    "HGX-H100-11:18226:18274 [5] NCCL INFO NET/Plugin: Could not find: libnccl-net.so. Using "
    "internal network plugin.",
    "HGX-H100-04:589474:589541 [0] NCCL INFO Plugin Path : "
    "/opt/hpcx/nccl_rdma_sharp_plugin/lib/libnccl-net.so",
)
PLUGIN_COMM = (
    "{h}:{p}:1 [0] NCCL INFO comm 0x55d0e1 rank {r} nranks 2 cudaDev 0 busId 53000 commId {c} - "
    "Init COMPLETE"
)


def _plugins(comm_ids: tuple[str, str]) -> dict[str, list[str]]:
    hosts = (("HGX-H100-11", 18226), ("HGX-H100-04", 589474))
    return {
        f"rank{r}.log": [
            PLUGINS[r],
            PLUGIN_COMM.format(h=hosts[r][0], p=hosts[r][1], r=r, c=comm_ids[r]),
            WATCHDOG2.format(r=r, seq=3),
        ]
        for r in range(2)
    }


def test_hosts_of_one_communicator_on_different_net_plugins_explain_the_hang(
    tmp_path: Path,
) -> None:
    report = _report(tmp_path, _plugins(("0x1b2", "0x1b2")))
    assert report["root_cause"] == "NCCL_VERSION_MISMATCH"


def test_hosts_of_separate_communicators_on_different_plugins_are_information(
    tmp_path: Path,
) -> None:
    report = _report(tmp_path, _plugins(("0x1b2", "0x9f4")))
    assert report["root_cause"] == "NCCL_TIMEOUT"
    assert _finding(report, "NCCL_VERSION_MISMATCH")["status"] == "INFO"


def test_a_plugin_line_that_names_no_host_places_no_plugin_on_one(tmp_path: Path) -> None:
    # The same line without NCCL's host prefix (a paste, an other job's file) is no host's.
    files = _plugins(("0x1b2", "0x1b2"))
    files["rank0.log"][0] = (
        "NET/Plugin: Could not find: libnccl-net.so. Using internal network plugin."
    )
    report = _report(tmp_path, files)
    assert report["root_cause"] == "NCCL_TIMEOUT"


def test_plugins_of_hosts_nothing_ties_together_are_a_warning(tmp_path: Path) -> None:
    # A healthy run's EFA plugin (github.com/antonai-work DeepEP validation log,
    # tests/fixtures/corpus/fresh33.jsonl am017) beside another cluster's internal plugin:
    # no communicator and no naming pattern says they are one job.
    files = {
        "rank0.log": [
            "deepep-efa-bench-0:69988:74244 [0] NCCL INFO NET/Plugin: Loaded net plugin "
            "Libfabric (v12)"
        ],
        "rank1.log": [PLUGINS[0]],
    }
    report = _report(tmp_path, files)
    assert report["root_cause"] is None
    assert _finding(report, "NCCL_VERSION_MISMATCH")["status"] == "WARN"


def test_plugins_of_hosts_named_alike_are_read_as_one_cluster(tmp_path: Path) -> None:
    # NVIDIA/nccl#1634 (dev.jsonl c051): the two HGX-H100 nodes, no communicator lines
    report = _report(tmp_path, {"rank0.log": [PLUGINS[0]], "rank1.log": [PLUGINS[1]]})
    assert report["root_cause"] == "NCCL_VERSION_MISMATCH"
