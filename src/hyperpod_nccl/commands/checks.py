"""`hyperpod-nccl checks`: every state check and every finding code, from the check registry
and the code registry, with area, default priority, the first command that confirms it and
its guide section. Nothing is collected or analysed."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from hyperpod_nccl.exit_codes import ExitCode

EXAMPLES = """examples:
  hyperpod-nccl checks                    # every code and the checks that report it
  hyperpod-nccl checks --area node        # one area (logs, cluster, network, slurm, node, ...)
  hyperpod-nccl checks --format json      # for scripts: the same, as one JSON document
"""


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser(
        "checks",
        help="list every check and finding code with its area, priority, command and guide section",
        description=(
            "List every finding code hyperpod-nccl can report (area, default priority, what it "
            "means, the read-only command that confirms it, its guide section) and the state "
            "checks that report each one."
        ),
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--area", metavar="AREA", help="only the codes of this area")
    parser.add_argument(
        "--format", choices=("text", "json", "markdown"), default="text", help="default: text"
    )
    parser.set_defaults(handler=run)


# Codes no registered state check reports come from these analyses.
_REPORTED_BY = {
    "logs": ("log rules",),
    "perf": ("perf analysis",),
    "diff": ("diff",),
    "analysis": ("the run itself (what it could read and check)",),
}


def listing(area: str | None = None) -> list[dict[str, Any]]:
    """One entry per code, in registry order: its facts and the checks that report it."""
    from hyperpod_nccl.checks import load_checks
    from hyperpod_nccl.codes import FIELD, load_registry

    by_code: dict[str, list[str]] = {}
    for spec in load_checks().values():
        for code in spec.codes:
            by_code.setdefault(code, []).append(spec.id)
    entries = []
    for code, info in load_registry().codes.items():
        if area and info.area != area:
            continue
        confirm = next((c for c in info.commands if not c.changes_state), None)
        entries.append(
            {
                "code": code,
                "area": info.area,
                "priority": info.priority.value,
                "title": info.title,
                "checks": sorted(by_code.get(code, [])) or list(_REPORTED_BY.get(info.area, ())),
                "confirm": {
                    "purpose": confirm.purpose,
                    "run": FIELD.sub(lambda m: m.group(1).upper(), confirm.run),
                    "where": confirm.where,
                }
                if confirm
                else None,
                "reference": info.reference,
            }
        )
    return entries


def _text(entries: list[dict[str, Any]]) -> str:
    out = []
    for e in entries:
        out.append(f"{e['code']}  [{e['area']}, {e['priority']}]  {e['title']}")
        if e["checks"]:
            out.append(f"    reported by: {', '.join(e['checks'])}")
        if e["confirm"]:
            where = "" if e["confirm"]["where"] == "here" else f" (on the {e['confirm']['where']})"
            out.append(f"    confirm{where}: {e['confirm']['run']}")
        if e["reference"]:
            out.append(f"    guide: {e['reference']}")
    out.append(f"{len(entries)} codes")
    return "\n".join(out) + "\n"


def _markdown(entries: list[dict[str, Any]]) -> str:
    from hyperpod_nccl.report.markdown import cell

    out = [
        "| code | area | priority | meaning | reported by | guide |",
        "|---|---|---|---|---|---|",
    ]
    for e in entries:
        cells = [
            f"`{e['code']}`",
            e["area"],
            e["priority"],
            cell(e["title"]),
            ", ".join(f"`{c}`" for c in e["checks"]),
            f"`{e['reference']}`" if e["reference"] else "",
        ]
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def run(args: argparse.Namespace) -> int:
    from hyperpod_nccl.codes import AREAS
    from hyperpod_nccl.exit_codes import UsageError

    if args.area and args.area not in AREAS:
        raise UsageError(f"checks: unknown --area {args.area!r}; one of {', '.join(AREAS)}")
    entries = listing(args.area)
    if args.format == "json":
        text = json.dumps({"schema": "hyperpod-nccl/checks/v1", "codes": entries}, indent=2) + "\n"
    elif args.format == "markdown":
        text = _markdown(entries)
    else:
        text = _text(entries)
    sys.stdout.write(text)
    return ExitCode.OK
