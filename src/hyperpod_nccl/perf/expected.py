"""Expected nccl-tests bus bandwidth per instance type: one table, with where each figure is from.

Every figure here is copied from the guide's table in
``performance-testing.md#expected-bandwidth`` (tests check the two agree). The guide marks
the two published busbw figures as field observations from single example runs in AWS's
nccl-tests sample README: orders of magnitude, not acceptance thresholds. That is why a run
is only called low against them when it is far below (see LOW_BUSBW_FAIL_RATIO), and why a
baseline the user measured on healthy nodes (``--expected-busbw``) is preferred.
"""

from __future__ import annotations

from dataclasses import dataclass

GUIDE_SECTION = "performance-testing.md#expected-bandwidth"
GIB = 1024**3

# Against a field observation: below half is a failure, below 80% a warning (our heuristic).
LOW_BUSBW_FAIL_RATIO = 0.5
LOW_BUSBW_WARN_RATIO = 0.8
# Against the user's own baseline: more than 10% below it (the guide's straggler heuristic).
BASELINE_FAIL_RATIO = 0.9


@dataclass(frozen=True)
class InstanceType:
    name: str
    gpus: str  # as the guide writes them
    network: str  # documented inter-node network
    gpu_names: tuple[str, ...]  # substrings of the GPU name nccl-tests prints


@dataclass(frozen=True)
class ExpectedFigure:
    instance_type: str
    collective: str
    nodes: int
    transport: str
    busbw_gbps: float
    at_bytes: int
    status: str  # the guide's "Status of the busbw figure"
    source: str = GUIDE_SECTION


INSTANCE_TYPES = (
    InstanceType(
        "p4d.24xlarge", "8 × A100 40 GB", "4 × 100 Gbps EFA (400 Gbps)", ("A100-SXM4-40GB",)
    ),
    InstanceType(
        "p4de.24xlarge", "8 × A100 80 GB", "4 × 100 Gbps EFA (400 Gbps)", ("A100-SXM4-80GB",)
    ),
    InstanceType(
        "p5.48xlarge", "8 × H100", "3200 Gbps EFA (32 network cards)", ("H100 80GB HBM3",)
    ),
    InstanceType("p5e.48xlarge", "8 × H200", "3200 Gbps EFA (32 network cards)", ("H200",)),
    InstanceType("p5en.48xlarge", "8 × H200", "3200 Gbps EFA (16 network cards)", ("H200",)),
    InstanceType("p6-b200.48xlarge", "8 × B200", "3200 Gbps EFA (8 network cards)", ("B200",)),
)

FIELD_OBSERVATION = "field observation: example output in AWS's nccl-tests sample README"

EXPECTED = (
    ExpectedFigure("p4de.24xlarge", "all_reduce", 2, "efa", 78.0, 2 * GIB, FIELD_OBSERVATION),
    ExpectedFigure("p5.48xlarge", "all_reduce", 2, "efa", 487.0, 16 * GIB, FIELD_OBSERVATION),
)


def instance_type(name: str) -> InstanceType | None:
    return next((t for t in INSTANCE_TYPES if t.name == name), None)


def infer_instance_types(gpu_models: list[str]) -> list[str]:
    """Instance types whose GPU matches every model named in a run (several when ambiguous)."""
    if not gpu_models:
        return []
    matches = [
        t.name
        for t in INSTANCE_TYPES
        if all(any(g in model for g in t.gpu_names) for model in gpu_models)
    ]
    return matches


def figure_for(instance: str, collective: str, nodes: int | None) -> ExpectedFigure | None:
    """The guide's figure for this instance type and collective; node count must match if known."""
    for fig in EXPECTED:
        if fig.instance_type != instance or fig.collective != collective:
            continue
        if nodes is not None and nodes != fig.nodes:
            continue
        return fig
    return None
