"""Rules derived from the launchers' and MPI runtimes' own messages (issue 18): Open MPI
(ORTE and PRRTE), Horovod, DeepSpeed's launcher, Ray, Composer's launcher and Accelerate. Each
template below, as tests/logs/messages.py instantiates it, is the root cause the inventory gives
it, with both scanning engines; the same messages as public issues pasted them read the same;
and none of the new or widened rules fires on healthy output or on the known-benign lines."""

from __future__ import annotations

from pathlib import Path

import pytest
from logmix import BENIGN_LINES
from messages import Template, load_templates
from rule_cases import ENGINES, fired_on_healthy, root_of

from hyperpod_nccl.api import analyze_logs

LAUNCHERS = {
    "open-mpi/ompi",
    "openpmix/prrte",
    "horovod/horovod",
    "deepspeedai/DeepSpeed",
    "ray-project/ray",
    "mosaicml/composer",
    "huggingface/accelerate",
}
# Every template of tests/fixtures/messages/launchers.yaml that names a failure.
DERIVED: list[Template] = [
    t for t in load_templates() if t.repo in LAUNCHERS and t.code not in ("benign", "context")
]

# Templates whose rule reports a WARN (horovod-stall-warning: the job goes on).
WARN_ONLY = {("horovod/horovod", "horovod/common/stall_inspector.cc", 107)}

# The same messages as they were pasted in public issues, and other releases' shapes.
REAL = [
    # github.com/PoonLab/covizu/issues/350 (and open-mpi/ompi#10584's title)
    ("ORTE was unable to reliably start one or more daemons.", "NET_UNREACHABLE"),
    # github.com/horovod/horovod/issues/534
    (
        "AbortedError (see above for traceback): Horovod has been shut down. This was caused by "
        "an exception on one of the ranks or an attempt to allreduce, allgather or broadcast a "
        "tensor after one of the ranks finished execution. If the shutdown was caused by an "
        "exception, you should see the exception in the log before the first shutdown message.",
        "PEER_EXITED",
    ),
    # github.com/horovod/horovod/issues/410 (through TensorFlow's op kernel warning)
    (
        "2018-07-30 06:41:52.525932: W tensorflow/core/framework/op_kernel.cc:1318] "
        "OP_REQUIRES failed at mpi_ops.cc:422 : Aborted: Horovod has been shut down. This was "
        "caused by an exception on one of the ranks or an attempt to allreduce, allgather or "
        "broadcast a tensor after one of the ranks finished execution.",
        "PEER_EXITED",
    ),
    # github.com/horovod/horovod/issues/3412 (under mpirun --tag-output)
    (
        "[1,0]<stderr>:Horovod has been shut down. This was caused by an exception on one of "
        "the ranks or an attempt to allreduce, allgather or broadcast a tensor after one of the "
        "ranks finished execution.",
        "PEER_EXITED",
    ),
    # Horovod before 0.14 (the wording github.com/horovod/horovod/pull/350 changed)
    (
        "AbortedError (see above for traceback): Horovod has been shut down. This has been "
        "caused by an exception on one of the rank or an attempt to allreduce, allgather or "
        "broadcast a tensor after one of the ranks has finished execution.",
        "PEER_EXITED",
    ),
    # The launchers' exit reports, read by the exit value.
    (
        "[2026-12-01 10:11:12,345] [ERROR] [launch.py:341:sigkill_handler] ['/usr/bin/python', "
        "'-u', 'train.py', '--local_rank=3'] exits with return code = 1",
        "APP_EXCEPTION",
    ),
    ("ERROR:composer.cli.launcher:Rank 3 crashed with exit code 1.", "APP_EXCEPTION"),
    ("ERROR:composer.cli.launcher:Rank 2 crashed with exit code -11.", "RANK_CRASH"),
    (
        "mpirun noticed that process rank 1 with PID 0 on node ip-10-1-2-3 exited on signal 6.",
        "RANK_CRASH",
    ),
    (
        "mpirun noticed that process rank 1 with PID 0 on node ip-10-1-2-3 exited on signal 15.",
        "EXTERNAL_SIGNAL",
    ),
]

# Lines that stay silent: the launchers' context lines whose cause is printed elsewhere.
SILENT = [
    "Terminating remaining workers after failure of Process 3.",
    "prterun noticed that process rank 3 with PID 4242 on node ip-10-1-2-3 exited on",
    "mpirun has exited due to process rank 3 with PID 4242 on",
    "Using RTX 4000 series which doesn't support faster communication speedups. Ensuring P2P "
    "and IB communications are disabled.",
    "failure count == 3 -> stop running",
]

NEW_RULES = {
    "horovod-no-interface",
    "launcher-master-addr-undetected",
    "launcher-hosts-unreachable",
    "mpi-daemon-unreachable",
    "mpi-ib-retry-exceeded",
    "mpi-ofi-call-failed",
    "horovod-mismatched-collective",
    "horovod-stall-shutdown",
    "horovod-stall-warning",
    "horovod-gloo-store-failed",
    "horovod-shut-down",
    "ray-train-insufficient-resources",
    "launcher-no-gpu",
    "mpi-memory-exceeded",
    "launcher-stopped",
    "mpi-launch-failed",
    "mpi-abort-invoked",
}
WIDENED = {
    "c10d-bind-failed",
    "fatal-signal-report",
    "stop-signal-report",
    "abort-signal-report",
    "mpi-daemon-lost",
    "ray-actor-died",
    "torchrun-exit-1",
}


def test_the_launchers_inventory_covers_every_source() -> None:
    assert {t.repo for t in DERIVED} == LAUNCHERS
    assert len(DERIVED) >= 30


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("t", DERIVED, ids=[f"{t.file}:{t.line}" for t in DERIVED])
def test_instantiated_template_is_its_code(t: Template, engine: str, tmp_path: Path) -> None:
    if t.level == "WARN" and t.key in WARN_ONLY:
        # A stall the job may still get over: a WARN finding, and with nothing worse in the
        # log the root cause as a warning (ranks missing from a collective is what is wrong).
        path = tmp_path / "case.log"
        path.write_text(t.instantiate() + "\n", "utf-8")
        report = analyze_logs([str(path)], backend=engine).to_dict()
        assert (t.code, "WARN") in [(f["code"], f["status"]) for f in report["findings"]]
        assert not [f for f in report["findings"] if f["status"] == "FAIL"]
        assert report["root_cause"] == t.code
        return
    assert root_of(tmp_path, t.instantiate(), engine) == t.code, t.instantiate()


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("line", "code"), REAL, ids=[c[0][:60] for c in REAL])
def test_real_line_gets_its_code(line: str, code: str, engine: str, tmp_path: Path) -> None:
    assert root_of(tmp_path, line, engine) == code


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("line", [*SILENT, *BENIGN_LINES], ids=lambda s: s[:60])
def test_context_and_benign_lines_name_no_cause(line: str, engine: str, tmp_path: Path) -> None:
    assert root_of(tmp_path, line, engine) is None


@pytest.mark.parametrize("engine", ENGINES)
def test_the_new_and_widened_rules_stay_silent_on_healthy_output(engine: str) -> None:
    assert fired_on_healthy(NEW_RULES | WIDENED, engine) == []
