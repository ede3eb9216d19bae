"""`logs --save-bundle` end to end: seeded logs, environment dumps, a kubeconfig, a pod spec
and a file name carrying secrets go in; not one secret comes out, in any member's bytes or
name, redacted or obfuscated, as .tar.gz or as a directory."""

from __future__ import annotations

import gzip
import json
import os
import stat
from pathlib import Path

import pytest
from bundle_helpers import (
    BUNDLE_FIXTURES,
    bundle_members,
    corpus_case,
    env_dump,
    kubeconfig,
    pod_yaml,
    run_cli,
    seeded_log,
)


def _needles(secrets: dict[str, str]) -> dict[str, bytes]:
    """Every secret, and for the multi-line private key each of its body lines."""
    needles = {k: v.encode() for k, v in secrets.items() if k != "private_key"}
    for n, line in enumerate(secrets["private_key"].splitlines()[1:-1]):
        needles[f"private_key line {n}"] = line.encode()
    return needles


def _job_dir(tmp_path: Path, secrets: dict[str, str]) -> Path:
    job = tmp_path / "job"
    job.mkdir()
    oom = corpus_case("b038")  # a real CONTAINER_OOM log: rank 5 killed by signal 9
    (job / "rank5.log").write_text(seeded_log(secrets, oom["log"]), "utf-8")
    efa = (BUNDLE_FIXTURES / "efa-2node-nccl-info.txt").read_text("utf-8")
    with gzip.open(job / "rank0.log.gz", "wt") as gz:
        gz.write(seeded_log(secrets, efa))
    (job / "env.txt").write_text(env_dump(secrets), "utf-8")
    (job / "kubeconfig").write_text(kubeconfig(secrets), "utf-8")
    (job / "pod.yaml").write_text(pod_yaml(secrets), "utf-8")
    (job / f"run-{secrets['filename_token']}.log").write_text("step 10 loss 1.0\n", "utf-8")
    return job


def _assert_clean(path: Path, secrets: dict[str, str]) -> dict[str, bytes]:
    members = bundle_members(path)
    assert members, "the bundle is empty"
    names = "\n".join(members).encode()
    for what, needle in _needles(secrets).items():
        assert needle not in names, f"{what} survives in a member name"
        for name, data in members.items():
            assert needle not in data, f"{what} survives in {name}"
    return members


@pytest.mark.parametrize("target", ["case.tar.gz", "case-dir"])
@pytest.mark.parametrize("obfuscate", [False, True])
def test_no_secret_survives_anywhere(
    tmp_path: Path, secrets: dict[str, str], target: str, obfuscate: bool
) -> None:
    job = _job_dir(tmp_path, secrets)
    bundle = tmp_path / target
    extra = ["--obfuscate"] if obfuscate else []
    result = run_cli("logs", str(job), "--save-bundle", str(bundle), *extra, "--format", "json")
    assert result.rc == 0, result.stderr
    assert "bundle saved to" in result.stderr and "secret(s) redacted" in result.stderr
    members = _assert_clean(bundle, secrets)

    # Still useful: the report and root cause, the inputs, the NCCL environment.
    report = json.loads(members["reports/report.json"])
    assert report["root_cause"] == json.loads(result.stdout)["root_cause"] == "CONTAINER_OOM"
    logs = [n for n in members if n.startswith("logs/")]
    assert len(logs) == 6
    assert not any(n.endswith(".gz") for n in logs), "inputs are stored decompressed"
    environment = json.loads(members["job/environment.json"])
    assert "NCCL_SHM_DISABLE" in environment and "FI_EFA_FORK_SAFE" in environment
    everything = b"\n".join(members.values())
    assert b"NCCL_IB_PKEY=0 TOKENIZERS_PARALLELISM=false" in everything
    assert b"[REDACTED:hf-token]" in everything and b"[REDACTED:private-key]" in everything

    manifest = json.loads(members["manifest.json"])
    assert manifest["scrubbing"]["secrets_redacted"] is True
    assert manifest["scrubbing"]["obfuscated"] is obfuscate
    assert sum(manifest["scrubbing"]["redacted"].values()) >= len(secrets)
    assert manifest["tool_version"] and manifest["command"] == "logs"
    assert any("--save-bundle" in arg for arg in manifest["command_line"])

    mapping = Path(str(bundle) + ".mapping.json")
    assert mapping.exists() is obfuscate
    if obfuscate:
        assert stat.S_IMODE(mapping.stat().st_mode) == 0o600
        assert all(n.split("/")[-1] != mapping.name for n in members)
        text = mapping.read_bytes()
        for what, needle in _needles(secrets).items():
            assert needle not in text, f"{what} in the mapping file"


def test_secrets_on_standard_input_are_removed_and_named_stdin(
    tmp_path: Path, secrets: dict[str, str]
) -> None:
    oom = corpus_case("b038")
    bundle = tmp_path / "stdin.tar.gz"
    result = run_cli(
        "logs", "-", "--save-bundle", str(bundle), "--format", "json",
        stdin=seeded_log(secrets, oom["log"]),
    )  # fmt: skip
    assert result.rc == 0, result.stderr
    members = _assert_clean(bundle, secrets)
    report = json.loads(result.stdout)
    assert report["root_cause"] == "CONTAINER_OOM"
    sources = {e["source"].rsplit(":", 1)[0] for f in report["findings"] for e in f["evidence"]}
    assert sources == {"<stdin>"}
    assert list(n for n in members if n.startswith("logs/")) == ["logs/0001/stdin.log"]
    manifest = json.loads(members["manifest.json"])
    item = next(i for i in manifest["items"] if i["name"] == "logs/0001/stdin.log")
    assert item["source"] == "<stdin>"


def test_no_redact_keeps_secrets_and_warns(tmp_path: Path, secrets: dict[str, str]) -> None:
    log = tmp_path / "rank5.log"
    log.write_text(seeded_log(secrets, corpus_case("b038")["log"]), "utf-8")
    bundle = tmp_path / "raw.tar.gz"
    result = run_cli("logs", str(log), "--save-bundle", str(bundle), "--no-redact")
    assert result.rc == 0, result.stderr
    assert "WARNING: --no-redact" in result.stderr and "NOT redacted" in result.stderr
    members = bundle_members(bundle)
    assert secrets["hf_token"].encode() in members["logs/0001/rank5.log"]
    assert json.loads(members["manifest.json"])["scrubbing"]["secrets_redacted"] is False
    assert b"Secrets were NOT redacted" in members["summary.md"]


def test_snapshot_save_redacts_by_default(tmp_path: Path, secrets: dict[str, str]) -> None:
    """Collectors of other commands save through Snapshot.save: redaction is on for them too."""
    from hyperpod_nccl.snapshot import Snapshot

    snapshot = Snapshot(meta={"command": "diagnose", "note": f"token={secrets['env_token']}"})
    snapshot.put_text("k8s/logs/default/train-worker-0/main.log", seeded_log(secrets, "x\ny"))
    snapshot.put_json(
        "k8s/pods.json",
        {
            "items": [
                {
                    "spec": {
                        "containers": [
                            {"env": [{"name": "HF_TOKEN", "value": secrets["hf_token"]}]}
                        ]
                    }
                }
            ]
        },
    )
    try:
        for target in ("plain.tar.gz", "plain-dir"):
            snapshot.save(str(tmp_path / target))
            _assert_clean(tmp_path / target, secrets)
    finally:
        snapshot.close()
    pods = json.loads(bundle_members(tmp_path / "plain-dir")["k8s/pods.json"])
    assert pods["items"][0]["spec"]["containers"][0]["env"][0] == {
        "name": "HF_TOKEN",
        "value": "[REDACTED:env-secret]",
    }


def test_saving_never_overwrites(tmp_path: Path) -> None:
    log = tmp_path / "a.log"
    log.write_text("step 1\n", "utf-8")
    bundle = tmp_path / "b.tar.gz"
    bundle.write_bytes(b"precious")
    result = run_cli("logs", str(log), "--save-bundle", str(bundle))
    assert result.rc == 2 and "already exists" in result.stderr
    assert bundle.read_bytes() == b"precious"
    (tmp_path / "c.tar.gz.mapping.json").write_text("{}")
    result = run_cli("logs", str(log), "--save-bundle", str(tmp_path / "c.tar.gz"), "--obfuscate")
    assert result.rc == 2 and "mapping.json already exists" in result.stderr
    assert sorted(os.listdir(tmp_path)) == ["a.log", "b.tar.gz", "c.tar.gz.mapping.json"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["logs"], "give log PATHs or --bundle"),
        (["logs", "a.log", "--bundle", "b.tar.gz"], "give log PATHs or --bundle"),
        (["logs", "a.log", "--obfuscate"], "only apply with --save-bundle"),
        (["logs", "a.log", "--save-bundle", "case.zip"], "write PATH.tar.gz, or a directory"),
        (
            ["logs", "a.log", "--save-bundle", "x.tar.gz", "--obfuscate", "--no-redact"],
            "not allowed with",
        ),
    ],
)
def test_bad_bundle_options_are_usage_errors(tmp_path: Path, args: list[str], message: str) -> None:
    (tmp_path / "a.log").write_text("step 1\n", "utf-8")
    result = run_cli(*args, cwd=tmp_path)
    assert result.rc == 2
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.stderr
