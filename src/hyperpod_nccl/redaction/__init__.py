"""Remove secrets from anything before it is written into a bundle or a report file.

Redaction is one-way: a secret becomes `[REDACTED:<kind>]` and nothing of it is kept, not
even a hash (a short password's hash can be brute-forced). What counts as a secret is in
`hyperpod_nccl.redaction.secret_rules`: AWS access key ids, secret keys and session tokens,
bearer tokens and JWTs, Hugging Face, W&B, GitHub, Slack and similar tokens, passwords in URLs
and `.netrc`, values of variables, keys and flags whose name says secret, PEM private keys and
kubeconfig credentials (including every value of an `exec` plugin's `env`).

Large text is not run through every rule: a keyword scan (Hyperscan when installed) finds the
few lines that hold a trigger word, and only those lines see the rules. Redaction leaves what
the log rules rely on (ranks, hosts, NCCL lines) alone, so a redacted bundle analyses to the
same findings.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from hyperpod_nccl.redaction import shapes
from hyperpod_nccl.redaction.keywords import KeywordFinder
from hyperpod_nccl.redaction.secret_rules import (
    PEM_BEGIN,
    PEM_END,
    RULES,
    TRIGGERS,
    WANDB_KEY,
    WANDB_LINE,
    WANDB_TRIGGER,
    SecretRule,
    is_secret_name,
)

__all__ = ["PLACEHOLDER", "Redactor", "is_secret_name", "redact_document"]

PLACEHOLDER = "[REDACTED:{kind}]"
# Values that say a secret is absent; support needs to see that, and they reveal nothing.
_EMPTY_VALUES = frozenset(
    {"", "(null)", "null", "none", "<none>", "<unset>", "n/a", '""', "''", "-"}
)
# Below this size every rule runs on the whole text; above it only on the lines a trigger
# word or a shape (shapes.py) points at.
SMALL_TEXT = 64 * 1024
# How much `chunks` holds back while waiting for the END line of a private key.
MAX_PENDING = 8 * 1024 * 1024
_DANGLING_NAME = re.compile(
    rb"[ \t]*-?[ \t]*\"?name\"?[ \t]*:[ \t]*[\"']?([A-Za-z_][A-Za-z0-9_.-]*)[\"']?[ \t]*,?[ \t]*$"
)
_BLOCK_SCALAR = (b"|", b">", b"|-", b">-", b"|+", b">+")
_KUBECONFIG = re.compile(r"(?m)^kind:[ \t]*Config[ \t]*$")
_finder: KeywordFinder | None = None
_RULES_BY_TRIGGER: dict[str, tuple[int, ...]] = {
    t: tuple(i for i, rule in enumerate(RULES) if t in rule.triggers) for t in TRIGGERS
}
_BLOCK_MARKERS = frozenset({"|", ">", "|-", ">-", "|+", ">+"})
_ALWAYS_RULES = frozenset(i for i, rule in enumerate(RULES) if rule.always is not None)
_ANY_TRIGGER = re.compile("|".join(re.escape(t) for t in sorted(TRIGGERS, key=len, reverse=True)))
# Lines whose indented block the rules must see whole: a YAML block scalar, a kubeconfig exec
# plugin (its env), a Kubernetes Secret's data.
_BLOCK_HEADS = (*_BLOCK_SCALAR, b"exec:", b"data:", b"stringData:")
_JSON_DATA = re.compile(rb'"(?:data|stringData)"[ \t]*:[ \t]*\{[^}]*$')
MAX_BLOCK_LINES = 10_000


def _keyword_finder() -> KeywordFinder:
    global _finder
    if _finder is None:
        _finder = KeywordFinder(TRIGGERS)
    return _finder


def _placeholder(kind: str) -> str:
    return PLACEHOLDER.format(kind=kind)


def _is_redacted_or_empty(value: str) -> bool:
    body = value.strip().strip("\"'")
    bare = value.strip().lower()
    return body.startswith("[REDACTED") or bare in _EMPTY_VALUES or bare in _BLOCK_MARKERS


@dataclass
class Redactor:
    """Finds and removes secrets; counts what it removed, by kind, for the manifest."""

    counts: Counter[str] = field(default_factory=Counter)

    # ------------------------------------------------------------------ text
    def text(self, text: str) -> str:
        """`text` with every secret replaced by `[REDACTED:<kind>]`."""
        if len(text) <= SMALL_TEXT:
            return self._all_rules(text)
        data = text.encode("utf-8", "surrogatepass")
        return self.binary(data).decode("utf-8", "surrogatepass")

    def binary(self, data: bytes) -> bytes:
        """Redact UTF-8 (or mostly UTF-8) bytes; bytes that are not UTF-8 pass unchanged."""
        pieces: list[bytes] = []
        last = 0
        # Lines with a trigger word, and lines holding a secret that has none (shapes).
        found = _keyword_finder().offsets(data) + shapes.offsets(data)
        for start, end in _regions(data, found):
            text = data[start:end].decode("utf-8", "surrogateescape")
            pieces += [data[last:start], self._all_rules(text).encode("utf-8", "surrogateescape")]
            last = end
        if not pieces:
            return data
        pieces.append(data[last:])
        return b"".join(pieces)

    def chunks(self, chunks: Iterable[bytes]) -> Iterator[bytes]:
        """Redact a stream of byte chunks, whatever their boundaries.

        Each chunk is redacted up to a point where nothing a rule reads across lines is cut:
        the rest (the last top-level line and the indented lines after it, a header line
        waiting for its value, an open private key) is carried into the next chunk, up to
        MAX_PENDING. A private key longer than that is dropped whole up to its END line.
        """
        pending = b""
        in_key = False
        for chunk in chunks:
            if in_key:
                end = PEM_END.search(chunk)
                if end is None:
                    continue
                chunk = chunk[end.end() :]
                in_key = False
            pending += chunk
            cut = _safe_cut(pending)
            if cut == 0:
                if len(pending) < MAX_PENDING:
                    continue
                if _open_key(pending):
                    in_key = True
                    yield self.binary(pending)
                    pending = b""
                    continue
                cut = _last_line_start(pending) or len(pending)
            yield self.binary(pending[:cut])
            pending = pending[cut:]
        if pending:
            yield self.binary(pending)

    # ------------------------------------------------------------------ structured
    def value(self, value: str, kind: str = "secret") -> str:
        """A whole value known to be secret (it sits under a secret-named key)."""
        if _is_redacted_or_empty(value):
            return value
        self.counts[kind] += 1
        return _placeholder(kind)

    def json(self, data: Any) -> Any:
        """Redact a decoded JSON or YAML document: strings by their text, values by their key."""
        return _redact_tree(self, data, exec_env=False)

    def argv(self, argv: Iterable[str]) -> list[str]:
        """A command line with the values of secret flags and any inline secrets removed."""
        out: list[str] = []
        hide_next = False
        for arg in argv:
            if hide_next:
                out.append(self.value(arg, "flag-secret"))
                hide_next = False
                continue
            flag, eq, rest = arg.partition("=")
            if arg.startswith("-") and is_secret_name(flag):
                if eq:
                    out.append(f"{flag}={self.value(rest, 'flag-secret')}")
                else:
                    out.append(arg)
                    hide_next = True
                continue
            out.append(self.text(arg))
        return out

    # ------------------------------------------------------------------ rules
    def _all_rules(self, text: str) -> str:
        """Every rule whose trigger is in `text`, and the rules that need no trigger whose
        check passes (on a small document read whole, and on the lines of a large one that
        the keyword scan and shapes found)."""
        if not text:
            return text
        lowered = text.lower()
        always = {i for i in _ALWAYS_RULES if RULES[i].always(text)}  # type: ignore[misc]
        if not always and not _ANY_TRIGGER.search(lowered):
            return text  # the common case, found in one scan
        present = [t for t in TRIGGERS if t in lowered]
        chosen = {i for t in present for i in _RULES_BY_TRIGGER.get(t, ())} | always
        if not chosen and WANDB_TRIGGER not in present:
            return text
        for index in sorted(chosen):
            rule = RULES[index]
            text = rule.regex.sub(lambda m, r=rule: self._replace(r, m), text)  # type: ignore[misc]
        if WANDB_TRIGGER in present:
            text = WANDB_LINE.sub(self._replace_wandb_line, text)
        return text

    def _replace(self, rule: SecretRule, match: re.Match[str]) -> str:
        text = match.group(0)
        start = match.start()
        if rule.edge and start > 0 and match.string[start - 1] in rule.edge:
            return text  # inside a longer word: not this kind of token
        if rule.group is None:
            if rule.accept is not None and not rule.accept(text):
                return text
            if rule.near and not _trigger_near(rule, match):
                return text
            self.counts[rule.kind] += 1
            return _placeholder(rule.kind)
        lo, hi = (i - start for i in match.span(rule.group))
        value = text[lo:hi]
        if rule.values is not None:
            # Every value inside the block (an exec env, a Secret's data), not the block.
            inner = rule.values.sub(lambda m: self._replace_value(rule, m), value)
            return text[:lo] + inner + text[hi:]
        if rule.named and not is_secret_name(match.group("name")):
            # Not secret by its name, but the value may still hold a secret by its shape.
            return text[:lo] + self._all_rules(value) + text[hi:]
        if _is_redacted_or_empty(value):
            return text
        self.counts[rule.kind] += 1
        # Keep the quotes, indentation and line end around the value, so YAML stays YAML.
        body = value.strip()
        head = value[: len(value) - len(value.lstrip())]
        tail = value[len(value.rstrip()) :]
        quote = body[0] if len(body) >= 2 and body[0] == body[-1] and body[0] in "\"'" else ""
        return text[:lo] + head + quote + _placeholder(rule.kind) + quote + tail + text[hi:]

    def _replace_value(self, rule: SecretRule, match: re.Match[str]) -> str:
        text = match.group(0)
        lo, hi = (i - match.start() for i in match.span("v"))
        value = text[lo:hi]
        if _is_redacted_or_empty(value) or (rule.accept is not None and not rule.accept(value)):
            return text
        self.counts[rule.kind] += 1
        body = value.strip()
        quote = body[0] if len(body) >= 2 and body[0] == body[-1] and body[0] in "\"'" else ""
        return text[:lo] + quote + _placeholder(rule.kind) + quote + text[hi:]

    def _replace_wandb_line(self, match: re.Match[str]) -> str:
        def hide(_key: re.Match[str]) -> str:
            self.counts["wandb-key"] += 1
            return _placeholder("wandb-key")

        return WANDB_KEY.sub(hide, match.group(0))


def _trigger_near(rule: SecretRule, match: re.Match[str]) -> bool:
    """Whether one of the rule's triggers is on the match's line or the line before."""
    source = match.string
    line_start = source.rfind("\n", 0, match.start())
    before = source.rfind("\n", 0, line_start) if line_start > 0 else -1
    end = source.find("\n", match.end())
    context = source[before + 1 : len(source) if end < 0 else end].lower()
    # An access key id already replaced by an earlier rule still counts as one.
    return "[redacted:aws-" in context or any(t in context for t in rule.triggers)


def _open_key(data: bytes, end: int | None = None) -> bool:
    """Whether data[:end] holds a private key's BEGIN line with no END line after it."""
    end = len(data) if end is None else end
    begin = data.rfind(b"-----BEGIN ", 0, end)
    return (
        begin >= 0
        and bool(PEM_BEGIN.match(data, begin, end))
        and not PEM_END.search(data, begin, end)
    )


def _dangling_name(line: bytes) -> bool:
    """Whether `line` is a `name: SECRET` line whose `value:` follows."""
    found = _DANGLING_NAME.match(line.rstrip(b"\n"))
    return bool(found and is_secret_name(found.group(1).decode("ascii")))


def _last_line_start(data: bytes, end: int | None = None) -> int:
    """The start of the last line of data[:end] (without copying it)."""
    end = len(data) if end is None else end
    return data.rfind(b"\n", 0, max(end - 1, 0)) + 1


_HEADERS = (b":", b"{", b"[", *_BLOCK_SCALAR)
_NETRC_HEAD = re.compile(rb"[ \t]*(?:machine[ \t]+\S+|default)[ \t]*$")
MAX_HEADER_STEPS = 8


def _needs_next(line: bytes) -> bool:
    """A line whose value is on the lines after it: `name:`, `key: |`, `"data": {`,
    `machine HOST` of a .netrc, a Kubernetes env entry's `- name: SECRET`."""
    bare = line.rstrip()
    return bare.endswith(_HEADERS) or bool(_NETRC_HEAD.match(bare)) or _dangling_name(bare)


def _safe_cut(data: bytes) -> int:
    """The latest offset up to which `data` can be redacted alone: the start of its last
    top-level line, moved back over indented lines (a YAML block, a traceback, a
    pretty-printed document), over header lines that wait for their values, and to the
    BEGIN line of a private key that is still open. 0: nothing can go yet."""
    cut = _last_line_start(data)
    floor = max(0, len(data) - MAX_PENDING // 2)
    while cut > floor and data[cut : cut + 1] in (b" ", b"\t", b"\n", b"\r"):
        cut = _last_line_start(data, cut)
    for _ in range(MAX_HEADER_STEPS):
        if cut == 0:
            break
        previous = _last_line_start(data, cut)
        if not _needs_next(data[previous:cut]):
            break
        cut = previous
    if cut and _open_key(data, cut):
        cut = data.rfind(b"\n", 0, data.rfind(b"-----BEGIN ", 0, cut)) + 1
    return cut


def _line_end(data: bytes, pos: int) -> int:
    end = data.find(b"\n", pos)
    return len(data) if end < 0 else end + 1


def _regions(data: bytes, offsets: list[int]) -> list[tuple[int, int]]:
    """Spans of whole lines that the rules must see: each trigger's line and the next (a
    `name:`/`value:` pair, a JSON value on the next line), an indented block under a block
    scalar, an exec plugin or a Secret's data, a JSON `"data": {...}` object, a private key
    up to its END line. Overlapping and touching spans are merged, and a span that starts
    inside another still extends it (a key whose BEGIN line follows a trigger line)."""
    regions: list[tuple[int, int]] = []
    for pos in sorted(offsets):
        start = data.rfind(b"\n", 0, pos) + 1
        end = _line_end(data, pos)
        line = data[start:end].rstrip()
        if data.startswith(b"-----", pos):
            close = PEM_END.search(data, pos)
            end = _line_end(data, close.end()) if close else len(data)
        elif line.endswith(_BLOCK_HEADS):
            end = _block_end(data, end, len(line) - len(line.lstrip()))
        elif _JSON_DATA.search(line):
            brace = data.find(b"}", end)
            end = _line_end(data, brace) if brace >= 0 else len(data)
        else:
            end = _line_end(data, end)
        if regions and start <= regions[-1][1]:
            regions[-1] = (regions[-1][0], max(end, regions[-1][1]))
        else:
            regions.append((start, end))
    return regions


def _block_end(data: bytes, end: int, indent: int) -> int:
    """Where the lines indented more than `indent` from `end` on stop."""
    for _ in range(MAX_BLOCK_LINES):
        if end >= len(data):
            break
        following = data[end : _line_end(data, end)]
        if following.strip() and len(following) - len(following.lstrip()) <= indent:
            break
        end += len(following)
    return end


def _redact_tree(redactor: Redactor, data: Any, *, exec_env: bool) -> Any:
    if isinstance(data, str):
        return redactor.text(data)
    if isinstance(data, list):
        return [_redact_tree(redactor, item, exec_env=exec_env) for item in data]
    if not isinstance(data, dict):
        return data
    env_name = data.get("name")
    secret_env = exec_env or (isinstance(env_name, str) and is_secret_name(env_name))
    k8s_secret = data.get("kind") == "Secret"
    out: dict[Any, Any] = {}
    for key, value in data.items():
        name = str(key)
        scalar = isinstance(value, (str, int, float)) and not isinstance(value, bool)
        if isinstance(key, str):
            key = redactor.text(key)  # a key can hold a secret too (a value used as a key)
        if name == "value" and scalar and secret_env:
            out[key] = redactor.value(str(value), "env-secret")
        elif scalar and is_secret_name(name):
            out[key] = redactor.value(str(value), "key-secret")
        elif k8s_secret and name in ("data", "stringData") and isinstance(value, dict):
            # A Kubernetes Secret: every value is secret, whatever its key's name.
            out[key] = {k: redactor.value(str(v), "k8s-secret") for k, v in value.items()}
        elif (
            isinstance(value, dict)
            and is_secret_name(name)
            and value
            and all(isinstance(v, list) for v in value.values())
        ):
            # Values of a secret-named variable used as keys ({"HF_TOKEN": {VALUE: [where]}},
            # the job environment table): the keys go, what they map to stays.
            merged: dict[str, Any] = {}
            for inner, sources in value.items():
                hidden = redactor.value(str(inner), "env-secret")
                if hidden in merged and isinstance(merged[hidden], list):
                    merged[hidden] = merged[hidden] + list(sources or [])
                else:
                    merged[hidden] = _redact_tree(redactor, sources, exec_env=False)
            out[key] = merged
        elif name == "exec" and isinstance(value, dict):
            # A kubeconfig exec plugin's env carries credentials whatever their names.
            out[key] = {
                k: _redact_tree(redactor, v, exec_env=(k == "env")) for k, v in value.items()
            }
        else:
            out[key] = _redact_tree(redactor, value, exec_env=exec_env)
    return out


def redact_document(redactor: Redactor, text: str) -> str:
    """Redact a whole small document. A kubeconfig is parsed so that its credentials go by
    structure (exec env values whatever their names); anything else goes by the text rules."""
    if _KUBECONFIG.search(text) and "users:" in text:
        import yaml  # here: most runs redact no kubeconfig, and the import costs start-up

        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError:
            data = None
        if isinstance(data, dict):
            return str(yaml.safe_dump(redactor.json(data), sort_keys=False))
    return redactor.text(text)
