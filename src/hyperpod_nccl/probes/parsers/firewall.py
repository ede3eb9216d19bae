"""Host firewall: `iptables -S` (or iptables-save) rules and the kernel's ephemeral port range,
and the question that matters for NCCL: does a rule drop traffic on the ports NCCL uses?

NCCL's bootstrap, socket transport and proxy connections listen on ports the kernel picks from
`net.ipv4.ip_local_port_range`; RAS listens on 28028 and torchrun's rendezvous on MASTER_PORT
(29500 by default). A DROP or REJECT rule only matters when it can match those: a rule limited
to loopback sources, to marked packets (kube-proxy's KUBE-FIREWALL) or to INVALID conntrack
state does not block a healthy NCCL connection, and every EKS node carries such rules.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field

RAS_PORT = 28028
TORCH_MASTER_PORT = 29500


@dataclass
class Rule:
    chain: str
    target: str
    raw: str
    protocol: str | None = None
    dports: list[tuple[int, int]] = field(default_factory=list)
    source: str | None = None
    in_interface: str | None = None
    matches: list[str] = field(default_factory=list)  # -m modules used

    @property
    def drops(self) -> bool:
        return self.target in ("DROP", "REJECT")


@dataclass
class Firewall:
    port_range: tuple[int, int] | None = None
    policies: dict[str, str] = field(default_factory=dict)
    rules: list[Rule] = field(default_factory=list)
    error: str | None = None

    def nccl_ports(self) -> list[tuple[int, int]]:
        ports = [(RAS_PORT, RAS_PORT), (TORCH_MASTER_PORT, TORCH_MASTER_PORT)]
        if self.port_range:
            ports.append(self.port_range)
        return ports


def _ports(spec: str) -> list[tuple[int, int]]:
    out = []
    for part in spec.split(","):
        lo, _, hi = part.partition(":")
        if lo.isdigit():
            out.append((int(lo), int(hi) if hi.isdigit() else int(lo)))
    return out


def _parse_rule(line: str) -> Rule | None:
    try:
        words = shlex.split(line)
    except ValueError:
        words = line.split()
    if len(words) < 2 or words[0] != "-A":
        return None
    rule = Rule(chain=words[1], target="", raw=line.strip())
    i = 2
    negate = False
    while i < len(words):
        w = words[i]
        nxt = words[i + 1] if i + 1 < len(words) else ""
        if w == "!":
            negate = True
            i += 1
            continue
        if w in ("-j", "--jump"):
            rule.target = nxt
        elif w in ("-p", "--protocol") and not negate:
            rule.protocol = nxt
        elif (
            w in ("--dport", "--destination-port", "--dports", "--destination-ports") and not negate
        ):
            rule.dports.extend(_ports(nxt))
        elif w in ("-s", "--source"):
            rule.source = ("!" if negate else "") + nxt
        elif w in ("-i", "--in-interface"):
            rule.in_interface = ("!" if negate else "") + nxt
        elif w in ("-m", "--match"):
            rule.matches.append(nxt)
        negate = False
        i += 2 if w.startswith("-") and nxt and not nxt.startswith("-") else 1
    return rule


def parse_firewall(text: str) -> Firewall:
    fw = Firewall()
    for line in text.splitlines():
        m = re.match(r"^port_range:\s*(\d+)\s+(\d+)", line)
        if m:
            fw.port_range = (int(m.group(1)), int(m.group(2)))
            continue
        m = re.match(r"^-P (\S+) (\S+)", line) or re.match(r"^:(\S+) (ACCEPT|DROP|REJECT) ", line)
        if m:
            fw.policies[m.group(1)] = m.group(2)
            continue
        if re.search(r"Permission denied|you must be root|can't initialize iptables", line):
            fw.error = fw.error or line.strip()
        rule = _parse_rule(line)
        if rule is not None:
            fw.rules.append(rule)
    return fw


def _overlaps(a: list[tuple[int, int]], b: list[tuple[int, int]]) -> bool:
    return any(lo1 <= hi2 and lo2 <= hi1 for lo1, hi1 in a for lo2, hi2 in b)


def _harmless(rule: Rule) -> bool:
    """Rules that cannot drop an ordinary new NCCL TCP connection between nodes."""
    raw = rule.raw
    if rule.source and not rule.source.startswith("!") and rule.source.startswith("127."):
        return True
    if rule.in_interface in ("lo",):
        return True
    if "--mark" in raw or "--ctstate INVALID" in raw or "--state INVALID" in raw:
        return True
    if "-d 127.0.0.0/8" in raw:  # kube-proxy's "block incoming localnet connections"
        return True
    if rule.protocol and rule.protocol not in ("tcp", "all", "6"):
        return True  # NCCL's sockets are TCP
    # kube-proxy rejects traffic to a Service address with no endpoints; node addresses differ
    return rule.chain.startswith("KUBE-") and " -d " in f" {raw} "


def blocking_rules(fw: Firewall) -> list[Rule]:
    """DROP/REJECT rules on the INPUT or OUTPUT path that can match NCCL's ports: either they
    name a port NCCL uses, or they match every port of every TCP connection without a harmless
    qualifier. Rules in user chains are included: they are reached from INPUT/OUTPUT."""
    ports = fw.nccl_ports()
    found = []
    for rule in fw.rules:
        if not rule.drops or rule.chain in ("FORWARD", "KUBE-FORWARD") or _harmless(rule):
            continue
        if not rule.dports or _overlaps(rule.dports, ports):
            found.append(rule)
    return found


def dropping_policies(fw: Firewall) -> list[str]:
    """Chains whose default policy drops: with INPUT at DROP every port NCCL opens is closed
    unless a rule accepts it."""
    return sorted(c for c in ("INPUT", "OUTPUT") if fw.policies.get(c) in ("DROP", "REJECT"))
