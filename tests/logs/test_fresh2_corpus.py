"""A second fresh set of real public logs (tests/fixtures/corpus/fresh2.jsonl, issue 18, from
threads none of the other sets draw on) scored alone and spread over rank files among healthy
output. Scored before any rule was changed for it: 55/62 alone and spread (rules as of e7a4136),
3 failing logs answered null, no FAIL on a healthy log; 61/62 both ways after the fixes of
issue 18 (g014's label is questioned below), which makes it no blind measure any more. The misses left are listed here by id, so
that a fix and a regression both fail this test until the list is updated."""

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
    for line in (CORPUS / "fresh2.jsonl").read_text("utf-8").splitlines()
    if line.strip()
]
# Misses when scored (rules as of e7a4136), each fixed from what the program means (issue 18):
# g020 DataLoader 'killed by signal: Bus error' word-wrapped over three lines: no finding; the
#   paste is joined back (rules/paste.py join_word_wrapped);
# g037 'Triton Error [CUDA]: an illegal memory access': APP_EXCEPTION; CUDA's error strings
#   are read whatever prints them (cuda-error-generic cuda_text);
# g040 NCCL 2.2x INFO 'connect returned No route to host, retrying (34/34)': none; the last
#   counted retry is a failure (nccl-connect-retry);
# g044 joblib '[Errno 28] No space left on device' creating its semaphore (/dev/shm full):
#   DISK_FULL (semaphore-shm-full);
# g054 'NCCL WARN Mismatched collective detected' (NCCL 2.4): UNCLASSIFIED_FAILURE
#   (nccl-collective-mismatch);
# g057 kube-scheduler 'no nodes available to schedule pods' in Markdown bold: no finding
#   (k8s-failed-scheduling, paste.strip_bold).
# Left: g014, a TCPStore client timed out connecting to 127.0.0.1 (vLLM StatelessProcessGroup),
#   labelled RENDEZVOUS_FAILURE and answered NET_UNREACHABLE. The label looks wrong, not the
#   rule: c10d's socket.cpp retries a refused connect until its timeout, so this line is what
#   a client prints when nothing listens on the port; the registry's NET_UNREACHABLE is 'peers
#   cannot connect (refused, timed out or no route)', and the captured runs of exactly this
#   (tests/fixtures/captured/cpu/connection-refused-*.log, connect-timeout-syn-dropped-*.log,
#   all on 127.0.0.1 from the TCPStore constructor) and the same message to other hosts
#   (extra x028, heldout h011) are all labelled NET_UNREACHABLE. NET_UNREACHABLE with
#   RENDEZVOUS_FAILURE in 'also' (as x028) would be the consistent label.
KNOWN_MISSES = {"g014"}
KNOWN_SPREAD_MISSES = KNOWN_MISSES


def test_fresh2_corpus_is_well_formed_and_new() -> None:
    assert_new_corpus(
        CASES,
        "g",
        ("dev.jsonl", "extra.jsonl", "heldout.jsonl", "fresh.jsonl"),
        least=60,
        healthy=12,
    )


@pytest.mark.parametrize("spread", [False, True], ids=["alone", "spread"])
@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_fresh2_case(case: dict[str, Any], spread: bool, tmp_path: Path) -> None:
    right, report = outcome(case, tmp_path, spread)
    misses = KNOWN_SPREAD_MISSES if spread else KNOWN_MISSES
    assert right == (case["id"] not in misses), (case["id"], case["label"], report["root_cause"])
    if case["label"] == "HEALTHY":
        assert right, case["id"]  # never a FAIL on a healthy log
