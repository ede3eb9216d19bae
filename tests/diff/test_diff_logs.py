"""diff over log directories and perf results made of real captured lines: a pair that
differs by NCCL version and one variable names both; what changes on every run (times, pids,
ports, pod-name hashes) is never a difference; a new node explains its peers' NET_UNREACHABLE;
a bandwidth drop is found, an improvement is not."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from diff_helpers import FIXTURES, ROOT, run_cli

from hyperpod_nccl.api import analyze_logs
from hyperpod_nccl.diff import diff_paths
from hyperpod_nccl.diff.compare import compare
from hyperpod_nccl.diff.failure import failure_of
from hyperpod_nccl.diff.rank import findings_for
from hyperpod_nccl.diff.run import read_side
from hyperpod_nccl.diff.sides import open_side
from hyperpod_nccl.model import Status

PAIR = FIXTURES / "version-env"
CAPTURED = ROOT / "tests" / "fixtures" / "captured"
NCCL_TESTS = ROOT / "tests" / "fixtures" / "perf" / "nccl-tests"
EXAMPLE = ROOT / "src" / "hyperpod_nccl" / "examples" / "bundles" / "healthy-eks"


def test_nccl_version_and_one_variable_are_both_named() -> None:
    report = diff_paths(str(PAIR / "good"), str(PAIR / "bad"))
    by_code = {f.code: f for f in report.findings}
    assert set(by_code) == {"DIFF_NCCL_VERSION", "DIFF_NET_ENV"}
    versions = {c["item"]: c for c in by_code["DIFF_NCCL_VERSION"].details["changes"]}
    assert set(versions["NCCL"]["good"]) == {"2.12.7"}
    assert set(versions["NCCL"]["bad"]) == {"2.21.5"}
    (variable,) = by_code["DIFF_NET_ENV"].details["changes"]
    assert variable["item"] == "NCCL_SOCKET_IFNAME" and variable["change"] == "added"
    assert set(variable["bad"]) == {"eth0"}
    # Neither run failed: the differences explain nothing, so they are warnings.
    assert all(f.status is Status.WARN for f in report.findings)
    assert report.good.kind == report.bad.kind == "log files"


def test_a_log_directory_against_itself_gives_no_difference() -> None:
    result = run_cli("diff", str(PAIR / "good"), str(PAIR / "good"))
    assert result.rc == 0
    assert "Differences: 0" in result.stdout and "No difference found" in result.stdout


_PID = re.compile(r"(?P<host>[\w.-]+):(?P<pid>\d+):(?P<tid>\d+) \[")
_PORT = re.compile(r"<(\d+)>")
_DATE = re.compile(r"2026-11-29")


def _rerun(text: str) -> str:
    """The same run again: other pids and thread ids, ports, and a day later."""
    text = _PID.sub(lambda m: f"{m['host']}:{int(m['pid']) + 4242}:{int(m['tid']) + 4242} [", text)
    text = _PORT.sub(lambda m: f"<{(int(m.group(1)) + 1011) % 65536}>", text)
    return _DATE.sub("2026-11-30", text)


def test_what_changes_on_every_run_is_not_a_difference(tmp_path: Path) -> None:
    good, bad = tmp_path / "good", tmp_path / "bad"
    good.mkdir()
    bad.mkdir()
    pod_log = EXAMPLE / "k8s" / "logs" / "training" / "pytorch" / "llama-pretrain-master-0.log"
    for source, good_name, bad_name in (
        # Pod names with a ReplicaSet hash and a random suffix, different in each run.
        (
            CAPTURED / "gpu" / "nccl-info-healthy-init-1rank.log",
            "train-7d9f8b6c5d-x2x9z",
            "train-5f6d7c8b9c-k7m2p",
        ),
        (pod_log, "llama-pretrain-master-0", "llama-pretrain-master-0"),
    ):
        text = source.read_text()
        assert _PID.search(text) and _PORT.search(text)
        (good / f"{good_name}.log").write_text(text)
        (bad / f"{bad_name}.log").write_text(_rerun(text))
        assert _rerun(text) != text
    assert _DATE.search(pod_log.read_text())
    report = diff_paths(str(good), str(bad))
    assert report.findings == []
    assert "what NCCL built" in report.summary["compared"]  # it was read, and is the same


def test_a_changed_nccl_line_in_the_same_setting_is_found(tmp_path: Path) -> None:
    """The control for the test above: the same files with the network NCCL chose changed
    (the capture's `Using network Socket` line as a Libfabric run prints it) are a difference."""
    good, bad = tmp_path / "good", tmp_path / "bad"
    good.mkdir()
    bad.mkdir()
    text = (CAPTURED / "gpu" / "nccl-info-healthy-init-1rank.log").read_text()
    assert "Using network Socket" in text
    (good / "rank0.log").write_text(text)
    (bad / "rank0.log").write_text(text.replace("Using network Socket", "Using network Libfabric"))
    report = diff_paths(str(good), str(bad))
    assert [f.code for f in report.findings] == ["DIFF_NCCL_TRANSPORT"]


def test_a_new_node_explains_net_unreachable_from_its_peers(tmp_path: Path) -> None:
    good_side = open_side("GOOD", str(EXAMPLE))
    try:
        good_facts, good_failure, _ = read_side(good_side)
        bad_facts, _, _ = read_side(good_side)
    finally:
        good_side.close()
    # BAD: the same cluster with one instance more in the worker group, and peers that time
    # out connecting (a real capture of dropped SYNs).
    bad_facts.add("nodes", "worker-group-1", "i-0aaaabbbbccccdddd", "ml.p5.48xlarge", "list")
    log = CAPTURED / "cpu" / "connect-timeout-syn-dropped-torchrun-static.log"
    analysed = analyze_logs([str(log)])
    assert analysed.root_cause is not None and analysed.root_cause.code == "NET_UNREACHABLE"
    logs_side = open_side("BAD", str(log))
    bad_failure = failure_of(logs_side, analysed)
    changes, _ = compare(good_facts, bad_facts)
    findings = findings_for(changes, good_failure, bad_failure)
    first = findings[0]
    assert first.code == "DIFF_NODE_SET" and first.root_cause
    assert "NET_UNREACHABLE" in first.explains
    assert first.hosts == ["i-0aaaabbbbccccdddd"]


def test_a_bandwidth_drop_is_found_and_an_improvement_is_not(tmp_path: Path) -> None:
    fast = NCCL_TESTS / "p5-48xlarge-2node-efa-allreduce-slurm-healthy-noheader.txt"
    slow = NCCL_TESTS / "p4de-24xlarge-2node-efa-allreduce-slurm-healthy-noheader.txt"
    bundles = []
    for source in (fast, slow):
        target = tmp_path / source.stem
        assert run_cli("perf", str(source), "--save-bundle", str(target)).rc == 0
        bundles.append(str(target))
    report = diff_paths(bundles[0], bundles[1])
    (busbw,) = report.findings
    assert busbw.code == "DIFF_BUSBW" and busbw.status is Status.WARN
    items = [c["item"] for c in busbw.details["changes"]]
    assert "all_reduce 1 GiB" in items
    assert not any(i.endswith((" B", "KiB")) for i in items)
    assert diff_paths(bundles[1], bundles[0]).findings == []
    # Plain nccl-tests output compares the same as its perf bundle.
    plain = diff_paths(str(fast), str(slow))
    assert [c["item"] for f in plain.findings for c in f.details["changes"]] == items


def test_a_logs_bundle_compares_like_its_log_directory(tmp_path: Path) -> None:
    bundles = []
    for side in ("good", "bad"):
        copy = tmp_path / f"{side}-logs"
        shutil.copytree(PAIR / side, copy)
        target = tmp_path / f"{side}.tar.gz"
        assert run_cli("logs", str(copy), "--save-bundle", str(target)).rc == 0
        bundles.append(str(target))
    from_bundles = diff_paths(bundles[0], bundles[1])
    from_dirs = diff_paths(str(PAIR / "good"), str(PAIR / "bad"))
    assert [(f.code, f.details["changes"][0]["item"]) for f in from_bundles.findings] == [
        (f.code, f.details["changes"][0]["item"]) for f in from_dirs.findings
    ]
