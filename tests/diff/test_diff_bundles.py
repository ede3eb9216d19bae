"""diff over the example bundles (real collector output against the test stand-ins): the
security-group rule and the EFA request that changed are named and ranked as the cause of
BAD's EFA fallback; identical inputs give no difference; archives, obfuscated copies (one
mapping for both) and every output format say the same."""

from __future__ import annotations

import json
import tarfile
from pathlib import Path

import pytest
from diff_helpers import BUNDLES, run_cli

from hyperpod_nccl.bundle.obfuscate import Obfuscator
from hyperpod_nccl.diff import diff_paths
from hyperpod_nccl.diff.report import DiffReport
from hyperpod_nccl.model import Status
from hyperpod_nccl.snapshot import Snapshot
from hyperpod_nccl.snapshot.scrub import Scrubber

GOOD = str(BUNDLES / "healthy-eks")
BAD = str(BUNDLES / "sg-efa-fallback")


@pytest.fixture(scope="module")
def report() -> DiffReport:
    return diff_paths(GOOD, BAD)


def _changes(report: DiffReport, code: str) -> list[dict[str, object]]:
    finding = next(f for f in report.findings if f.code == code)
    changes: list[dict[str, object]] = finding.details["changes"]
    return changes


def test_the_security_group_rule_is_the_most_likely_cause(report: DiffReport) -> None:
    first = report.findings[0]
    assert first.code == "DIFF_SECURITY_GROUP" and first.root_cause
    assert first.status is Status.FAIL
    # It explains BAD's root cause and the fallback to sockets.
    assert report.bad.failure["root_cause"] == "SG_SELF_REFERENCE_MISSING"
    assert {"SG_SELF_REFERENCE_MISSING", "EFA_TCP_FALLBACK"} <= set(first.explains)
    gone = {c["item"] for c in _changes(report, "DIFF_SECURITY_GROUP") if c["change"] == "removed"}
    assert gone == {
        "worker-group-1 inbound: all traffic from the group itself",
        "worker-group-1 outbound: all traffic to the group itself",
    }
    added = {c["item"] for c in _changes(report, "DIFF_SECURITY_GROUP") if c["change"] == "added"}
    assert added == {"worker-group-1 inbound: tcp port 22 from 10.0.0.0/16"}


def test_the_efa_request_change_is_named_as_a_cause_of_the_fallback(report: DiffReport) -> None:
    codes = [f.code for f in report.findings]
    efa = report.findings[codes.index("DIFF_EFA_REQUEST")]
    assert efa.status is Status.FAIL and "EFA_TCP_FALLBACK" in efa.explains
    (change,) = _changes(report, "DIFF_EFA_REQUEST")
    assert change["item"] == "pytorch vpc.amazonaws.com/efa"
    assert set(change["good"]) == {"32"} and set(change["bad"]) == {"0"}  # type: ignore[arg-type]
    # Both configuration changes come before the transport change they cause.
    assert codes.index("DIFF_SECURITY_GROUP") < codes.index("DIFF_EFA_REQUEST")
    assert codes.index("DIFF_EFA_REQUEST") < codes.index("DIFF_NCCL_TRANSPORT")


def test_the_transport_change_to_socket_is_seen_in_the_logs(report: DiffReport) -> None:
    network = next(c for c in _changes(report, "DIFF_NCCL_TRANSPORT") if c["item"] == "network")
    assert set(network["good"]) == {"Libfabric"} and set(network["bad"]) == {"Socket"}  # type: ignore[arg-type]


def test_the_failure_of_each_side_is_reported_last(report: DiffReport) -> None:
    last = report.findings[-1]
    assert last.code == "DIFF_FAILURE" and last.status is Status.INFO
    assert report.good.failure["root_cause"] is None
    assert "EFA_TCP_FALLBACK" in last.details["new_failures"]


def test_differences_that_explain_nothing_are_warnings() -> None:
    """Swapped: GOOD is the failing run, so BAD's healthy state has nothing to explain."""
    swapped = diff_paths(BAD, GOOD)
    differences = [f for f in swapped.findings if f.code != "DIFF_FAILURE"]
    assert differences and all(f.status is Status.WARN for f in differences)
    assert swapped.root_cause is None


@pytest.mark.parametrize("name", ["healthy-eks", "sg-efa-fallback", "oom-one-rank"])
def test_identical_inputs_give_no_difference(name: str) -> None:
    same = diff_paths(str(BUNDLES / name), str(BUNDLES / name))
    assert same.findings == [] and same.root_cause is None
    assert same.to_dict()["differences_found"] == 0


def test_the_oom_bundle_differs_only_in_how_it_failed() -> None:
    oom = diff_paths(GOOD, str(BUNDLES / "oom-one-rank"))
    assert [f.code for f in oom.findings] == ["DIFF_FAILURE"]
    assert oom.bad.failure["root_cause"] == "CONTAINER_OOM"


def _archive(source: Path, target: Path) -> Path:
    with tarfile.open(target, "w:gz") as tar:
        for path in sorted(source.rglob("*")):
            if path.is_file():
                tar.add(path, arcname=path.relative_to(source).as_posix())
    return target


def test_archives_compare_like_directories(tmp_path: Path, report: DiffReport) -> None:
    packed = diff_paths(
        str(_archive(Path(GOOD), tmp_path / "good.tar.gz")),
        str(_archive(Path(BAD), tmp_path / "bad.tar.gz")),
    )
    assert [(f.code, f.explains) for f in packed.findings] == [
        (f.code, f.explains) for f in report.findings
    ]


def _obfuscated_pair(tmp_path: Path) -> tuple[str, str]:
    """Both bundles re-saved with one Obfuscator: one mapping for both sides."""
    snapshots = [Snapshot.load(GOOD), Snapshot.load(BAD)]
    obfuscator = Obfuscator()
    try:
        for snapshot in snapshots:
            for name in snapshot.collected():
                obfuscator.learn(snapshot.get_text(name) or "")
        paths = []
        for label, snapshot in zip(("good", "bad"), snapshots, strict=True):
            target = tmp_path / label
            snapshot.save(str(target), Scrubber(obfuscator=obfuscator))
            paths.append(str(target))
    finally:
        for snapshot in snapshots:
            snapshot.close()
    assert obfuscator.instances, "the bundles hold instance ids to hide"
    return paths[0], paths[1]


def test_obfuscated_bundles_from_one_mapping_compare_the_same(
    tmp_path: Path, report: DiffReport
) -> None:
    good, bad = _obfuscated_pair(tmp_path)
    hidden = diff_paths(good, bad)
    assert [(f.code, f.status, f.explains) for f in hidden.findings] == [
        (f.code, f.status, f.explains) for f in report.findings
    ]
    text = json.dumps(hidden.to_dict())
    assert "i-00005a3c7e9b1d200" not in text


def test_json_is_the_diff_schema_in_ranked_order() -> None:
    result = run_cli("diff", GOOD, BAD, "--format", "json")
    assert result.rc == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["schema"] == "hyperpod-nccl/diff/v1" and data["command"] == "diff"
    assert data["root_cause"] == "DIFF_SECURITY_GROUP"
    assert data["findings"][0]["root_cause"] is True
    assert data["differences_found"] == len(data["findings"]) - 1  # all but DIFF_FAILURE
    assert data["issues_found"] == sum(f["status"] == "FAIL" for f in data["findings"])
    for key in ("good", "bad"):
        assert set(data[key]) == {"path", "kind", "failure", "facts"}
    for finding in data["findings"]:
        assert finding["reference"].startswith("debugging-guide.md#diff-")


def test_text_markdown_and_html_lead_with_the_cause(tmp_path: Path) -> None:
    text = run_cli("diff", GOOD, BAD)
    assert text.rc == 0
    assert "Most likely cause of BAD's failure: DIFF_SECURITY_GROUP" in text.stdout
    markdown = run_cli("diff", GOOD, BAD, "--format", "markdown")
    assert "| 1 | FAIL | P0 | `DIFF_SECURITY_GROUP` (most likely cause)" in markdown.stdout
    out = tmp_path / "diff.html"
    page = run_cli("diff", GOOD, BAD, "--format", "html", "-o", str(out))
    assert page.rc == 0, page.stderr
    body = out.read_text()
    assert "default-src 'none'" in body and "<script" not in body and " src=" not in body
    assert 'data-code="DIFF_SECURITY_GROUP"' in body
    again = run_cli("diff", GOOD, BAD, "--format", "html", "-o", str(out))
    assert again.rc == 2 and "exists" in again.stderr  # never overwritten


def test_fail_on_gates_on_differences_that_explain_a_failure() -> None:
    assert run_cli("diff", GOOD, BAD, "--fail-on", "P0").rc == 3
    assert run_cli("diff", BAD, GOOD, "--fail-on", "P0").rc == 0  # only warnings
    assert run_cli("diff", GOOD, GOOD, "--fail-on", "P2").rc == 0


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ("/nonexistent/bundle", "no such file or directory"),
        ("garbage.tar.gz", "not a readable .tar.gz bundle"),
    ],
)
def test_bad_input_is_one_line_and_exit_1(tmp_path: Path, bad: str, message: str) -> None:
    if not bad.startswith("/"):
        (tmp_path / bad).write_text("not an archive\n")
        bad = str(tmp_path / bad)
    result = run_cli("diff", GOOD, bad)
    assert result.rc == 1
    assert message in result.stderr and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
