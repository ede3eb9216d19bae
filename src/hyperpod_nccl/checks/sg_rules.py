"""What one direction of a node's security groups lets through to (or in from) its peers,
for the two kinds of traffic NCCL sends between nodes on HyperPod.

EFA's OS-bypass traffic is matched by security-group references only: a rule must allow all
traffic (protocol -1) with a group the peer carries as source (inbound) or destination
(outbound). CIDR rules, 0.0.0.0/0 included, never let it through, which is why AWS's EFA and
EKS guides keep a separate "self" rule beside the default all-traffic egress to 0.0.0.0/0.
NCCL's TCP traffic (bootstrap, the socket transport, the TCPStore) uses ephemeral ports, so
it needs every unprivileged TCP port, from a group the peer carries or from a CIDR that holds
the peers' subnets.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from typing import Any

_EVERYWHERE = ipaddress.ip_network("0.0.0.0/0")
_TCP = ("tcp", "6")
_FIRST_EPHEMERAL = 1024  # NCCL and the TCPStore bind ports the kernel picks above this


@dataclass(frozen=True)
class Peers:
    """The nodes on the other side: the security groups they carry, their subnets' CIDRs."""

    groups: frozenset[str]
    cidrs: tuple[ipaddress.IPv4Network, ...]


@dataclass(frozen=True)
class Verdict:
    """The rule that lets each kind of traffic through in one direction, or None."""

    efa: str | None
    tcp: str | None


def _all_traffic(perm: dict[str, Any]) -> bool:
    return str(perm.get("IpProtocol")) == "-1"


def _every_tcp_port(perm: dict[str, Any]) -> bool:
    if _all_traffic(perm):
        return True
    if str(perm.get("IpProtocol")).lower() not in _TCP:
        return False
    low, high = perm.get("FromPort"), perm.get("ToPort")
    return (
        isinstance(low, int) and isinstance(high, int) and low <= _FIRST_EPHEMERAL <= 65535 <= high
    )


def _what(perm: dict[str, Any]) -> str:
    if _all_traffic(perm):
        return "all traffic"
    return f"{perm.get('IpProtocol')} {perm.get('FromPort')}-{perm.get('ToPort')}"


def _peer_groups(perm: dict[str, Any], peers: Peers) -> list[str]:
    return [
        str(pair["GroupId"])
        for pair in perm.get("UserIdGroupPairs") or []
        if pair.get("GroupId") in peers.groups
    ]


def _peer_cidrs(perm: dict[str, Any], peers: Peers) -> list[str]:
    found = []
    for block in perm.get("IpRanges") or []:
        try:
            net = ipaddress.ip_network(str(block.get("CidrIp")), strict=False)
        except ValueError:
            continue
        if net == _EVERYWHERE or (
            peers.cidrs and all(c.subnet_of(net) for c in peers.cidrs)  # type: ignore[arg-type]
        ):
            found.append(str(net))
    return found


def evaluate(permissions: list[dict[str, Any]], peers: Peers, word: str) -> Verdict:
    """`word` is "from" for inbound rules, "to" for outbound ones (for the texts)."""
    efa = tcp = None
    for perm in permissions:
        groups = _peer_groups(perm, peers)
        if groups and _all_traffic(perm) and efa is None:
            efa = f"all traffic {word} {groups[0]}"
        if _every_tcp_port(perm) and tcp is None:
            peer = next(iter(groups or _peer_cidrs(perm, peers)), None)
            if peer:
                tcp = f"{_what(perm)} {word} {peer}"
    return Verdict(efa, efa or tcp)


def rules_text(permissions: list[dict[str, Any]]) -> str:
    rules = []
    for perm in permissions:
        peers = [g.get("GroupId", "") for g in perm.get("UserIdGroupPairs") or []]
        peers += [r.get("CidrIp", "") for r in perm.get("IpRanges") or []]
        peers += [p.get("PrefixListId", "") for p in perm.get("PrefixListIds") or []]
        ports = (
            f"{perm.get('FromPort', '')}-{perm.get('ToPort', '')}" if "FromPort" in perm else "all"
        )
        rules.append(
            f"protocol {perm.get('IpProtocol')} ports {ports} with {','.join(peers) or '-'}"
        )
    return "; ".join(rules) or "no rules"
