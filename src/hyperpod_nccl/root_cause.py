"""The one root-cause ranker, for findings from logs, cluster state, node probes and perf
alike, over the one cause graph of the code registry.

1. Only findings whose code can be a root cause take part (not advisories, not gaps in our
   own access). A FAIL is *inactive* when every rule that made it is explained at rule level
   by another present code (the rule's `explained_by`): it neither explains nor is a root.
2. A failing finding is a symptom when an active failing code reaches it in the registry's
   `explains` graph, or when it followed such a code in time where the order is what makes
   it a symptom. A finding derived from context only ("weak") does not explain a finding
   that has a cause line of its own.
3. Among the rest: cause lines before weak ones before symptoms, then the earlier (when both
   have a time more than a second apart), then the deeper tier, the higher priority, the
   first seen in the input, the lowest rank, the code.
4. A catch-all code (`fallback`: a failure line no rule classifies) is the root cause only
   when no classified code is a candidate.
5. With no FAIL, a WARN whose code may be a root while a warning (an application Xid, ranks
   that never reached a collective, Horovod's stall warning) is still named: null means
   nothing is wrong.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

from hyperpod_nccl.codes import CodeRegistry, load_registry
from hyperpod_nccl.model import Finding, Status


def _active(finding: Finding, present: set[str]) -> bool:
    others = present - {finding.code}
    return any(not (explainers & others) for explainers in finding.basis.rule_explainers)


def _compare(registry: CodeRegistry, a: Finding, b: Finding) -> int:
    if a.basis.strength != b.basis.strength:
        return a.basis.strength - b.basis.strength
    a_time, b_time = a.basis.time, b.basis.time
    if a_time is not None and b_time is not None and abs((a_time - b_time).total_seconds()) > 1:
        return -1 if a_time < b_time else 1
    a_tier, b_tier = registry.tier(a.code), registry.tier(b.code)
    if a_tier != b_tier:
        return a_tier - b_tier
    if a.priority.rank != b.priority.rank:
        return a.priority.rank - b.priority.rank
    if a.basis.order != b.basis.order:
        return a.basis.order - b.basis.order
    a_rank, b_rank = min(a.ranks, default=1 << 30), min(b.ranks, default=1 << 30)
    if a_rank != b_rank:
        return a_rank - b_rank
    return (a.code > b.code) - (a.code < b.code)


def _sorted(registry: CodeRegistry, findings: Iterable[Finding]) -> list[Finding]:
    def compare(a: Finding, b: Finding) -> int:
        return _compare(registry, a, b)

    return sorted(findings, key=functools.cmp_to_key(compare))


def rank(findings: list[Finding], registry: CodeRegistry | None = None) -> list[Finding]:
    """Mark the root cause (root_cause, explains) and every symptom's explained_by, in place;
    returns the same list. Findings of one code should already be merged into one."""
    registry = registry or load_registry()
    for f in findings:
        f.root_cause = False
        f.explains = []
        f.explained_by = []
    rankable = [f for f in findings if (info := registry.get(f.code)) is None or info.can_be_root]
    failing = {f.code: f for f in rankable if f.status is Status.FAIL}
    present = set(failing)
    active = {code for code, f in failing.items() if _active(f, present)}
    if failing and not active:
        # Rules that explain each other away (a store client failed because its host's rank
        # raised; that rank's exit code 1 came from the store failure) leave no failure
        # unexplained: the log still failed, so all of them compete as roots.
        active = set(failing)
    # What each active code explains: its own edges, and on through the present active codes
    # it explains (an absent intermediate is no evidence of a chain).
    reach = {code: _reach(registry, code, active) for code in active}
    explained_by: dict[str, set[str]] = {}
    for code in active:
        weak = failing[code].basis.strength == 1
        for target in reach[code]:
            target_finding = failing.get(target)
            if target_finding is not None and weak and "cause" in target_finding.basis.roles:
                continue
            if code in failing and target in failing[code].basis.follows:
                continue  # it came after the target's failure: the order says otherwise
            explained_by.setdefault(target, set()).add(code)
    for code, f in failing.items():
        for earlier in f.basis.follows & active:
            explained_by.setdefault(code, set()).add(earlier)
            reach[earlier] = reach[earlier] | {code}
    for f in rankable:
        if f.status in (Status.FAIL, Status.WARN) and f.code in explained_by:
            f.explained_by = sorted(explained_by[f.code] - {f.code})
    candidates = [failing[c] for c in active if c not in explained_by]
    # A catch-all finding (a failure line no rule classifies) yields to any classified one.
    classified = [f for f in candidates if not _is_fallback(registry, f.code)]
    if classified:
        for f in candidates:
            if _is_fallback(registry, f.code):
                f.explained_by = sorted(c.code for c in classified)
        candidates = classified
    if candidates:
        root = _sorted(registry, candidates)[0]
        below = _symptoms_of(root.code, reach, present)
        root.root_cause = True
        root.explains = sorted(below)
        return findings
    warned = [
        f
        for f in rankable
        if f.status is Status.WARN
        and (info := registry.get(f.code)) is not None
        and info.root_when_warning
        and "cause" in f.basis.roles
    ]
    if warned and not failing:
        _sorted(registry, warned)[0].root_cause = True
    return findings


def _is_fallback(registry: CodeRegistry, code: str) -> bool:
    info = registry.get(code)
    return info is not None and info.fallback


def _reach(registry: CodeRegistry, code: str, active: set[str]) -> frozenset[str]:
    found: set[str] = set()
    frontier = [code]
    while frontier:
        current = frontier.pop()
        info = registry.get(current)
        for target in info.explains if info else ():
            if target != code and target not in found:
                found.add(target)
                if target in active:
                    frontier.append(target)
    return frozenset(found)


def _symptoms_of(code: str, reach: dict[str, frozenset[str]], present: set[str]) -> set[str]:
    """The present codes the root explains, through present active codes too."""
    found: set[str] = set()
    frontier = [code]
    while frontier:
        current = frontier.pop()
        for target in reach.get(current, frozenset()):
            if target in present and target not in found and target != code:
                found.add(target)
                frontier.append(target)
    return found
