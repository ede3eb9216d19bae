"""`logs --bundle` and `diagnose --bundle` of the same saved diagnose bundle name the same root
cause: a diagnose bundle's logs are analysed with the cluster state beside them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hyperpod_nccl.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "src" / "hyperpod_nccl" / "examples" / "bundles"
BUNDLES = sorted(p.name for p in EXAMPLES.iterdir() if (p / "manifest.json").exists())


def _json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict[str, object]:
    main(argv)
    out: dict[str, object] = json.loads(capsys.readouterr().out)
    return out


@pytest.mark.parametrize("name", BUNDLES)
def test_both_commands_name_the_same_root_cause(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    bundle = str(EXAMPLES / name)
    diagnosed = _json(capsys, ["diagnose", "--bundle", bundle, "--format", "json"])
    logged = _json(capsys, ["logs", "--bundle", bundle, "--format", "json"])
    assert logged["root_cause"] == diagnosed["root_cause"]
    assert logged["summary"]["analysed_as"] == "diagnose"  # type: ignore[index]


def test_the_oom_kill_explains_the_timeouts_in_both(capsys: pytest.CaptureFixture[str]) -> None:
    logged = _json(capsys, ["logs", "--bundle", str(EXAMPLES / "oom-one-rank"), "--format", "json"])
    assert logged["root_cause"] == "CONTAINER_OOM"
    timeout = next(f for f in logged["findings"] if f["code"] == "NCCL_TIMEOUT")  # type: ignore[attr-defined]
    assert timeout["explained_by"] == ["CONTAINER_OOM"]


def test_efa_request_mismatch_explains_the_fallback(capsys: pytest.CaptureFixture[str]) -> None:
    report = _json(
        capsys, ["diagnose", "--bundle", str(EXAMPLES / "sg-efa-fallback"), "--format", "json"]
    )
    fallback = next(f for f in report["findings"] if f["code"] == "EFA_TCP_FALLBACK")  # type: ignore[attr-defined]
    assert "EFA_COUNT_MISMATCH" in fallback["explained_by"]
