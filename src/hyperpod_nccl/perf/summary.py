"""Pair-sweep summary lines: one figure per group of hosts, as people collect them.

    se02gn644,se02gn699     49.36
    se02gn284,se02gn678     49.28  # crossing TOR

The hosts are joined by commas (or `+`), the figure is the group's bus bandwidth in GB/s at
large sizes, and anything after `#` is a comment.
"""

from __future__ import annotations

import re

_SUMMARY = re.compile(
    r"^(?P<hosts>[A-Za-z0-9{][\w.{}-]*(?:\s*[,+]\s*[A-Za-z0-9{][\w.{}-]*)*)"
    r"\s*[:,\s]\s*(?P<value>\d+(?:\.\d+)?)\s*(?:GB/s)?\s*(?:#.*)?$"
)


_HOSTNAME = re.compile(r"[A-Za-z]")


def parse_summary_line(body: str) -> tuple[list[str], float] | None:
    """(hosts, busbw) for a summary line, or None.

    Host names must look like host names (a letter and a digit, `-` or `.`), so that lines such
    as `Epoch 3` are not taken for summaries.
    """
    m = _SUMMARY.match(body.strip())
    if not m:
        return None
    hosts = [h.strip() for h in re.split(r"[,+]", m["hosts"]) if h.strip()]
    if not hosts or not all(_HOSTNAME.search(h) and re.search(r"[\d.{-]", h) for h in hosts):
        return None
    return hosts, float(m["value"])
