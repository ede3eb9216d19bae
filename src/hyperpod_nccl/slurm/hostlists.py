"""Slurm host lists (`ip-10-1-2-[3-5,7]`, `node[001-010]`, `rack[1-2]-n[01-02]`): the one
expander and the one compressor every caller uses, on python-hostlist, which follows Slurm's
own syntax (ranges, several bracket groups, zero padding kept from the lower bound)."""

from __future__ import annotations

import re
from collections.abc import Iterable

import hostlist

# A range wider than this is not a host list a cluster prints (a guard against `n[0-99999999]`).
MAX_RANGE = 100_000
_RANGE = re.compile(r"(\d+)-(\d+)")


class HostlistError(ValueError):
    """Not a Slurm host list: a bracket that does not close, a range that runs backwards."""


def expand(expression: str, max_range: int = MAX_RANGE) -> list[str]:
    """Every host of `expression`, in Slurm's order; a comma outside brackets separates lists.
    Raises HostlistError when it is malformed or one range spans more than `max_range`."""
    for low, high in _RANGE.findall(expression):
        if int(high) - int(low) > max_range:
            raise HostlistError(f"range {low}-{high} spans more than {max_range} hosts")
    try:
        return [str(host) for host in hostlist.expand_hostlist(expression)]
    except hostlist.BadHostlist as exc:
        raise HostlistError(f"{expression!r}: {exc}") from None


def compress(names: Iterable[str]) -> str:
    """The shortest host list naming `names` (`node[02-03,05]`), sorted as Slurm sorts it."""
    return str(hostlist.collect_hostlist(list(names)))
