"""`explain`: the remediation guide's section for a finding code, a reference or an anchor,
and the list of every section."""

from __future__ import annotations

from hyperpod_nccl import kb
from hyperpod_nccl.exit_codes import UsageError
from hyperpod_nccl.kb.topics import unknown_topic_message


def explain(topic: str) -> kb.Section:
    """The section for CONTAINER_OOM, debugging-guide.md#container-oom or container-oom;
    UsageError (with the closest topics) when the guide has none."""
    section = kb.resolve(topic)
    if section is None:
        raise UsageError(unknown_topic_message(topic))
    return section


def guide_sections() -> list[kb.Section]:
    """Every section of the guide, in guide order (each with its references)."""
    return kb.list_sections()
