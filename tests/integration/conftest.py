"""The seams between diagnose, Slurm, node probes and escalation bundles, tested end to end
against the real components the other suites use (see seams.py)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

# Appended, not inserted first: another folder's `from conftest import ...` must not find ours.
sys.path.append(str(Path(__file__).parent))

from seams import MotoServer

from hyperpod_nccl.cli import main


@pytest.fixture(scope="module")
def moto() -> Iterator[MotoServer]:
    from aws_server import moto_server

    with moto_server() as server:
        yield server


@dataclass
class Result:
    code: int
    out: str
    err: str


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> Callable[..., Result]:
    """Run `hyperpod-nccl ARGS` in-process; exit code, stdout and stderr."""

    def run(*args: str | Path) -> Result:
        code = main([str(a) for a in args])
        captured = capsys.readouterr()
        return Result(code, captured.out, captured.err)

    return run
