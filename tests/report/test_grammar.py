"""One grammar: the same option names, meanings and defaults on every command, checked by
walking the real parser; "did you mean"; errors that name the subcommand."""

from __future__ import annotations

import argparse
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from hyperpod_nccl import targets
from hyperpod_nccl.cli import build_parser, main
from hyperpod_nccl.exit_codes import UsageError

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE_LOGS = ROOT / "src" / "hyperpod_nccl" / "examples" / "logs" / "oom-one-rank"
REPORT_COMMANDS = ("logs", "perf", "probe", "diagnose")


def _subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    raise AssertionError("no subcommands")


def _options(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    return {o: a for a in parser._actions for o in a.option_strings}


def test_every_report_command_takes_the_shared_output_options() -> None:
    commands = _subcommands()
    assert set(REPORT_COMMANDS) <= set(commands)
    shapes = set()
    for name in REPORT_COMMANDS:
        options = _options(commands[name])
        for flag in ("--format", "-o", "--output", "--fail-on"):
            assert flag in options, (name, flag)
        fmt, fail_on = options["--format"], options["--fail-on"]
        assert list(fmt.choices or []) == ["text", "json", "markdown", "html"], name
        assert fmt.default is None  # from -o's extension, else text
        assert options["-o"] is options["--output"]
        shapes.add((tuple(fmt.choices or []), fail_on.metavar, fail_on.type))
    assert len(shapes) == 1  # one definition, not four look-alikes


def test_every_command_that_saves_a_bundle_can_redact_and_obfuscate() -> None:
    savers = [n for n, p in _subcommands().items() if "--save-bundle" in _options(p)]
    assert set(savers) == set(REPORT_COMMANDS)
    for name in savers:
        options = _options(_subcommands()[name])
        assert {"--obfuscate", "--no-redact"} <= set(options), name


def test_since_takes_durations_and_iso_times_everywhere() -> None:
    now = datetime(2026, 11, 30, 12, 0, tzinfo=timezone.utc)
    assert targets.parse_since("6h", now) == timedelta(hours=6)
    assert targets.parse_since("2026-11-30T10:00:00Z", now) == timedelta(hours=2)
    assert targets.parse_since("2026-11-30T10:00:00", now) == timedelta(hours=2)  # UTC
    with pytest.raises(UsageError, match="ISO time"):
        targets.parse_since("yesterday", now)
    with pytest.raises(UsageError, match="longer than zero"):
        targets.parse_since("2026-12-01T00:00:00Z", now)
    for name in ("diagnose", "probe"):
        assert "--since" in _options(_subcommands()[name])


@pytest.mark.parametrize("value", ["p0", "P0"])
def test_fail_on_in_any_case(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["logs", str(EXAMPLE_LOGS), "--fail-on", value, "--format", "json"]) == 3


def test_a_typo_in_an_option_names_the_subcommand_and_the_option(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["logs", str(EXAMPLE_LOGS), "--formt", "json"]) == 2
    err = capsys.readouterr().err
    assert err == (
        "error: hyperpod-nccl logs: unrecognized arguments: --formt json; did you mean --format?\n"
    )


def test_a_typo_in_a_choice_or_command_gets_a_suggestion(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["logs", str(EXAMPLE_LOGS), "--format", "jsno"]) == 2
    assert capsys.readouterr().err.rstrip().endswith("did you mean json?")
    assert main(["lgos", str(EXAMPLE_LOGS)]) == 2
    assert capsys.readouterr().err.rstrip().endswith("did you mean logs?")


@pytest.mark.parametrize(
    ("name", "fmt", "start"),
    [("r.html", "html", "<!DOCTYPE html>"), ("r.json", "json", "{"), ("r.md", "markdown", "# ")],
)
def test_output_takes_its_format_from_the_extension_and_never_overwrites(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, fmt: str, start: str
) -> None:
    target = tmp_path / name
    assert main(["logs", str(EXAMPLE_LOGS), "-o", str(target)]) == 0
    assert target.read_text("utf-8").startswith(start)
    assert f"wrote the {fmt} report to {target}" in capsys.readouterr().err
    before = target.read_bytes()
    assert main(["logs", str(EXAMPLE_LOGS), "-o", str(target)]) == 2
    assert "already exists" in capsys.readouterr().err and target.read_bytes() == before
