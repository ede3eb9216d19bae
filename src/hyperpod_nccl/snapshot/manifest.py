"""The schema of a bundle's `manifest.json`, checked before a bundle is used.

A bundle may come from anyone: every field the checks, the summary or the replay read is
checked for its type here, so a malformed manifest is one line naming the field
(`items[3].name: expected a string, got an integer`), never a traceback later. Fields this
version does not know are kept, as long as they are plain JSON of bounded depth.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

SCHEMA_PREFIX = "hyperpod-nccl/bundle/"
SUPPORTED_SCHEMAS = frozenset({"hyperpod-nccl/bundle/v1"})
MAX_DEPTH = 32
MAX_STRING = 1024 * 1024

Check = Callable[[Any], str | None]  # None when the value is good, else what it should be


def _type_name(value: Any) -> str:
    names = {
        bool: "a boolean",
        int: "an integer",
        float: "a number",
        str: "a string",
        list: "a list",
        dict: "an object",
        type(None): "null",
    }
    return names.get(type(value), type(value).__name__)


def _is(*kinds: type, optional: bool = False) -> Check:
    def check(value: Any) -> str | None:
        if value is None and optional:
            return None
        # bool is an int to Python, never to a manifest.
        if isinstance(value, bool) and bool not in kinds:
            return _expected(kinds, optional)
        return None if isinstance(value, kinds) else _expected(kinds, optional)

    return check


def _expected(kinds: tuple[type, ...], optional: bool) -> str:
    words = " or ".join(_type_name(k()) for k in kinds)
    return words + (" or null" if optional else "")


def _at(where: str, wrong: str, value: Any) -> str:
    """`where: expected X, got Y`, or a nested field's own message after `where`."""
    if wrong.startswith("."):
        return where + wrong
    return f"{where}: expected {wrong}, got {_shown(value)}"


def _one_of(*allowed: str) -> Check:
    def check(value: Any) -> str | None:
        return None if value in allowed else " or ".join(repr(a) for a in allowed)

    return check


def _list_of_strings(optional: bool = True) -> Check:
    def check(value: Any) -> str | None:
        if value is None and optional:
            return None
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return None
        return "a list of strings"

    return check


def _object_of(fields: dict[str, Check], optional: bool = True) -> Check:
    def check(value: Any) -> str | None:
        if value is None and optional:
            return None
        if not isinstance(value, dict):
            return "an object"
        for key, field_check in fields.items():
            wrong = field_check(value[key]) if key in value else None
            if wrong is not None:
                return _at(f".{key}", wrong, value[key])
        return None

    return check


_STR = _is(str)
_OPT_STR = _is(str, optional=True)
_OPT_OBJECT = _is(dict, optional=True)
_OPT_INT = _is(int, optional=True)
_OPT_NUMBER = _is(int, float, optional=True)

META: dict[str, Check] = {
    "schema": _STR,
    "tool_version": _STR,
    "created_at": _STR,
    "command": _STR,
    "cluster": _OPT_STR,
    "cluster_arn": _OPT_STR,
    "region": _OPT_STR,
    "orchestrator": _OPT_STR,
    "orchestrator_detected": _OPT_STR,
    "orchestrator_unknown": _OPT_STR,
    "namespace": _OPT_STR,
    "job": _OPT_STR,
    "window_start": _OPT_STR,
    "window_end": _OPT_STR,
    "window": _object_of({"start": _OPT_STR, "end": _OPT_STR, "zone": _OPT_STR}),
    "scrubbing": _object_of(
        {
            "secrets_redacted": _is(bool, optional=True),
            "obfuscated": _is(bool, optional=True),
            "redacted": _OPT_OBJECT,
        }
    ),
    "command_line": _list_of_strings(),
    "cluster_arns_in_logs": _list_of_strings(),
    "since_seconds": _OPT_INT,
    "probe_since": _OPT_STR,
    "node_probe": _object_of(
        {
            "transport": _OPT_STR,
            "nodes": _OPT_INT,
            "reached": _OPT_INT,
            "unreachable": _OPT_OBJECT,
            "elapsed_s": _OPT_NUMBER,
            "probes": _list_of_strings(),
            "preflight": _OPT_STR,
            "concurrency": _OPT_INT,
            "start_rate": _OPT_NUMBER,
            "node_timeout_s": _OPT_NUMBER,
            "deadline_s": _OPT_NUMBER,
        }
    ),
    "node_instance_types": _OPT_OBJECT,
    "slurm_access": _object_of(
        {
            "via": _OPT_STR,
            "controller_group": _OPT_STR,
            "controller_instance": _OPT_STR,
            "found_by": _OPT_STR,
            "target": _OPT_STR,
            "hostname": _OPT_STR,
            "ssm_sessions": _OPT_INT,
        }
    ),
    "items": _is(list),
}
ITEM: dict[str, Check] = {
    "name": _STR,
    "status": _one_of("collected", "missing"),
    "source": _OPT_STR,
    "reason": _OPT_STR,
    "kind": _one_of("json", "text"),
    "bytes": _is(int, optional=True),
    "collected_at": _OPT_STR,
}
ITEM_REQUIRED = ("name", "status")


def manifest_problem(manifest: Any) -> str | None:
    """What is wrong with a decoded manifest, in a few words naming the field; None if
    nothing is."""
    if not isinstance(manifest, dict):
        return f"is {_type_name(manifest)}, not a JSON object"
    deep = _too_deep(manifest)
    if deep is not None:
        return deep
    schema = manifest.get("schema")
    if isinstance(schema, str) and schema not in SUPPORTED_SCHEMAS:
        return f"schema {schema[:80]!r} is not one this version reads ({', '.join(sorted(SUPPORTED_SCHEMAS))})"
    for key, check in META.items():
        if key in manifest:
            wrong = check(manifest[key])
            if wrong is not None:
                return "field " + _at(key, wrong, manifest[key])
    for index, item in enumerate(manifest.get("items") or []):
        where = f"field items[{index}]"
        if not isinstance(item, dict):
            return f"{where}: expected an object, got {_type_name(item)}"
        for key in ITEM_REQUIRED:
            if key not in item:
                return f"{where} has no {key!r}"
        for key, check in ITEM.items():
            if key in item:
                wrong = check(item[key])
                if wrong is not None:
                    return _at(f"{where}.{key}", wrong, item[key])
        if isinstance(item.get("bytes"), int) and item["bytes"] < 0:
            return f"{where}.bytes: expected a size, got {item['bytes']}"
    return None


def _shown(value: Any) -> str:
    if isinstance(value, str):
        return repr(value if len(value) <= 40 else value[:37] + "...")
    return _type_name(value)


def _too_deep(document: Any) -> str | None:
    """Nesting beyond MAX_DEPTH, or an overlong string, anywhere (walked without recursion)."""
    stack: list[tuple[Any, int]] = [(document, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_DEPTH:
            return f"nested deeper than {MAX_DEPTH} levels"
        if isinstance(value, dict):
            for key, child in value.items():
                if len(key) > MAX_STRING:
                    return f"holds a key over {MAX_STRING} characters"
                stack.append((child, depth + 1))
        elif isinstance(value, list):
            stack.extend((child, depth + 1) for child in value)
        elif isinstance(value, str) and len(value) > MAX_STRING:
            return f"holds a string over {MAX_STRING} characters"
    return None
