"""Redaction rules on their own: what they remove, what they must leave alone, and that the
fast path (keyword scan, then rules on a few lines) removes exactly what the slow path does."""

from __future__ import annotations

import re

import pytest
import yaml
from bundle_helpers import BUNDLE_FIXTURES, corpus_cases, env_dump, kubeconfig, seeded_log

from hyperpod_nccl.redaction import SMALL_TEXT, Redactor, redact_document
from hyperpod_nccl.redaction.keywords import KeywordFinder
from hyperpod_nccl.redaction.secret_rules import RULES, TRIGGERS, is_secret_name

NOT_SECRET = [
    "NCCL_IB_PKEY=0",
    "TOKENIZERS_PARALLELISM=false",
    "AWS_WEB_IDENTITY_TOKEN_FILE=/var/run/secrets/eks.amazonaws.com/serviceaccount/token",
    '"secretName": "hf-credentials"',
    "[15] retrieving ncclUniqueId from [0] via c10d key-value store by key '0'",
    "commit 9fceb02d0ae598e95dc970b74767f19372d61af8 (a git hash, no W&B context)",
    "AuthInfo                = (null)",
    "DB_PASSWORD=",
    "PWD=/home/ubuntu/train",
]


@pytest.mark.parametrize("line", NOT_SECRET)
def test_lines_that_only_look_secret_are_kept(line: str) -> None:
    assert Redactor().text(line) == line


@pytest.mark.parametrize(
    ("name", "secret"),
    [
        ("HF_TOKEN", True),
        ("WANDB_API_KEY", True),
        ("AWS_SECRET_ACCESS_KEY", True),
        ("SecretAccessKey", True),
        ("db.password", True),
        ("--hf-token", True),
        ("client-key-data", True),
        ("Authorization", True),
        ("DB_PASS", True),
        ("NCCL_IB_PKEY", False),
        ("TOKENIZERS_PARALLELISM", False),
        ("secretKeyRef", False),
        ("AWS_WEB_IDENTITY_TOKEN_FILE", False),
        ("key", False),
        ("pass_rate", False),
        ("max_tokens", False),
    ],
)
def test_secret_names(name: str, secret: bool) -> None:
    assert is_secret_name(name) is secret


def test_every_seeded_secret_in_a_real_log_is_removed(secrets: dict[str, str]) -> None:
    base = corpus_cases()[0]["log"]
    redactor = Redactor()
    out = redactor.text(seeded_log(secrets, base))
    for name in (k for k in secrets if k.split("_")[0] not in ("kube", "env", "yaml", "aws")):
        if name in ("filename_token",):
            continue
        assert secrets[name] not in out, name
    assert secrets["aws_access_key_id"] not in out
    assert secrets["aws_session_token"] not in out
    # The real log around the secrets is untouched, and so are look-alikes.
    for line in base.splitlines():
        assert line in out
    assert "NCCL_IB_PKEY=0 TOKENIZERS_PARALLELISM=false" in out
    assert redactor.counts["private-key"] == 1


def test_env_dump_keeps_nccl_settings_and_drops_credentials(secrets: dict[str, str]) -> None:
    dump = env_dump(secrets)
    out = Redactor().text(dump)
    for key in ("aws_access_key_id", "aws_secret_access_key", "aws_session_token", "env_password",
                "env_secret", "env_token", "env_key", "wandb_key"):  # fmt: skip
        assert secrets[key] not in out, key
    nccl = [line for line in dump.splitlines() if line.startswith(("NCCL_", "FI_"))]
    assert len(nccl) >= 4
    for line in nccl:
        assert line in out.splitlines()


def test_kubeconfig_credentials_go_by_structure(secrets: dict[str, str]) -> None:
    out = redact_document(Redactor(), kubeconfig(secrets))
    for key in ("kube_token", "kube_client_key", "kube_exec_env", "kube_exec_secret"):
        assert secrets[key] not in out, key
    data = yaml.safe_load(out)
    user = data["users"][0]["user"]
    assert user["token"] == "[REDACTED:key-secret]"
    assert [e["name"] for e in user["exec"]["env"]] == [
        "AWS_PROFILE",
        "EXTRA_CONTEXT",
        "AWS_SECRET_ACCESS_KEY",
    ]
    assert all(e["value"].startswith("[REDACTED") for e in user["exec"]["env"])
    # What support needs to see stays: the server, the cluster, the exec command.
    assert data["clusters"][0]["cluster"]["server"].endswith(".eks.amazonaws.com")
    assert user["exec"]["command"] == "aws"
    assert user["exec"]["args"][2:4] == ["eks", "get-token"]


def test_kubeconfig_as_plain_text_still_loses_its_credentials(secrets: dict[str, str]) -> None:
    out = Redactor().text(kubeconfig(secrets))
    for key in ("kube_token", "kube_client_key", "kube_exec_secret"):
        assert secrets[key] not in out, key


def test_json_redaction_by_key_and_by_kubernetes_env_entry(secrets: dict[str, str]) -> None:
    pod = {
        "spec": {
            "containers": [
                {
                    "env": [
                        {"name": "NCCL_DEBUG", "value": "INFO"},
                        {"name": "HF_TOKEN", "value": secrets["env_token"]},
                        {"name": "TOKEN_FILE", "value": "/var/run/token"},
                    ],
                    "args": ["--hf-token", secrets["flag_token"]],
                }
            ],
            "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists"}],
        },
        "password": secrets["env_password"],
    }
    out = Redactor().json(pod)
    text = repr(out)
    for key in ("env_token", "env_password"):
        assert secrets[key] not in text
    env = out["spec"]["containers"][0]["env"]
    assert env[0]["value"] == "INFO" and env[2]["value"] == "/var/run/token"
    assert out["spec"]["tolerations"][0]["key"] == "nvidia.com/gpu"


def test_yaml_block_scalar_under_a_secret_key_keeps_the_yaml_shape(secrets: dict[str, str]) -> None:
    text = "data:\n  tls.key: |\n    " + secrets["env_secret"] + "\n    second-line\n  note: kept\n"
    out = Redactor().text(text)
    assert secrets["env_secret"] not in out and "second-line" not in out
    assert yaml.safe_load(out)["data"]["note"] == "kept"


def test_argv_hides_flag_values_in_both_spellings(secrets: dict[str, str]) -> None:
    argv = ["hyperpod-nccl", "logs", "x.log", "--hf-token", secrets["flag_token"],
            f"--password={secrets['env_password']}", "--format", "json"]  # fmt: skip
    out = Redactor().argv(argv)
    assert secrets["flag_token"] not in out and secrets["env_password"] not in " ".join(out)
    assert out[:3] == ["hyperpod-nccl", "logs", "x.log"] and out[-2:] == ["--format", "json"]


def test_real_logs_are_left_exactly_as_they_were() -> None:
    """No false positives on 74 real failure logs: redaction must not touch what rules read."""
    changed = [c["id"] for c in corpus_cases() if Redactor().text(c["log"]) != c["log"]]
    assert changed == []


def test_every_rule_example_carries_its_trigger(secrets: dict[str, str]) -> None:
    """The fast path only shows the rules lines holding a trigger word; a rule that matched
    without one would be skipped there. Check each rule against real seeded text."""
    text = "\n".join([seeded_log(secrets, ""), env_dump(secrets), kubeconfig(secrets)])
    lowered = text.lower()
    matched = 0
    for rule in RULES:
        if not rule.triggers:
            continue  # found by its shape, not a word: see tests/hostile/test_lookalikes.py
        for match in rule.regex.finditer(text):
            if rule.named and not is_secret_name(match.group("name")):
                continue  # such a match is left as it is anyway
            if rule.accept is not None and not rule.accept(match.group(0)):
                continue  # nor is one the rule's own check turns down
            where = match.group(0)
            if rule.near:  # the trigger stands on the match's line or the line before
                start = text.rfind("\n", 0, text.rfind("\n", 0, match.start()))
                end = text.find("\n", match.end())
                where = text[max(start, 0) : end if end >= 0 else len(text)]
                if not any(t in where.lower() for t in rule.triggers):
                    continue  # the rule itself leaves a match with no trigger near
            matched += 1
            assert any(t in where.lower() for t in rule.triggers), (rule.kind, match.group(0))
    assert matched > 20
    assert all(t == t.lower() for t in TRIGGERS)
    assert lowered  # the text was not empty


def test_fast_path_equals_full_rules_on_a_large_log(secrets: dict[str, str]) -> None:
    base = (BUNDLE_FIXTURES / "efa-2node-nccl-info.txt").read_text("utf-8")
    parts = [base] * (2 * SMALL_TEXT // len(base) + 1)
    parts.insert(len(parts) // 2, seeded_log(secrets, base))
    big = "".join(parts)
    assert len(big) > SMALL_TEXT
    fast = Redactor().text(big)
    slow_redactor = Redactor()
    # The rules on every line-sized piece (pairs of lines and the PEM block kept whole).
    slow = slow_redactor._all_rules(big)
    assert fast == slow
    assert secrets["hf_token"] not in fast


def test_private_key_split_across_stream_chunks_is_removed_whole(secrets: dict[str, str]) -> None:
    pem_lines = secrets["private_key"].splitlines(keepends=False)
    lines = ["step 1 loss 2.0", *pem_lines, "step 2 loss 1.9"]
    chunks = [(line + "\n").encode() for line in lines]  # one line per chunk: worst case
    out = b"".join(Redactor().chunks(chunks)).decode()
    body = pem_lines[1:-1]
    assert all(line not in out for line in body)
    assert out.startswith("step 1 loss 2.0\n") and out.endswith("step 2 loss 1.9\n")


def test_unterminated_private_key_is_dropped_to_the_end(secrets: dict[str, str]) -> None:
    pem_lines = secrets["private_key"].splitlines()[:-1]  # no END line: a truncated paste
    out = Redactor().text("before\n" + "\n".join(pem_lines) + "\n")
    assert out.startswith("before\n")
    assert all(line not in out for line in pem_lines[1:])


@pytest.mark.parametrize("backend", ["find", "hyperscan"])
def test_keyword_finder_backends_agree(backend: str) -> None:
    data = (BUNDLE_FIXTURES / "efa-2node-nccl-info.txt").read_bytes() + b"\nMy_Password=x ://\n"
    expected = sorted(
        m.start() for t in TRIGGERS for m in re.finditer(re.escape(t.encode()), data.lower())
    )
    assert sorted(KeywordFinder(TRIGGERS, backend).offsets(data)) == expected
