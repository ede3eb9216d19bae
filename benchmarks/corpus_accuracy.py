"""Root-cause accuracy of `analyze_logs` on the labelled real-log corpora.

Two ways per corpus:
- alone: each excerpt is one log file;
- spread: each excerpt is cut into pieces spread over four rank files among long stretches
  of real healthy NCCL output, training progress and benign warnings (tests/logs/logmix.py,
  the same mixing the corpus tests use). A rule that fires on healthy output, or a cause
  drowned by noise, shows up here.

A case is right when root_cause equals its label (HEALTHY: root_cause is null and no
finding FAILs). Prints accuracy per corpus and per label, then the misses. Always exits 0:
it measures, the tests assert.

    .venv/bin/python benchmarks/corpus_accuracy.py [--mixed] [--engine re] [CORPUS.jsonl ...]

- mixed (`--mixed`): the excerpt among other jobs' healthy logs, three to each of four rank
  files (the corpora's HEALTHY cases): many jobs, NCCL versions, net plugins and hosts side by
  side. Issue 18 measured with it how often such noise changed the answer of the case alone:
  113 of 719 failing cases at d7d88ab (mostly a NCCL version or net-plugin difference, or a
  loopback interface, read as one job's), fewer once that evidence was tied to NCCL's
  communicators (see the closing figures in tests/fixtures/corpus/README.md).

heldout.jsonl was collected after the rules were written and scored before any rule was changed
for it (alone 71/90 = 78.9%, spread 71/90 = 78.9%, rules as of c3c2493). After widening rules
from its misses (c593b96) and ordering/warning changes in diagnosis.py (5ca74d8) it scores 90/90
both ways, which is no longer a blind measure: it needs new logs to be one again.

fresh2.jsonl (62 new public excerpts, issue 18) was scored before any rule was changed for it:
alone 55/62 = 88.7%, spread 55/62 = 88.7% (rules as of e7a4136); 3 failing logs answered null,
no FAIL on a healthy log. After fixing six of its seven misses from what the programs mean
(issue 18) it scores alone 61/62 = 98.4%, spread 61/62 = 98.4%, the other corpora unchanged
(dev 74/74, extra 125/125, heldout 90/90 both ways; fresh 76/81 alone, 75/81 spread); the one
left, g014, has a label that disagrees with the same line's label elsewhere.

fresh3.jsonl (52 new public excerpts, 10 healthy, issue 18) was scored with no rule changed for
it, at 8dc01dd: alone 43/52 = 82.7%, spread 43/52 = 82.7%, the pure-Python engine (backend "re")
the same 43/52 both ways; 4 failing logs answered null, 5 with a wrong root cause, no FAIL on a
healthy log. The misses are listed in tests/logs/test_blind_corpora.py. After rules derived
from the programs' messages for seven of them (NCCL's ring check and error strings, verbs
completion status, exit status 139, Ray's actor death, glog CHECK failures) it scores 50/52 =
96.2% both ways with no failing log answered null, the other corpora unchanged.

fresh4.jsonl (40 new public excerpts, 8 healthy, issue 18) was scored with no rule changed for
it, at 0c5209d: alone 27/40 = 67.5%, spread 27/40 = 67.5%, the pure-Python engine the same 27/40 alone;
8 failing logs answered null, 5 with a wrong root cause, no FAIL on a healthy log. The misses
are listed in tests/logs/test_blind_corpora.py. After rules
derived from the programs' messages for twelve of them it scores 39/40 = 97.5% both ways with no
failing log answered null, the other corpora unchanged.

fresh5.jsonl (37 new public excerpts, 6 healthy, issue 18) was scored with no rule changed for
it, at 2e87880: alone 32/37 = 86.5%, spread 32/37 = 86.5%, the pure-Python engine the same 32/37
alone; 1 failing log answered null, 4 with a wrong root cause, no FAIL on a healthy log. The
misses are listed in tests/logs/test_blind_corpora.py. After rules
derived from the programs' messages for four of them it scores 36/37 = 97.3% both ways.

fresh6.jsonl (20 new public excerpts, 5 healthy, issue 18) was scored with no rule changed for
it, at 5abcedc: alone 20/20 = 100%, spread 20/20 = 100%; no failing log answered null, no FAIL on
a healthy log (tests/logs/test_blind_corpora.py).

fresh8.jsonl (40 new public excerpts from cluster and infrastructure repositories, 7 healthy,
issue 18) was scored with no rule changed for it, at ad08e5f: alone 32/40 = 80.0%, spread 31/40 =
77.5%, the pure-Python engine the same both ways; 5 failing logs answered null alone (6 spread),
no FAIL on a healthy log. The misses are listed in tests/logs/test_blind_corpora.py.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hyperpod_nccl.api import analyze_logs

ROOT = Path(__file__).resolve().parents[1]

sys.path.insert(0, str(ROOT / "tests" / "logs"))
from logmix import CORPORA as DEFAULT_CORPORA  # noqa: E402  (test helper, on the path)
from logmix import spread_case  # noqa: E402


@dataclass(frozen=True)
class Case:
    id: str
    label: str
    log: str


@dataclass(frozen=True)
class Outcome:
    case: Case
    root_cause: str | None
    fails: tuple[str, ...]

    @property
    def right(self) -> bool:
        if self.case.label == "HEALTHY":
            return self.root_cause is None and not self.fails
        return self.root_cause == self.case.label


def load_cases(path: Path) -> list[Case]:
    rows = [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]
    return [Case(r["id"], r["label"], r["log"]) for r in rows]


def judge(case: Case, paths: Sequence[str], backend: str = "auto") -> Outcome:
    """`backend`: "auto" (Hyperscan where installed) or "re", the pure-Python engine a plain
    install without Hyperscan's wheel runs."""
    report: dict[str, Any] = analyze_logs(paths, backend=backend).to_dict()
    fails = tuple(f["code"] for f in report["findings"] if f["status"] == "FAIL")
    return Outcome(case, report["root_cause"], fails)


def run_alone(case: Case, workdir: Path, backend: str = "auto") -> Outcome:
    path = workdir / f"{case.id}.log"
    path.write_text(case.log, "utf-8")
    return judge(case, [str(path)], backend)


def run_spread(case: Case, workdir: Path, backend: str = "auto") -> Outcome:
    job = workdir / f"{case.id}-spread"
    job.mkdir()
    spread_case(case.log, job, random.Random(case.id))
    return judge(case, [str(job)], backend)


def report(title: str, outcomes: Sequence[Outcome]) -> None:
    right = sum(o.right for o in outcomes)
    total = len(outcomes)
    share = right / total if total else 0.0
    print(f"{title}: {right}/{total} = {share:.1%}")
    by_label: dict[str, list[Outcome]] = defaultdict(list)
    for outcome in outcomes:
        by_label[outcome.case.label].append(outcome)
    for label in sorted(by_label):
        group = by_label[label]
        print(f"  {label:<24} {sum(o.right for o in group)}/{len(group)}")
    for o in outcomes:
        if not o.right:
            print(
                f"  MISS {o.case.id} label={o.case.label} got={o.root_cause} fails={list(o.fails)}"
            )


def healthy_corpus_cases() -> list[Case]:
    """Every HEALTHY case of every corpus: real healthy logs of many jobs and versions."""
    return [
        c
        for path in DEFAULT_CORPORA
        if path.exists()
        for c in load_cases(path)
        if c.label == "HEALTHY"
    ]


def run_mixed(case: Case, workdir: Path, healthy: Sequence[Case], backend: str = "auto") -> Outcome:
    """The case's lines in one of four rank files, each file three other jobs' healthy logs
    (HEALTHY cases of the corpora): noise of many jobs, NCCL versions, plugins and hosts,
    harsher than one job's. A reading of such noise as one job shows up here."""
    rng = random.Random(case.id)
    job = workdir / f"{case.id}-mixed"
    job.mkdir()
    others = [h for h in healthy if h.id != case.id]
    lines = [line for line in case.log.splitlines() if line.strip() != "[... cut ...]"]
    target = rng.randrange(4)
    for rank in range(4):
        noise = [
            line
            for h in rng.sample(others, 3)
            for line in h.log.splitlines()
            if line.strip() and line.strip() != "[... cut ...]"
        ]
        if rank == target:
            at = rng.randint(0, len(noise))
            noise[at:at] = lines
        (job / f"rank{rank}.log").write_text("\n".join(noise) + "\n", "utf-8")
    return judge(case, [str(job)], backend)


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--mixed", action="store_true", help="also among other jobs' healthy logs")
    parser.add_argument("--engine", choices=("auto", "hyperscan", "re"), default="auto")
    parser.add_argument("corpora", nargs="*", type=Path, help="corpus files (default: all)")
    args = parser.parse_args(argv)
    mixed = args.mixed
    missing = [p for p in args.corpora if not p.is_file()]
    if missing:
        parser.error(f"no such corpus file: {missing[0]}")
    corpora = list(args.corpora) or [p for p in DEFAULT_CORPORA if p.exists()]
    healthy = healthy_corpus_cases() if mixed else []
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        for path in corpora:
            cases = load_cases(path)
            report(f"{path.name} alone", [run_alone(c, workdir, args.engine) for c in cases])
            report(f"{path.name} spread", [run_spread(c, workdir, args.engine) for c in cases])
            if mixed:
                report(
                    f"{path.name} mixed",
                    [run_mixed(c, workdir, healthy, args.engine) for c in cases],
                )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
