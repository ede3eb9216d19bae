"""Escalation bundles from `diagnose` and `perf`, through the command line as a user runs it:
one archive with the reports, summary.md, what was collected, the job's environment and
versions; secrets seeded into the cluster's pod logs, pod specs and perf inputs never reach it;
`bundle summary` prints it; `diagnose --bundle` / `perf --bundle` re-analyse it offline with
the same findings, obfuscated or not."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from seams import REPO, MotoServer, eks_cluster, in_brief, members

sys.path.append(str(REPO / "tests" / "bundle"))

from bundle_helpers import env_dump, make_secrets, seeded_log

from hyperpod_nccl import api

PERF = REPO / "tests" / "fixtures" / "perf"
EXAMPLES = REPO / "src" / "hyperpod_nccl" / "examples" / "bundles"
OWN_ITEMS = {
    "manifest.json",
    "summary.md",
    "reports/report.txt",
    "reports/report.json",
    "reports/report.md",
    "job/environment.json",
    "versions.json",
}


def hyperpod_nccl(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """The installed command line, in its own process, as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "hyperpod_nccl.cli", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=300,
    )


def assert_no_secret(bundle: Path, secrets: dict[str, str]) -> dict[str, bytes]:
    found = members(bundle)
    needles = {k: v for k, v in secrets.items() if k not in ("private_key", "filename_token")}
    needles |= {
        f"private_key line {n}": line
        for n, line in enumerate(secrets["private_key"].splitlines()[1:-1])
    }
    text = "\n".join(found).encode()
    for what, needle in needles.items():
        assert needle.encode() not in text, f"{what} survives in a member name"
        for name, data in found.items():
            assert needle.encode() not in data, f"{what} survives in {name}"
    return found


@pytest.fixture
def secrets() -> dict[str, str]:
    return make_secrets(seed=11)


def test_diagnose_bundle_from_a_live_cluster(
    moto: MotoServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, secrets: dict[str, str]
) -> None:
    bundle = tmp_path / "case-1234.tar.gz"
    leaks = seeded_log(secrets, "")
    pod_env = {"HF_TOKEN": secrets["hf_token"], "WANDB_API_KEY": secrets["wandb_key"]}
    with eks_cluster(
        moto,
        monkeypatch,
        tmp_path,
        "oom-one-rank",
        pod_log_lines={"training/llama-pretrain-master-0/pytorch.log": leaks},
        pod_env=pod_env,
    ) as world:
        live = hyperpod_nccl(
            "diagnose", "--cluster", world.cluster_name, "--namespace", "training",
            "--format", "json", "--save-bundle", bundle,
        )  # fmt: skip
    assert live.returncode == 0, live.stderr
    report = json.loads(live.stdout)
    assert report["root_cause"] == "CONTAINER_OOM"
    assert f"bundle saved to {bundle} (" in live.stderr and "secret(s) redacted" in live.stderr
    assert int(live.stderr.split("bundle saved to")[1].split("(")[1].split()[0]) > 0

    found = assert_no_secret(bundle, secrets)
    assert set(found) >= OWN_ITEMS
    assert "k8s/pods.json" in found and "aws/sagemaker/describe_cluster.json" in found
    assert any(n.startswith("k8s/logs/training/") for n in found)
    manifest = json.loads(found["manifest.json"])
    assert manifest["command"] == "diagnose" and manifest["scrubbing"]["secrets_redacted"]
    assert manifest["command_line"][:3] == ["hyperpod-nccl", "diagnose", "--cluster"]
    assert manifest["window"]["zone"] == "UTC" and manifest["window"]["start"]
    saved = json.loads(found["reports/report.json"])
    assert in_brief(saved) == in_brief(report)
    assert b"CONTAINER_OOM" in found["reports/report.txt"]
    assert found["reports/report.md"].startswith(b"#")
    assert b"| Cluster | ml-cluster |" in found["summary.md"]
    # The variables the job's pods set, values and all: what support asks for first.
    environment = json.loads(found["job/environment.json"])
    assert any(name.startswith(("NCCL_", "FI_")) for name in environment), environment

    summary = hyperpod_nccl("bundle", "summary", bundle)
    assert summary.returncode == 0 and summary.stdout == found["summary.md"].decode()

    replay = hyperpod_nccl("diagnose", "--bundle", bundle, "--format", "json")
    assert replay.returncode == 0, replay.stderr
    replayed = json.loads(replay.stdout)
    assert in_brief(replayed) == in_brief(report)
    for key in ("items_collected", "items_missing", "cluster", "orchestrator"):
        assert replayed["summary"][key] == report["summary"][key], key


def test_diagnose_bundle_saved_again_obfuscated_keeps_the_root_cause(
    moto: MotoServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plain = tmp_path / "plain"
    with eks_cluster(moto, monkeypatch, tmp_path, "oom-one-rank") as world:
        live = api.diagnose(
            cluster=world.cluster_name, namespace="training", save_bundle=str(plain)
        )
    shared = tmp_path / "shared.tar.gz"
    again = hyperpod_nccl("diagnose", "--bundle", plain, "--save-bundle", shared, "--obfuscate")
    assert again.returncode == 0, again.stderr
    mapping_file = Path(f"{shared}.mapping.json")
    assert stat.S_IMODE(mapping_file.stat().st_mode) == 0o600
    mapping = json.loads(mapping_file.read_text())
    found = members(shared)
    assert "mapping" not in " ".join(found)
    blob = b"\n".join([*found.values(), "\n".join(found).encode()])
    for real in [*mapping["instance_ids"], *mapping["account_ids"]]:
        assert real.encode() not in blob, real
    replay = hyperpod_nccl("diagnose", "--bundle", shared, "--format", "json")
    replayed, first = json.loads(replay.stdout), live.to_dict()
    assert replayed["root_cause"] == first["root_cause"] == "CONTAINER_OOM"
    assert [f["code"] for f in replayed["findings"]] == [f["code"] for f in first["findings"]]


def _perf_inputs(tmp_path: Path, secrets: dict[str, str]) -> Path:
    """A pair sweep with one slow node, the flight recorder dumps (pickles) of a 4-rank job
    where rank 2 fell behind, and an environment dump and a log that leak credentials."""
    inputs = tmp_path / "perf-inputs"
    shutil.copytree(PERF / "pair-sweep-8node", inputs / "sweep")
    (inputs / "fr").mkdir()
    for rank in range(4):
        shutil.copy(PERF / "flight-recorder" / f"trace_{rank}", inputs / "fr" / f"trace_{rank}")
    healthy = (PERF / "nccl-tests" / "a100-sxm4-80gb-1node-8gpu-allreduce-healthy.txt").read_text()
    (inputs / "single-node.log").write_text(seeded_log(secrets, healthy))
    (inputs / "env.txt").write_text(env_dump(secrets))
    return inputs


@pytest.mark.parametrize("obfuscate", [False, True])
def test_perf_bundle_reanalyses_offline(
    tmp_path: Path, secrets: dict[str, str], obfuscate: bool
) -> None:
    inputs = _perf_inputs(tmp_path, secrets)
    bundle = tmp_path / "perf-case.tar.gz"
    flags = ["--obfuscate"] if obfuscate else []
    first = hyperpod_nccl("perf", inputs, "--format", "json", "--save-bundle", bundle, *flags)
    assert first.returncode == 0, first.stderr
    report = json.loads(first.stdout)
    assert report["root_cause"] == "STRAGGLER_NODE"
    assert any(f["code"] == "STALLED_RANKS" for f in report["findings"])

    found = assert_no_secret(bundle, secrets)
    assert set(found) >= OWN_ITEMS
    dumps = sorted(n for n in found if n.rsplit("/", 1)[-1].startswith("trace_"))
    assert len(dumps) == 4
    for name in dumps:  # stored as JSON, which redaction can read and not break
        assert json.loads(found[name])["entries"], name
    assert json.loads(found["manifest.json"])["command"] == "perf"
    summary = hyperpod_nccl("bundle", "summary", bundle)
    assert summary.returncode == 0 and "Root cause: **`STRAGGLER_NODE`**" in summary.stdout

    again = hyperpod_nccl("perf", "--bundle", bundle, "--format", "json")
    assert again.returncode == 0, again.stderr
    replayed = json.loads(again.stdout)
    if obfuscate:  # the same findings about stand-in hosts
        assert [(f["code"], f["status"]) for f in replayed["findings"]] == [
            (f["code"], f["status"]) for f in report["findings"]
        ]
        assert replayed["root_cause"] == report["root_cause"]
    else:
        assert in_brief(replayed) == in_brief(report)
        assert [f["title"] for f in replayed["findings"]] == [
            f["title"] for f in report["findings"]
        ]


def test_perf_bundle_of_standard_input(tmp_path: Path) -> None:
    bundle = tmp_path / "stdin-case"
    text = (PERF / "pair-sweep-8node-one-log.txt").read_text()
    first = subprocess.run(
        [sys.executable, "-m", "hyperpod_nccl.cli", "perf", "-", "--format", "json",
         "--save-bundle", str(bundle)],
        input=text, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert first.returncode == 0, first.stderr
    (item,) = [p for p in (bundle / "logs").rglob("*") if p.is_file()]
    assert item.read_text() == text
    again = hyperpod_nccl("perf", "--bundle", bundle, "--format", "json")
    assert in_brief(json.loads(again.stdout)) == in_brief(json.loads(first.stdout))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["perf", "x.log", "--bundle", "b.tar.gz"], "give PATHs or --bundle PATH, not both"),
        (["perf", "x.log", "--save-bundle", "b.zip"], "write PATH.tar.gz, or a directory"),
        (["diagnose", "--cluster", "c", "--bundle", "b"], "cannot be combined with --cluster"),
        (["diagnose", "--cluster", "c", "--obfuscate"], "only apply with --save-bundle"),
        (["diagnose", "--cluster", "c", "--save-bundle", "EXISTS"], "already exists"),
    ],
)
def test_bundle_options_are_checked_before_any_work(
    tmp_path: Path, args: list[str], message: str
) -> None:
    (tmp_path / "EXISTS").mkdir()
    (tmp_path / "x.log").write_text("not read\n")
    env = {**os.environ, "AWS_ENDPOINT_URL": "http://127.0.0.1:9"}  # nothing answers there
    result = subprocess.run(
        [sys.executable, "-m", "hyperpod_nccl.cli", *args],
        capture_output=True, text=True, cwd=tmp_path, env=env, timeout=60,
    )  # fmt: skip
    assert result.returncode == 2, result.stderr
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_perf_bundle_without_inputs_is_one_line_and_exit_1(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    result = hyperpod_nccl("perf", "--world-size", "64", "--save-bundle", empty)
    assert result.returncode == 0, result.stderr
    again = hyperpod_nccl("perf", "--bundle", empty)
    assert again.returncode == 1 and again.stderr.strip().endswith("holds no logs")


@pytest.mark.parametrize("name", ["healthy-eks", "oom-one-rank", "sg-efa-fallback"])
def test_example_bundles_carry_their_reports_and_summary(name: str) -> None:
    example = EXAMPLES / name
    saved: dict[str, Any] = json.loads((example / "reports/report.json").read_text())
    summary = hyperpod_nccl("bundle", "summary", example)
    assert summary.returncode == 0, summary.stderr
    assert summary.stdout == (example / "summary.md").read_text()
    replayed = api.diagnose(bundle=str(example)).to_dict()
    assert in_brief(replayed) == in_brief(saved)
