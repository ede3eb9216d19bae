"""The shipped example bundles are what scripts/build_example_bundles.py makes on its fixed
clock and names: every collection time is the build's CLOCK, the CloudWatch copy of a pod's
line carries the time the pod logged it, and no stand-in address or builder path is in them.

A full rebuild takes about 10 s for the three bundles (moto, the Kubernetes stand-in and
three diagnose runs), too long for the suite: `make examples-check` rebuilds into a temporary
folder and compares every byte with what is committed. These tests check the committed
bundles carry the normalised values, and the one piece of the build that is not moto's or
freezegun's (the fixed API name) on a real socket."""

from __future__ import annotations

import importlib.util
import json
import re
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import ModuleType
from typing import Any
from urllib.request import urlopen

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "src" / "hyperpod_nccl" / "examples" / "bundles"


@pytest.fixture(scope="module")
def build() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "build_example_bundles", ROOT / "scripts" / "build_example_bundles.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _json(path: Path) -> Any:
    return json.loads(path.read_text())


def test_every_example_is_built(build: ModuleType) -> None:
    assert sorted(p.name for p in EXAMPLES.iterdir() if p.is_dir()) == sorted(build.BUNDLES)


@pytest.mark.parametrize("name", ["healthy-eks", "sg-efa-fallback", "oom-one-rank"])
def test_every_collection_time_is_the_build_clock(build: ModuleType, name: str) -> None:
    stamp = build.CLOCK.strftime("%Y-%m-%dT%H:%M:%SZ")
    manifest = _json(EXAMPLES / name / "manifest.json")
    assert manifest["created_at"] == stamp
    assert {i["collected_at"] for i in manifest["items"]} == {stamp}
    summary = _json(EXAMPLES / name / "reports" / "report.json")["summary"]
    assert summary["window_end"] == build.CLOCK.isoformat()
    # Saved under its own name, not the builder's folder.
    line = manifest["command_line"]
    assert line[line.index("--save-bundle") + 1] == name


@pytest.mark.parametrize("name", ["healthy-eks", "sg-efa-fallback", "oom-one-rank"])
def test_no_stand_in_address_or_builder_path_is_in_an_example(build: ModuleType, name: str) -> None:
    bundle = EXAMPLES / name
    leaks = re.compile(r"127\.0\.0\.1|localhost|/tmp/|/work/|/home/")
    for path in sorted(p for p in bundle.rglob("*") if p.is_file()):
        found = leaks.search(path.read_text())
        assert found is None, f"{path.relative_to(bundle)}: {found.group(0) if found else ''}"
    eks = _json(bundle / "aws" / "eks" / "describe_cluster.json")
    assert eks["cluster"]["endpoint"] == build.API_URL
    assert _json(bundle / "k8s" / "access.json")["server"] == build.API_URL


def test_the_oom_story_reads_in_the_order_it_happened() -> None:
    """The watchdog timeout that the OOM-kill explains is first seen after the kill, at the
    time the pod logged it, in the pod log and in its CloudWatch copy alike."""
    bundle = EXAMPLES / "oom-one-rank"
    findings = {f["code"]: f for f in _json(bundle / "reports" / "report.json")["findings"]}
    oom, timeout = findings["CONTAINER_OOM"], findings["NCCL_TIMEOUT"]
    assert oom["root_cause"] and "NCCL_TIMEOUT" in oom["explains"]
    assert oom["first_seen"] == "2026-11-29T10:10:01Z"
    assert timeout["first_seen"] == "2026-11-29T10:20:08Z"
    copies = list((bundle / "aws" / "logs" / "streams").rglob("llama-pretrain-master-0.log"))
    assert len(copies) == 1
    first = copies[0].read_text().splitlines()[0]
    # The CloudWatch stamp and the glog time the rank printed (E1129 10:20:08) agree.
    assert first.startswith("2026-11-29T10:20:08") and "[E1129 10:20:08." in first


class _Answer(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = b'{"gitVersion": "stand-in"}'
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


def test_the_fixed_api_name_reaches_the_stand_in_and_nothing_else(build: ModuleType) -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Answer)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    real = socket.getaddrinfo
    try:
        with build.fixed_api_name(server.server_address[1]):
            with urlopen(f"{build.API_URL}/version", timeout=10) as answer:
                assert json.loads(answer.read()) == {"gitVersion": "stand-in"}
            # Other names resolve as they did.
            assert socket.getaddrinfo("127.0.0.1", 80)[0][4] == ("127.0.0.1", 80)
        assert socket.getaddrinfo is real
    finally:
        server.shutdown()
        server.server_close()
