"""Security groups as EFA and NCCL need them, per direction and per instance group (the
cluster's groups, or an instance group's `OverrideVpcConfig` groups).

Between the nodes of one instance group, EFA needs a self-reference both ways: all traffic in
from, and out to, a group the nodes carry. A CIDR or 0.0.0.0/0 rule lets NCCL's TCP sockets
through but not EFA: that is SG_SELF_REFERENCE_MISSING, and when TCP does pass, EFA_TRAFFIC_BLOCKED
too (EFA errors, hangs or a fall back to sockets rather than refused connections). Instance
groups on other groups are checked against each other where a rule references the other's
group: such a reference counts only where both sides allow the traffic. Instance types without
EFA need TCP only.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from typing import Any

from hyperpod_nccl.checks import check
from hyperpod_nccl.checks.capabilities import ec2_type, instance_capabilities
from hyperpod_nccl.checks.findings import doc, evidence, finding, listed, read_only, unavailable
from hyperpod_nccl.checks.sg_rules import Peers, Verdict, evaluate, rules_text
from hyperpod_nccl.model import Finding, Priority, Status, SuggestedCommand
from hyperpod_nccl.snapshot import Snapshot
from hyperpod_nccl.snapshot.items import CLUSTER, SECURITY_GROUPS, SUBNETS, security_group_ids

CHECK = "network.security-groups"
SELF_CODE = "SG_SELF_REFERENCE_MISSING"
EFA_CODE = "EFA_TRAFFIC_BLOCKED"


@dataclass(frozen=True)
class Members:
    """An instance group's nodes: the security groups they carry and their subnets' CIDRs."""

    name: str
    groups: tuple[str, ...]
    cidrs: tuple[ipaddress.IPv4Network, ...]
    efa: bool  # its instance type has EFA (or the type is unknown, so EFA is assumed)

    @property
    def peers(self) -> Peers:
        return Peers(frozenset(self.groups), self.cidrs)

    @property
    def label(self) -> str:
        return f"{self.name} ({', '.join(self.groups)})"


@dataclass(frozen=True)
class Gap:
    """One direction of one path between instance groups that EFA (or TCP) cannot take."""

    source: Members
    target: Members
    direction: str  # "inbound" (rules of target) or "outbound" (rules of source)
    verdict: Verdict
    efa_needed: bool
    rules: str

    @property
    def owner(self) -> Members:
        return self.target if self.direction == "inbound" else self.source

    @property
    def peer(self) -> Members:
        return self.source if self.direction == "inbound" else self.target

    def text(self) -> str:
        where = self.owner.label
        if self.source != self.target:
            where += f" {'from' if self.direction == 'inbound' else 'to'} {self.peer.name}"
        if not self.efa_needed:
            return f"{where}: no {self.direction} rule for TCP between the nodes"
        text = f"{where}: no {self.direction} self-reference"
        if self.verdict.tcp:
            way = "in" if self.direction == "inbound" else "out"
            text += f" ({self.verdict.tcp} lets TCP {way}, not EFA)"
        return text

    def record(self) -> dict[str, Any]:
        return {
            "instance_group": self.owner.name,
            "security_groups": list(self.owner.groups),
            "direction": self.direction,
            "peer_instance_group": self.peer.name,
            "tcp_allowed_by": self.verdict.tcp,
            "efa_needed": self.efa_needed,
        }


def _subnet_cidrs(snapshot: Snapshot, subnet_ids: list[str]) -> tuple[ipaddress.IPv4Network, ...]:
    by_id = {
        s.get("SubnetId"): s.get("CidrBlock") for s in doc(snapshot, SUBNETS).get("Subnets", [])
    }
    return tuple(
        ipaddress.IPv4Network(str(by_id[sid]), strict=False) for sid in subnet_ids if by_id.get(sid)
    )


def _members(snapshot: Snapshot, cluster: dict[str, Any]) -> list[Members]:
    base = cluster.get("VpcConfig") or {}
    caps = instance_capabilities(snapshot)
    found = []
    for group in cluster.get("InstanceGroups") or []:
        override = group.get("OverrideVpcConfig") or {}
        sgs = override.get("SecurityGroupIds") or base.get("SecurityGroupIds") or []
        subnets = override.get("Subnets") or base.get("Subnets") or []
        cap = (caps or {}).get(ec2_type(str(group.get("InstanceType", ""))))
        efa = cap is None or cap.efa_supported
        if sgs:
            found.append(
                Members(
                    str(group.get("InstanceGroupName")),
                    tuple(sgs),
                    _subnet_cidrs(snapshot, subnets),
                    efa,
                )
            )
    return found


def _rules(described: dict[str, Any], groups: tuple[str, ...], key: str) -> list[dict[str, Any]]:
    return [p for sg in groups for p in described.get(sg, {}).get(key, [])]


def _references(described: dict[str, Any], a: Members, b: Members) -> bool:
    """Whether a rule of `a`'s groups names one of `b`'s groups that `a`'s nodes do not carry."""
    theirs = set(b.groups) - set(a.groups)
    for key in ("IpPermissions", "IpPermissionsEgress"):
        for perm in _rules(described, a.groups, key):
            if any(pair.get("GroupId") in theirs for pair in perm.get("UserIdGroupPairs") or []):
                return True
    return False


def _paths(described: dict[str, Any], members: list[Members]) -> list[tuple[Members, Members]]:
    """(source, target) paths to check: within each instance group, and both ways between two
    on different groups where a rule of either references the other's group."""
    paths = [(m, m) for m in members]
    for i, a in enumerate(members):
        for b in members[i + 1 :]:
            if set(a.groups) != set(b.groups) and (
                _references(described, a, b) or _references(described, b, a)
            ):
                paths += [(a, b), (b, a)]
    return paths


def _path_gaps(
    described: dict[str, Any], source: Members, target: Members
) -> tuple[list[Gap], bool]:
    """The gaps of one path, and whether it is EFA blocked while TCP passes both ways."""
    efa_needed = source.efa and target.efa
    out_rules = _rules(described, source.groups, "IpPermissionsEgress")
    in_rules = _rules(described, target.groups, "IpPermissions")
    out = evaluate(out_rules, target.peers, "to")
    inn = evaluate(in_rules, source.peers, "from")
    gaps = []
    for direction, verdict, rules in (("inbound", inn, in_rules), ("outbound", out, out_rules)):
        if (verdict.efa if efa_needed else verdict.tcp) is None:
            gaps.append(Gap(source, target, direction, verdict, efa_needed, rules_text(rules)))
    tcp_only = efa_needed and bool(gaps) and bool(inn.tcp) and bool(out.tcp)
    return gaps, tcp_only


def _fix_commands(gaps: list[Gap], region: str) -> list[SuggestedCommand]:
    groups = sorted({g for gap in gaps for g in (*gap.owner.groups, *gap.peer.groups)})
    commands = [
        read_only(
            "confirm the groups' rules (read-only)",
            f"aws ec2 describe-security-groups --group-ids {' '.join(groups)} --region {region}",
        )
    ]
    seen = set()
    for gap in gaps:
        owner, peer = gap.owner.groups[0], gap.peer.groups[0]
        key = (gap.direction, owner, peer)
        if key in seen:
            continue
        seen.add(key)
        verb = "ingress" if gap.direction == "inbound" else "egress"
        way = "inbound traffic from" if gap.direction == "inbound" else "outbound traffic to"
        commands.append(
            SuggestedCommand(
                purpose=f"allow all {way} {peer} on {owner} (EFA needs every protocol)",
                command=(
                    f"aws ec2 authorize-security-group-{verb} --group-id {owner} "
                    f"--ip-permissions 'IpProtocol=-1,UserIdGroupPairs=[{{GroupId={peer}}}]' "
                    f"--region {region}"
                ),
                preconditions=f"ec2:AuthorizeSecurityGroup{verb.capitalize()}; run it yourself",
                changes_state=True,
                blast_radius="every instance in the group can reach the peers on all ports",
            )
        )
    return commands


@check(CHECK, "network", [SELF_CODE, EFA_CODE])
def security_groups(snapshot: Snapshot) -> list[Finding]:
    gap = unavailable(
        snapshot,
        [CLUSTER, SECURITY_GROUPS],
        SELF_CODE,
        Priority.P0,
        "security-group self-reference",
    )
    if gap:
        return [gap]
    cluster = doc(snapshot, CLUSTER)
    own = sorted(security_group_ids(cluster))
    described = {g["GroupId"]: g for g in doc(snapshot, SECURITY_GROUPS).get("SecurityGroups", [])}
    region = str(snapshot.meta.get("region"))
    absent = [sg for sg in own if sg not in described]
    gaps: list[Gap] = []
    tcp_only: list[tuple[Members, Members]] = []
    allowed: list[str] = []
    uncertain: list[str] = []
    for source, target in _paths(described, _members(snapshot, cluster)):
        if set(source.groups + target.groups) & set(absent):
            uncertain.append(f"{source.name} -> {target.name}")
            continue
        found, blocked = _path_gaps(described, source, target)
        gaps += found
        if blocked:
            tcp_only.append((source, target))
        if not found:
            allowed.append(f"{source.name} -> {target.name}")
    if gaps:
        return _failures(gaps, tcp_only, own, region, uncertain)
    if uncertain:
        return [
            finding(
                SELF_CODE,
                Status.INCOMPLETE,
                Priority.P0,
                f"security groups not returned by EC2: {listed(absent)}",
                details={"not_evaluated": uncertain},
            )
        ]
    return [
        finding(
            SELF_CODE,
            Status.PASS,
            Priority.P0,
            "security groups let EFA and NCCL's TCP through between the cluster's nodes, "
            f"inbound and outbound ({listed(allowed)})",
            details={"cluster_groups": own, "paths": allowed},
        )
    ]


def _failures(
    gaps: list[Gap],
    tcp_only: list[tuple[Members, Members]],
    own: list[str],
    region: str,
    uncertain: list[str],
) -> list[Finding]:
    commands = _fix_commands(gaps, region)
    details = {
        "cluster_groups": own,
        "missing": [g.record() for g in gaps],
        "not_evaluated": uncertain,
    }
    findings = [
        finding(
            SELF_CODE,
            Status.FAIL,
            Priority.P0,
            "security groups block EFA between the cluster's nodes (EFA needs all traffic with "
            "the group itself as source and as destination; CIDR rules do not count): "
            + listed([g.text() for g in gaps]),
            evidence=[
                evidence(SECURITY_GROUPS, f"{', '.join(g.owner.groups)} {g.direction}: {g.rules}")
                for g in gaps
            ],
            commands=commands,
            details=details,
        )
    ]
    if tcp_only:
        paths = sorted({s.name if s == t else f"{s.name} -> {t.name}" for s, t in tcp_only})
        findings.append(
            finding(
                EFA_CODE,
                Status.FAIL,
                Priority.P0,
                f"EFA traffic is blocked while TCP sockets work ({listed(paths)}): NCCL's "
                "bootstrap connects, then EFA connections fail or hang, or NCCL falls back to "
                "sockets",
                evidence=[
                    evidence(
                        SECURITY_GROUPS, f"{g.owner.label} {g.direction}: TCP by {g.verdict.tcp}"
                    )
                    for g in gaps
                    if (g.source, g.target) in tcp_only
                ],
                commands=commands,
                details={"paths": paths, **details},
            )
        )
    return findings
