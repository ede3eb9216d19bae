"""`--check` and `--skip`: which registered checks run, named by check id
(`cluster.node-recovery`) or by area (`network`, `slurm`). A name that is neither is a usage
error with the closest names; checks left out are reported as not checked, never as PASS."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from hyperpod_nccl.checks import CheckSpec, load_checks
from hyperpod_nccl.exit_codes import UsageError


def _names(values: Iterable[str]) -> list[str]:
    """`--check a,b --check c` -> [a, b, c]."""
    return [n.strip() for v in values for n in v.split(",") if n.strip()]


@dataclass(frozen=True)
class Selection:
    only: frozenset[str] = frozenset()  # ids and areas; empty: every check
    skip: frozenset[str] = frozenset()

    def wants(self, spec: CheckSpec) -> bool:
        named = {spec.id, spec.area}
        if self.only and not named & self.only:
            return False
        return not named & self.skip

    def left_out(self, specs: Iterable[CheckSpec]) -> list[str]:
        return sorted(s.id for s in specs if not self.wants(s))


EVERY = Selection()


def parse_selection(check: Sequence[str] = (), skip: Sequence[str] = ()) -> Selection:
    specs = load_checks().values()
    known = {s.id for s in specs} | {s.area for s in specs}
    for option, values in (("--check", check), ("--skip", skip)):
        for name in _names(values):
            if name not in known:
                close = difflib.get_close_matches(name, sorted(known), n=3)
                hint = f"; did you mean {', '.join(close)}?" if close else ""
                raise UsageError(
                    f"{option}: no check or area {name!r}{hint} (hyperpod-nccl checks lists them)"
                )
    return Selection(frozenset(_names(check)), frozenset(_names(skip)))
