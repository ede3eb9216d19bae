"""The one registry of finding codes (codes.yaml): priority, tier, title, what each code
explains, whether it can be a root cause, and its guide section. Validated at load, so a
dangling edge, a cycle or a missing field never ships.

This package depends on nothing but the findings model, so every layer can read it.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any

from hyperpod_nccl.diskcache import load_yaml
from hyperpod_nccl.model import Priority

AREAS = (
    "logs",
    "cluster",
    "network",
    "kubernetes",
    "pods",
    "env",
    "versions",
    "slurm",
    "node",
    "perf",
    "analysis",
    "diff",
)
_KEYS = {
    "area",
    "priority",
    "tier",
    "title",
    "explains",
    "root_cause",
    "root_when_warning",
    "fallback",
    "reference",
    "commands",
    "ends_ranks",
}
_COMMAND_KEYS = {
    "purpose",
    "run",
    "where",
    "needs",
    "preconditions",
    "changes_state",
    "blast_radius",
    "when",
}
# Where a command runs (see suggest.place) and what its template may name (suggest.build).
WHERE = ("here", "node", "container", "slurm")
NEEDS = ("", "pods", "nodes", "hosts")
FIELDS = ("pid", "peer", "port", "pods", "nodes", "hostlist", "instances", "logfile")
# A field is a bare lower-case word in braces; JMESPath's `{key:expr}` braces are left alone.
FIELD = re.compile(r"\{([a-z]+)\}")


class CodeRegistryError(ValueError):
    """codes.yaml is malformed; raised at load so a bad entry never ships silently."""


@dataclass(frozen=True)
class CommandTemplate:
    """A command every finding of a code can carry: a read-only one that confirms it, or a
    fix, declared as changing state with what it affects."""

    purpose: str
    run: str  # bash, with {field}s from FIELDS and <placeholder>s for values a run may learn
    where: str  # one of WHERE
    needs: str = ""  # skip the command when the finding names no pods / nodes / hosts
    preconditions: str = ""
    changes_state: bool = False
    blast_radius: str = ""
    when: str = ""  # "hanging": of use only while the ranks still run (a stack dump)


@dataclass(frozen=True)
class CodeInfo:
    code: str
    area: str
    priority: Priority
    tier: int
    title: str
    explains: tuple[str, ...]
    can_be_root: bool
    root_when_warning: bool
    fallback: bool  # a catch-all: the root cause only when no other code is a candidate
    reference: str | None
    commands: tuple[CommandTemplate, ...] = ()
    ends_ranks: bool = False  # a finding of it shows processes of the job have ended


@dataclass(frozen=True)
class CodeRegistry:
    codes: Mapping[str, CodeInfo]

    def __contains__(self, code: object) -> bool:
        return code in self.codes

    def __getitem__(self, code: str) -> CodeInfo:
        return self.codes[code]

    def get(self, code: str) -> CodeInfo | None:
        return self.codes.get(code)

    def tier(self, code: str) -> int:
        info = self.codes.get(code)
        return info.tier if info else max((i.tier for i in self.codes.values()), default=0) + 1

    def of_area(self, *areas: str) -> dict[str, CodeInfo]:
        return {c: i for c, i in self.codes.items() if i.area in areas}


def _fail(message: str) -> None:
    raise CodeRegistryError(message)


def _parse(code: str, raw: Any) -> CodeInfo:
    if not re.fullmatch(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*", code):
        _fail(f"bad code name {code!r}")
    if not isinstance(raw, dict):
        _fail(f"code {code}: entry must be a mapping")
    unknown = set(raw) - _KEYS
    if unknown:
        _fail(f"code {code}: unknown keys {sorted(unknown)}")
    for key in ("area", "priority", "tier", "title"):
        if key not in raw:
            _fail(f"code {code}: missing {key}")
    if raw["area"] not in AREAS:
        _fail(f"code {code}: area must be one of {AREAS}")
    reference = raw.get("reference")
    if reference is not None and not re.fullmatch(r"[a-z-]+\.md#[a-z0-9-]+", str(reference)):
        _fail(f"code {code}: reference must be file.md#anchor")
    try:
        priority = Priority(raw["priority"])
    except ValueError:
        _fail(f"code {code}: priority must be P0, P1 or P2")
        raise
    return CodeInfo(
        code=code,
        area=str(raw["area"]),
        priority=priority,
        tier=int(raw["tier"]),
        title=str(raw["title"]),
        explains=tuple(raw.get("explains") or ()),
        can_be_root=bool(raw.get("root_cause", True)),
        root_when_warning=bool(raw.get("root_when_warning", False)),
        fallback=bool(raw.get("fallback", False)),
        reference=str(reference) if reference is not None else None,
        commands=tuple(_command(code, c) for c in raw.get("commands") or ()),
        ends_ranks=bool(raw.get("ends_ranks", False)),
    )


def _command(code: str, raw: Any) -> CommandTemplate:
    if not isinstance(raw, dict) or not {"purpose", "run", "where"} <= set(raw):
        _fail(f"code {code}: each command needs purpose, run and where")
    unknown = set(raw) - _COMMAND_KEYS
    if unknown:
        _fail(f"code {code}: unknown command keys {sorted(unknown)}")
    template = CommandTemplate(**{k: raw[k] for k in raw})
    if template.where not in WHERE:
        _fail(f"code {code}: where must be one of {WHERE}")
    if template.when not in ("", "hanging"):
        _fail(f"code {code}: when must be 'hanging' or absent")
    if template.needs not in NEEDS:
        _fail(f"code {code}: needs must be one of {NEEDS}")
    if template.changes_state != bool(template.blast_radius):
        _fail(f"code {code}: a state-changing command says its blast_radius, a read-only one none")
    names = set(FIELD.findall(template.run))
    if names - set(FIELDS):
        _fail(f"code {code}: unknown fields {sorted(names - set(FIELDS))} in {template.run!r}")
    return template


def _check_graph(codes: Mapping[str, CodeInfo]) -> None:
    for info in codes.values():
        for target in info.explains:
            if target not in codes:
                _fail(f"code {info.code}: explains unknown code {target}")
            if target == info.code:
                _fail(f"code {info.code}: explains itself")
        if not info.can_be_root and info.explains:
            _fail(f"code {info.code}: a code that is never a root cause explains nothing")
    # Depth-first search for a cycle: a cause graph with a loop would let two findings
    # explain each other away and leave no root cause.
    state: dict[str, int] = {}

    def visit(code: str, path: list[str]) -> None:
        state[code] = 1
        for target in codes[code].explains:
            if state.get(target) == 1:
                _fail("explains has a cycle: " + " -> ".join([*path, code, target]))
            if target not in state:
                visit(target, [*path, code])
        state[code] = 2

    for code in codes:
        if code not in state:
            visit(code, [])


def parse_registry(text: str, cached: bool = False) -> CodeRegistry:
    """`cached`: the parsed YAML from the user cache when there (diskcache.load_yaml)."""
    data = load_yaml(text, cached)
    if not isinstance(data, dict):
        _fail("codes.yaml must be a mapping of code -> entry")
    codes = {str(code): _parse(str(code), raw) for code, raw in data.items()}
    _check_graph(codes)
    return CodeRegistry(codes)


@functools.lru_cache(maxsize=1)
def load_registry() -> CodeRegistry:
    text = resources.files("hyperpod_nccl.codes").joinpath("codes.yaml").read_text("utf-8")
    return parse_registry(text, cached=True)


def reference(code: str) -> str | None:
    """The guide section a finding of `code` points at (`file.md#anchor`), from the registry;
    None for a code the registry does not hold (never a broken link). Every check, probe and
    perf finding takes its reference from here."""
    info = load_registry().get(code)
    return info.reference if info else None
