"""What one side says about the things a diff compares, in one shape: an aspect (versions,
environment, security-group rules...), an item of it (NCCL, FI_PROVIDER, one rule) and the
value each scope (a pod, a rank's log, a node, the cluster) has for it.

Only facts that can matter are stored: no timestamps, pids, ephemeral ports or pod-name
hashes ever get here, so they never show up as differences.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# How an aspect's values are compared (see compare.py).
SET = "set"  # the values seen anywhere: the same set means no difference
DENSE = "dense"  # as SET, and a scope of the aspect without the item counts as "unset"
MEMBERS = "members"  # which scopes exist (nodes of an instance group)
PER_SCOPE = "per_scope"  # value by value on the scopes both sides have (a node's health)
NUMERIC = "numeric"  # a measured figure: only a clear drop counts

UNSET = "<unset>"

ASPECTS: dict[str, str] = {
    "version": SET,
    "env": DENSE,
    "env.log": DENSE,
    "image": DENSE,
    "efa_request": DENSE,
    "instance_type": SET,
    "nodes": MEMBERS,
    "node_health": PER_SCOPE,
    "security_group": SET,
    "network_policy": SET,
    "slurm_config": SET,
    "slurm_partition": SET,
    "slurm_partition_limits": SET,
    "nccl_topology": SET,
    "nccl_transport": SET,
    "busbw": NUMERIC,
    "busbw_node": NUMERIC,
}


@dataclass
class Facts:
    values: dict[tuple[str, str], dict[str, str]] = field(default_factory=dict)
    sources: dict[tuple[str, str], str] = field(default_factory=dict)
    numbers: dict[tuple[str, str], float] = field(default_factory=dict)
    covered: set[str] = field(default_factory=set)
    scopes: dict[str, set[str]] = field(default_factory=dict)  # aspect -> scopes seen
    # How items are listed where their names would sort badly (a partition's State before
    # its MaxTime): (aspect, item) -> sort key; items without one sort by name.
    order: dict[tuple[str, str], str] = field(default_factory=dict)
    # Aspects the side should have held but could not show, and why (an item not collected).
    lacking: dict[str, str] = field(default_factory=dict)

    def add(self, aspect: str, item: str, scope: str, value: str, source: str) -> None:
        """Record a value; a scope seen with several values of one item keeps all of them."""
        assert aspect in ASPECTS, aspect
        self.covered.add(aspect)
        self.scopes.setdefault(aspect, set()).add(scope)
        by_scope = self.values.setdefault((aspect, item), {})
        known = by_scope.get(scope)
        if known is None:
            by_scope[scope] = value
        elif value not in known.split(" + "):
            by_scope[scope] = " + ".join(sorted({*known.split(" + "), value}))
        self.sources.setdefault((aspect, item), source)

    def cover(self, aspect: str) -> None:
        """The side holds the data for `aspect`, even if it yields no item (no NetworkPolicy)."""
        self.covered.add(aspect)

    def lack(self, aspect: str, why: str) -> None:
        """The side should hold `aspect` but does not: the diff says so instead of comparing."""
        assert aspect in ASPECTS, aspect
        self.lacking[aspect] = why

    def number(self, aspect: str, item: str, value: float, source: str) -> None:
        self.covered.add(aspect)
        self.numbers[(aspect, item)] = value
        self.sources.setdefault((aspect, item), source)

    def summary(self) -> dict[str, Any]:
        """How much of each aspect the side had, for the report's side section."""
        return {
            aspect: len({item for (a, item) in self.values if a == aspect})
            + len({item for (a, item) in self.numbers if a == aspect})
            for aspect in sorted(self.covered)
        }
