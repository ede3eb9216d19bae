"""Helpers for the diff tests: where the example bundles and fixtures are, and the real
command line in a child process."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BUNDLES = ROOT / "src" / "hyperpod_nccl" / "examples" / "bundles"
FIXTURES = ROOT / "tests" / "fixtures" / "diff"
CLI = [sys.executable, "-m", "hyperpod_nccl.cli"]


@dataclass
class Result:
    rc: int
    stdout: str
    stderr: str


def run_cli(*args: str) -> Result:
    done = subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=300, check=False)
    return Result(done.returncode, done.stdout, done.stderr)
