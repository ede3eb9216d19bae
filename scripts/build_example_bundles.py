"""Build the example diagnose bundles by running the real collector against test stand-ins.

    python scripts/build_example_bundles.py   # rewrites src/hyperpod_nccl/examples/bundles/<name>/

Each bundle is what `hyperpod-nccl diagnose --save-bundle` writes: the AWS side comes from a
moto server on loopback (boto3 over HTTP, the same read-only session the tool uses live) and
the cluster side from the test Kubernetes API server (the official kubernetes client over
HTTP). Both are loaded from the scenario fixtures in tests/fixtures/eks/ (see
make_scenarios.py there for where each object's shape comes from). Node probes are not part
of the examples: session-manager-plugin is absent where they are built, so each bundle
records every node as not probed, with that reason.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "eks"))

from aws_server import aws_environment, build_world, load_scenario, moto_server  # noqa: E402
from fake_apiserver import FakeApiServer, write_kubeconfig  # noqa: E402

from hyperpod_nccl import api  # noqa: E402

SCENARIOS = ROOT / "tests" / "fixtures" / "eks"
# Shipped in the package, so `diagnose --example NAME` works from any install.
HERE = ROOT / "src" / "hyperpod_nccl" / "examples" / "bundles"
# bundle name -> (scenario, diagnose options)
BUNDLES = {
    "healthy-eks": ("healthy", {"namespace": "training"}),
    "sg-efa-fallback": ("sg-efa-fallback", {"namespace": "training"}),
    "oom-one-rank": ("oom-one-rank", {"namespace": "training", "job": "llama-pretrain"}),
}


def build(name: str, scenario: str, options: dict[str, str]) -> Path:
    target = HERE / name
    if target.exists():
        shutil.rmtree(target)
    with moto_server() as moto, tempfile.TemporaryDirectory() as tmp:
        moto.reset()  # moto keeps its state per process, across server instances
        kube = FakeApiServer(SCENARIOS / scenario).start()
        try:
            world = build_world(moto, load_scenario(SCENARIOS / scenario), kube.url)
            kubeconfig = write_kubeconfig(
                Path(tmp) / "kubeconfig", kube.url, world.eks_arn or "", kube.token
            )
            saved = dict(os.environ)
            os.environ.update(aws_environment(moto.url, world.region, kubeconfig))
            try:
                report = api.diagnose(
                    cluster=world.cluster_name, save_bundle=str(target), **options
                )
            finally:
                os.environ.clear()
                os.environ.update(saved)
        finally:
            kube.stop()
    root = report.root_cause.code if report.root_cause else "none"
    print(f"{target.relative_to(ROOT)}: root cause {root}, {len(report.failures)} FAIL")
    return target


def main() -> None:
    for name, (scenario, options) in BUNDLES.items():
        build(name, scenario, options)


if __name__ == "__main__":
    main()
