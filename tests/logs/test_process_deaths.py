"""A failing log is never answered "none found" because its process died in words of a program
other than the one that failed (issue 18): how glog and abseil, bash, zsh,
torch.multiprocessing.spawn, Open MPI's mpirun, glibc and CPython report a death by signal or
an exception that ends the process. Each line is real, with the page it was posted on, or
(marked "format") the program's own format with plausible values where no public paste of
that exact shape was found. (A thread's uncaught exception, 'Exception in thread X:', is left
out: the process goes on, and healthy runs print it when a helper thread dies at shutdown.)"""

from __future__ import annotations

from pathlib import Path

import pytest
from logmix import healthy_sources
from rule_cases import ENGINES, fired_on_healthy, root_of

NEW_RULES = {
    "fatal-signal-report",
    "shell-killed-report",
    "stop-signal-report",
    "abort-signal-report",
}

CASES = [
    # abseil's failure signal handler as Google's builds print it (no fault address).
    (
        "https://github.com/pytorch/xla/issues/3028",
        "2021-07-08 08:28:12 10.164.0.33 [0] *** SIGTERM received by PID 16738 (TID 16738) on "
        "cpu 20 from PID 16165; stack trace: ***",
        "EXTERNAL_SIGNAL",
    ),
    # glog's signalhandler.cc: '*** SIGSEGV (@0x...) received by PID N (TID 0x...) from PID N'.
    (
        "format",
        "*** SIGSEGV (@0x0) received by PID 1234 (TID 0x7f3a5c001200) from PID 0; stack trace: ***",
        "RANK_CRASH",
    ),
    (
        "format",
        "*** SIGABRT (@0x3e8000004d2) received by PID 1234 (TID 0x7f3a5c001200) from PID 1234; "
        "stack trace: ***",
        "RANK_CRASH",
    ),
    # zsh's job table: number, pid, its own lower-case signal name, the command.
    (
        "https://github.com/pytorch/pytorch/issues/5848",
        "    [1]    4939 bus error  python demo_network.py",
        "RANK_CRASH",
    ),
    ("format", "zsh: segmentation fault  python train.py", "RANK_CRASH"),
    ("format", "zsh: killed     python train.py", "CONTAINER_OOM"),
    ("format", "[1]    4242 killed     python train.py", "CONTAINER_OOM"),
    # bash's: the script, its line, the pid, strsignal's name.
    ("format", "bash: line 1: 1234 Segmentation fault      python train.py", "RANK_CRASH"),
    ("format", "[1]+  Killed                  python train.py --nproc 8", "CONTAINER_OOM"),
    # torch/multiprocessing/spawn.py: 'process %d terminated with signal %s' (signal.Signals name).
    (
        "https://github.com/yxlu-0102/MP-SENet/issues/7",
        "torch.multiprocessing.spawn.ProcessExitedException: process 0 terminated with signal SIGSEGV",
        "RANK_CRASH",
    ),
    (
        "https://github.com/facebookresearch/SlowFast/issues/118",
        "Exception: process 0 terminated with signal SIGSEGV",
        "RANK_CRASH",
    ),
    (
        "https://github.com/rshaojimmy/MultiModal-DeepFake/issues/24",
        "torch.multiprocessing.spawn.ProcessExitedException: process 1 terminated with signal SIGABRT",
        "RANK_CRASH",
    ),
    (
        "https://github.com/lyu-yx/ACUMEN/issues/4",
        "torch.multiprocessing.spawn.ProcessExitedException: process 0 terminated with signal SIGKILL",
        "CONTAINER_OOM",
    ),
    # Open MPI's mpirun (help-orterun.txt): the signal's number and strsignal's name.
    (
        "format",
        "mpirun noticed that process rank 3 with PID 4242 on node ip-10-0-0-1 exited on signal 11 "
        "(Segmentation fault).",
        "RANK_CRASH",
    ),
    # ... and a non-zero exit with no signal: the failure shows, its cause is elsewhere.
    (
        "https://github.com/NVIDIA/FasterTransformer/issues/474",
        "--------------------------------------------------------------------------\n"
        "Primary job  terminated normally, but 1 process returned\n"
        "a non-zero exit code. Per user-direction, the job has been aborted.\n"
        "--------------------------------------------------------------------------",
        "UNCLASSIFIED_FAILURE",
    ),
    # glibc: the stack protector's and the unwinder's aborts.
    ("format", "*** stack smashing detected ***: terminated", "RANK_CRASH"),
    ("format", "FATAL: exception not rethrown", "RANK_CRASH"),
    # CPython: a plain 'raise Exception(...)', an exception without a message, Ctrl-C / SIGINT.
    ("format", "Exception: Training failed at step 100", "APP_EXCEPTION"),
    (
        "format",
        'Traceback (most recent call last):\n  File "train.py", line 10, in <module>\n'
        "    assert loss.isfinite()\nAssertionError",
        "APP_EXCEPTION",
    ),
    (
        "format",
        'Traceback (most recent call last):\n  File "train.py", line 10, in <module>\n'
        "    time.sleep(1)\nKeyboardInterrupt",
        "EXTERNAL_SIGNAL",
    ),
    # The runtimes' own death messages: bash's job report of a fatal signal (strsignal's names,
    # ' (core dumped)' when a core was written), libstdc++'s std::terminate, glibc's heap
    # corruption aborts and CPython's fatal-error handler.
    ("format", "Aborted (core dumped)", "RANK_CRASH"),
    (
        "format",
        "./train.sh: line 12: 4242 Aborted                 (core dumped) python train.py",
        "RANK_CRASH",
    ),
    ("format", "Bus error (core dumped)", "RANK_CRASH"),
    ("format", "Illegal instruction (core dumped)", "RANK_CRASH"),
    ("format", "Floating point exception (core dumped)", "RANK_CRASH"),
    ("format", "terminate called without an active exception", "RANK_CRASH"),
    ("format", "terminate called recursively", "RANK_CRASH"),
    (
        "format",
        "*** Error in `python': double free or corruption (!prev): 0x000055d5c0a1b2c0 ***",
        "RANK_CRASH",
    ),
    ("format", "free(): invalid pointer", "RANK_CRASH"),
    ("format", "malloc(): corrupted top size", "RANK_CRASH"),
    ("format", "corrupted size vs. prev_size", "RANK_CRASH"),
    ("format", "Fatal Python error: Aborted", "RANK_CRASH"),
    ("format", "Fatal Python error: Bus error", "RANK_CRASH"),
]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("source", "text", "code"), CASES, ids=[c[1][:40] for c in CASES])
def test_a_death_is_named(source: str, text: str, code: str, engine: str, tmp_path: Path) -> None:
    assert root_of(tmp_path, text, engine) == code, source


@pytest.mark.parametrize("engine", ENGINES)
def test_the_cause_on_another_rank_still_comes_first(engine: str, tmp_path: Path) -> None:
    # The ranks the launcher stops after a timeout die of SIGTERM or SIGABRT: symptoms.
    log = (
        "[rank0]:[E1129 10:20:08.408271257 ProcessGroupNCCL.cpp:607] [Rank 0] Watchdog caught "
        "collective operation timeout: WorkNCCL(SeqNum=1580, OpType=ALLREDUCE, NumelIn=1, "
        "NumelOut=1, Timeout(ms)=600000) ran for 600060 milliseconds before timing out.\n"
        "torch.multiprocessing.spawn.ProcessExitedException: process 1 terminated with signal SIGABRT\n"
        "*** SIGTERM received by PID 16738 (TID 16738) on cpu 20 from PID 16165; stack trace: ***"
    )
    assert root_of(tmp_path, log, engine) == "NCCL_TIMEOUT"


@pytest.mark.parametrize("engine", ENGINES)
def test_healthy_output_raises_none_of_them(engine: str) -> None:
    assert healthy_sources()
    assert fired_on_healthy(NEW_RULES, engine) == []


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    "line",
    [
        # Words of the rules inside healthy text: a flag, a docstring, a test name.
        "INFO: worker will exit on signal 15 (SIGTERM) with code 143",
        "killed_by_oom: 0, terminated: 0",
        "Exception handling: on",
        "class MyError(Exception): pass",
        "  ValueError raised by the tokenizer are retried",
    ],
)
def test_the_words_alone_are_not_a_death(line: str, engine: str, tmp_path: Path) -> None:
    assert root_of(tmp_path, line, engine) is None


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
