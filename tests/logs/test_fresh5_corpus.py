"""A fifth blind set of real public logs (tests/fixtures/corpus/fresh5.jsonl, issue 18, from
threads none of the other sets draw on) scored alone and spread over rank files among healthy
output, with no rule changed for it: 32/37 both ways (rules as of 2e87880), 1 failing log
answered null, no FAIL on a healthy log; the pure-Python engine gives the same 32/37 alone. The
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
    for line in (CORPUS / "fresh5.jsonl").read_text("utf-8").splitlines()
    if line.strip()
]
# Misses when scored blind (rules as of 2e87880), what the tool answered, and what the printing
# program means:
# q004 RENDEZVOUS_FAILURE, PEER_EXITED: PyTorch's 'retrieving ncclUniqueId from [0] via c10d
#   key-value store by key '0', but store->get('0') got error: Socket Timeout' -- rank 4 waited
#   for a key rank 0 never wrote (labelled as x026's store wait; no peer is seen to exit);
# q005 IB_ERROR, PEER_EXITED: mlx5's 'got completion with error' beside NCCL's 'remote process
#   exited or there was a network error' and Ray's raylet on a dead worker -- the NIC reports a
#   failed work completion, the worker's death follows (also PEER_EXITED);
# q006 CUDA_ERROR, APP_EXCEPTION: 'ncclUnhandledCudaError: CAll to CUDA function failed.' /
#   'CUDA failure 304 'OS call failed or operation not supported on this OS'' -- NCCL's CUDA call
#   failed with cudaErrorOperatingSystem; the DistBackendError line is its carrier;
# q014 CUDA_ERROR, null: SGLang's custom all-reduce 'Failed: Cuda error
#   .../custom_all_reduce.cuh:307 'peer access is not supported between these two devices'' --
#   cudaErrorPeerAccessUnsupported, the two GPUs cannot map each other's memory;
# q029 PEER_EXITED, NET_UNREACHABLE: NCCL's 'Net : Call to recv from NODE2_IP<56843> failed :
#   Connection refused' -- a recv on an established socket refused by the other side; the label
#   follows the other 'Call to recv from' cases (g008, x099, x119), the answer the other
#   'Connection refused' cases; the label is the weaker of the two readings.
# Scored blind at 2e87880: the five ids above. Rules from what the programs print (c10d's store
# get that timed out, cudaErrorPeerAccessUnsupported's text, NCCL's 'CUDA failure N' spelling
# and ncclUnhandledCudaError, rdma-core mlx5's failed completion) fixed four; q029's label is
# the weaker reading of a 'Connection refused' that other sets call NET_UNREACHABLE.
KNOWN_MISSES = {"q029"}
KNOWN_SPREAD_MISSES = KNOWN_MISSES


def test_fresh5_corpus_is_well_formed_and_new() -> None:
    assert_new_corpus(
        CASES,
        "q",
        # every other set, and so any later one: a thread belongs to one set only
        tuple(p.name for p in sorted(CORPUS.glob("*.jsonl")) if p.name != "fresh5.jsonl"),
        least=37,
        healthy=6,
    )


@pytest.mark.parametrize("spread", [False, True], ids=["alone", "spread"])
@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_fresh5_case(case: dict[str, Any], spread: bool, tmp_path: Path) -> None:
    right, report = outcome(case, tmp_path, spread)
    misses = KNOWN_SPREAD_MISSES if spread else KNOWN_MISSES
    assert right == (case["id"] not in misses), (case["id"], case["label"], report["root_cause"])
    if case["label"] == "HEALTHY":
        assert right, case["id"]  # never a FAIL on a healthy log
