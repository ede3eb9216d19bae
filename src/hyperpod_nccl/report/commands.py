"""Suggested commands as every report shows them: consecutive commands with one purpose
under one heading (the same check on several hosts), each heading saying whether its
commands only read or change state, and what must hold first."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from hyperpod_nccl.model import SuggestedCommand

READ_ONLY = "read-only"


@dataclass(frozen=True)
class CommandGroup:
    purpose: str
    commands: tuple[str, ...]
    changes_state: bool
    blast_radius: str
    preconditions: str

    @property
    def label(self) -> str:
        """One word for read-only commands; a loud one with the blast radius otherwise."""
        if not self.changes_state:
            return READ_ONLY
        return "CHANGES STATE" + (f": {self.blast_radius}" if self.blast_radius else "")


def command_groups(commands: Sequence[SuggestedCommand]) -> Iterator[CommandGroup]:
    i = 0
    while i < len(commands):
        first = commands[i]
        j = i + 1
        while j < len(commands) and (
            commands[j].purpose,
            commands[j].changes_state,
            commands[j].blast_radius,
            commands[j].preconditions,
        ) == (first.purpose, first.changes_state, first.blast_radius, first.preconditions):
            j += 1
        yield CommandGroup(
            purpose=first.purpose,
            commands=tuple(c.command for c in commands[i:j]),
            changes_state=first.changes_state,
            blast_radius=first.blast_radius,
            preconditions=first.preconditions,
        )
        i = j
