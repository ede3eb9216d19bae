"""Rules derived from the programs' own messages (issue 18): each template listed here, as
tests/logs/messages.py instantiates it with its logger's prefix, is classified as the code the
inventory gives it, with both scanning engines, among healthy output as well as alone."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from logmix import healthy_sources
from messages import Template, load_templates

from hyperpod_nccl.api import analyze_logs
from hyperpod_nccl.rules.analyzer import LogAnalyzer
from hyperpod_nccl.rules.catalog import load_catalog

TEMPLATES: dict[tuple[str, str, int], list[Template]] = {}
for _t in load_templates():
    TEMPLATES.setdefault(_t.key, []).append(_t)

# (repo, file, line) of templates a rule was added or widened for, with the source each
# rule's comment in catalog.yaml cites.
DERIVED = [
    # nccl-invalid-usage: deregistering a handle the communicator does not hold
    ("NVIDIA/nccl", "src/register/register.cc", 187),
    # verbs-create-qp-bare: the errno-less verbs failure of NCCL before 2.14
    ("NVIDIA/nccl", "src/misc/ibvwrap.cc", 152),
    # torch-checkpoint-write-failed: torch.save's writers
    ("pytorch/pytorch", "caffe2/serialize/inline_container.cc", 633),
    ("pytorch/pytorch", "caffe2/serialize/inline_container.cc", 641),
    ("pytorch/pytorch", "caffe2/serialize/inline_container.cc", 469),
    ("pytorch/pytorch", "caffe2/serialize/inline_container.cc", 521),
    ("pytorch/pytorch", "torch/csrc/serialization.cpp", 161),
    # cuda-oom-torch: the allocator's memory-fraction refusal
    ("pytorch/pytorch", "c10/cuda/CUDACachingAllocator.cpp", 4610),
    # c10d-store-io-failed: the store's socket closed under a send or recv
    ("pytorch/pytorch", "torch/csrc/distributed/c10d/Utils.hpp", 767),
    ("pytorch/pytorch", "torch/csrc/distributed/c10d/Utils.hpp", 793),
    # torch-heartbeat-monitor: the monitor cannot take the GIL
    ("pytorch/pytorch", "torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp", 2048),
    # store-wait-timeout: the store barrier
    ("pytorch/pytorch", "torch/csrc/distributed/c10d/TCPStore.cpp", 793),
    # torch-nccl-nonblocking-timeout
    ("pytorch/pytorch", "torch/csrc/distributed/c10d/NCCLUtils.hpp", 98),
    # torch-dump-signal-observed
    ("pytorch/pytorch", "torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp", 1917),
    ("pytorch/pytorch", "torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp", 1982),
    # torch-no-nvidia-driver
    ("pytorch/pytorch", "c10/cuda/CUDAFunctions.cpp", 40),
    # dcgm-xid, dcgm-memory-errors, dcgm-nvlink-fabric, gpu-fallen-off-bus: DCGM's reasons
    *[
        ("NVIDIA/DCGM", "dcgmlib/dcgm_errors.h", line)
        for line in (240, 244, 262, 265, 269, 271, 420, 443, 444, 447, 449, 451, 453, 485, 497)
    ],
    ("NVIDIA/DCGM", "dcgmlib/dcgm_errors.h", 501),
    ("NVIDIA/DCGM", "dcgmlib/dcgm_errors.h", 503),
    # slurm-oom-kill: the step over its memory limit
    ("SchedMD/slurm", "src/interfaces/jobacct_gather.c", 889),
    # slurm-node-failure
    ("SchedMD/slurm", "src/api/step_launch.c", 1245),
    ("SchedMD/slurm", "src/srun/allocate.c", 157),
    ("SchedMD/slurm", "src/srun/allocate.c", 275),
]


def _codes(line: str, backend: str) -> tuple[str, ...]:
    """The codes the rule that owns the line can report (one, or a classifier's choices)."""
    catalog = load_catalog()
    verdicts = LogAnalyzer(catalog, backend=backend).line_verdicts(io.BytesIO(f"{line}\n".encode()))
    rule_id = verdicts.get(1, (None, ()))[0]
    return catalog.rule(rule_id).possible_codes() if rule_id else ()


def _templates(key: tuple[str, str, int]) -> list[Template]:
    # Some lines print more than one message (the inventory lists each).
    assert key in TEMPLATES, key
    return TEMPLATES[key]


@pytest.mark.parametrize("backend", ["re", "hyperscan"])
@pytest.mark.parametrize("key", DERIVED, ids=[f"{f}:{n}" for _, f, n in DERIVED])
def test_derived_template_gets_its_code(key: tuple[str, str, int], backend: str) -> None:
    for t in _templates(key):
        assert t.code in _codes(t.instantiate(), backend), t.instantiate()


@pytest.mark.parametrize("key", DERIVED, ids=[f"{f}:{n}" for _, f, n in DERIVED])
def test_derived_template_among_healthy_output_is_the_root_cause(
    key: tuple[str, str, int], tmp_path: Path
) -> None:
    healthy = healthy_sources()[0].read_text("utf-8", errors="replace").splitlines()
    middle = len(healthy) // 2
    for number, t in enumerate(_templates(key)):
        log = tmp_path / f"rank{number}.log"
        log.write_text("\n".join([*healthy[:middle], t.instantiate(), *healthy[middle:]]) + "\n")
        report = analyze_logs([str(log)]).to_dict()
        assert report["root_cause"] == t.code, t.instantiate()


def test_healthy_output_raises_none_of_the_derived_codes(tmp_path: Path) -> None:
    for source in healthy_sources():
        report = analyze_logs([str(source)]).to_dict()
        assert [f["code"] for f in report["findings"] if f["status"] == "FAIL"] == [], source
