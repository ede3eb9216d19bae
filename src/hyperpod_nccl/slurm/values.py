"""Reading the scalar shapes that Slurm's JSON output takes across releases.

Slurm 22.05 (openapi v0.0.38) writes plain numbers and a state string; 23.02 and later (the
data_parser plugins) may wrap numbers as {"set": bool, "infinite": bool, "number": n} and give
states as a list of flags. These helpers accept all of them.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any


def number(value: Any) -> int | None:
    """An integer from a plain number or a {set, infinite, number} object; None when unset."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return int(value)
    if isinstance(value, dict):
        if not value.get("set", True) or value.get("infinite"):
            return None
        return number(value.get("number"))
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value)
    return None


def words(value: Any) -> list[str]:
    """State words, upper case, from "idle", "IDLE+DRAIN" or ["IDLE", "DRAIN"]."""
    if value is None:
        return []
    if isinstance(value, str):
        return [w.upper() for w in value.replace("+", " ").split() if w]
    if isinstance(value, list):
        return [w for item in value for w in words(item)]
    return []


def text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def iso_from_epoch(seconds: int | None) -> str | None:
    """ISO 8601 UTC from a Unix time; Slurm uses 0 for "never"."""
    if not seconds or seconds <= 0:
        return None
    return datetime.fromtimestamp(seconds, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def epoch_from_slurm_time(value: str) -> int | None:
    """Unix time from Slurm's text timestamps (`2026-11-29T23:28:09`, local time of the host
    that printed them; read as UTC because the text carries no zone)."""
    value = value.strip()
    if not value or value in ("Unknown", "None", "N/A", "(null)"):
        return None
    try:
        parsed = datetime.strptime(value, "%Y-%m-%dT%H:%M:%S")
    except ValueError:
        return None
    return int(parsed.replace(tzinfo=timezone.utc).timestamp())
