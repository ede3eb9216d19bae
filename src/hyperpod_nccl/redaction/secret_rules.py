"""What counts as a secret: rules by shape (a token's documented prefix) and by name (a
variable, key or flag whose name says it holds a secret).

Each rule names its *triggers*: lower-case words, one of which (in any case) must occur in
the text for the rule to match. Redaction uses them twice: to find the few lines worth a
closer look in a large log, and to skip rules that cannot match a line. A test checks every
rule's examples against its triggers.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass

# Name parts that say a value is secret, and trailing parts that say it only *names* a secret
# (a Secret's name, a key reference, a token file path), which support needs to see.
_SECRET_SUBSTRINGS = ("PASSWORD", "PASSWD", "SECRET", "CREDENTIAL", "PRIVATEKEY")
_SECRET_PARTS = frozenset(
    {"TOKEN", "KEY", "AUTHORIZATION", "APIKEY", "SIG", "SIGNATURE", "COOKIE", "PASSPHRASE"}
)
_SECRET_SUFFIXES = ("TOKEN", "APIKEY", "ACCESSKEY", "SECRETKEY")
# Too common as a first word (`pass_rate`, `AuthInfo`) to count anywhere but last (`DB_PASS`).
_SECRET_LAST_PARTS = frozenset({"PASS", "AUTH"})
_NAMING_PARTS = frozenset(
    {"NAME", "NAMES", "REF", "FILE", "PATH", "DIR", "ID", "TYPE", "TYPES", "TTL", "EXPIRATION",
     "EXPIRY", "URL", "ENDPOINT", "LENGTH", "SIZE", "COUNT", "PARALLELISM", "SECONDS"}
)  # fmt: skip
# Names that hold a secret although their last part would say they only name one.
_ALWAYS_SECRET = frozenset({"PRIVATEKEYID"})
_CAMEL = re.compile(r"([a-z0-9])([A-Z])")

# Words one of which every secret-looking name contains (see is_secret_name).
SECRET_NAME_WORDS = ("pass", "secret", "token", "credential", "key", "auth", "sig", "cookie")


@functools.lru_cache(maxsize=8192)  # reports and documents repeat the same keys many times
def is_secret_name(name: str) -> bool:
    """Whether a variable, key or flag named `name` holds a secret.

    HF_TOKEN, WANDB_API_KEY, db.password, --hf-token, SecretAccessKey: yes.
    NCCL_IB_PKEY, TOKENIZERS_PARALLELISM, secretKeyRef, AWS_WEB_IDENTITY_TOKEN_FILE, key: no.
    """
    spaced = _CAMEL.sub(r"\1_\2", name.strip("-\"' ")).upper()
    parts = [p for p in re.split(r"[^A-Z0-9]+", spaced) if p]
    if "".join(parts) in _ALWAYS_SECRET:
        return True  # GCP's private_key_id
    if not parts or parts == ["KEY"] or parts[-1] in _NAMING_PARTS:
        # A bare `key` is a Kubernetes taint, label or toleration key, not a credential.
        return False
    joined = "".join(parts)
    if any(word in joined for word in _SECRET_SUBSTRINGS) or parts[-1] in _SECRET_LAST_PARTS:
        return True
    return any(p in _SECRET_PARTS or p.endswith(_SECRET_SUFFIXES) for p in parts)


@dataclass(frozen=True)
class SecretRule:
    kind: str
    regex: re.Pattern[str]
    triggers: tuple[str, ...]
    # Replace only this group (the password of a URL, the value after a name); else the match.
    group: str | None = None
    # Redact only when the `name` group passes is_secret_name.
    named: bool = False
    # Characters that must not stand right before the match. Checked in code rather than by
    # a look-behind so that the regex starts with a literal, which `re` searches for quickly.
    edge: frozenset[str] = frozenset()
    # Run on a small document even without a trigger word (a .pgpass file has none) when this
    # cheap check on the document passes.
    always: Callable[[str], bool] | None = None
    # Replace every match of this regex inside the `group` (values in a block), not the group.
    values: re.Pattern[str] | None = None
    # A check the whole match must pass (a bare secret key must look like one).
    accept: Callable[[str], bool] | None = None
    # The trigger stands near the match (its line or the line before), not inside it.
    near: bool = False


def _rule(
    kind: str,
    pattern: str,
    triggers: tuple[str, ...],
    *,
    group: str | None = None,
    named: bool = False,
    edge: str = "",
    always: Callable[[str], bool] | None = None,
    values: str | None = None,
    accept: Callable[[str], bool] | None = None,
    near: bool = False,
) -> SecretRule:
    return SecretRule(
        kind,
        re.compile(pattern),
        triggers,
        group,
        named,
        frozenset(edge),
        always,
        re.compile(values) if values else None,
        accept,
        near,
    )


def _looks_like_aws_secret(token: str) -> bool:
    """40 base64 characters with upper and lower case and digits, not a hex hash."""
    return (
        any(c.isupper() for c in token)
        and any(c.islower() for c in token)
        and any(c.isdigit() for c in token)
        and not all(c in "0123456789abcdefABCDEF" for c in token)
    )


# A bare AWS secret access key, with nothing beside it that says what it is. AWS draws the
# key's 40 characters at random from the base64 alphabet [A-Za-z0-9/+]: such a string almost
# always has upper case, lower case and a digit (no digit: 1 key in 900), is not hex (a git
# SHA-1, sha1sum's output) and changes class (upper, lower, digit) between about 23 of its
# neighbouring letters and digits (`/` and `+` left out: paths are full of `/`). Fewer than
# MIN_CLASS_CHANGES in 1 random key in 2,600, while words, camelCase names and paths change
# only where a word starts (a 40-character path or URL path in the fixtures: 6 to 9). In all
# about 1 key in 650 is missed. It stands alone: nothing of that alphabet either side, no `=`
# after it (base64 of another length, a longer token), and no `.` before it (a URL's path
# after its domain, a dotted name).
BARE_AWS_SECRET = r"(?<![A-Za-z0-9/+.])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])"
MIN_CLASS_CHANGES = 13
_BARE_AWS_SECRET = re.compile(BARE_AWS_SECRET)


def _char_class(c: str) -> int:
    return 0 if c.isupper() else 1 if c.islower() else 2


# A stack frame's 'symbol+0xoffset' (a kernel or native trace): a name and a hex offset, which
# a random key matches with a chance of about 1 in 7,000 (a '+0x' and hex to its end).
_SYMBOL_OFFSET = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\+0x[0-9a-fA-F]+")


def _random_aws_secret(token: str) -> bool:
    """A bare 40-character token that reads as AWS's random key, not as words, a digest or a
    stack frame's symbol and offset."""
    if not _looks_like_aws_secret(token) or _SYMBOL_OFFSET.fullmatch(token):
        return False
    classes = [_char_class(c) for c in token if c.isalnum()]
    return sum(a != b for a, b in itertools.pairwise(classes)) >= MIN_CLASS_CHANGES


def has_bare_aws_secret(text: str) -> bool:
    """Whether `text` may hold a bare AWS secret key (the cheap check before the rule)."""
    return len(text) >= 40 and any(
        _random_aws_secret(m.group(0)) for m in _BARE_AWS_SECRET.finditer(text)
    )


def _base64_value(token: str) -> bool:
    """A Kubernetes Secret's data value: base64, in whole quads, 8 characters or more."""
    body = token.strip("\"' ")
    return len(body) >= 8 and len(body) % 4 == 0 and bool(_B64_VALUE.fullmatch(body))


_B64_VALUE = re.compile(r"[A-Za-z0-9+/]+={0,2}")
PGPASS_LINE = (
    r"(?m)^(?![0-9]+:|libfabric:|[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4})+$)"
    r"[A-Za-z0-9_.*\[\]-]+:(?:[0-9]{1,5}|\*):[^\s:,]+:[^\s:,]+:(?P<v>\S+)$"
)


_ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
_WORD = _ALNUM + "_"
_TOKEN = _WORD + "-"
_NAME_CHARS = r"[A-Za-z0-9_.-]"
_SECRET_WORD = r"(?i:pass|secret|token|credential|key|auth|sig|cookie)"
_NAME = rf"(?<![A-Za-z0-9_.-])(?P<name>{_NAME_CHARS}*?{_SECRET_WORD}{_NAME_CHARS}*)"
_QUOTED = r"\"(?:[^\"\\\n]|\\.)*\"|'[^'\n]*'"
_AWS_ID_PREFIXES = (
    "AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AIPA", "AKPA", "ANPA", "ANVA", "APKA",
    "AROA", "ASCA",
)  # fmt: skip
# STS session tokens are base64 of a fixed header, so their first characters are fixed.
_SESSION_PREFIXES = ("IQoJb3JpZ2luX2Vj", "FwoGZXIvYXdz", "FQoGZXIvYXdz")
_PEM = r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
_PEM_END = r"-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
_NAMED = SECRET_NAME_WORDS

# Applied in this order; a value already `[REDACTED:...]` is left alone by later rules, so
# whole-token shapes come first and name-based rules (which redact the rest) last.
RULES: tuple[SecretRule, ...] = (
    _rule("private-key", rf"{_PEM}(?s:.*?)(?:{_PEM_END}|\Z)", ("-----begin",)),
    # base64 of "-----BEGIN": kubeconfig client-key-data and Secrets hold PEM this way.
    _rule("private-key", r"LS0tLS1CRUdJTi[A-Za-z0-9+/=]{16,}", ("ls0tls1crudjti",)),
    _rule(
        "aws-access-key-id",
        rf"(?:{'|'.join(_AWS_ID_PREFIXES)})[A-Z0-9]{{16}}(?![A-Z0-9])",
        tuple(p.lower() for p in _AWS_ID_PREFIXES),
        edge=_ALNUM,
    ),
    _rule(
        "aws-session-token",
        rf"(?:{'|'.join(_SESSION_PREFIXES)})[A-Za-z0-9/+=]{{16,}}",
        tuple(p.lower() for p in _SESSION_PREFIXES),
    ),
    _rule("eks-token", r"k8s-aws-v1\.[A-Za-z0-9_-]{20,}", ("k8s-aws-v1.",)),
    _rule(
        "jwt", r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*", ("eyj",), edge=_ALNUM
    ),
    _rule("hf-token", r"(?:hf_|api_org_)[A-Za-z0-9]{30,}", ("hf_", "api_org_"), edge=_ALNUM),
    _rule(
        "github-token",
        r"(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_\w{40,})",
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
        edge=_ALNUM,
    ),
    _rule("gitlab-token", r"glpat-[A-Za-z0-9_-]{20,}", ("glpat-",), edge=_ALNUM),
    _rule("slack-token", r"xox[abposre]-[A-Za-z0-9-]{10,}", ("xox",), edge=_ALNUM),
    _rule("slack-webhook", r"hooks\.slack\.com/services/[A-Za-z0-9/_-]+", ("hooks.slack.com",)),
    _rule("api-token", r"sk-(?:proj-|ant-[a-z0-9]+-)?[A-Za-z0-9_-]{20,}", ("sk-",), edge=_ALNUM),
    _rule("api-token", r"npm_[A-Za-z0-9]{36}", ("npm_",), edge=_ALNUM),
    _rule("api-token", r"pypi-AgE[A-Za-z0-9_-]{50,}", ("pypi-",), edge=_ALNUM),
    _rule("api-token", r"nvapi-[A-Za-z0-9_-]{40,}", ("nvapi-",), edge=_ALNUM),
    _rule("api-token", r"dckr_pat_[A-Za-z0-9_-]{20,}", ("dckr_pat_",), edge=_ALNUM),
    _rule("api-token", r"AIza[0-9A-Za-z_-]{35}", ("aiza",), edge=_ALNUM),
    _rule("api-token", r"[sr]k_live_[A-Za-z0-9]{20,}", ("k_live_",), edge=_ALNUM),
    _rule(
        "databricks-token", r"dapi[0-9a-f]{32}(?:-[0-9]+)?(?![A-Za-z0-9])", ("dapi",), edge=_ALNUM
    ),
    _rule("sendgrid-key", r"SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}", ("sg.",), edge=_ALNUM),
    # Azure AD client secrets: 3 characters, a digit, `Q~`, then 31 to 34 more.
    _rule(
        "azure-client-secret",
        r"[A-Za-z0-9_~.-]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])",
        ("q~",),
        edge=_ALNUM + "~.-",
    ),
    # A bare AWS secret key: only where an access key id or the key's own name is near (a
    # credentials CSV, `AKIA... SECRET`); anywhere else 40 base64 characters are too common.
    _rule(
        "aws-secret-access-key",
        r"(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])",
        ("akia", "asia", "secret access key", "secretaccesskey", "aws_secret"),
        accept=_looks_like_aws_secret,
        near=True,
    ),
    # A bare AWS secret key anywhere (see BARE_AWS_SECRET): no trigger word; found by its
    # shape, in a large log by redaction.shapes.
    _rule(
        "aws-secret-access-key",
        BARE_AWS_SECRET,
        (),
        accept=_random_aws_secret,
        always=has_bare_aws_secret,
    ),
    _rule(
        "bearer-token",
        r"(?i:bearer)[ \t]+(?P<v>[A-Za-z0-9._~+/-]{8,}=*)",
        ("bearer",),
        group="v",
        edge=_ALNUM,
    ),
    _rule(
        "basic-auth",
        r"(?i:authorization:[ \t]*basic)[ \t]+(?P<v>[A-Za-z0-9+/]{4,}=*)",
        ("authorization",),
        group="v",
    ),
    _rule("url-password", r"://[^\s:/@\"'<>]*:(?P<v>[^\s/@\"'<>]+)@", ("://",), group="v"),
    _rule(
        "netrc-password",
        r"(?i:machine)[ \t]+\S+(?:[ \t]+(?i:login)[ \t]+\S+)?[ \t]+(?i:password)[ \t]+(?P<v>\S+)",
        ("machine",),
        group="v",
        edge=_ALNUM,
    ),
    # A .netrc entry over several lines: `machine HOST`, `login USER`, `password SECRET`.
    _rule(
        "netrc-password",
        r"(?im)^[ \t]*(?:machine[ \t]+\S+|default)[ \t]*\n(?:[ \t]*(?:login|account)[ \t]+\S+[ \t]*\n)*"
        r"[ \t]*password[ \t]+(?P<v>\S+)",
        ("machine", "default\n"),
        group="v",
    ),
    # A .pgpass line: host:port:database:user:password (no trigger word: every small file,
    # and in a large log every line redaction.shapes finds). A line of its own with no space
    # in it, so never NCCL's `host:pid:tid [dev] ...`; not a numbered host (a timestamp such
    # as 2024:05:01:12:00), libfabric's `libfabric:pid:prov:subsys:func():line<level>`, nor
    # only hex groups (a MAC or IPv6 address); its host a host name, an address or `*` and
    # no `,` in its database or user (Slurm's `Gres=gpu:1080:7,gpu:block:1`).
    _rule(
        "pgpass-password",
        PGPASS_LINE,
        (":5432:", ":6432:", ":5433:", ":*:", "pgpass"),
        group="v",
        always=lambda text: text.count(":") >= 4,
    ),
    # `sshpass -p SECRET`, `mysql ... -pSECRET`, `redis-cli -a SECRET`: short flags that take
    # a password, for the programs known to take it so.
    _rule(
        "flag-secret",
        r"(?:sshpass|mysql[a-z]*|mariadb[a-z-]*|redis-cli)\b[^\n]*?(?<![\w-])-[pa][ \t]*(?P<v>[^\s-]\S*)",
        ("sshpass", "mysql", "mariadb", "redis-cli"),
        group="v",
        edge=_TOKEN,
    ),
    # `aws configure set aws_secret_access_key SECRET` (the name, a space, the value).
    _rule(
        "env-secret",
        r"configure[ \t]+set[ \t]+(?:--profile[ \t]+\S+[ \t]+)?(?P<name>[A-Za-z0-9_.-]+)[ \t]+(?P<v>\S+)",
        ("configure",),
        group="v",
        named=True,
    ),
    # NCCL's `NAME set by environment to VALUE.` and aws-ofi-nccl's `Setting NAME to VALUE`.
    _rule(
        "env-secret",
        rf"{_NAME} set by environment to (?P<v>\S+?)\.?(?=\s|$)",
        _NAMED,
        group="v",
        named=True,
    ),
    _rule(
        "env-secret",
        rf"Setting {_NAME} (?:environment variable )?to (?P<v>\S+)",
        _NAMED,
        group="v",
        named=True,
    ),
    # A kubeconfig exec plugin's env (inside a larger log): every value, whatever its name.
    _rule(
        "env-secret",
        r"(?m)^(?P<ind>[ \t]*)exec:[ \t]*\n(?P<v>(?:(?P=ind)[ \t]+[^\n]*(?:\n|\Z))+)",
        ("exec:",),
        group="v",
        values=r"(?m)(?<=value:)[ \t]*(?P<v>\S[^\n]*)",
    ),
    # A Kubernetes Secret's data (inside a larger log): every base64 value under `data:`,
    # whatever its key's name; a ConfigMap's plain values are not base64 and stay.
    _rule(
        "k8s-secret",
        r"(?m)^(?P<ind>[ \t]*)(?:data|stringData):[ \t]*\n(?P<v>(?:(?P=ind)[ \t]+[^\n]*(?:\n|\Z))+)",
        (
            "data:\n",
            "data:\r\n",
        ),  # the block's header ends its line (`data: 0.01` in progress lines does not)
        group="v",
        values=r"(?m)^[ \t]+[^\s:]+:[ \t]+(?P<v>\S+)[ \t]*$",
        accept=_base64_value,
    ),
    _rule(
        "k8s-secret",
        r'"(?:data|stringData)"[ \t]*:[ \t]*\{(?P<v>[^{}]*)\}',
        ('"data"', '"stringdata"'),
        group="v",
        values=r'"[^"\n]+"[ \t]*:[ \t]*(?P<v>"[A-Za-z0-9+/]+={0,2}")',
    ),
    # `--hf-token X`, `--password=X`: the value of a flag whose name says secret.
    _rule(
        "flag-secret",
        rf"(?P<name>--?[A-Za-z0-9-]*{_SECRET_WORD}[A-Za-z0-9-]*)(?:=|[ \t]+)(?P<v>[^\s-]\S*)",
        _NAMED,
        group="v",
        named=True,
        edge=_TOKEN,
    ),
    # A YAML block scalar under a secret key (`tls.key: |`): every more-indented line after it.
    _rule(
        "env-secret",
        rf"(?m)^(?P<ind>[ \t]*){_NAME}[ \t]*:[ \t]*[|>][-+]?[ \t]*\n"
        r"(?P<v>(?:(?P=ind)[ \t]+[^\n]*(?:\n|\Z))+)",
        _NAMED,
        group="v",
        named=True,
    ),
    # `NAME=value` / `NAME: value` starting a line (env dumps, YAML, INI, kubectl describe):
    # the value runs to the end of the line.
    _rule(
        "env-secret",
        rf"(?m)^[ \t]*(?:export[ \t]+|-[ \t]+)?{_NAME}[ \t]*[:=][ \t]*(?P<v>\S(?:[^\n]*\S)?)",
        _NAMED,
        group="v",
        named=True,
    ),
    # `"name": "value"`, `name='value'`, `NAME=value` inside a line.
    _rule(
        "env-secret",
        rf"{_NAME}[\"']?[ \t]*[:=][ \t]*(?P<v>{_QUOTED}|[^\s\"',;&{{}}\[\]]+)",
        _NAMED,
        group="v",
        named=True,
    ),
    # Pretty-printed JSON with the value on the next line: `"SecretAccessKey":\n  "..."`.
    _rule(
        "env-secret",
        rf"{_NAME}[\"']?[ \t]*:[ \t]*\n[ \t]*(?P<v>{_QUOTED}|[^\s\"',;{{}}\[\]]+)",
        _NAMED,
        group="v",
        named=True,
    ),
    # A Kubernetes env entry over two lines: `- name: HF_TOKEN` then `  value: ...`.
    _rule(
        "env-secret",
        r"(?m)^[ \t]*-?[ \t]*\"?name\"?[ \t]*:[ \t]*[\"']?(?P<name>[A-Za-z_][A-Za-z0-9_.-]*)"
        r"[\"']?[ \t]*,?[ \t]*\n[ \t]*\"?value\"?[ \t]*:[ \t]*(?P<v>[^\n]*[^\s,])",
        _NAMED,
        group="v",
        named=True,
    ),
)

# W&B keys are 40+ hex characters (`local-` prefixed on a private server); only on a line
# that mentions W&B is such a word a key rather than, say, a commit hash.
WANDB_LINE = re.compile(r"(?im)^.*wandb.*$")
WANDB_KEY = re.compile(r"(?<![A-Za-z0-9])(?:[a-z]+-)?[0-9a-f]{40,}(?![A-Za-z0-9])")
WANDB_TRIGGER = "wandb"

PEM_BEGIN = re.compile(_PEM.encode())
PEM_END = re.compile(_PEM_END.encode())

TRIGGERS: tuple[str, ...] = tuple(
    sorted({t for rule in RULES for t in rule.triggers} | {WANDB_TRIGGER})
)
