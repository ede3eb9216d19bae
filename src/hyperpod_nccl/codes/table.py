"""The contract's table of every finding code, generated from the registry so the two never
drift: `python -m hyperpod_nccl.codes.table docs/contract.md` rewrites the table in place."""

from __future__ import annotations

import sys
from pathlib import Path

from hyperpod_nccl.codes import CodeRegistry, load_registry

BEGIN = "<!-- codes:begin (generated from src/hyperpod_nccl/codes/codes.yaml) -->"
END = "<!-- codes:end -->"


def render(registry: CodeRegistry) -> str:
    rows = [
        BEGIN,
        "| code | area | priority | can be root cause | explains | meaning |",
        "|---|---|---|---|---|---|",
    ]
    for info in sorted(registry.codes.values(), key=lambda i: (i.area != "logs", i.area, i.code)):
        root = "yes" if info.can_be_root else "no"
        if info.root_when_warning:
            root += " (also as WARN)"
        explains = ", ".join(info.explains) or "-"
        title = info.title.replace("|", "\\|")
        rows.append(
            f"| {info.code} | {info.area} | {info.priority.value} | {root} | {explains} | {title} |"
        )
    rows.append(END)
    return "\n".join(rows)


def replace_table(text: str, table: str) -> str:
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        raise ValueError("the document has no generated code table markers")
    return text[:start] + table + text[end + len(END) :]


def main(argv: list[str]) -> int:
    path = Path(argv[0] if argv else "docs/contract.md")
    path.write_text(replace_table(path.read_text("utf-8"), render(load_registry())), "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
