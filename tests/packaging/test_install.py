"""The package as a user gets it: `python -m build` makes an sdist and a wheel (the wheel built
from the sdist, so both are complete), and the wheel installed in a clean virtual environment
runs the examples its help shows from an unrelated directory, with Hyperscan where the
environment markers promise it. Needs the package registry for the build backend and the
runtime dependencies (pip's cache makes later runs quick)."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest
import tomllib
from packaging.requirements import Requirement

REPO = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
# What a user's shell has: not this test run's PYTHONPATH, which would let the checkout's
# sources (and an editable install's egg-info) stand in for the installed wheel.
CLEAN_ENV = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}


def _default_requirement(name: str) -> Requirement:
    found = [Requirement(r) for r in PYPROJECT["project"]["dependencies"]]
    found = [r for r in found if r.name == name]
    assert len(found) == 1, f"{name} must be one default dependency"
    return found[0]


def _hyperscan_requirement() -> Requirement:
    return _default_requirement("hyperscan")


@pytest.mark.parametrize(
    ("package", "system", "machine", "python", "wanted"),
    [
        # Platforms PyPI has hyperscan 0.9.1 wheels for (checked with `pip download
        # --only-binary=:all: --platform ...`): installed by default.
        ("hyperscan", "linux", "x86_64", "3.11", True),
        ("hyperscan", "linux", "aarch64", "3.13", True),
        ("hyperscan", "darwin", "arm64", "3.12", True),
        ("hyperscan", "darwin", "x86_64", "3.10", True),
        ("hyperscan", "win32", "AMD64", "3.14", True),
        # No wheel: pip would try a source build against the C library, so it is left out.
        ("hyperscan", "linux", "ppc64le", "3.11", False),
        ("hyperscan", "linux", "s390x", "3.11", False),
        ("hyperscan", "win32", "ARM64", "3.12", False),
        ("hyperscan", "linux", "x86_64", "3.15", False),
        # Platforms PyPI has isal 1.9.1 wheels for (checked the same way): installed by default.
        ("isal", "linux", "x86_64", "3.14", True),
        ("isal", "linux", "aarch64", "3.10", True),
        ("isal", "darwin", "arm64", "3.14", True),
        ("isal", "darwin", "x86_64", "3.12", True),
        ("isal", "win32", "AMD64", "3.14", True),
        # No wheel (Windows on Arm), or not checked yet: zlib writes the bundles there.
        ("isal", "win32", "ARM64", "3.12", False),
        ("isal", "linux", "ppc64le", "3.11", False),
        ("isal", "linux", "x86_64", "3.15", False),
    ],
)
def test_a_compiled_extra_is_a_default_dependency_where_it_has_wheels(
    package: str, system: str, machine: str, python: str, wanted: bool
) -> None:
    marker = _default_requirement(package).marker
    assert marker is not None
    env = {"sys_platform": system, "platform_machine": machine, "python_version": python}
    assert marker.evaluate(env) is wanted


def test_isal_is_installed_where_its_marker_says_so() -> None:
    # Where pyproject.toml installs isal by default, the ISA-L writer must be the one the
    # bundle tests run; a missing wheel would otherwise leave only the zlib case, silently.
    from hyperpod_nccl.snapshot import compress

    marker = _default_requirement("isal").marker
    assert marker is not None
    assert compress.available() is marker.evaluate()


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    result = subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(out), str(REPO)],
        env=CLEAN_ENV,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return out


def test_build_makes_an_sdist_and_a_wheel_with_the_examples_and_data(dist: Path) -> None:
    (sdist,) = dist.glob("hyperpod_nccl-*.tar.gz")
    (wheel,) = dist.glob("hyperpod_nccl-*-py3-none-any.whl")
    assert sdist.stat().st_size > 0
    names = set(zipfile.ZipFile(wheel).namelist())
    for needed in (
        "hyperpod_nccl/rules/catalog.yaml",
        "hyperpod_nccl/codes/codes.yaml",
        "hyperpod_nccl/kb/debugging-guide.md",
        "hyperpod_nccl/examples/bundles/oom-one-rank/manifest.json",
        "hyperpod_nccl/examples/logs/oom-one-rank/rank2.log",
    ):
        assert needed in names, needed
    metadata = next(n for n in names if n.endswith(".dist-info/METADATA"))
    text = zipfile.ZipFile(wheel).read(metadata).decode()
    assert "Requires-Dist: hyperscan>=0.7; python_version < " in text


def test_the_wheel_in_a_clean_venv_runs_the_shipped_examples(dist: Path, tmp_path: Path) -> None:
    (wheel,) = dist.glob("hyperpod_nccl-*-py3-none-any.whl")
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True, clear=True)
    python = env_dir / "bin" / "python"
    install = subprocess.run(
        [str(python), "-m", "pip", "install", "-q", str(wheel)],
        env=CLEAN_ENV,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert install.returncode == 0, install.stderr[-3000:]
    exe = env_dir / "bin" / "hyperpod-nccl"
    elsewhere = tmp_path / "elsewhere"  # no checkout here: the examples must be package data
    elsewhere.mkdir()

    def run(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(exe), *argv], cwd=elsewhere, env=CLEAN_ENV, capture_output=True, text=True
        )

    logs = run("logs", "--example", "oom-one-rank", "--format", "json")
    assert logs.returncode == 0, logs.stderr
    report = json.loads(logs.stdout)
    assert report["root_cause"] == "CONTAINER_OOM"
    assert "site-packages" in report["findings"][0]["evidence"][0]["source"]
    wheels_exist = _hyperscan_requirement().marker.evaluate()  # type: ignore[union-attr]
    assert report["summary"]["engine"] == ("hyperscan" if wheels_exist else "re"), (
        platform.machine()
    )
    diagnose = run("diagnose", "--example", "oom-one-rank")
    assert diagnose.returncode == 0, diagnose.stderr
    assert "Root cause: CONTAINER_OOM" in diagnose.stdout
