"""Every kind of secret redaction must remove, in every placement a log or document puts it,
generated fresh from a seed (real formats: documented prefixes, lengths and alphabets, random
bodies), so no token-like string sits in the repository.

`cases(seed)` gives (kind, placement, secret, text): the text holds the secret as that
placement writes it. `leaks(secret, data)` finds any 12-character piece of a secret's random
part in some output, so a half-removed secret counts as a leak too.
"""

from __future__ import annotations

import base64
import json
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass

ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
B64 = ALNUM + "+/"
B64URL = ALNUM + "-_"
HEX = "0123456789abcdef"
WINDOW = 12


def draw(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


@dataclass(frozen=True)
class Secret:
    kind: str
    value: str
    secret_part: str  # what must not survive (the random part, without the public prefix)


def _aws_secret(rng: random.Random) -> str:
    """As AWS makes them: 40 characters drawn at random from the base64 alphabet."""
    return draw(rng, B64, 40)


def _pem(rng: random.Random, label: str = "RSA PRIVATE KEY") -> str:
    body = "\n".join(draw(rng, B64, 64) for _ in range(5))
    return f"-----BEGIN {label}-----\n{body}\n-----END {label}-----"


# kind -> (generator, prefix that may stay)
GENERATORS: dict[str, tuple[Callable[[random.Random], str], str]] = {
    "aws-access-key-id": (lambda r: "AKIA" + draw(r, UPPER, 16), "AKIA"),
    "aws-secret-access-key": (_aws_secret, ""),
    "aws-session-token": (lambda r: "IQoJb3JpZ2luX2Vj" + draw(r, B64, 300), "IQoJb3JpZ2luX2Vj"),
    "jwt": (
        lambda r: (
            "eyJ" + draw(r, B64URL, 30) + ".eyJ" + draw(r, B64URL, 60) + "." + draw(r, B64URL, 43)
        ),
        "eyJ",
    ),
    "hf-token": (lambda r: "hf_" + draw(r, ALNUM, 34), "hf_"),
    "github-token": (lambda r: "ghp_" + draw(r, ALNUM, 36), "ghp_"),
    "github-pat": (lambda r: "github_pat_" + draw(r, ALNUM + "_", 82), "github_pat_"),
    "gitlab-token": (lambda r: "glpat-" + draw(r, ALNUM, 20), "glpat-"),
    "slack-token": (
        lambda r: "xoxb-" + draw(r, "0123456789", 12) + "-" + draw(r, ALNUM, 24),
        "xoxb-",
    ),
    "openai-key": (lambda r: "sk-proj-" + draw(r, ALNUM, 48), "sk-proj-"),
    "anthropic-key": (lambda r: "sk-ant-api03-" + draw(r, B64URL, 93), "sk-ant-api03-"),
    "npm-token": (lambda r: "npm_" + draw(r, ALNUM, 36), "npm_"),
    "pypi-token": (lambda r: "pypi-AgE" + draw(r, B64URL, 60), "pypi-AgE"),
    "nvidia-key": (lambda r: "nvapi-" + draw(r, B64URL, 64), "nvapi-"),
    "docker-pat": (lambda r: "dckr_pat_" + draw(r, B64URL, 27), "dckr_pat_"),
    "google-api-key": (lambda r: "AIza" + draw(r, B64URL, 35), "AIza"),
    "stripe-key": (lambda r: "sk_live_" + draw(r, ALNUM, 24), "sk_live_"),
    "databricks-token": (lambda r: "dapi" + draw(r, HEX, 32), "dapi"),
    "azure-client-secret": (
        lambda r: draw(r, ALNUM, 3) + r.choice("0123456789") + "Q~" + draw(r, ALNUM + "_~.-", 34),
        "",
    ),
    "sendgrid-key": (lambda r: "SG." + draw(r, B64URL, 22) + "." + draw(r, B64URL, 43), "SG."),
    "password": (lambda r: draw(r, ALNUM, 20), ""),
}
# Kinds recognisable by their shape alone, wherever they stand (a bare AWS secret key too:
# 40 random base64 characters standing alone).
SHAPED = [k for k in GENERATORS if k != "password"]

# Secret-named variables, with the prefixes the job-environment table collects.
ENV_NAMES = [
    "NVIDIA_API_KEY",
    "NCCL_PROXY_AUTH_TOKEN",
    "FI_EFA_SECRET",
    "TORCH_HUB_TOKEN",
    "CUDA_LICENSE_KEY",
    "UCX_SSH_PASSWORD",
    "OMPI_MCA_plm_rsh_secret",
    "OFI_NCCL_AUTH_TOKEN",
    "DB_PASSWORD",
    "HF_TOKEN",
]
JSON_NAMES = ["SecretAccessKey", "api_key", "client_secret", "password", "token"]


@dataclass(frozen=True)
class Case:
    kind: str
    placement: str
    secret: Secret
    text: str
    file_name: str = "rank0.log"


def _secret(rng: random.Random, kind: str) -> Secret:
    generate, prefix = GENERATORS[kind]
    value = generate(rng)
    return Secret(kind, value, value[len(prefix) :])


def _placements(rng: random.Random, kind: str) -> Iterator[tuple[str, Secret, str, str]]:
    """(placement, secret, text, file name) for one kind."""

    def fresh() -> Secret:
        return _secret(rng, kind)

    env_name = rng.choice(ENV_NAMES)
    json_name = rng.choice(JSON_NAMES)
    if kind in SHAPED:
        s = fresh()
        yield "bare", s, f"[rank3]: INFO authenticated with {s.value} for the download", "rank3.log"
        s = fresh()
        yield "after-underscore", s, f"+ export UPLOAD_ARGS=token_{s.value}", "rank0.log"
        s = fresh()
        if all(c in ALNUM + "_-." for c in s.value):
            yield "file-name", s, "step 1 loss 2.31\n", f"train-{s.value}.log"
    s = fresh()
    yield "env", s, f"{env_name}={s.value}", "env.txt"
    s = fresh()
    yield "env-export", s, f'export {env_name}="{s.value}"', "launch.sh.log"
    s = fresh()
    yield "yaml", s, f"  {json_name}: {s.value}", "values.yaml"
    s = fresh()
    yield "json", s, json.dumps({json_name: s.value, "region": "us-west-2"}), "creds.json"
    s = fresh()
    pretty = json.dumps({"Credentials": {json_name: s.value}}, indent=2)
    yield (
        "json-next-line",
        s,
        pretty.replace(f'"{json_name}": ', f'"{json_name}":\n        '),
        "creds.json",
    )
    s = fresh()
    yield "flag", s, f"python train.py --api-token {s.value} --lr 3e-4", "rank0.log"
    s = fresh()
    yield "flag-equals", s, f"torchrun train.py --password={s.value}", "rank0.log"
    if kind in ("password", "aws-secret-access-key", "azure-client-secret"):
        s = fresh()
        yield (
            "aws-configure",
            s,
            f"+ aws configure set aws_secret_access_key {s.value}",
            "setup.log",
        )
    if kind == "password":
        s = fresh()
        yield (
            "nccl-env",
            s,
            f"ip-10-1-2-3:1234:1234 [0] NCCL INFO {env_name} set by environment to {s.value}.",
            "rank0.log",
        )
        s = fresh()
        yield (
            "ofi-env",
            s,
            f"ip-10-1-2-3:1234:1234 [0] NCCL INFO NET/OFI Setting {env_name} environment variable to {s.value}",
            "rank0.log",
        )
        s = fresh()
        yield "short-p", s, f"+ sshpass -p {s.value} ssh ubuntu@head-node", "setup.log"
        s = fresh()
        yield (
            "short-p-mysql",
            s,
            f"+ mysql -h db.internal -u trainer -p{s.value} metrics",
            "setup.log",
        )
        s = fresh()
        yield (
            "url",
            s,
            f"connecting to postgresql://trainer:{s.value}@db.internal:5432/metrics",
            "rank0.log",
        )
        s = fresh()
        yield (
            "netrc-inline",
            s,
            f"machine api.example.com login bot password {s.value}",
            "netrc.txt",
        )
        s = fresh()
        yield (
            "netrc-multi-line",
            s,
            f"machine api.example.com\n  login bot\n  password {s.value}\n",
            "netrc.txt",
        )
        s = fresh()
        yield "pgpass", s, f"db.internal:5432:metrics:trainer:{s.value}", "pgpass.txt"
        s = fresh()
        yield "pgpass-wildcard", s, f"*:*:*:postgres:{s.value}", "pgpass.txt"
        s = fresh()
        port = rng.randint(1024, 65535)
        yield "pgpass-any-port", s, f"pg.internal:{port}:metrics:trainer:{s.value}", "pgpass.txt"
        s = fresh()
        yield "kubeconfig-exec-env", s, _kubeconfig_exec(s.value), "kubeconfig.log"
        s = fresh()
        yield (
            "block-scalar",
            s,
            f"data:\n  tls.key: |\n    {s.value}\n    {s.value[::-1]}\n  note: kept\n",
            "secret.yaml",
        )
        s = fresh()
        yield (
            "basic-auth",
            s,
            "+ curl -H 'Authorization: Basic "
            + base64.b64encode(f"bot:{s.value}".encode()).decode()
            + "' https://x",
            "rank0.log",
        )
        b64 = Secret("k8s-secret-data", base64.b64encode(rng.randbytes(33)).decode(), "")
        b64 = Secret(b64.kind, b64.value, b64.value)
        yield "k8s-secret-yaml", b64, _k8s_secret_yaml(b64.value), "secret.yaml"
        b64 = Secret("k8s-secret-data", base64.b64encode(rng.randbytes(33)).decode(), "")
        b64 = Secret(b64.kind, b64.value, b64.value)
        yield "k8s-secret-json", b64, _k8s_secret_json(b64.value), "secret.json"
    if kind == "aws-secret-access-key":
        s = fresh()
        key_id = "AKIA" + draw(rng, UPPER, 16)
        yield (
            "credentials-csv",
            s,
            f"User name,Password,Access key ID,Secret access key\nbot,,{key_id},{s.value}",
            "credentials.csv",
        )
        s = fresh()
        yield "next-to-key-id", s, f"using {key_id} {s.value} for s3", "rank0.log"
    if kind == "password":
        # Kinds with one placement of their own.
        hex_id = draw(rng, HEX, 40)
        pem = _pem(rng, "PRIVATE KEY")
        gcp_id = Secret("gcp-private-key-id", hex_id, hex_id)
        yield "gcp-service-account", gcp_id, _gcp_json(hex_id, pem), "sa.json"
        gcp_key = Secret("private-key", pem, pem.splitlines()[2])
        yield "gcp-service-account", gcp_key, _gcp_json(draw(rng, HEX, 40), pem), "sa.json"
        pem = _pem(rng)
        after = Secret("private-key", pem, pem.splitlines()[3])
        yield (
            "pem-after-trigger-line",
            after,
            f"password reset requested, new key below\n{pem}",
            "rank0.log",
        )
        wandb = draw(rng, HEX, 40)
        yield (
            "wandb",
            Secret("wandb-key", wandb, wandb),
            f"wandb: Using API key {wandb} from the environment",
            "rank0.log",
        )


def _kubeconfig_exec(value: str) -> str:
    return (
        "apiVersion: v1\nkind: Config\nusers:\n- name: eks\n  user:\n    exec:\n"
        "      apiVersion: client.authentication.k8s.io/v1beta1\n      command: aws\n"
        "      args: [eks, get-token, --cluster-name, c]\n      env:\n"
        f"      - name: AWS_PROFILE\n        value: {value}\n"
    )


def _k8s_secret_yaml(value: str) -> str:
    return (
        f"apiVersion: v1\ndata:\n  config.json: {value}\n  settings: {value[::-1]}\n"
        "kind: Secret\nmetadata:\n  name: app-config\n  namespace: training\ntype: Opaque\n"
    )


def _k8s_secret_json(value: str) -> str:
    document = {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": "app-config"},
        "data": {"config.json": value},
    }
    return json.dumps(document, indent=2)


def _gcp_json(key_id: str, pem: str) -> str:
    document = {
        "type": "service_account",
        "project_id": "research",
        "private_key_id": key_id,
        "private_key": pem + "\n",
        "client_email": "trainer@research.iam.gserviceaccount.com",
    }
    return json.dumps(document, indent=2)


def cases(seed: int = 14) -> list[Case]:
    rng = random.Random(seed)
    found = []
    for kind in GENERATORS:
        for placement, secret, text, file_name in _placements(rng, kind):
            found.append(Case(secret.kind, placement, secret, text, file_name))
    return found


def pieces(secret: Secret) -> list[str]:
    """The WINDOW-character pieces of the secret's random part (its lines for a PEM key)."""
    part = secret.secret_part
    if secret.kind == "private-key":
        return [line for line in secret.value.splitlines()[1:-1]]
    if len(part) <= WINDOW:
        return [part]
    return [part[i : i + WINDOW] for i in range(0, len(part) - WINDOW + 1, 4)]


def leaks(secret: Secret, data: str) -> list[str]:
    return [piece for piece in pieces(secret) if piece in data]
