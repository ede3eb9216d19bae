"""Stand-ins for IP addresses that keep the structure analysis and support need.

IPv4 addresses map octet by octet under their parent prefix, so two addresses in one /24
(or /16, /8) stay in one /24 (/16, /8) of stand-ins, and the private ranges stay private:
10.1.2.3 and 10.1.2.9 become, say, 10.1.1.1 and 10.1.1.2. Addresses that identify nobody
and that rules look at (loopback, 0.0.0.0, link-local 169.254/16, multicast, netmasks) stay
as they are, and so do octets 0 and 255 (network and broadcast addresses keep their meaning).

IPv6 addresses keep their first 16 bits (fe80 link-local, fd ULA, 2600 global) and map the
rest of the /64 prefix and the interface id separately.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field

_PUBLIC_FIRST = [
    n for n in range(1, 224) if n not in (10, 100, 127, 169, 172, 192)
]  # the public first octets, which map onto each other
_MIDDLE = list(range(1, 255))


@dataclass
class _Allocator:
    """Sequential, one-to-one stand-ins for values under one parent."""

    pool: list[int]
    given: dict[int, int] = field(default_factory=dict)

    def get(self, value: int) -> int:
        if value not in self.given:
            self.given[value] = self.pool[len(self.given)]
        return self.given[value]


@dataclass
class IPv4Map:
    _levels: dict[tuple[int, ...], _Allocator] = field(default_factory=dict)
    mapping: dict[str, str] = field(default_factory=dict)

    def map(self, address: str) -> str:
        """The stand-in for `address` (dotted quad, already validated), or itself if kept."""
        known = self.mapping.get(address)
        if known is not None:
            return known
        octets = [int(o) for o in address.split(".")]
        if _kept(octets):
            return address
        out = self._first_two(octets)
        for level in (2, 3):
            octet = octets[level]
            out.append(
                octet if octet in (0, 255) else self._alloc(tuple(octets[:level]), _MIDDLE, octet)
            )
        stand_in = ".".join(map(str, out))
        self.mapping[address] = stand_in
        return stand_in

    def _first_two(self, octets: list[int]) -> list[int]:
        a, b = octets[0], octets[1]
        if a == 10:
            return [10, b if b in (0, 255) else self._alloc((10,), _MIDDLE, b)]
        if a == 172 and 16 <= b <= 31:
            return [172, self._alloc((172,), list(range(16, 32)), b)]
        if a == 192 and b == 168:
            return [192, 168]
        if a == 100 and 64 <= b <= 127:
            return [100, self._alloc((100,), list(range(64, 128)), b)]
        first = self._alloc((), _PUBLIC_FIRST, a) if a in _PUBLIC_FIRST else a
        return [first, b if b in (0, 255) else self._alloc((a,), _MIDDLE, b)]

    def _alloc(self, parent: tuple[int, ...], pool: list[int], value: int) -> int:
        return self._levels.setdefault(parent, _Allocator(pool)).get(value)


def _kept(octets: list[int]) -> bool:
    a, b = octets[0], octets[1]
    return a in (0, 127) or a >= 224 or (a == 169 and b == 254)


@dataclass
class IPv6Map:
    _prefixes: dict[tuple[int, int], int] = field(default_factory=dict)
    _hosts: dict[int, int] = field(default_factory=dict)
    mapping: dict[str, str] = field(default_factory=dict)

    def map(self, text: str) -> str | None:
        """The stand-in for `text` if it is an IPv6 address worth hiding; None otherwise."""
        try:
            address = ipaddress.IPv6Address(text)
        except ValueError:
            return None
        if address.is_loopback or address.is_unspecified or address.is_multicast:
            return None
        if address.ipv4_mapped is not None:
            return None  # its IPv4 part is mapped as IPv4
        known = self.mapping.get(text)
        if known is not None:
            return known
        value = int(address)
        first = value >> 112
        prefix = (value >> 64) & ((1 << 48) - 1)
        iid = value & ((1 << 64) - 1)
        new_prefix = (
            0
            if prefix == 0
            else self._prefixes.setdefault((first, prefix), len(self._prefixes) + 1)
        )
        new_iid = self._hosts.setdefault(iid, len(self._hosts) + 1)
        stand_in = str(ipaddress.IPv6Address((first << 112) | (new_prefix << 64) | new_iid))
        self.mapping[text] = stand_in
        return stand_in
