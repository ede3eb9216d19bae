"""Kubernetes label selectors (`matchLabels` and `matchExpressions`) with the API's semantics:
all terms must hold; an empty selector matches everything; a missing one matches nothing
where the API says so (the caller decides, since that differs by field)."""

from __future__ import annotations

from typing import Any


def matches(selector: dict[str, Any] | None, labels: dict[str, str]) -> bool:
    """True when `labels` satisfy `selector`. `{}` (or None) selects everything."""
    if not selector:
        return True
    for key, value in (selector.get("matchLabels") or {}).items():
        if labels.get(key) != str(value):
            return False
    for expression in selector.get("matchExpressions") or []:
        if not _expression_holds(expression, labels):
            return False
    return True


def _expression_holds(expression: dict[str, Any], labels: dict[str, str]) -> bool:
    key = str(expression.get("key", ""))
    operator = expression.get("operator")
    values = {str(v) for v in expression.get("values") or []}
    if operator == "In":
        return key in labels and labels[key] in values
    if operator == "NotIn":
        return key not in labels or labels[key] not in values
    if operator == "Exists":
        return key in labels
    if operator == "DoesNotExist":
        return key not in labels
    return False  # an unknown operator is invalid; the API would have rejected the object


def selector_text(selector: dict[str, Any] | None) -> str:
    """A selector as kubectl would write it (`app=train,tier in (a,b)`); `{}` is `<all>`."""
    if not selector:
        return "<all>"
    parts = [f"{k}={v}" for k, v in sorted((selector.get("matchLabels") or {}).items())]
    for e in selector.get("matchExpressions") or []:
        op = e.get("operator")
        values = ",".join(str(v) for v in e.get("values") or [])
        if op in ("In", "NotIn"):
            parts.append(f"{e.get('key')} {op.lower()} ({values})")
        elif op == "Exists":
            parts.append(str(e.get("key")))
        else:
            parts.append(f"!{e.get('key')}")
    return ",".join(parts) or "<all>"
