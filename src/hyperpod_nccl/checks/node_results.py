"""The node checks' collector, built on `checks.findings`: which nodes a Snapshot holds, each
probe's output or the reason it is missing, and how per-node results become findings.

FAIL and WARN findings are per node (`hosts=[node]`), so every failing node is counted and named.
Healthy nodes fold into one PASS finding per check, and nodes where the check could not run
fold into one SKIPPED finding per reason, each listing its nodes: a thousand healthy nodes make
one line, not a thousand.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

from hyperpod_nccl.checks.findings import evidence as evidence_line
from hyperpod_nccl.checks.findings import listed, reference
from hyperpod_nccl.model import Finding, Priority, Status, SuggestedCommand
from hyperpod_nccl.probes.catalog import get_probe
from hyperpod_nccl.snapshot import Snapshot
from hyperpod_nccl.snapshot.items import node_item, node_session

T = TypeVar("T")
MAX_HOSTS_IN_TITLE = 5


def nodes_in(snapshot: Snapshot) -> list[str]:
    return sorted({name.split("/")[1] for name in snapshot.names("nodes/") if name.count("/") >= 2})


def reached(snapshot: Snapshot, node: str) -> bool:
    return snapshot.has(node_session(node))


def reached_nodes(snapshot: Snapshot) -> list[str]:
    return [n for n in nodes_in(snapshot) if reached(snapshot, n)]


def output(snapshot: Snapshot, node: str, probe_id: str) -> str | None:
    return snapshot.get_text(node_item(node, probe_id))


def parsed(snapshot: Snapshot, node: str, probe_id: str, parser: Callable[[str], T]) -> T | None:
    text = output(snapshot, node, probe_id)
    return None if text is None else parser(text)


def why_missing(snapshot: Snapshot, node: str, probe_id: str) -> str:
    reason = snapshot.why_missing(node_item(node, probe_id)) or "not collected"
    return f"{get_probe(probe_id).title}: {reason}"


def name_list(names: list[str]) -> str:
    return listed(names, MAX_HOSTS_IN_TITLE)


def human_size(n: int | None) -> str:
    if n is None:
        return "unlimited"
    for unit, size in (("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if n >= size:
            value = n / size
            return f"{value:.0f} {unit}" if value == int(value) else f"{value:.1f} {unit}"
    return f"{n} B"


@dataclass
class NodeResults:
    """Collects one check's verdicts across nodes and turns them into findings."""

    code: str  # the code of the PASS / SKIPPED finding
    what: str  # "memlock and stack limits", shown in the PASS and SKIPPED titles
    findings: list[Finding] = field(default_factory=list)
    passed: dict[str, str] = field(default_factory=dict)  # node -> short note
    skipped: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    unreached: list[str] = field(default_factory=list)
    info: dict[str, Any] = field(default_factory=dict)

    def problem(
        self,
        node: str,
        status: Status,
        priority: Priority,
        title: str,
        *,
        code: str | None = None,
        evidence: list[tuple[str, str]] | None = None,
        commands: list[SuggestedCommand] | None = None,
        details: dict[str, Any] | None = None,
    ) -> None:
        code = code or self.code
        self.findings.append(
            Finding(
                code=code,
                status=status,
                priority=priority,
                title=f"{node}: {title}",
                reference=reference(code),
                hosts=[node],
                evidence=[evidence_line(src, text) for src, text in (evidence or [])[:10]],
                suggested_commands=list(commands or []),
                details={"node": node, **(details or {})},
            )
        )

    def each_reached(self, snapshot: Snapshot) -> Iterator[str]:
        """The nodes that answered; the others are noted as not reached."""
        for node in nodes_in(snapshot):
            if reached(snapshot, node):
                yield node
            else:
                self.not_reached(node)

    def each(
        self, snapshot: Snapshot, probe_id: str, parser: Callable[[str], T]
    ) -> Iterator[tuple[str, T]]:
        """(node, parsed output) for every node that has the probe's output; nodes without it
        are noted as skipped with the recorded reason."""
        for node in self.each_reached(snapshot):
            value = parsed(snapshot, node, probe_id, parser)
            if value is None:
                self.skip(node, why_missing(snapshot, node, probe_id))
            else:
                yield node, value

    def ok(self, node: str, note: str = "") -> None:
        self.passed[node] = note

    def skip(self, node: str, reason: str) -> None:
        self.skipped[reason].append(node)

    def not_reached(self, node: str) -> None:
        self.unreached.append(node)

    def emit(self, pass_status: Status = Status.PASS) -> list[Finding]:
        out = list(self.findings)
        if self.passed:
            notes = sorted(set(self.passed.values()) - {""})
            nodes = sorted(self.passed)
            verdict = "OK on" if pass_status is Status.PASS else "reported by"
            title = f"{self.what}: {verdict} {len(nodes)} node(s)"
            if len(notes) == 1:
                title += f" ({notes[0]})"
            if self.unreached:
                title += f"; {len(self.unreached)} node(s) not reached (see NODE_UNREACHABLE)"
            out.append(
                Finding(
                    code=self.code,
                    status=pass_status,
                    priority=Priority.P2,
                    title=title,
                    reference=reference(self.code),
                    hosts=nodes,
                    details={"nodes": {n: self.passed[n] for n in nodes}, **self.info},
                )
            )
        for reason, nodes in sorted(self.skipped.items()):
            out.append(
                Finding(
                    code=self.code,
                    status=Status.SKIPPED,
                    priority=Priority.P2,
                    title=f"{self.what} not checked on {len(nodes)} node(s) ({name_list(sorted(nodes))}): {reason}",
                    reference=reference(self.code),
                    hosts=sorted(nodes),
                    details={"reason": reason},
                )
            )
        return out
