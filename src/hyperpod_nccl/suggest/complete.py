"""The last step before a report is shown: every FAIL and WARN carries at least one command
(its code's, from the registry, when the check or rule gave none), values the run did not
learn become shell expansions, and a command is listed once."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from hyperpod_nccl.codes import CodeRegistry
from hyperpod_nccl.model import Finding, Status
from hyperpod_nccl.suggest.build import commands_for
from hyperpod_nccl.suggest.shell import runnable

_NEEDS_COMMAND = (Status.FAIL, Status.WARN)


def add_missing(findings: Iterable[Finding], registry: CodeRegistry) -> None:
    """Give each FAIL and WARN without a command its code's commands, and one whose commands
    all change state its code's read-only ones first: a fix is no way to confirm."""
    for finding in findings:
        info = registry.get(finding.code)
        own = finding.suggested_commands
        if finding.status not in _NEEDS_COMMAND or not info:
            continue
        if not own:
            finding.suggested_commands = commands_for(finding, info)
        elif all(c.changes_state for c in own):
            reads = [c for c in commands_for(finding, info) if not c.changes_state]
            finding.suggested_commands = reads + own


def finish(findings: list[Finding], registry: CodeRegistry) -> None:
    """Make every command runnable as printed and drop repeats, and commands of use only
    while ranks hang when a finding shows they ended."""
    ended = any((info := registry.get(f.code)) and info.ends_ranks for f in findings)
    for finding in findings:
        seen: set[tuple[str, str]] = set()
        kept = []
        for command in finding.suggested_commands:
            if ended and command.while_hanging:
                continue
            done = dataclasses.replace(command, command=runnable(command.command))
            if (done.purpose, done.command) not in seen:
                seen.add((done.purpose, done.command))
                kept.append(done)
        finding.suggested_commands = kept


def complete(findings: list[Finding], registry: CodeRegistry) -> None:
    add_missing(findings, registry)
    finish(findings, registry)
