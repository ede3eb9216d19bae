"""The error-pattern quick reference, generated from the rule catalog so the two never drift.

Regenerate after changing rules/catalog.yaml:

    python -m hyperpod_nccl.rules.quickref > src/hyperpod_nccl/kb/quick-reference.md

tests/kb/test_quickref.py fails when the committed file differs from what this prints.
"""

from __future__ import annotations

import sys

from hyperpod_nccl.rules.catalog import Catalog, load_catalog

HEADER = """<a id="quick-reference"></a>
# Error-pattern quick reference

Generated from `rules/catalog.yaml` by `python -m hyperpod_nccl.rules.quickref`; do not edit by
hand. For each finding code: what it means, the guide section to read, and every pattern
`hyperpod-nccl logs` matches for it, with the program that prints the line and a real example.
A pattern's role says how the diagnosis uses it: a **cause** line can be the root cause, a
**symptom** line is a root cause only when nothing explains it. Lines matched by a **benign**
pattern never raise a finding; **context** lines feed the reasoning across ranks (NCCL
versions, transports, communicator ranks).
"""


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


# Where the programs' messages are documented; the header section's sources.
HEADER_SOURCES = (
    "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting.html",
    "https://docs.pytorch.org/docs/stable/distributed.html",
    "https://docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html",
)


def _sources(urls: tuple[str, ...] | list[str]) -> list[str]:
    return ["", "Sources:", *[f"- {url}" for url in urls]]


def _guide_sources(code: str) -> list[str]:
    """The code's own guide section's sources: the facts behind its meaning come from there."""
    from hyperpod_nccl import kb

    section = kb.section_for_code(code)
    urls = [u for u in (section.sources if section else []) if u.startswith("http")]
    return _sources(urls or list(HEADER_SOURCES))


def render(catalog: Catalog) -> str:
    out = [HEADER]
    out.append("| code | priority | meaning | explains | guide |")
    out.append("|---|---|---|---|---|")
    for info in sorted(catalog.codes.values(), key=lambda i: (i.tier, i.code)):
        explains = ", ".join(info.explains) or "-"
        out.append(
            f"| `{info.code}` | {info.priority.value} | {_cell(info.title)} | {explains} "
            f"| [{info.reference}]({info.reference}) |"
        )
    out += _sources(HEADER_SOURCES)
    for info in sorted(catalog.codes.values(), key=lambda i: (i.tier, i.code)):
        rules = [r for r in catalog.rules if info.code in r.possible_codes()]
        out += [
            "",
            f'<a id="quick-{info.code.lower().replace("_", "-")}"></a>',
            f"## {info.code}",
            "",
        ]
        out.append(f"{info.title}. Guide: `{info.reference}`.")
        out.append("")
        for rule in rules:
            explained = (
                f" (explained by {', '.join(rule.explained_by)})" if rule.explained_by else ""
            )
            out.append(f"- `{rule.id}`, {rule.role}{explained}, from {rule.source}")
            out.append(f"  - pattern: `{_cell(rule.pattern)}`")
            out.append(f"  - example: `{_cell(rule.examples[0])}`")
        out += _guide_sources(info.code)
    for role in ("context", "benign"):
        out += ["", f'<a id="quick-{role}-patterns"></a>', f"## {role.capitalize()} patterns", ""]
        for rule in (r for r in catalog.rules if r.role == role):
            emits = f", records {rule.emits}" if rule.emits else ""
            out.append(f"- `{rule.id}`{emits}, from {rule.source}")
            out.append(f"  - pattern: `{_cell(rule.pattern)}`")
            out.append(f"  - example: `{_cell(rule.examples[0])}`")
        out += _sources(HEADER_SOURCES)
    return "\n".join(out) + "\n"


def main() -> int:
    sys.stdout.write(render(load_catalog()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
