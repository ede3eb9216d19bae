"""`hyperpod-nccl checks` lists every code the registry has, with the checks that report it."""

from __future__ import annotations

import json

import pytest

from hyperpod_nccl import cli
from hyperpod_nccl.checks import load_checks
from hyperpod_nccl.codes import FIELD, load_registry


def test_json_lists_every_registry_code_once_with_its_checks(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli.main(["checks", "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["schema"] == "hyperpod-nccl/checks/v1"
    codes = [e["code"] for e in document["codes"]]
    registry = load_registry().codes
    assert codes == list(registry) and len(set(codes)) == len(codes)
    by_code = {e["code"]: e for e in document["codes"]}
    for spec in load_checks().values():
        for code in spec.codes:
            assert spec.id in by_code[code]["checks"], (spec.id, code)
    for code, info in registry.items():
        entry = by_code[code]
        assert (entry["area"], entry["priority"], entry["reference"]) == (
            info.area,
            info.priority.value,
            info.reference,
        )
        assert entry["checks"], code  # every code says what reports it
        if any(not c.changes_state for c in info.commands):
            assert entry["confirm"] and not FIELD.search(entry["confirm"]["run"]), code


def test_area_filter_and_bad_area(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["checks", "--area", "slurm"]) == 0
    out = capsys.readouterr().out
    assert "SLURM_NODE_DOWN  [slurm, P0]" in out and "CONTAINER_OOM" not in out
    assert cli.main(["checks", "--area", "nope"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "checks: unknown --area 'nope'" in err[0]


def _diagnose(capsys: pytest.CaptureFixture[str], *extra: str) -> dict[str, object]:
    assert cli.main(["diagnose", "--example", "sg-efa-fallback", "--format", "json", *extra]) == 0
    document: dict[str, object] = json.loads(capsys.readouterr().out)
    return document


def test_check_and_skip_pick_checks_by_id_or_area_and_say_what_was_left_out(
    capsys: pytest.CaptureFixture[str],
) -> None:
    every = _diagnose(capsys)
    assert every["root_cause"] == "SG_SELF_REFERENCE_MISSING"
    network = _diagnose(capsys, "--check", "network")
    codes = {f["code"] for f in network["findings"]}  # type: ignore[union-attr,index]
    assert "SG_SELF_REFERENCE_MISSING" in codes and "EFA_COUNT_MISMATCH" not in codes
    skipped = _diagnose(capsys, "--skip", "network.security-groups")
    assert skipped["root_cause"] == "EFA_COUNT_MISMATCH"  # the next cause, not a silent PASS
    reasons = [n["reason"] for n in skipped["not_checked"]]  # type: ignore[union-attr,index]
    assert any("not run as asked: network.security-groups" in r for r in reasons)


def test_an_unknown_check_is_one_line_with_close_names(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["diagnose", "--example", "sg-efa-fallback", "--skip", "netwrk"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no check or area 'netwrk'; did you mean network?" in err[0]
