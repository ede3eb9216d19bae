"""How `diagnose` (without node probes) scales with cluster size.

    python benchmarks/diagnose_scale.py [--sizes 10,100,1000] [--pods 2000] [--repeat 2]

For each size it builds a HyperPod EKS cluster of that many nodes in moto (boto3 over HTTP)
and a Kubernetes API server on loopback serving the same nodes and `--pods` pods (a 64-pod
training job with logs, the rest other workloads), then runs the real collection and checks.
Both servers run in a child process, so the memory figure is diagnose's own (tracemalloc
peak of this process, in a separate pass so it does not slow the timed one).

Printed per size: AWS calls (HTTP requests sent by botocore), Kubernetes calls, the pages
behind them, wall time, and each figure's ratio to the smallest size measured in the same
run. Calls should grow with pages (100 nodes per ListClusterNodes page, 500 objects per
Kubernetes list page), not with nodes; wall time and memory with the data, not worse.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "eks"))
sys.path.insert(0, str(ROOT / "tests" / "fixtures" / "eks"))

JOB_PODS = 64
LOG_LINES = 400


def _fixtures(directory: Path, nodes: int, pods: int) -> dict[str, Any]:
    """Kubernetes objects for `nodes` nodes and `pods` pods, and the scenario's AWS side."""
    import make_scenarios as ms

    node_ids = [f"i-0{0x9000000 + i:016x}" for i in range(nodes)]
    node_objs = []
    for i, nid in enumerate(node_ids):
        obj = ms.node(i % 4)
        obj["metadata"]["name"] = obj["metadata"]["labels"]["kubernetes.io/hostname"] = (
            f"hyperpod-{nid}"
        )
        node_objs.append(obj)
    pod_objs = []
    logs = directory / "logs" / ms.NS
    for i in range(JOB_PODS):
        pod = ms.pod(min(i, 3), JOB_PODS)
        pod["metadata"]["name"] = name = f"{ms.JOB}-worker-{i}"
        pod["metadata"]["labels"]["training.kubeflow.org/replica-index"] = str(i)
        pod["spec"]["nodeName"] = f"hyperpod-{node_ids[i % nodes]}"
        pod_objs.append(pod)
        (logs / name).mkdir(parents=True)
        lines = ms.nccl_init(name, min(i, 3), efa=True) + ms.training_steps(1, LOG_LINES)
        (logs / name / "pytorch.log").write_text("\n".join(lines) + "\n")
    for i in range(pods - JOB_PODS):
        pod = ms.pod(1, 4)
        pod["metadata"].update(
            name=f"inference-{i}",
            namespace="inference",
            labels={"app": "inference"},
            ownerReferences=[],
        )
        pod["spec"]["nodeName"] = f"hyperpod-{node_ids[i % nodes]}"
        pod_objs.append(pod)
    files = {
        "nodes": node_objs,
        "pods": pod_objs,
        "services": [ms.service(0)],
        "daemonsets": ms.daemonsets(nodes),
        "pytorchjobs": [ms.pytorchjob(JOB_PODS)],
    }
    for key, value in files.items():
        (directory / f"{key}.json").write_text(json.dumps(value))
    scenario = ms.aws()
    scenario["cluster"]["instance_groups"][0]["count"] = nodes
    scenario["cluster"]["node_ids"] = node_ids
    return scenario


def _serve(nodes: int, pods: int, directory: str, conn: Any) -> None:
    """Child process: moto and the API server for one cluster size, until told to stop."""
    from aws_server import build_world, moto_server
    from fake_apiserver import FakeApiServer, write_kubeconfig

    scenario = _fixtures(Path(directory), nodes, pods)
    with moto_server() as moto:
        kube = FakeApiServer(Path(directory)).start()
        world = build_world(moto, scenario, kube.url)
        kubeconfig = write_kubeconfig(
            Path(directory) / "kubeconfig", kube.url, world.eks_arn or "", kube.token
        )
        conn.send({"moto": moto.url, "kubeconfig": str(kubeconfig), "region": world.region})
        while True:
            message = conn.recv()
            if message == "count":
                conn.send(len(kube.requests))
                kube.requests.clear()
            else:
                break
        kube.stop()


def _run_once(server: dict[str, Any]) -> dict[str, Any]:
    from hyperpod_nccl.api import analyze_snapshot
    from hyperpod_nccl.collect.aws import AwsReader
    from hyperpod_nccl.collect.hyperpod import NODES
    from hyperpod_nccl.collect.options import DiagnoseOptions
    from hyperpod_nccl.collect.run import collect
    from hyperpod_nccl.targets import parse_cluster

    reader = AwsReader(server["region"])
    sent: list[str] = []
    reader.on("before-send", lambda request, **_: sent.append(request.url))
    options = DiagnoseOptions(
        cluster=parse_cluster("ml-cluster"), region=server["region"], sample_nodes=1
    )
    started = time.perf_counter()
    snapshot = collect(options, aws=reader)
    report = analyze_snapshot(snapshot)
    elapsed = time.perf_counter() - started
    node_pages = snapshot.get_json(NODES)["Pages"]
    k8s_pages = {kind: snapshot.get_json(f"k8s/{kind}.json")["pages"] for kind in ("nodes", "pods")}
    snapshot.close()
    return {
        "aws_calls": len(sent),
        "node_pages": node_pages,
        "k8s_pages": k8s_pages,
        "seconds": elapsed,
        "fails": len(report.failures),
    }


def measure(nodes: int, pods: int, repeat: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="hpn-bench-") as directory:
        parent, child = multiprocessing.Pipe()
        process = multiprocessing.get_context("fork").Process(
            target=_serve, args=(nodes, pods, directory, child)
        )
        process.start()
        server = parent.recv()
        saved = dict(os.environ)
        os.environ.update(
            {
                "AWS_ENDPOINT_URL": server["moto"],
                "AWS_ACCESS_KEY_ID": "testing",
                "AWS_SECRET_ACCESS_KEY": "testing",
                "AWS_CONFIG_FILE": os.devnull,
                "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
                "KUBECONFIG": server["kubeconfig"],
            }
        )
        try:
            runs = []
            for _ in range(repeat):
                runs.append(_run_once(server))
                parent.send("count")
                runs[-1]["k8s_calls"] = parent.recv()
            tracemalloc.start()
            _run_once(server)
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
            parent.send("count")
            parent.recv()
        finally:
            os.environ.clear()
            os.environ.update(saved)
            parent.send("stop")
            process.join(timeout=60)
    result = dict(runs[0])
    result["seconds"] = statistics.median(r["seconds"] for r in runs)
    result["peak_mib"] = peak / 2**20
    return result


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="10,100,1000")
    parser.add_argument("--pods", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    results = {n: measure(n, args.pods, args.repeat) for n in sizes}
    base = results[sizes[0]]
    print(
        f"diagnose without node probes; {args.pods} pods ({JOB_PODS} job pods with logs); median of {args.repeat} runs"
    )
    print(
        f"{'nodes':>6} {'AWS calls':>10} {'node pages':>10} {'k8s calls':>10} {'k8s pages (nodes/pods)':>23}"
        f" {'wall s':>8} {'peak MiB':>9}   ratios to {sizes[0]} nodes: calls, wall, memory"
    )
    for n in sizes:
        r = results[n]
        calls = (r["aws_calls"] + r["k8s_calls"]) / (base["aws_calls"] + base["k8s_calls"])
        print(
            f"{n:>6} {r['aws_calls']:>10} {r['node_pages']:>10} {r['k8s_calls']:>10}"
            f" {r['k8s_pages']['nodes']:>11}/{r['k8s_pages']['pods']:<11}"
            f" {r['seconds']:>8.2f} {r['peak_mib']:>9.1f}   x{calls:.2f}, x{r['seconds'] / base['seconds']:.2f},"
            f" x{r['peak_mib'] / base['peak_mib']:.2f}   (nodes x{n / sizes[0]:.0f})"
        )


if __name__ == "__main__":
    main()
