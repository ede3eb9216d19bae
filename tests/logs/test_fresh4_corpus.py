"""A fourth blind set of real public logs (tests/fixtures/corpus/fresh4.jsonl, issue 18, from
threads none of the other sets draw on) scored alone and spread over rank files among healthy
output, with no rule changed for it: 27/40 both ways (rules as of 0c5209d), 8 failing logs
answered null, no FAIL on a healthy log; the pure-Python engine gives the same 27/40 alone. The
misses are listed here by id, so that a fix and a regression both fail this test until the list
is updated."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from corpus_case import assert_new_corpus, outcome
from logmix import FIXTURES

CORPUS = FIXTURES / "corpus"
CASES = [
    json.loads(line)
    for line in (CORPUS / "fresh4.jsonl").read_text("utf-8").splitlines()
    if line.strip()
]
# Misses when scored blind (rules as of 0c5209d), what the tool answered, and what the printing
# program means:
# m005 SOCKET_IFNAME, NET_UNREACHABLE: NCCL's 'socketStartConnect: Connect to
#   fe80::...%enP7906s1 failed : Software caused connection abort' -- NCCL uses a link-local IPv6
#   address on Azure's accelerated-networking interface, which the peer cannot reach;
# m006 CUDA_OOM, RANK_CRASH: Caffe's 'Check failed: error == cudaSuccess (2 vs. 0)  out of memory'
#   -- CUDA error 2 is cudaErrorMemoryAllocation; the glog abort that follows is its effect;
# m009 NCCL_INVALID_USAGE, UNCLASSIFIED_FAILURE: NET/IB's 'collective mismatch error, local size
#   496640 remote size 65536' and '-> 5' (ncclInvalidUsage) -- the ranks disagree on the call;
# m011, m013, m014 NVLINK_ERROR, null: nvidia-smi's 'Link 3: <inactive>', NVML's 'Unable to
#   retrieve NVLink information as all links are inActive', NCCL's 'P2P is disabled between NVLINK
#   connected GPUs ... probably due to a hardware issue' -- NVLinks down or not usable;
# m019, m020 CONTAINER_OOM, null: DeepSpeed's launcher 'exits with return code = -9' -- SIGKILL
#   from outside the process, the corpus convention for a bare -9 (host OOM killer, as g002);
# m021 RANK_CRASH, null: the same launcher's 'exits with return code = -11' -- SIGSEGV;
# m022 PEER_EXITED, null: Ray's ActorDiedError 'The actor is dead because its worker process has
#   died ... Some common causes include' (newer wording of the k025 message);
# m025 NCCL_TIMEOUT, APP_EXCEPTION: the watchdog's 'Watchdog caught collective operation timeout
#   ... r' / 'an for 1804582 milliseconds' hard-wrapped mid-word as pasted;
# m033 NCCL_VERSION_MISMATCH, null: 'libtorch_cuda.so:%20undefined%20symbol:%20ncclCommRegister'
#   -- the loader's missing-symbol error pasted URL-encoded;
# m037 NCCL_TOPOLOGY, APP_EXCEPTION: NCCL's 'graph/topo.h:230 NCCL WARN Could not find NET with id
#   0' before an internal error -- the topology lacks the network device the search expects.
# Scored blind at 0c5209d: the thirteen ids above. Rules from what the programs print (DeepSpeed's
# launcher return codes, NVLink links down in NCCL/NVML/nvidia-smi, CUDA error 2 behind a
# CHECK, NET/IB's collective mismatch, NCCL's topology id lookup, a connect to a link-local
# address, Ray's raylet on a dead worker, PyTorch's NCCL error cut before its reason) and a
# URL-encoded paste shape fixed twelve. m020 is cut before the launcher's return code; it now
# gets UNCLASSIFIED_FAILURE from the launcher's error line, not null.
KNOWN_MISSES = {"m020"}
KNOWN_SPREAD_MISSES = KNOWN_MISSES


def test_fresh4_corpus_is_well_formed_and_new() -> None:
    assert_new_corpus(
        CASES,
        "m",
        # every other set, and so any later one: a thread belongs to one set only
        tuple(p.name for p in sorted(CORPUS.glob("*.jsonl")) if p.name != "fresh4.jsonl"),
        least=40,
        healthy=8,
    )


@pytest.mark.parametrize("spread", [False, True], ids=["alone", "spread"])
@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_fresh4_case(case: dict[str, Any], spread: bool, tmp_path: Path) -> None:
    right, report = outcome(case, tmp_path, spread)
    misses = KNOWN_SPREAD_MISSES if spread else KNOWN_MISSES
    assert right == (case["id"] not in misses), (case["id"], case["label"], report["root_cause"])
    if case["label"] == "HEALTHY":
        assert right, case["id"]  # never a FAIL on a healthy log
