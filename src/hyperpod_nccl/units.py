"""Units for people: byte sizes as reports print them."""

from __future__ import annotations


def size_text(size: int) -> str:
    """1073741824 -> '1 GiB', 33554432 -> '32 MiB'."""
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if size >= scale:
            value = size / scale
            return f"{value:.0f} {unit}" if value == int(value) else f"{value:.1f} {unit}"
    return f"{size} B"
