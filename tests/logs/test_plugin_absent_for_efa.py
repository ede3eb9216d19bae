"""A job that asks libfabric for EFA (FI_PROVIDER=efa in its environment) while NCCL's plugin
loader finds no net plugin has not loaded aws-ofi-nccl: NCCL reaches its peers without EFA.
The NCCL lines are a real single-rank NCCL 2.28.9 init captured on an H200 (tests/fixtures/
captured/gpu/nccl-info-healthy-init-1rank.log, whose loader says 'NET/Plugin: Could not find:
libnccl-net.so'); the environment line is the JSON form a task definition prints, as pasted in
github.com/NVIDIA/nccl/issues/959 (corpus case bz001)."""

from __future__ import annotations

from pathlib import Path

import pytest
from rule_cases import ENGINES

from hyperpod_nccl.api import analyze_logs

CAPTURED = Path(__file__).parents[1] / "fixtures" / "captured" / "gpu"
ENV_EFA = '"FI_PROVIDER": "efa",'


def _report(tmp_path: Path, env: str, nodes: int, backend: str) -> dict[str, object]:
    lines = (CAPTURED / "nccl-info-healthy-init-1rank.log").read_text("utf-8").splitlines()
    lines = [line.replace(" nNodes 1 ", f" nNodes {nodes} ") for line in lines]
    path = tmp_path / "rank0.log"
    path.write_text("\n".join([env, *lines]) + "\n", "utf-8")
    return analyze_logs([str(path)], backend=backend).to_dict()


def _status(report: dict[str, object], code: str) -> str | None:
    findings = report["findings"]
    assert isinstance(findings, list)
    return next((f["status"] for f in findings if f["code"] == code), None)


@pytest.mark.parametrize("backend", ENGINES)
def test_efa_asked_for_and_no_plugin_across_nodes_is_the_fallback(
    tmp_path: Path, backend: str
) -> None:
    report = _report(tmp_path, ENV_EFA, nodes=2, backend=backend)
    assert report["root_cause"] == "EFA_TCP_FALLBACK"
    assert _status(report, "EFA_TCP_FALLBACK") == "FAIL"


@pytest.mark.parametrize("backend", ENGINES)
def test_on_one_node_it_is_only_a_warning(tmp_path: Path, backend: str) -> None:
    report = _report(tmp_path, ENV_EFA, nodes=1, backend=backend)
    assert report["root_cause"] is None
    assert _status(report, "EFA_TCP_FALLBACK") == "WARN"


@pytest.mark.parametrize("backend", ENGINES)
def test_no_plugin_without_efa_asked_for_is_nothing(tmp_path: Path, backend: str) -> None:
    report = _report(tmp_path, '"FI_PROVIDER": "tcp",', nodes=2, backend=backend)
    assert report["root_cause"] is None
    assert _status(report, "EFA_TCP_FALLBACK") is None
