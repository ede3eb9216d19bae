"""The support-case summary and the manifest: what support asks for first, taken from what
the bundle holds, printable alone with `bundle summary`."""

from __future__ import annotations

import json
import re
from pathlib import Path

from bundle_helpers import BUNDLE_FIXTURES, bundle_members, corpus_case, run_cli

from hyperpod_nccl.bundle.escalation import EscalationOptions, save_requested_bundle
from hyperpod_nccl.model import Evidence, Finding, NotChecked, Priority, Report, Status
from hyperpod_nccl.snapshot import Snapshot

INSTANCE = "i-0a1b2c3d4e5f60718"
ARN = "arn:aws:sagemaker:us-west-2:111122223333:cluster/abcd1234efgh"


def test_logs_bundle_summary(tmp_path: Path) -> None:
    case = corpus_case("b050")  # a real Xid log from a node at 192.168.11.119, with UTC times
    log = tmp_path / "node.log"
    log.write_text(case["log"], "utf-8")
    bundle = tmp_path / "xid.tar.gz"
    made = run_cli("logs", str(log), "--save-bundle", str(bundle), "--format", "json")
    assert made.rc == 0, made.stderr
    report = json.loads(made.stdout)
    result = run_cli("bundle", "summary", str(bundle))
    assert result.rc == 0, result.stderr
    summary = result.stdout
    assert summary == bundle_members(bundle)["summary.md"].decode(), (
        "the same text is in the bundle"
    )
    assert "| Cluster | not known (no cluster was queried) |" in summary
    assert f"Root cause: **`{report['root_cause']}`**" in summary
    fails = [f for f in report["findings"] if f["status"] == "FAIL"]
    for evidence in fails[0]["evidence"]:
        assert f"{evidence['source']}: {evidence['text']}" in summary, "exact error strings"
    assert "`192.168.11.119`" in summary, "the node named in the findings"
    assert "searched for these failure signatures and none was found" in summary
    manifest = json.loads(bundle_members(bundle)["manifest.json"])
    window = manifest["window"]
    assert window["zone"] == "UTC" and window["start"].startswith("2026-04-22T21:27:51")
    assert re.match(r"\d{4}-\d\d-\d\dT", window["end"])
    assert manifest["command_line"][0] == "hyperpod-nccl"
    assert manifest["command_line"][1:] == [
        "logs",
        str(log),
        "--save-bundle",
        str(bundle),
        "--format",
        "json",
    ]


def _diagnose_like(tmp_path: Path) -> tuple[Report, Snapshot]:
    """What `diagnose` hands over: its meta, collected items, a report."""
    snapshot = Snapshot(
        meta={
            "command": "diagnose",
            "cluster": "ml-cluster",
            "cluster_arn": ARN,
            "region": "us-west-2",
            "orchestrator": "eks",
            "window_start": "2026-11-29T08:00:00+00:00",
            "window_end": "2026-11-29T10:00:00+00:00",
        }
    )
    efa = (BUNDLE_FIXTURES / "efa-2node-nccl-info.txt").read_text("utf-8")
    snapshot.put_text("k8s/logs/training/test-nccl-efa-worker-0/main.log", efa, source="pods/log")
    snapshot.put_json(
        "aws/sagemaker/list_cluster_nodes.json",
        {"ClusterNodeSummaries": [{"InstanceId": INSTANCE}]},
    )
    snapshot.missing("k8s/events.json", "AccessDenied: events is forbidden")
    report = Report(
        command="diagnose",
        findings=[
            Finding(
                "GPU_XID", Status.FAIL, Priority.P0, "Xid 79 on the node: the GPU fell off the bus",
                hosts=[f"hyperpod-{INSTANCE}", "test-nccl-efa-worker-0"], ranks=[0], root_cause=True,
                first_seen="2026-11-29T09:12:00Z", reference="debugging-guide.md#gpu-xid",
                evidence=[Evidence("k8s/logs/training/test-nccl-efa-worker-0/main.log:3", "NVRM: Xid (PCI:0000:53:00): 79, GPU has fallen off the bus.")],
            ),
            Finding("SG_SELF_REFERENCE_MISSING", Status.PASS, Priority.P0, "the security group allows all traffic between its members"),
            Finding("EFA_COUNT_MISMATCH", Status.SKIPPED, Priority.P1, "EFA devices were not compared: node probes did not run"),
        ],
        not_checked=[NotChecked("node probes", "SSM is not reachable from here")],
    )  # fmt: skip
    return report, snapshot


def _saved_summary(tmp_path: Path, obfuscate: bool) -> tuple[Path, str]:
    """Save the diagnose-like run the way `diagnose --save-bundle` would; its summary."""
    report, snapshot = _diagnose_like(tmp_path)
    bundle = tmp_path / "diag.tar.gz"
    options = EscalationOptions(str(bundle), obfuscate=obfuscate, redact=True)
    try:
        save_requested_bundle(report, snapshot, options)
    finally:
        snapshot.close()
    result = run_cli("bundle", "summary", str(bundle))
    assert result.rc == 0, result.stderr
    return bundle, result.stdout


def test_diagnose_bundle_summary_names_the_cluster_and_what_is_affected(tmp_path: Path) -> None:
    _, summary = _saved_summary(tmp_path, obfuscate=False)
    for row in ("| Cluster | ml-cluster |", f"| Cluster ARN | {ARN} |", "| Region | us-west-2 |",
                "| Orchestrator | eks |", "| Failure window | 2026-11-29T09:12:00Z to 2026-11-29T09:12:00Z |"):  # fmt: skip
        assert row in summary, row
    assert "2026-11-29T08:00:00+00:00 to 2026-11-29T10:00:00+00:00" in summary
    assert f"- Instance IDs: `{INSTANCE}`" in summary
    assert f"- Nodes: `hyperpod-{INSTANCE}`" in summary
    assert "- Pods: `test-nccl-efa-worker-0`" in summary
    assert "- Ranks: `0`" in summary
    assert "GPU has fallen off the bus." in summary
    assert "- PASS `SG_SELF_REFERENCE_MISSING`" in summary
    assert "- node probes: SSM is not reachable from here" in summary
    assert "- k8s/events.json: not collected: AccessDenied: events is forbidden" in summary
    assert "- EFA_COUNT_MISMATCH (SKIPPED)" in summary
    assert "| nccl | `2.12.7` |" in summary, "versions read from the pod log"
    assert "| `NCCL_SHM_DISABLE` | `0` |" in summary


def test_obfuscated_summary_hides_ids_but_keeps_their_shape(tmp_path: Path) -> None:
    bundle, summary = _saved_summary(tmp_path, obfuscate=True)
    mapping = json.loads(Path(str(bundle) + ".mapping.json").read_text())
    stand_in = mapping["instance_ids"][INSTANCE]
    assert INSTANCE not in summary and "111122223333" not in summary
    assert f"- Instance IDs: `{stand_in}`" in summary
    assert (
        f"arn:aws:sagemaker:us-west-2:{mapping['account_ids']['111122223333']}:cluster/" in summary
    )


def test_summary_is_rebuilt_when_a_bundle_has_none(tmp_path: Path) -> None:
    report, snapshot = _diagnose_like(tmp_path)
    snapshot.put_json("reports/report.json", report.to_dict())
    bundle = tmp_path / "plain.tar.gz"
    try:
        snapshot.save(str(bundle))  # as `diagnose --save-bundle` may: no summary.md
    finally:
        snapshot.close()
    assert "summary.md" not in bundle_members(bundle)
    result = run_cli("bundle", "summary", str(bundle))
    assert result.rc == 0, result.stderr
    assert (
        "| Cluster | ml-cluster |" in result.stdout and "Root cause: **`GPU_XID`**" in result.stdout
    )
    bare = tmp_path / "bare"
    Snapshot(meta={"command": "diagnose"}).save(str(bare))
    result = run_cli("bundle", "summary", str(bare))
    assert result.rc == 1 and "no summary and no report" in result.stderr
