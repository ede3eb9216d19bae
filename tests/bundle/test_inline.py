"""A Snapshot from one JSON document (hyperpod_nccl.snapshot.inline) and back."""

from __future__ import annotations

from pathlib import Path

import pytest

from hyperpod_nccl.examples import __file__ as examples_init
from hyperpod_nccl.snapshot import BundleError, Snapshot
from hyperpod_nccl.snapshot.inline import snapshot_from_dict, snapshot_to_dict

EXAMPLE = Path(examples_init).parent / "bundles" / "sg-efa-fallback"


def test_an_excerpt_of_a_bundle_reads_back_the_same() -> None:
    bundle = Snapshot.load(str(EXAMPLE))
    try:
        names = ["aws/sagemaker/describe_cluster.json", "probes/targets.json", "k8s/nope.json"]
        names.append(next(bundle.collected("k8s/logs/")))
        document = snapshot_to_dict(bundle, names)
        again = snapshot_from_dict(document)
        try:
            assert again.get_json(names[0]) == bundle.get_json(names[0])
            assert again.get_text(names[3]) == bundle.get_text(names[3])
            assert again.why_missing("k8s/nope.json") == "not collected"
            assert again.meta["cluster"] == bundle.meta["cluster"] == "ml-cluster"
            assert again.meta.get("node_probe") == bundle.meta.get("node_probe")
        finally:
            again.close()
    finally:
        bundle.close()


def test_text_items_as_lines_and_missing_items_with_reasons() -> None:
    snapshot = snapshot_from_dict(
        {
            "meta": {"command": "diagnose", "orchestrator": "slurm"},
            "items": {"slurm/config.txt": ["TaskPlugin=task/none", "PropagateResourceLimits=ALL"]},
            "missing": {"slurm/sinfo.json": "Timeout: sinfo --json after 30s"},
        }
    )
    try:
        assert snapshot.get_text("slurm/config.txt") == (
            "TaskPlugin=task/none\nPropagateResourceLimits=ALL\n"
        )
        assert snapshot.why_missing("slurm/sinfo.json") == "Timeout: sinfo --json after 30s"
        assert snapshot.meta["schema"] == "hyperpod-nccl/bundle/v1"
    finally:
        snapshot.close()


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ([], "snapshot: expected a JSON object"),
        ({"itms": {}}, "snapshot: unknown field 'itms'"),
        (
            {"meta": {"region": 3}},
            "snapshot: meta field region: expected a string or null, got an integer",
        ),
        ({"items": {"slurm/config.txt": {"a": 1}}}, "items['slurm/config.txt']: expected text"),
        ({"items": {"../escape.json": {}}}, "invalid item name '../escape.json'"),
        ({"missing": {"k8s/pods.json": 403}}, "missing['k8s/pods.json']: expected a reason"),
    ],
)
def test_a_malformed_document_is_one_line(document: object, message: str) -> None:
    with pytest.raises(BundleError) as raised:
        snapshot_from_dict(document)
    assert message in str(raised.value) and "\n" not in str(raised.value)
