"""What the `list_codes` and `explain` tools return: the finding codes the tool can emit and
the sections of the remediation guide, read from the same sources as the CLI."""

from __future__ import annotations

from hyperpod_nccl import api, kb
from hyperpod_nccl.checks import load_checks
from hyperpod_nccl.exit_codes import UsageError
from hyperpod_nccl.mcp_server.errors import AnticipatedError
from hyperpod_nccl.mcp_server.schemas import (
    CodesResult,
    LogCode,
    SectionRef,
    SectionResult,
    StateCode,
)
from hyperpod_nccl.rules.catalog import load_catalog


def guide_reference(code: str) -> str | None:
    """`file.md#anchor` of the code's section, or None when the guide has none yet."""
    try:
        return kb.reference_for_code(code)
    except KeyError:
        return None


def log_codes() -> list[LogCode]:
    """Codes the log rules emit, from the rule catalog, most severe first."""
    infos = sorted(load_catalog().codes.values(), key=lambda c: (c.tier, c.priority.rank, c.code))
    return [
        LogCode(
            code=info.code,
            priority=info.priority.value,
            title=info.title,
            explains=list(info.explains),
            reference=guide_reference(info.code),
        )
        for info in infos
    ]


def state_codes() -> list[StateCode]:
    """Codes the state checks of `diagnose` emit, with the checks that emit each."""
    checks: dict[str, list[str]] = {}
    areas: dict[str, list[str]] = {}
    for spec in load_checks().values():
        for code in spec.codes:
            checks.setdefault(code, []).append(spec.id)
            if spec.area not in areas.setdefault(code, []):
                areas[code].append(spec.area)
    return [
        StateCode(
            code=code,
            checks=sorted(checks[code]),
            areas=sorted(areas[code]),
            reference=guide_reference(code),
        )
        for code in sorted(checks)
    ]


def guide_sections() -> list[SectionRef]:
    """Every reference of the guide (one per anchor), in guide order."""
    return [
        SectionRef(reference=ref, title=section.title)
        for section in api.guide_sections()
        for ref in section.references
    ]


def all_codes() -> CodesResult:
    return CodesResult(log_codes=log_codes(), state_codes=state_codes(), sections=guide_sections())


def explain(topic: str) -> SectionResult:
    """The guide section for a finding code, a reference or an anchor."""
    try:
        section = api.explain(topic)
    except UsageError as exc:
        raise AnticipatedError(str(exc).removeprefix("explain: ")) from exc
    return SectionResult(
        topic=topic,
        reference=section.reference,
        references=list(section.references),
        title=section.title,
        markdown=section.markdown,
        sources=section.sources,
    )
