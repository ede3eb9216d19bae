"""Each api operation called directly on real sample data gives what the CLI prints: the CLI
only parses, calls the api and renders. Reports are compared as the CLI's JSON shows them
(redacted, `for_display`), less the run's own timing."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from hyperpod_nccl import api
from hyperpod_nccl.api import (
    DiagnoseRequest,
    LogsRequest,
    NothingRead,
    PerfRequest,
    ProbeRequest,
)
from hyperpod_nccl.cli import main
from hyperpod_nccl.exit_codes import UsageError
from hyperpod_nccl.model import Report
from hyperpod_nccl.report.display import for_display
from hyperpod_nccl.snapshot import Snapshot

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "hyperpod_nccl"
EXAMPLE_LOGS = SRC / "examples" / "logs" / "oom-one-rank"
EXAMPLE_BUNDLES = SRC / "examples" / "bundles"
FIXTURES = ROOT / "tests" / "fixtures"
NCCL_TESTS = FIXTURES / "perf" / "nccl-tests" / "a100-sxm4-80gb-1node-8gpu-allreduce-healthy.txt"
TRACES = sorted((FIXTURES / "perf" / "flight-recorder").glob("trace_[0-9]"))
TIMING = ("elapsed_s", "analysis_s")


def _comparable(document: dict[str, Any]) -> dict[str, Any]:
    document = dict(document, summary=dict(document["summary"]))
    for key in TIMING:
        document["summary"].pop(key, None)
    return document


def _as_shown(report: Report) -> dict[str, Any]:
    return _comparable(for_display(report, redact=True, terminal=False).to_dict())


def _cli_json(capsys: pytest.CaptureFixture[str], *argv: str, code: int = 0) -> dict[str, Any]:
    capsys.readouterr()
    assert main([*argv, "--format", "json"]) == code
    document: dict[str, Any] = json.loads(capsys.readouterr().out)
    return _comparable(document)


def _probe_output(relpath: str) -> str:
    """A probe's recorded output without the fixture's `# source:` line."""
    lines = (FIXTURES / "probes" / relpath).read_text("utf-8").splitlines()
    assert lines[0].startswith("# source:"), relpath
    return "\n".join(lines[1:]) + "\n"


@pytest.fixture
def probe_bundle(tmp_path: Path) -> Path:
    """A saved bundle of one node's probe results, from real command outputs: ECC with a
    pending row remap (Xid 63), the Xids of a real kernel log, /dev/shm and limits."""
    snapshot = Snapshot(meta={"command": "probe"})
    outputs = {
        "gpu_ecc": "nvidia-smi/smi-q-a100-ecc-remap-pending-xid63.txt",
        "kernel_log": "xid/xid119-gsp-rpc-timeout-full-dmesg.txt",
        "shm": "local/shm-probe-debian12-vm.txt",
        "processes": "local/processes-probe-torch-nccl-memlock-64k.txt",
    }
    for probe_id, relpath in outputs.items():
        snapshot.put_text(f"nodes/gpu-7/{probe_id}.txt", _probe_output(relpath))
    snapshot.put_json("nodes/gpu-7/session.json", {"transport": "test", "probes": sorted(outputs)})
    try:
        return Path(snapshot.save(str(tmp_path / "node-bundle")))
    finally:
        snapshot.close()


# ---------------------------------------------------------------------------- the reports
def test_logs_gives_the_cli_report(capsys: pytest.CaptureFixture[str]) -> None:
    report = api.logs(LogsRequest(paths=[str(EXAMPLE_LOGS)]))
    assert report.root_cause is not None and report.root_cause.code == "CONTAINER_OOM"
    assert _as_shown(report) == _cli_json(capsys, "logs", str(EXAMPLE_LOGS))


def test_logs_of_a_diagnose_bundle_is_its_diagnosis(capsys: pytest.CaptureFixture[str]) -> None:
    bundle = str(EXAMPLE_BUNDLES / "oom-one-rank")
    told: list[str] = []
    report = api.logs(bundle=bundle, notify=told.append)
    assert report.summary["analysed_as"] == "diagnose"
    assert told and "is a diagnose bundle" in told[0]
    assert _as_shown(report) == _cli_json(capsys, "logs", "--bundle", bundle)


def test_perf_gives_the_cli_report(capsys: pytest.CaptureFixture[str]) -> None:
    report = api.perf(PerfRequest(paths=[str(NCCL_TESTS)]))
    assert report.summary["runs_found"] == 1
    assert _as_shown(report) == _cli_json(capsys, "perf", str(NCCL_TESTS))
    stalled = api.perf(paths=[str(p) for p in TRACES])
    assert "STALLED_RANKS" in {f.code for f in stalled.findings}
    assert _as_shown(stalled) == _cli_json(capsys, "perf", *map(str, TRACES))


def test_perf_with_world_size_only_suggests_a_timeout(capsys: pytest.CaptureFixture[str]) -> None:
    report = api.perf(world_size=1024)
    assert _as_shown(report) == _cli_json(capsys, "perf", "--world-size", "1024")


@pytest.mark.parametrize("example", sorted(p.name for p in EXAMPLE_BUNDLES.iterdir()))
def test_diagnose_gives_the_cli_report(example: str, capsys: pytest.CaptureFixture[str]) -> None:
    bundle = str(EXAMPLE_BUNDLES / example)
    report = api.diagnose(DiagnoseRequest(bundle=bundle))
    assert report.summary["replayed_from"] == bundle
    assert _as_shown(report) == _cli_json(capsys, "diagnose", "--bundle", bundle)
    assert _as_shown(api.diagnose(bundle=bundle)) == _as_shown(report)  # fields as keywords


def test_diagnose_check_selection_is_the_clis(capsys: pytest.CaptureFixture[str]) -> None:
    bundle = str(EXAMPLE_BUNDLES / "sg-efa-fallback")
    report = api.diagnose(bundle=bundle, checks=["network"])
    assert any(n.check == "--check/--skip" for n in report.not_checked)
    assert len(report.findings) < len(api.diagnose(bundle=bundle).findings)
    cli = _cli_json(capsys, "diagnose", "--bundle", bundle, "--check", "network")
    assert _as_shown(report) == cli


def test_probe_of_a_bundle_gives_the_cli_report(
    probe_bundle: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = api.probe(ProbeRequest(bundle=str(probe_bundle)))
    assert {f.code for f in report.findings if f.status.value == "FAIL"} == {"GPU_ECC", "GPU_XID"}
    assert report.summary["nodes"] == 1 and report.summary["reached"] == 1
    assert _as_shown(report) == _cli_json(capsys, "probe", "--bundle", str(probe_bundle))


def test_probe_check_and_skip_pick_node_checks(
    probe_bundle: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    every = api.probe(bundle=str(probe_bundle))
    only = api.probe(bundle=str(probe_bundle), checks=["node.xid"])
    assert len(every.findings) > 10
    assert [(f.code, f.status.value) for f in only.findings] == [("GPU_XID", "FAIL")]
    (left,) = [n for n in only.not_checked if n.check == "--check/--skip"]
    assert "node.gpu_ecc" in left.reason and "node.xid" not in left.reason
    assert _as_shown(only) == _cli_json(
        capsys, "probe", "--bundle", str(probe_bundle), "--check", "node.xid"
    )
    skipped = api.probe(bundle=str(probe_bundle), skip=["node.gpu_ecc"])
    assert "GPU_ECC" not in {f.code for f in skipped.findings}
    assert _as_shown(skipped) == _cli_json(
        capsys, "probe", "--bundle", str(probe_bundle), "--skip", "node.gpu_ecc"
    )
    with pytest.raises(UsageError, match=re.escape("--check: no check or area 'node.nope'")):
        api.probe(bundle=str(probe_bundle), checks=["node.nope"])


def test_probe_skip_still_takes_probe_ids(probe_bundle: Path) -> None:
    """`--skip` named probe ids before it named checks; such a name still skips the probe."""
    done = subprocess.run(
        [sys.executable, "-m", "hyperpod_nccl.cli", "probe", "--skip", "dcgm_diag,node.pci_acs"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "probed 1 of 1 node(s)" in done.stderr


def test_probe_catalog_is_the_listing(capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["probe", "--list", "--format", "json"]) == 0
    listed = json.loads(capsys.readouterr().out)["probes"]
    catalog = api.probe_catalog()
    assert [p["id"] for p in listed] == [e.id for e in catalog] and len(catalog) > 10
    assert [p["argv"] for p in listed] == [list(e.argv) for e in catalog]


# --------------------------------------------------------------------- guide and bundles
def test_explain_gives_the_cli_section(capsys: pytest.CaptureFixture[str]) -> None:
    section = api.explain("CONTAINER_OOM")
    capsys.readouterr()
    assert main(["explain", "CONTAINER_OOM", "--format", "json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert (shown["title"], shown["markdown"]) == (section.title, section.markdown)
    assert "debugging-guide.md#container-oom" in section.references
    assert section.title in {s.title for s in api.guide_sections()}
    with pytest.raises(UsageError, match="no guide section"):
        api.explain("NOT_A_CODE_AT_ALL")


def test_bundle_summary_in_every_format(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bundle = tmp_path / "case.tar.gz"
    report = api.logs(paths=[str(EXAMPLE_LOGS)], save_bundle=str(bundle))
    summary = api.bundle_summary(str(bundle))
    assert summary.command == "logs" and not summary.rebuilt
    assert report.root_cause is not None and report.root_cause.code in summary.markdown
    capsys.readouterr()
    assert main(["bundle", "summary", str(bundle)]) == 0
    assert capsys.readouterr().out == summary.markdown
    assert main(["bundle", "summary", str(bundle), "--format", "markdown"]) == 0
    assert capsys.readouterr().out == summary.markdown
    assert main(["bundle", "summary", str(bundle), "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["schema"] == "hyperpod-nccl/bundle-summary/v1"
    assert (document["markdown"], document["command"]) == (summary.markdown, "logs")
    page = tmp_path / "summary.html"
    assert main(["bundle", "summary", str(bundle), "-o", str(page)]) == 0  # html from .html
    text = page.read_text("utf-8")
    assert text.startswith("<!DOCTYPE html>") and "default-src 'none'" in text
    assert "CONTAINER_OOM" in text and "<script" not in text
    assert main(["bundle", "summary", str(bundle), "-o", str(bundle)]) == 2  # never the bundle


def test_a_saved_bundle_replays_to_the_same_findings(tmp_path: Path) -> None:
    bundle = tmp_path / "perf.tar.gz"
    told: list[str] = []
    first = api.perf(paths=[str(p) for p in TRACES], save_bundle=str(bundle), notify=told.append)
    assert any(line.startswith(f"hyperpod-nccl: bundle saved to {bundle}") for line in told)
    again = api.perf(bundle=str(bundle))
    assert [f.code for f in again.findings] == [f.code for f in first.findings]


# ---------------------------------------------------------------------- bad requests
def test_requests_are_checked_before_any_work(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="one of the two"):
        api.logs(LogsRequest())
    with pytest.raises(UsageError, match="not both"):
        api.perf(paths=[str(NCCL_TESTS)], bundle=str(tmp_path))
    with pytest.raises(UsageError, match="--concurrency at least 1"):
        api.probe(concurrency=0)
    with pytest.raises(UsageError, match="already exists"):
        api.logs(paths=[str(EXAMPLE_LOGS)], save_bundle=str(tmp_path))
    with pytest.raises(TypeError, match="not both"):
        api.logs(LogsRequest(paths=["x"]), engine="re")


def test_nothing_read_carries_the_report(tmp_path: Path) -> None:
    missing = str(tmp_path / "rank0.log")
    with pytest.raises(NothingRead, match="none of the inputs could be read") as caught:
        api.logs(paths=[missing])
    assert [n.check for n in caught.value.report.not_checked] == [missing]
    with pytest.raises(Exception, match="no such file or directory"):
        api.logs(paths=[missing], refuse_missing=True)  # the CLI's rule: before any report


def test_no_argparse_outside_the_cli() -> None:
    """The faces parse; below them nothing knows argparse (a Namespace is the CLI's)."""
    offenders = [
        str(path.relative_to(SRC))
        for path in SRC.rglob("*.py")
        if path.parts[len(SRC.parts)] not in ("commands", "cli.py")
        and ("argparse" in path.read_text("utf-8"))
    ]
    assert offenders == []


def test_every_public_name_of_the_api_loads_from_its_home() -> None:
    # The package loads its modules on first use (api/__init__.py's _HOMES); a name listed in
    # __all__ without a home, or a home that lost the name, fails here, not in a user's run.
    import hyperpod_nccl.api as api_package

    assert set(api_package._HOMES) == set(api_package.__all__)
    for name in api_package.__all__:
        assert getattr(api_package, name) is not None, name
    with pytest.raises(AttributeError):
        _ = api_package.no_such_operation
