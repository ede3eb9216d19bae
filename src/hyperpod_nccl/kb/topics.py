"""Finding a guide section from what a user typed: the closest codes, anchors or references
and the one line that names them (used by `explain` and the MCP server)."""

from __future__ import annotations

import difflib

from hyperpod_nccl import kb


def unknown_topic_message(topic: str) -> str:
    """One line naming the unknown topic and the closest known codes or references."""
    matches = close_matches(topic)
    hint = (
        f"close matches: {', '.join(matches)}"
        if matches
        else "run 'hyperpod-nccl explain --list' to see every section"
    )
    return f"explain: no guide section for {topic!r}; {hint}"


def close_matches(topic: str, limit: int = 5) -> list[str]:
    """Known codes, anchors or references that look like ``topic`` (difflib)."""
    guide = kb.load()
    anchors = guide.anchors()
    query = topic.strip()
    if "#" in query:
        candidates = [ref for s in guide.list_sections() for ref in s.references]
        return difflib.get_close_matches(query, candidates, n=limit, cutoff=0.6)
    if query.isupper():
        codes = [a.upper().replace("-", "_") for a in anchors]
        return difflib.get_close_matches(query.upper(), codes, n=limit, cutoff=0.6)
    normalized = query.lower().replace("_", "-")
    return difflib.get_close_matches(normalized, anchors, n=limit, cutoff=0.6)
