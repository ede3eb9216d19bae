"""Build the example diagnose bundles by running the real collector against test stand-ins.

    python scripts/build_example_bundles.py              # rewrites src/hyperpod_nccl/examples/bundles/
    python scripts/build_example_bundles.py --out DIR    # writes DIR/<name>/ instead
    make examples                                        # the first, then checks it changed nothing

Each bundle is what `hyperpod-nccl diagnose --save-bundle` writes: the AWS side comes from a
moto server on loopback (boto3 over HTTP, the same read-only session the tool uses live) and
the cluster side from the test Kubernetes API server (the official kubernetes client over
HTTP). Both are loaded from the scenario fixtures in tests/fixtures/eks/ (see
make_scenarios.py there for where each object's shape comes from). Node probes are not part
of the examples: session-manager-plugin is absent where they are built, so each bundle
records every node as not probed, with that reason.

A rebuild is byte-identical (`tests/packaging/test_examples.py` holds the parts that make it
so): the whole build runs on one fixed clock (freezegun), moto's random ids are seeded, the
Kubernetes API stand-in is reached under a fixed EKS-style name instead of its loopback port,
and the bundle is saved under a relative path.
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

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
# When the collection runs. The scenarios place their CloudWatch lines and cluster events at
# offsets before it; oom-one-rank's pods log the NCCL watchdog timeout at 10:20:08 UTC on
# 2026-11-29 (pytorch.log) and its aws.json files the same line 1800 s before collection, so
# collecting at 10:50:08 puts both copies of the line at one time, 10 minutes after the
# OOM-kill at 10:10:01 (pods.json) that explains it.
CLOCK = datetime(2026, 11, 29, 10, 50, 8, tzinfo=timezone.utc)
# moto draws VPC, subnet and security-group ids, the EKS certificate and query ids from one
# seedable generator.
MOTO_SEED = 1129
# The Kubernetes API as the EKS endpoint names it (the form of DescribeCluster's `endpoint`),
# instead of the stand-in's 127.0.0.1:<port>, which changes every run and means nothing to
# a reader. Plain HTTP: the stand-in serves no TLS.
API_HOST = "5e1f0c3a9b7d42e68f0a1b2c3d4e5f60.gr7.us-west-2.eks.amazonaws.com"
API_URL = f"http://{API_HOST}"
OIDC_ISSUER = "https://oidc.eks.{region}.amazonaws.com/id/5E1F0C3A9B7D42E68F0A1B2C3D4E5F60"


@contextmanager
def fixed_api_name(port: int) -> Iterator[None]:
    """Resolve API_HOST (port 80) to the stand-in on 127.0.0.1:`port`, for this process only;
    every other name resolves as before."""
    real = socket.getaddrinfo

    def resolve(host: Any, service: Any, *args: Any, **kwargs: Any) -> Any:
        if host == API_HOST:
            return [
                (socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", ("127.0.0.1", port))
            ]
        return real(host, service, *args, **kwargs)

    socket.getaddrinfo = resolve
    try:
        yield
    finally:
        socket.getaddrinfo = real


def build(name: str, scenario: str, options: dict[str, str], out: Path = HERE) -> Path:
    import requests
    from freezegun import freeze_time

    target = out / name
    if target.exists():
        shutil.rmtree(target)
    cwd = os.getcwd()
    with (
        freeze_time(CLOCK),
        moto_server() as moto,
        tempfile.TemporaryDirectory() as tmp,
    ):
        moto.reset()  # moto keeps its state per process, across server instances
        requests.post(f"{moto.url}/moto-api/seed?a={MOTO_SEED}", timeout=10)
        kube = FakeApiServer(SCENARIOS / scenario).start()
        try:
            world = build_world(moto, load_scenario(SCENARIOS / scenario), API_URL)
            if world.eks_name:  # moto draws the OIDC issuer at import, before any seed
                eks = moto.backend("eks", world.region).clusters[world.eks_name]
                eks.identity = {"oidc": {"issuer": OIDC_ISSUER.format(region=world.region)}}
            kubeconfig = write_kubeconfig(
                Path(tmp) / "kubeconfig", API_URL, world.eks_arn or "", kube.token
            )
            saved = dict(os.environ)
            os.environ.update(aws_environment(moto.url, world.region, kubeconfig))
            os.chdir(out)  # the manifest records the save path as given: keep it relative
            try:
                with fixed_api_name(kube.server_address[1]):
                    report = api.diagnose(cluster=world.cluster_name, save_bundle=name, **options)
            finally:
                os.chdir(cwd)
                os.environ.clear()
                os.environ.update(saved)
        finally:
            kube.stop()
    root = report.root_cause.code if report.root_cause else "none"
    print(f"{target}: root cause {root}, {len(report.failures)} FAIL")
    return target


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--out", type=Path, default=HERE, help="where to write (default: the package)"
    )
    parser.add_argument(
        "names", nargs="*", help=f"bundles to build: {', '.join(BUNDLES)} (default: all)"
    )
    args = parser.parse_args(argv)
    if unknown := [n for n in args.names if n not in BUNDLES]:
        parser.error(f"no example bundle {unknown[0]!r} (known: {', '.join(BUNDLES)})")
    args.out.mkdir(parents=True, exist_ok=True)
    for name in args.names or BUNDLES:
        scenario, options = BUNDLES[name]
        build(name, scenario, options, args.out.resolve())


if __name__ == "__main__":
    main()
