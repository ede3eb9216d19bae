"""Every command the tool prints for the project's own inputs (example bundles, example logs,
every corpus case, the perf fixtures) runs as printed: bash parses it, no angle-bracket
placeholder sits in a shell position, every FAIL and WARN carries at least one read-only
command, and each command's `changes_state` agrees with the write verbs it uses."""

from __future__ import annotations

import pytest
from command_gather import Printed, printed, reports
from command_verbs import placeholder_in_shell, syntax_error, writes

from hyperpod_nccl.codes import FIELD, load_registry
from hyperpod_nccl.suggest.shell import runnable


@pytest.fixture(scope="module")
def gathered() -> tuple[list[Printed], list[tuple[str, str]]]:
    return printed(reports())


def test_enough_commands_are_gathered_to_mean_something(gathered) -> None:  # type: ignore[no-untyped-def]
    commands, _ = gathered
    assert len(commands) > 500 and len({c.case for c in commands}) > 100


def test_every_printed_command_parses_in_bash(gathered) -> None:  # type: ignore[no-untyped-def]
    commands, _ = gathered
    broken = {c.command: e for c in {c.command for c in commands} if (e := syntax_error(c))}
    assert not broken


def test_no_placeholder_in_a_shell_position(gathered) -> None:  # type: ignore[no-untyped-def]
    commands, _ = gathered
    for c in commands:
        assert not placeholder_in_shell(c.command), (c.case, c.code, c.command)


def test_every_fail_and_warn_carries_a_read_only_command(gathered) -> None:  # type: ignore[no-untyped-def]
    commands, bare = gathered
    assert not bare
    read_only = {(c.case, c.code) for c in commands if c.changes_state is False}
    with_any = {(c.case, c.code) for c in commands if c.status in ("FAIL", "WARN")}
    assert with_any and with_any <= read_only


def test_changes_state_agrees_with_the_write_verbs(gathered) -> None:  # type: ignore[no-untyped-def]
    commands, _ = gathered
    wrong = {(c.command, c.changes_state) for c in commands if writes(c.command) != c.changes_state}
    assert not wrong
    assert any(c.changes_state for c in commands) and any(not c.changes_state for c in commands)


def test_every_registry_command_is_declared_right_and_parses() -> None:
    for code, info in load_registry().codes.items():
        for template in info.commands:
            shown = runnable(FIELD.sub("VALUE", template.run))
            assert writes(shown) == template.changes_state, (code, template.run)
            assert syntax_error(shown) is None, (code, template.run)


def test_every_code_a_fail_or_warn_can_carry_has_a_command() -> None:
    """Codes that are only ever INFO, SKIPPED or INCOMPLETE (what a scan covered, an input it
    could not read) need none."""
    only_informational = {
        "LOGS_SCANNED",
        "LOGS_INCOMPLETE",
        "INPUT_UNREADABLE",
        "CHECK_FAILED",
        "INSTANCE_CAPABILITIES",
        "NODE_INVENTORY",
        "TIMEOUT_SIZING",
    }
    registry = load_registry()
    assert {c for c, i in registry.codes.items() if not i.commands} <= only_informational
