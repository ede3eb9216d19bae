"""Every suggested command the tool prints for the project's own inputs: the example bundles
(diagnose replay), the example logs, every corpus case (logs) and the perf fixtures. Used by
the tests and runnable as a script for the counts in the closing note:

    .venv/bin/python tests/commands/command_gather.py
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from command_verbs import syntax_error

from hyperpod_nccl import api
from hyperpod_nccl.diff.run import diff_paths
from hyperpod_nccl.model import Report, Status
from hyperpod_nccl.perf.analysis import analyze_perf

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "src" / "hyperpod_nccl" / "examples"
BUNDLES = sorted(p for p in (EXAMPLES / "bundles").iterdir() if p.is_dir())
CORPORA = sorted((ROOT / "tests" / "fixtures" / "corpus").glob("*.jsonl"))
PERF = ROOT / "tests" / "fixtures" / "perf"


@dataclass(frozen=True)
class Printed:
    case: str
    code: str
    status: str
    command: str
    changes_state: bool | None


def reports() -> Iterator[tuple[str, Report]]:
    for bundle in BUNDLES:
        yield f"diagnose {bundle.name}", api.diagnose(bundle=str(bundle))
    yield "logs examples/logs", api.analyze_logs([str(EXAMPLES / "logs")], workers=1)
    with tempfile.TemporaryDirectory() as tmp:
        for corpus in CORPORA:
            for line in corpus.read_text(encoding="utf-8").splitlines():
                case = json.loads(line)
                path = Path(tmp) / f"{case['id']}.log"
                path.write_text(case["log"], encoding="utf-8")
                yield f"logs {corpus.stem}/{case['id']}", api.analyze_logs([str(path)], workers=1)
    diffed = diff_paths(str(BUNDLES[0]), str(BUNDLES[-1]))  # healthy-eks, sg-efa-fallback
    yield "diff", Report("diff", diffed.findings, diffed.not_checked, diffed.summary)
    for sub in sorted(p for p in PERF.iterdir() if p.is_dir()):
        yield f"perf {sub.name}", analyze_perf([str(sub)])


def printed(items: Iterator[tuple[str, Report]]) -> tuple[list[Printed], list[tuple[str, str]]]:
    """The commands, and the (case, code) of every FAIL or WARN without a read-only one."""
    commands: list[Printed] = []
    bare: list[tuple[str, str]] = []
    for case, report in items:
        for f in report.findings:
            reads = [c for c in f.suggested_commands if not c.changes_state]
            if f.status in (Status.FAIL, Status.WARN) and not reads:
                bare.append((case, f.code))
            for c in f.suggested_commands:
                flag = getattr(c, "changes_state", None)
                commands.append(Printed(case, f.code, f.status.value, c.command, flag))
    return commands, bare


def main() -> int:
    commands, bare = printed(reports())
    distinct = {c.command for c in commands}
    broken = {c: e for c in distinct if (e := syntax_error(c))}
    failing = [c for c in commands if c.command in broken]
    print(f"commands printed: {len(commands)} ({len(distinct)} distinct)")
    print(f"fail bash -n: {len(failing)} ({len(broken)} distinct)")
    for command, count in Counter(c.command for c in failing).most_common(12):
        print(f"  {count:4d}  {command[:110]}")
    print(f"FAIL/WARN findings without a command: {len(bare)}")
    for code, count in Counter(code for _, code in bare).most_common():
        print(f"  {count:4d}  {code}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
