"""The examples the help and README show first run by name from any directory (they are
package data), and a missing Hyperscan is said once on stderr, never on stdout."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from hyperpod_nccl.cli import build_parser, main
from hyperpod_nccl.commands import diagnose, logs
from hyperpod_nccl.rules.engine import FALLBACK_NOTICE

SRC = Path(__file__).resolve().parents[2] / "src"
# A process in which `import hyperscan` fails, as on a platform without its wheels.
WITHOUT_HYPERSCAN = (
    "import sys; sys.modules['hyperscan'] = None; from hyperpod_nccl.cli import main; "
    "sys.exit(main(sys.argv[1:]))"
)


def test_logs_example_names_the_oom_killed_rank(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["logs", "--example", "oom-one-rank", "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["root_cause"] == "CONTAINER_OOM"
    assert report["summary"]["inputs_read"] >= 6
    assert any("ip-10-1-7-41" in json.dumps(f) for f in report["findings"])


def test_diagnose_example_replays_the_shipped_bundle(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diagnose", "--example", "oom-one-rank", "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["root_cause"] == "CONTAINER_OOM"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["logs", "--example", "nope"], "no example 'nope'; examples: oom-one-rank"),
        (["diagnose", "--example", "nope"], "no example 'nope'; examples: healthy-eks, "),
        (["logs", "--example", "oom-one-rank", "a.log"], "--example analyses shipped logs"),
        (["diagnose", "--example", "oom-one-rank", "--cluster", "c"], "--example replays"),
    ],
)
def test_a_wrong_example_is_one_line_and_exit_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.splitlines()) == 1


@pytest.mark.parametrize("module", [logs, diagnose])
def test_the_first_help_example_parses_and_names_a_shipped_example(module: object) -> None:
    epilog = module.EXAMPLES  # type: ignore[attr-defined]
    first = epilog.splitlines()[1].split(" # ")[0].split()
    assert "--example" in first
    parsed = build_parser().parse_args(first[1:])
    assert parsed.example == "oom-one-rank"


def _without_hyperscan(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", WITHOUT_HYPERSCAN, *argv],
        env={"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_without_hyperscan_the_fallback_is_said_once_on_stderr() -> None:
    result = _without_hyperscan("logs", "--example", "oom-one-rank", "--format", "json")
    assert result.returncode == 0, result.stderr
    assert result.stderr.count(FALLBACK_NOTICE) == 1
    report = json.loads(result.stdout)  # stdout stays one JSON document
    assert report["summary"]["engine"] == "re"
    assert report["root_cause"] == "CONTAINER_OOM"


def test_asking_for_the_pure_python_engine_is_not_a_notice() -> None:
    result = _without_hyperscan("logs", "--example", "oom-one-rank", "--engine", "re")
    assert result.returncode == 0, result.stderr
    assert FALLBACK_NOTICE not in result.stderr
