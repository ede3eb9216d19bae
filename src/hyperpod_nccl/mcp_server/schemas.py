"""The JSON shapes the MCP tools return, as TypedDicts: the SDK publishes them as each tool's
output schema and checks every result against them before it leaves the server.

Reports are the contract JSON of `Report.to_dict()` (docs: contract.md). Every shape allows
extra keys, because the contract grows by adding fields and an agent must still get them.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ConfigDict, with_config
from typing_extensions import TypedDict

# The contract's fixed vocabularies (tests check they match hyperpod_nccl.model).
StatusName = Literal["PASS", "FAIL", "WARN", "INFO", "SKIPPED", "INCOMPLETE"]
PriorityName = Literal["P0", "P1", "P2"]

_OPEN = ConfigDict(extra="allow")


@with_config(_OPEN)
class EvidenceResult(TypedDict):
    source: str
    text: str


@with_config(_OPEN)
class SuggestedCommandResult(TypedDict):
    """A command for the user to run. The server never runs it."""

    purpose: str
    command: str
    preconditions: str
    blast_radius: str
    changes_state: bool
    runs_on: str


@with_config(_OPEN)
class FindingResult(TypedDict):
    code: str
    status: StatusName
    priority: PriorityName
    title: str
    root_cause: bool
    explains: list[str]
    ranks: list[int]
    hosts: list[str]
    first_seen: str | None
    evidence: list[EvidenceResult]
    reference: str | None
    suggested_commands: list[SuggestedCommandResult]


@with_config(_OPEN)
class NotCheckedResult(TypedDict):
    check: str
    reason: str


@with_config(_OPEN)
class ReportResult(TypedDict):
    """A report in the contract JSON (schema hyperpod-nccl/report/v1)."""

    schema: str
    tool_version: str
    command: str
    root_cause: str | None
    issues_found: int
    findings: list[FindingResult]
    not_checked: list[NotCheckedResult]
    summary: dict[str, Any]


@with_config(_OPEN)
class SectionResult(TypedDict):
    """One section of the remediation guide."""

    topic: str
    reference: str
    references: list[str]
    title: str
    markdown: str
    sources: list[str]


@with_config(_OPEN)
class LogCode(TypedDict):
    code: str
    priority: PriorityName
    title: str
    explains: list[str]
    reference: str | None


@with_config(_OPEN)
class StateCode(TypedDict):
    code: str
    checks: list[str]
    areas: list[str]
    reference: str | None


@with_config(_OPEN)
class SectionRef(TypedDict):
    reference: str
    title: str


@with_config(_OPEN)
class CodesResult(TypedDict):
    log_codes: list[LogCode]
    state_codes: list[StateCode]
    sections: list[SectionRef]
