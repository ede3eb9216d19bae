"""Rules derived from what RCCL, MPICH / Intel MPI and Open MPI's OFI components print (issue
18, tests/fixtures/messages/mpi_rccl.yaml). Each failure template, as tests/logs/messages.py
instantiates it, is the root cause the inventory gives it, with both scanning engines; lines
pasted in public issues read the same; the benign and context templates, and healthy output,
raise none of the new or widened rules."""

from __future__ import annotations

from pathlib import Path

import pytest
from messages import Template, load_templates
from rule_cases import ENGINES, fired_on_healthy, root_of

INVENTORY = Path(__file__).resolve().parents[1] / "fixtures" / "messages" / "mpi_rccl.yaml"
# Open MPI's OFI components (the rest of open-mpi/ompi is in launchers.yaml).
_OMPI_OFI = ("ompi/mca/mtl/ofi/", "opal/mca/btl/ofi/", "opal/mca/common/ofi/")


def _mine(t: Template) -> bool:
    if t.repo == "open-mpi/ompi":
        return t.file.startswith(_OMPI_OFI) and not (
            t.file.endswith("help-mtl-ofi.txt") and t.line == 13  # launchers.yaml's
        )
    return t.repo in ("ROCm/rccl", "ROCm/rocm-systems", "pmodels/mpich")


MINE = [t for t in load_templates() if _mine(t)]
DERIVED = [t for t in MINE if t.code not in ("benign", "context")]
QUIET = [t for t in MINE if t.code in ("benign", "context")]

# The same messages as public issues pasted them.
REAL = [
    # github.com/pmodels/mpich/issues/7036 (a PMI proxy died on an assertion first)
    (
        "[mpiexec@pmrs-linux-240-01] control_cb (mpiexec/pmiserv_cb.c:280): assert (!closed) "
        "failed",
        "PEER_EXITED",
    ),
    # github.com/idaholab/moose/pull/28399
    (
        "Abort(1) on node 0 (rank 0 in comm 0): application called MPI_Abort(MPI_COMM_WORLD, 1) "
        "- process 0",
        "APP_EXCEPTION",
    ),
    # github.com/ContinuumIO/anaconda-issues/issues/1017 (MPICH 1.4, without the Abort prefix)
    ("application called MPI_Abort(MPI_COMM_WORLD, 1) - process 10", "APP_EXCEPTION"),
    # github.com/ROCm/rocm-systems/issues/8178 (tests/fixtures/corpus/fresh16.jsonl n005)
    ("[FATAL ERROR]: HIP failure: 'invalid device pointer'", "CUDA_ERROR"),
]

NEW_RULES = {"rccl-invalid-usage", "rccl-gpu-unreadable", "mpich-ucx-failed"}
WIDENED = {
    "cuda-error-generic",
    "nccl-topology-error",
    "mpich-ofi-call-failed",
    "mpi-ofi-call-failed",
    "mpi-abort-invoked",
    "mpi-daemon-unreachable",
    "mpi-daemon-lost",
    "mpi-launch-failed",
    "launcher-stopped",
}


def test_the_inventory_covers_every_source() -> None:
    assert {t.repo for t in DERIVED} == {
        "ROCm/rccl",
        "ROCm/rocm-systems",
        "pmodels/mpich",
        "open-mpi/ompi",
    }
    assert len(MINE) == INVENTORY.read_text("utf-8").count("\n- repo: ")
    assert len(DERIVED) >= 30 and QUIET


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("t", DERIVED, ids=[f"{t.file}:{t.line}" for t in DERIVED])
def test_instantiated_template_is_its_code(t: Template, engine: str, tmp_path: Path) -> None:
    assert root_of(tmp_path, t.instantiate(), engine) == t.code, t.instantiate()


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("line", "code"), REAL, ids=[c[0][:60] for c in REAL])
def test_real_line_gets_its_code(line: str, code: str, engine: str, tmp_path: Path) -> None:
    assert root_of(tmp_path, line, engine) == code


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("t", QUIET, ids=[f"{t.file}:{t.line}" for t in QUIET])
def test_benign_and_context_templates_name_no_cause(
    t: Template, engine: str, tmp_path: Path
) -> None:
    # RCCL's advisories are silenced outright (rccl-advisory-warn); the context lines leave
    # at most the generic fallback, never a named cause.
    root = root_of(tmp_path, t.instantiate(), engine)
    assert root in (None, "UNCLASSIFIED_FAILURE"), (root, t.instantiate())
    if t.code == "benign" and t.repo == "ROCm/rccl":
        assert root is None, t.instantiate()


@pytest.mark.parametrize("engine", ENGINES)
def test_new_and_widened_rules_stay_silent_on_healthy_output(engine: str) -> None:
    assert fired_on_healthy(NEW_RULES | WIDENED | {"rccl-advisory-warn"}, engine) == []
