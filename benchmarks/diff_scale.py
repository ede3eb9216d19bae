"""How long `diff` of two 1,000-node bundles takes against one `diagnose --bundle` replay.

    python benchmarks/diff_scale.py [--nodes 1000] [--repeat 3]

Builds two bundles of `--nodes` nodes from the example bundles (healthy-eks as GOOD,
sg-efa-fallback as BAD): every node in ListClusterNodes and in Kubernetes, one job pod per
node with its pod log (the example's log for that role, renamed), and the bundle's own
report made by `diagnose`'s checks over the scaled state, as `--save-bundle` writes it. Then
times, in this process and in the same run:

- baseline: `hyperpod-nccl diagnose --bundle BAD` (load, every check, render);
- `hyperpod-nccl diff GOOD BAD` (both loaded, facts read, compared, ranked, rendered);
- the same diff of bundles saved without their reports, so each side is analysed again.

Printed: the median seconds of each and its ratio to the baseline. The issue's bar is a diff
within 2x of one replay.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import io
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from hyperpod_nccl.api import analyze_snapshot  # noqa: E402
from hyperpod_nccl.cli import main as cli  # noqa: E402
from hyperpod_nccl.snapshot import Snapshot  # noqa: E402

EXAMPLES = ROOT / "src" / "hyperpod_nccl" / "examples" / "bundles"
LOGS = "k8s/logs/training/pytorch"
SCALED = {"aws/sagemaker/list_cluster_nodes.json", "k8s/nodes.json", "k8s/pods.json"}


def _instance(i: int) -> str:
    return f"i-0{0x5A3C7E9B000000 + i:016x}"


def _scaled(source: Snapshot, nodes: int) -> Snapshot:
    """The example's state with `nodes` nodes and one job pod per node."""
    out = Snapshot(meta=dict(source.meta))
    for name in source.collected():
        if name in SCALED or name.startswith(LOGS) or name.startswith("reports/"):
            continue
        record = source.items[name]
        if record.kind == "json":
            out.put_json(name, source.get_json(name), record.source)
        else:
            out.put_text(name, source.get_text(name) or "", record.source)
    listing = source.get_json("aws/sagemaker/list_cluster_nodes.json")
    template = listing["ClusterNodeSummaries"][0]
    summaries = []
    for i in range(nodes):
        entry = copy.deepcopy(template)
        entry["InstanceId"] = _instance(i)
        summaries.append(entry)
    out.put_json(
        "aws/sagemaker/list_cluster_nodes.json",
        {**listing, "ClusterNodeSummaries": summaries},
        "sagemaker:ListClusterNodes",
    )
    k8s_nodes = source.get_json("k8s/nodes.json")
    node_template = k8s_nodes["items"][0]
    node_items = []
    for i in range(nodes):
        node = copy.deepcopy(node_template)
        host = f"hyperpod-{_instance(i)}"
        node["metadata"]["name"] = host
        node["metadata"]["labels"]["kubernetes.io/hostname"] = host
        node_items.append(node)
    out.put_json("k8s/nodes.json", {**k8s_nodes, "items": node_items}, "kubernetes:nodes")
    pods = source.get_json("k8s/pods.json")
    master, worker = pods["items"][0], pods["items"][1]
    pod_items = []
    for i in range(nodes):
        pod = copy.deepcopy(master if i == 0 else worker)
        name = "llama-pretrain-master-0" if i == 0 else f"llama-pretrain-worker-{i - 1}"
        pod["metadata"]["name"] = name
        pod["metadata"]["labels"]["training.kubeflow.org/replica-index"] = str(max(i - 1, 0))
        pod["spec"]["nodeName"] = f"hyperpod-{_instance(i)}"
        pod_items.append(pod)
        role = "llama-pretrain-master-0" if i == 0 else "llama-pretrain-worker-0"
        log = source.get_text(f"{LOGS}/{role}.log") or ""
        out.put_text(f"{LOGS}/{name}.log", log.replace(role, name), "kubernetes:pods/log")
    out.put_json("k8s/pods.json", {**pods, "items": pod_items}, "kubernetes:pods")
    return out


def build(example: str, nodes: int, directory: Path, with_report: bool) -> str:
    source = Snapshot.load(str(EXAMPLES / example))
    try:
        scaled = _scaled(source, nodes)
    finally:
        source.close()
    try:
        if with_report:  # what --save-bundle writes beside the collected state
            report = analyze_snapshot(scaled)
            scaled.put_json("reports/report.json", report.to_dict(), "hyperpod-nccl")
        target = directory / f"{example}-{nodes}{'' if with_report else '-no-report'}"
        scaled.save(str(target))
    finally:
        scaled.close()
    return str(target)


def _timed(argv: list[str]) -> float:
    sink = io.StringIO()
    started = time.perf_counter()
    with contextlib.redirect_stdout(sink):
        code = cli(argv)
    elapsed = time.perf_counter() - started
    if code not in (0, 3):
        raise SystemExit(f"{' '.join(argv)} exited {code}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="hpn-diff-bench-") as tmp:
        here = Path(tmp)
        good = build("healthy-eks", args.nodes, here, with_report=True)
        bad = build("sg-efa-fallback", args.nodes, here, with_report=True)
        good_bare = build("healthy-eks", args.nodes, here, with_report=False)
        bad_bare = build("sg-efa-fallback", args.nodes, here, with_report=False)
        runs: dict[str, list[float]] = {"replay": [], "diff": [], "diff_bare": []}
        found: dict[str, Any] = {}
        for _ in range(args.repeat):
            runs["replay"].append(_timed(["diagnose", "--bundle", bad, "--format", "json"]))
            runs["diff"].append(_timed(["diff", good, bad, "--format", "json"]))
            runs["diff_bare"].append(_timed(["diff", good_bare, bad_bare, "--format", "json"]))
        sink = io.StringIO()
        with contextlib.redirect_stdout(sink):
            cli(["diff", good, bad, "--format", "json"])
        found = json.loads(sink.getvalue())
    base = statistics.median(runs["replay"])
    print(
        f"{args.nodes} nodes, {args.nodes} job pods with logs per bundle; median of {args.repeat}"
    )
    print(f"  diagnose --bundle BAD (baseline):        {base:7.3f} s  1.00x")
    for key, label in (
        ("diff", "diff GOOD BAD (bundles with reports):"),
        ("diff_bare", "diff GOOD BAD (no reports: both replayed):"),
    ):
        value = statistics.median(runs[key])
        print(f"  {label:40} {value:7.3f} s  {value / base:.2f}x")
    print(
        f"  diff's verdict: root cause {found['root_cause']}, "
        f"{found['differences_found']} differences: {[f['code'] for f in found['findings']]}"
    )


if __name__ == "__main__":
    main()
