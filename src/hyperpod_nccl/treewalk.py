"""Apply a function to every string of a JSON-like tree (dicts, lists, strings), keys too if
asked: the one walk that relabelling, redaction for display and control-sequence stripping
share."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def map_strings(data: Any, fn: Callable[[str], str], *, keys: bool = False) -> Any:
    if isinstance(data, str):
        return fn(data)
    if isinstance(data, list):
        return [map_strings(v, fn, keys=keys) for v in data]
    if isinstance(data, dict):
        return {
            (fn(k) if keys and isinstance(k, str) else k): map_strings(v, fn, keys=keys)
            for k, v in data.items()
        }
    return data
