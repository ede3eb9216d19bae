"""State checks: small functions that read a Snapshot and return findings.

Each check is registered with its metadata (id, area, the codes it can emit) so the guide,
`explain` and the tests can enumerate them. A check never talks to the network; when the data
it needs is missing from the Snapshot it returns a SKIPPED or INCOMPLETE finding saying why.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from hyperpod_nccl.checks.findings import CheckContext, running
from hyperpod_nccl.model import Finding, Priority, Status
from hyperpod_nccl.snapshot import Snapshot

CheckFunction = Callable[[Snapshot], list[Finding]]

# Modules that register checks, imported on first use. Each area adds its module here.
CHECK_MODULES: list[str] = [
    "hyperpod_nccl.checks.slurm",
    "hyperpod_nccl.checks.node_gpu",
    "hyperpod_nccl.checks.node_efa",
    "hyperpod_nccl.checks.node_host",
    "hyperpod_nccl.checks.node_cross",
    "hyperpod_nccl.checks.cluster",
    "hyperpod_nccl.checks.cluster_events",
    "hyperpod_nccl.checks.security_groups",
    "hyperpod_nccl.checks.network",
    "hyperpod_nccl.checks.kubernetes",
    "hyperpod_nccl.checks.pods",
    "hyperpod_nccl.checks.env",
    "hyperpod_nccl.checks.versions",
    "hyperpod_nccl.checks.logs",
]


@dataclass(frozen=True)
class CheckSpec:
    id: str
    area: str
    codes: tuple[str, ...]
    function: CheckFunction


REGISTRY: dict[str, CheckSpec] = {}


def check(id: str, area: str, codes: Iterable[str]) -> Callable[[CheckFunction], CheckFunction]:
    """Register a check function under a stable id. Each call runs in the check's context, so
    the findings it builds (`checks.findings.finding`) carry its id."""
    context = CheckContext(id, area)

    def decorate(function: CheckFunction) -> CheckFunction:
        if id in REGISTRY:
            raise ValueError(f"duplicate check id {id}")

        @functools.wraps(function)
        def in_context(snapshot: Snapshot) -> list[Finding]:
            with running(context):
                return function(snapshot)

        REGISTRY[id] = CheckSpec(id, area, tuple(codes), in_context)
        return in_context

    return decorate


def load_checks() -> dict[str, CheckSpec]:
    for module in CHECK_MODULES:
        importlib.import_module(module)
    return REGISTRY


def run_checks(
    snapshot: Snapshot,
    areas: Iterable[str] | None = None,
    wants: Callable[[CheckSpec], bool] | None = None,
) -> list[Finding]:
    """Run every registered check of the given areas (and that `wants`, the user's --check and
    --skip); a check that breaks becomes INCOMPLETE."""
    wanted = set(areas) if areas is not None else None
    findings: list[Finding] = []
    for spec in load_checks().values():
        if wanted is not None and spec.area not in wanted:
            continue
        if wants is not None and not wants(spec):
            continue
        try:
            findings.extend(spec.function(snapshot))
        except Exception as exc:  # a bug in one check must not hide the others' results
            findings.append(
                Finding(
                    code="CHECK_FAILED",
                    status=Status.INCOMPLETE,
                    priority=Priority.P2,
                    title=f"check {spec.id} could not run: {type(exc).__name__}: {exc}",
                    reference=None,
                    details={"check": spec.id},
                )
            )
    return findings
