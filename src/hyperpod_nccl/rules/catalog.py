"""Load and validate the rule catalog (catalog.yaml): log patterns as data. The codes they
report, with priorities, tiers and what explains what, come from the code registry
(hyperpod_nccl.codes); the catalog only names them."""

from __future__ import annotations

import functools
import hashlib
import re
import sys
from dataclasses import dataclass
from importlib import resources
from typing import Any

from hyperpod_nccl.codes import CodeInfo, CodeRegistry, load_registry
from hyperpod_nccl.diskcache import cache_file, load_yaml, store
from hyperpod_nccl.model import Status
from hyperpod_nccl.rules.classifiers import CLASSIFIERS as CLASSIFIER_FUNCTIONS

ROLES = ("cause", "symptom", "context", "benign")
# Classifiers pick a code from a rule's captures; their names are part of the catalog schema,
# and the table of the functions is the one list of them.
CLASSIFIERS = tuple(CLASSIFIER_FUNCTIONS)
GUIDE = "debugging-guide.md"


class CatalogError(ValueError):
    """The catalog file is malformed; raised at load so a bad rule never ships silently."""


@dataclass(frozen=True)
class Rule:
    index: int
    id: str
    role: str
    pattern: str
    code: str | None
    classify: str | None
    codes: tuple[str, ...]
    emits: str | None
    explained_by: tuple[str, ...]
    exclusive: bool  # a context rule that owns its line: no finding rule counts on it
    status: Status
    source: str
    examples: tuple[str, ...]

    @functools.cached_property
    def regex(self) -> re.Pattern[str]:
        """Compiled on first use: a scan confirms lines with a handful of the rules, and
        compiling all of them would cost a run more than scanning 100 MB with Hyperscan."""
        return re.compile(self.pattern)

    @property
    def makes_findings(self) -> bool:
        return self.role in ("cause", "symptom")

    def possible_codes(self) -> tuple[str, ...]:
        return self.codes if self.classify else ((self.code,) if self.code else ())


@dataclass(frozen=True)
class Catalog:
    codes: dict[str, CodeInfo]  # the registry's log codes (area: logs)
    rules: tuple[Rule, ...]
    registry: CodeRegistry

    def rule(self, rule_id: str) -> Rule:
        for rule in self.rules:
            if rule.id == rule_id:
                return rule
        raise KeyError(rule_id)


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise CatalogError(message)


def _parse_rule(index: int, raw: dict[str, Any], codes: CodeRegistry, compile_check: bool) -> Rule:
    rule_id = str(raw.get("id", ""))
    _require(
        re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*", rule_id) is not None, f"bad rule id {rule_id!r}"
    )
    role = raw.get("role")
    _require(role in ROLES, f"rule {rule_id}: role must be one of {ROLES}")
    pattern = raw.get("pattern")
    _require(isinstance(pattern, str) and pattern != "", f"rule {rule_id}: missing pattern")
    assert isinstance(pattern, str)
    # \s also matches newlines in the multi-pattern engine, which would let a match span lines.
    _require("\\s" not in pattern, f"rule {rule_id}: use [ \\t] instead of \\s")
    try:
        if compile_check:
            re.compile(pattern)
    except re.error as exc:
        raise CatalogError(f"rule {rule_id}: pattern does not compile: {exc}") from exc
    code = raw.get("code")
    classify = raw.get("classify")
    rule_codes = tuple(raw.get("codes") or ())
    if role in ("cause", "symptom"):
        _require((code is None) != (classify is None), f"rule {rule_id}: needs code or classify")
        if classify is not None:
            _require(classify in CLASSIFIERS, f"rule {rule_id}: unknown classifier {classify}")
            _require(bool(rule_codes), f"rule {rule_id}: classify needs the codes it can return")
        for c in (code,) if code else rule_codes:
            _require(c in codes, f"rule {rule_id}: unknown code {c}")
    emits = raw.get("emits")
    _require(role != "context" or bool(emits), f"rule {rule_id}: context rules need emits")
    _require(
        not raw.get("exclusive") or role == "context",
        f"rule {rule_id}: only context rules can be exclusive",
    )
    explained_by = tuple(raw.get("explained_by") or ())
    for c in explained_by:
        _require(c in codes, f"rule {rule_id}: explained_by names unknown code {c}")
    examples = tuple(str(e) for e in raw.get("examples") or ())
    _require(bool(examples), f"rule {rule_id}: needs at least one real example line")
    return Rule(
        index=index,
        id=rule_id,
        role=str(role),
        pattern=pattern,
        code=code,
        classify=classify,
        codes=rule_codes,
        emits=emits,
        explained_by=explained_by,
        exclusive=bool(raw.get("exclusive", False)),
        status=Status(raw.get("status", "FAIL")),
        source=str(raw.get("source", "")),
        examples=examples,
    )


def parse_catalog(
    text: str,
    registry: CodeRegistry | None = None,
    compile_check: bool = True,
    cached: bool = False,
) -> Catalog:
    """`compile_check=False` skips compiling every pattern, for a text known to pass it;
    `cached` takes the parsed YAML from the user cache when there (diskcache.load_yaml)."""
    data = load_yaml(text, cached)
    _require(isinstance(data, dict), "catalog must be a mapping with rules")
    _require("codes" not in data, "codes live in the code registry (codes/codes.yaml)")
    codes = registry or load_registry()
    rules = tuple(
        _parse_rule(i, raw, codes, compile_check) for i, raw in enumerate(data.get("rules") or ())
    )
    ids = [r.id for r in rules]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    _require(not duplicates, f"duplicate rule ids: {duplicates}")
    return Catalog(codes=codes.of_area("logs"), rules=rules, registry=codes)


@functools.lru_cache(maxsize=1)
def load_catalog() -> Catalog:
    text = resources.files("hyperpod_nccl.rules").joinpath("catalog.yaml").read_text("utf-8")
    # Every pattern is compiled once per catalog text and Python version (whose `re` has the
    # last word on syntax); a stamp in the user's cache says this text passed, so later runs
    # compile only the rules they use (Rule.regex).
    digest = hashlib.sha256(f"{sys.version}\0{text}".encode()).hexdigest()[:32]
    stamp = cache_file(f"catalog-{digest}.checked")
    checked = stamp.is_file()
    catalog = parse_catalog(text, compile_check=not checked, cached=True)
    if not checked:
        store(stamp, b"")
    return catalog
