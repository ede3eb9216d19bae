"""The aws-ofi-nccl plugin failing to start on a job whose communicators all span one node
(NCCL's 'comm ... nRanks n nNodes 1' line) is a warning, not the failure (issue 18: a healthy
single-node run with alarming OFI warnings was called EFA_TCP_FALLBACK). With one node NCCL
moves data by P2P, SHM or NVLink and no network transport carries anything; the same plugin
failure on a job that spans nodes stays the root cause.

The log is a real single-rank NCCL 2.28.9 init captured on an H200 (tests/fixtures/captured/
gpu/nccl-info-healthy-init-1rank.log) with aws-ofi-nccl's real 'initialization failed' warning
(nccl_net_ofi_create_plugin, as posted in aws/aws-k8s-tester#454, corpus case b020) on its
host, where NCCL then uses sockets."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rule_cases import ENGINES

from hyperpod_nccl.api import analyze_logs

CAPTURED = Path(__file__).parents[1] / "fixtures" / "captured" / "gpu"
OFI_FAILED = "vm:532:532 [0] nccl_net_ofi_create_plugin:257 NCCL WARN NET/OFI aws-ofi-nccl initialization failed"


def _log(tmp_path: Path, nodes: int | None, extra: str = "") -> Path:
    lines = (CAPTURED / "nccl-info-healthy-init-1rank.log").read_text("utf-8").splitlines()
    at = next(i for i, line in enumerate(lines) if "NET/Plugin: Could not find" in line)
    lines.insert(at + 1, OFI_FAILED)
    comm = " nRanks 1 nNodes 1 localRanks"
    if nodes is None:
        # No nNodes line, and a communicator of two ranks of which this log holds one: the
        # other rank may be on another node.
        lines = [line.replace(" nranks 1 ", " nranks 2 ") for line in lines if comm not in line]
    else:
        lines = [line.replace(comm, f" nRanks 1 nNodes {nodes} localRanks") for line in lines]
    path = tmp_path / "rank0.log"
    path.write_text("\n".join(lines) + "\n" + extra, "utf-8")
    return path


def _report(path: Path, engine: str) -> dict[str, object]:
    report: dict[str, object] = analyze_logs([str(path)], backend=engine).to_dict()
    return report


def _status(report: dict[str, object], code: str) -> str | None:
    findings = report["findings"]
    assert isinstance(findings, list)
    return next((f["status"] for f in findings if f["code"] == code), None)


@pytest.mark.parametrize("engine", ENGINES)
def test_one_node_makes_the_fallback_a_warning(engine: str, tmp_path: Path) -> None:
    report = _report(_log(tmp_path, nodes=1), engine)
    assert report["root_cause"] is None
    assert _status(report, "EFA_TCP_FALLBACK") == "WARN"


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("nodes", [2, None], ids=["two-nodes", "nodes-unknown"])
def test_spanning_nodes_or_unknown_keeps_it_the_failure(
    nodes: int | None, engine: str, tmp_path: Path
) -> None:
    report = _report(_log(tmp_path, nodes=nodes), engine)
    assert report["root_cause"] == "EFA_TCP_FALLBACK"
    assert _status(report, "EFA_TCP_FALLBACK") == "FAIL"


@pytest.mark.parametrize("engine", ENGINES)
def test_a_real_failure_on_one_node_is_still_named(engine: str, tmp_path: Path) -> None:
    oom = (CAPTURED / "cuda-oom-after-nccl-init-1rank.log").read_text("utf-8")
    report = _report(_log(tmp_path, nodes=1, extra=oom), engine)
    assert report["root_cause"] == "CUDA_OOM"
    assert _status(report, "EFA_TCP_FALLBACK") == "WARN"


@pytest.mark.parametrize("engine", ENGINES)
def test_another_hosts_single_node_does_not_excuse_it(engine: str, tmp_path: Path) -> None:
    # The single-node init of another host (another job's log in the same directory) says
    # nothing about the host where the plugin failed (the line: corpus x109, vllm-project/vllm#10626).
    log = _log(tmp_path, nodes=None)
    other = tmp_path / "other.log"
    other.write_text(
        "ae05277d311f:55933:55933 [1] NCCL INFO comm 0xbde4170 rank 1 nRanks 2 nNodes 1 "
        "localRanks 2 localRank 1 MNNVL 0\n",
        "utf-8",
    )
    report: dict[str, object] = analyze_logs([str(log), str(other)], backend=engine).to_dict()
    assert report["root_cause"] == "EFA_TCP_FALLBACK"


@pytest.mark.parametrize("engine", ENGINES)
def test_every_rank_on_one_host_makes_it_a_warning_without_nnodes(
    engine: str, tmp_path: Path
) -> None:
    # A real single-node run on a p4d whose aws-ofi-nccl 1.17.1 failed to start and whose NCCL
    # prints no nNodes line: all four ranks of the communicator are on the one host, and the
    # run finished (github.com/gnosia93/training-on-eks, tests/fixtures/corpus/fresh53.jsonl bg003).
    corpus = Path(__file__).parents[1] / "fixtures" / "corpus" / "fresh53.jsonl"
    case = next(
        c for c in map(json.loads, corpus.read_text("utf-8").splitlines()) if c["id"] == "bg003"
    )
    path = tmp_path / "rank0.log"
    path.write_text(case["log"], "utf-8")
    report = _report(path, engine)
    assert report["root_cause"] is None
    assert _status(report, "EFA_TCP_FALLBACK") == "WARN"
