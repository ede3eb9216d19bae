"""Helpers for the perf tests: fixture paths and running the real command line."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from hyperpod_nccl.cli import main

PERF = Path(__file__).parent.parent / "fixtures" / "perf"


@dataclass(frozen=True)
class PerfFixtures:
    root: Path = PERF
    nccl_tests: Path = PERF / "nccl-tests"
    progress: Path = PERF / "progress"
    flight_recorder: Path = PERF / "flight-recorder"
    pair_sweep: Path = PERF / "pair-sweep-8node"
    pair_sweep_log: Path = PERF / "pair-sweep-8node-one-log.txt"


@dataclass
class Result:
    code: int
    out: str
    err: str

    def json(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(self.out)
        return data

    def findings(self, code: str) -> list[dict[str, Any]]:
        return [f for f in self.json()["findings"] if f["code"] == code]


@pytest.fixture
def perf() -> PerfFixtures:
    return PerfFixtures()


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> Any:
    """Run `hyperpod-nccl ARGS` in-process and capture its exit code and output."""

    def run(*args: str | Path) -> Result:
        code = main([str(a) for a in args])
        captured = capsys.readouterr()
        return Result(code, captured.out, captured.err)

    return run


# The headless Chromium fixtures (browser, decode_png) live in tests/conftest.py: every
# command's HTML report is checked in it.
