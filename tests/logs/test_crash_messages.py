"""A process that died is never a healthy log (issue 18): the fixed messages the runtimes print
when a process dies name RANK_CRASH (or, with nothing more specific, UNCLASSIFIED_FAILURE).
Each line is one of those messages as the program prints it: bash's job report of a fatal
signal (strsignal's names, ' (core dumped)' when a core was written), libstdc++'s
std::terminate, glibc's heap-corruption aborts and CPython's fatal-error handler. (A thread's
uncaught exception, 'Exception in thread X:', is left out: the process goes on, and healthy
runs print it when a helper thread dies at shutdown.)"""

from __future__ import annotations

from pathlib import Path

import pytest
from rule_cases import ENGINES, root_of

CASES = [
    ("Aborted (core dumped)", "RANK_CRASH"),
    (
        "./train.sh: line 12: 4242 Aborted                 (core dumped) python train.py",
        "RANK_CRASH",
    ),
    ("Bus error (core dumped)", "RANK_CRASH"),
    ("Illegal instruction (core dumped)", "RANK_CRASH"),
    ("Floating point exception (core dumped)", "RANK_CRASH"),
    ("terminate called without an active exception", "RANK_CRASH"),
    ("terminate called recursively", "RANK_CRASH"),
    (
        "*** Error in `python': double free or corruption (!prev): 0x000055d5c0a1b2c0 ***",
        "RANK_CRASH",
    ),
    ("free(): invalid pointer", "RANK_CRASH"),
    ("malloc(): corrupted top size", "RANK_CRASH"),
    ("corrupted size vs. prev_size", "RANK_CRASH"),
    ("Fatal Python error: Aborted", "RANK_CRASH"),
    ("Fatal Python error: Bus error", "RANK_CRASH"),
]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("line", "code"), CASES, ids=[c[0][:40] for c in CASES])
def test_a_process_that_died_is_named(line: str, code: str, engine: str, tmp_path: Path) -> None:
    assert root_of(tmp_path, line, engine) == code


@pytest.mark.parametrize("engine", ENGINES)
def test_a_cause_on_another_line_still_comes_first(engine: str, tmp_path: Path) -> None:
    # The abort after the watchdog takes the process down is the symptom, not the cause.
    log = (
        "[rank0]:[E1129 10:20:08.408271257 ProcessGroupNCCL.cpp:607] [Rank 0] Watchdog caught "
        "collective operation timeout: WorkNCCL(SeqNum=1580, OpType=ALLREDUCE, NumelIn=1, "
        "NumelOut=1, Timeout(ms)=600000) ran for 600060 milliseconds before timing out.\n"
        "terminate called without an active exception\nAborted (core dumped)"
    )
    assert root_of(tmp_path, log, engine) == "NCCL_TIMEOUT"
