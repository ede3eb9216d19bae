"""Load and validate the rule catalog (catalog.yaml): finding codes and log patterns as data."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from importlib import resources
from typing import Any

import yaml

from hyperpod_nccl.model import Priority, Status

ROLES = ("cause", "symptom", "context", "benign")
# Classifiers pick a code from a rule's captures; their names are part of the catalog schema.
CLASSIFIERS = ("xid", "cuda_error")
GUIDE = "debugging-guide.md"


class CatalogError(ValueError):
    """The catalog file is malformed; raised at load so a bad rule never ships silently."""


def reference_for(code: str) -> str:
    """The guide section every finding of `code` points at."""
    return f"{GUIDE}#{code.lower().replace('_', '-')}"


@dataclass(frozen=True)
class CodeInfo:
    code: str
    priority: Priority
    tier: int
    title: str
    explains: tuple[str, ...]

    @property
    def reference(self) -> str:
        return reference_for(self.code)


@dataclass(frozen=True)
class Rule:
    index: int
    id: str
    role: str
    pattern: str
    regex: re.Pattern[str]
    code: str | None
    classify: str | None
    codes: tuple[str, ...]
    emits: str | None
    explained_by: tuple[str, ...]
    exclusive: bool  # a context rule that owns its line: no finding rule counts on it
    status: Status
    source: str
    examples: tuple[str, ...]

    @property
    def makes_findings(self) -> bool:
        return self.role in ("cause", "symptom")

    def possible_codes(self) -> tuple[str, ...]:
        return self.codes if self.classify else ((self.code,) if self.code else ())


@dataclass(frozen=True)
class Catalog:
    codes: dict[str, CodeInfo]
    rules: tuple[Rule, ...]

    def rule(self, rule_id: str) -> Rule:
        for rule in self.rules:
            if rule.id == rule_id:
                return rule
        raise KeyError(rule_id)


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise CatalogError(message)


def _parse_code(code: str, raw: dict[str, Any]) -> CodeInfo:
    _require(re.fullmatch(r"[A-Z][A-Z0-9_]+", code) is not None, f"bad code name {code!r}")
    for key in ("priority", "tier", "title"):
        _require(key in raw, f"code {code}: missing {key}")
    return CodeInfo(
        code=code,
        priority=Priority(raw["priority"]),
        tier=int(raw["tier"]),
        title=str(raw["title"]),
        explains=tuple(raw.get("explains") or ()),
    )


def _parse_rule(index: int, raw: dict[str, Any], codes: dict[str, CodeInfo]) -> Rule:
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
        regex = re.compile(pattern)
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
        regex=regex,
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


def _check_explains(codes: dict[str, CodeInfo]) -> None:
    for info in codes.values():
        for target in info.explains:
            _require(target in codes, f"code {info.code}: explains unknown code {target}")
            _require(
                codes[target].tier > info.tier,
                f"code {info.code} (tier {info.tier}) cannot explain {target} "
                f"(tier {codes[target].tier}): explanations must point to a larger tier",
            )


def parse_catalog(text: str) -> Catalog:
    # libyaml's loader when present: the catalog loads on every run.
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    data = yaml.load(text, Loader=loader)
    _require(isinstance(data, dict), "catalog must be a mapping with codes and rules")
    codes = {name: _parse_code(name, raw) for name, raw in (data.get("codes") or {}).items()}
    _check_explains(codes)
    rules = tuple(_parse_rule(i, raw, codes) for i, raw in enumerate(data.get("rules") or ()))
    ids = [r.id for r in rules]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    _require(not duplicates, f"duplicate rule ids: {duplicates}")
    return Catalog(codes=codes, rules=rules)


@functools.lru_cache(maxsize=1)
def load_catalog() -> Catalog:
    text = resources.files("hyperpod_nccl.rules").joinpath("catalog.yaml").read_text("utf-8")
    return parse_catalog(text)
