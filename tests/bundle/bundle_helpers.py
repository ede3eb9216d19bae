"""Helpers for the escalation-bundle tests (a uniquely named module: test modules import it): seeded secrets, real logs, running the CLI, and
reading every byte of a bundle back.

The secrets are generated here, shaped like the real thing (documented prefixes and lengths)
but random, so that no token-like string sits in the repository for scanners to flag.
"""

from __future__ import annotations

import base64
import json
import random
import re
import subprocess
import sys
import tarfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
BUNDLE_FIXTURES = FIXTURES / "bundle"
CORPUS = FIXTURES / "corpus" / "dev.jsonl"
CLI = [sys.executable, "-m", "hyperpod_nccl.cli"]

_ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
_UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
_B64 = _ALNUM + "+/"
_B64URL = _ALNUM + "-_"
_HEX = "0123456789abcdef"


def _draw(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def make_secrets(seed: int = 8) -> dict[str, str]:
    """One secret of every kind redaction must remove, by a name saying where it goes."""
    rng = random.Random(seed)
    pem_body = "\n".join(_draw(rng, _B64, 64) for _ in range(6))
    pem = f"-----BEGIN RSA PRIVATE KEY-----\n{pem_body}\n-----END RSA PRIVATE KEY-----"
    client_key = (
        f"-----BEGIN EC PRIVATE KEY-----\n{_draw(rng, _B64, 64)}\n-----END EC PRIVATE KEY-----\n"
    )
    return {
        "aws_access_key_id": "AKIA" + _draw(rng, _UPPER, 16),
        "aws_secret_access_key": _draw(rng, _B64, 40),
        "aws_session_token": "IQoJb3JpZ2luX2Vj" + _draw(rng, _B64, 280),
        "bearer": _draw(rng, _ALNUM, 40),
        "jwt": "eyJ"
        + _draw(rng, _B64URL, 30)
        + ".eyJ"
        + _draw(rng, _B64URL, 60)
        + "."
        + _draw(rng, _B64URL, 43),
        "hf_token": "hf_" + _draw(rng, _ALNUM, 34),
        "wandb_key": _draw(rng, _HEX, 40),
        "wandb_netrc_key": _draw(rng, _HEX, 40),
        "github_token": "ghp_" + _draw(rng, _ALNUM, 36),
        "github_pat": "github_pat_" + _draw(rng, _ALNUM + "_", 82),
        "slack_token": "xoxb-" + _draw(rng, "0123456789", 12) + "-" + _draw(rng, _ALNUM, 24),
        "slack_webhook": "T"
        + _draw(rng, _UPPER, 8)
        + "/B"
        + _draw(rng, _UPPER, 8)
        + "/"
        + _draw(rng, _ALNUM, 24),
        "gitlab_token": "glpat-" + _draw(rng, _ALNUM, 20),
        "openai_key": "sk-proj-" + _draw(rng, _ALNUM, 48),
        "nvidia_key": "nvapi-" + _draw(rng, _ALNUM, 64),
        "url_password": "Pw" + _draw(rng, _ALNUM, 14),
        "env_password": _draw(rng, _ALNUM, 18),
        "env_secret": _draw(rng, _ALNUM, 22),
        "env_token": _draw(rng, _ALNUM, 26),
        "env_key": _draw(rng, _ALNUM, 30),
        "flag_token": _draw(rng, _ALNUM, 28),
        "yaml_password": _draw(rng, _ALNUM, 16),
        "private_key": pem,
        "kube_token": _draw(rng, _ALNUM, 48),
        "kube_client_key": base64.b64encode(client_key.encode()).decode(),
        "kube_exec_env": _draw(rng, _ALNUM, 20),
        "kube_exec_secret": _draw(rng, _B64, 40),
        "filename_token": "ghp_" + _draw(rng, _ALNUM, 36),
    }


def corpus_cases() -> list[dict[str, Any]]:
    return [json.loads(line) for line in CORPUS.read_text("utf-8").splitlines() if line.strip()]


def corpus_case(case_id: str) -> dict[str, Any]:
    return next(c for c in corpus_cases() if c["id"] == case_id)


def seeded_log(secrets: dict[str, str], base: str) -> str:
    """A real log with secrets printed the ways training jobs print them, mid-log."""
    lines = base.splitlines()
    middle = len(lines) // 2
    leaks = [
        f"botocore.exceptions.ClientError: AccessDenied for key {secrets['aws_access_key_id']}",
        f"[launcher] export AWS_SESSION_TOKEN={secrets['aws_session_token']}",
        f"[launcher] export HF_TOKEN={secrets['hf_token']}",
        f"Downloading shards: authenticated as {secrets['hf_token']} (cached)",
        f"wandb: W&B API key is configured. Using {secrets['wandb_key']} from the environment",
        f"machine api.wandb.ai login user password {secrets['wandb_netrc_key']}",
        f"+ curl -H 'Authorization: Bearer {secrets['bearer']}' https://internal.example/api",
        f"token refresh: sa token {secrets['jwt']}",
        f"git clone https://ci-bot:{secrets['github_token']}@github.com/org/repo.git",
        f"GITHUB_PAT={secrets['github_pat']} pip install git+https://github.com/org/pkg",
        f"notify: slack token {secrets['slack_token']} hooks.slack.com/services/{secrets['slack_webhook']}",
        f"pip config: index-url https://__token__:{secrets['gitlab_token']}@gitlab.example.com/simple",
        f"eval callback using OPENAI_API_KEY={secrets['openai_key']}",
        f"NGC_API_KEY={secrets['nvidia_key']} docker login nvcr.io",
        f"connecting to postgresql://trainer:{secrets['url_password']}@db.internal:5432/metrics",
        f"python train.py --hf-token {secrets['flag_token']} --lr 3e-4",
        "cat ~/.ssh/id_rsa",
        secrets["private_key"],
        "NCCL_IB_PKEY=0 TOKENIZERS_PARALLELISM=false",
    ]
    return "\n".join(lines[:middle] + leaks + lines[middle:]) + "\n"


def env_dump(secrets: dict[str, str]) -> str:
    """`env` output: the NCCL and libfabric variables real runs set (read from their NCCL INFO
    lines), plus the credentials such dumps carry."""
    nccl: set[str] = set()
    for fixture in ("gke-tcpx-env.txt", "efa-2node-nccl-info.txt"):
        for line in (BUNDLE_FIXTURES / fixture).read_text("utf-8").splitlines():
            found = re.search(
                r"((?:NCCL|FI)_[A-Z0-9_]+) (?:set by environment|environment variable)? ?to (\S+?)\.?$",
                line,
            )
            if found:
                nccl.add(f"{found.group(1)}={found.group(2).strip(chr(34))}")
    credentials = [
        f"AWS_ACCESS_KEY_ID={secrets['aws_access_key_id']}",
        f"AWS_SECRET_ACCESS_KEY={secrets['aws_secret_access_key']}",
        f"AWS_SESSION_TOKEN={secrets['aws_session_token']}",
        f"DB_PASSWORD={secrets['env_password']}",
        f"MY_APP_SECRET={secrets['env_secret']}",
        f"CUSTOM_SERVICE_TOKEN={secrets['env_token']}",
        f"SERVICE_API_KEY={secrets['env_key']}",
        f"WANDB_API_KEY={secrets['wandb_key']}",
        "TOKENIZERS_PARALLELISM=false",
        "NCCL_IB_PKEY=0",
    ]
    return "\n".join(sorted(nccl) + credentials) + "\n"


def kubeconfig(secrets: dict[str, str]) -> str:
    data = yaml.safe_load((BUNDLE_FIXTURES / "kubeconfig-eks.yaml").read_text("utf-8"))
    user = data["users"][0]["user"]
    user["token"] = secrets["kube_token"]
    user["client-key-data"] = secrets["kube_client_key"]
    user["exec"]["env"] += [
        {"name": "EXTRA_CONTEXT", "value": secrets["kube_exec_env"]},
        {"name": "AWS_SECRET_ACCESS_KEY", "value": secrets["kube_exec_secret"]},
    ]
    return str(yaml.safe_dump(data, sort_keys=False))


def pod_yaml(secrets: dict[str, str]) -> str:
    """`kubectl get pod -o yaml` env section with a secret written inline, and a block scalar."""
    return (
        "spec:\n  containers:\n  - name: trainer\n    env:\n"
        "    - name: NCCL_DEBUG\n      value: INFO\n"
        "    - name: DB_PASSWORD\n"
        f"      value: {secrets['env_password']}\n"
        "    - name: HF_HOME\n      value: /fsx/hf\n"
        "data:\n  password: |\n"
        f"    {secrets['yaml_password']}\n"
        "  note: kept\n"
    )


@dataclass
class Result:
    rc: int
    stdout: str
    stderr: str


def run_cli(*args: str, stdin: str | None = None, cwd: Path | None = None) -> Result:
    """The real command line, in a child process: exit codes and stderr as users see them."""
    done = subprocess.run(
        [*CLI, *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=300,
        check=False,
    )
    return Result(done.returncode, done.stdout, done.stderr)


def bundle_members(path: Path) -> dict[str, bytes]:
    """Every member of a bundle (tar.gz or directory), name -> bytes."""
    if path.is_dir():
        return {
            p.relative_to(path).as_posix(): p.read_bytes() for p in path.rglob("*") if p.is_file()
        }
    with tarfile.open(path, "r:gz") as tar:
        out: dict[str, bytes] = {}
        for member in tar.getmembers():
            stream = tar.extractfile(member)
            out[member.name] = stream.read() if stream else b""
        return out
