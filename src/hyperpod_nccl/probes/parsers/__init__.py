"""Parsers for the output of each probe in the catalog. Each takes the probe's text exactly as
the node printed it (stdout and stderr merged) and returns a small typed record; none raises on
unexpected text: what cannot be read is reported in the record's `error` field."""

from __future__ import annotations

import re

# Launcher prefixes some samples carry (`[1,0]<stdout>:` from mpirun, `0: ` from srun).
_LAUNCHER_PREFIX = re.compile(r"^(?:\[\d+,\d+\]<std(?:out|err)>:|\d+: )")


def strip_launcher_prefix(line: str) -> str:
    return _LAUNCHER_PREFIX.sub("", line)


def to_int(value: str | None) -> int | None:
    """'177' -> 177; 'N/A', 'Unknown Error', '' -> None."""
    if value is None:
        return None
    value = value.strip().split()[0] if value.strip() else ""
    return int(value) if value.isdigit() else None


def yes_no(value: str | None) -> bool | None:
    if value is None:
        return None
    word = value.strip().split()[0].lower() if value.strip() else ""
    return {"yes": True, "no": False}.get(word)
