"""`hyperpod-nccl perf PATH...`: read nccl-tests results and per-rank progress, name slow nodes."""

from __future__ import annotations

import argparse
import difflib
from collections.abc import Callable

from hyperpod_nccl import api
from hyperpod_nccl.api import PerfRequest
from hyperpod_nccl.commands.options import (
    add_bundle_options,
    add_output_options,
    deliver,
    exit_code_for,
    notify,
    request_from,
)
from hyperpod_nccl.perf.expected import INSTANCE_TYPES
from hyperpod_nccl.report.perf import render_perf

EXAMPLES = """examples:
  hyperpod-nccl perf nccl-tests.out                       # one nccl-tests run
  hyperpod-nccl perf pair-sweep/ --format html -o perf.html   # every pair of a sweep, with charts
  hyperpod-nccl perf run.log --instance-type p5.48xlarge     # compare with the guide's figure
  hyperpod-nccl perf run.log --expected-busbw 480            # compare with your own baseline
  hyperpod-nccl perf nccl_trace_rank_* nccl-debug/           # flight recorder dumps, NCCL COLL logs
  hyperpod-nccl perf --world-size 1024                       # suggested collective timeout only
  hyperpod-nccl perf run.log --save-bundle case-1234.tar.gz  # a redacted bundle for a support case
  hyperpod-nccl perf --bundle case-1234.tar.gz               # re-analyse a bundle offline

What it finds: STRAGGLER_NODE, LOW_BUSBW, WRONG_RESULTS, TEST_FAILED, STALLED_RANKS
(see performance-testing.md in the guide: hyperpod-nccl explain STRAGGLER_NODE).
"""


def _positive(kind: type[float] | type[int], noun: str) -> Callable[[str], float]:
    """An argparse type: a number of the given kind, above zero."""

    def parse(text: str) -> float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not {noun}: {text!r}") from None
        if value <= 0:
            raise argparse.ArgumentTypeError(f"must be above 0: {text!r}")
        return value

    return parse


def instance_type_name(text: str) -> str:
    """An instance type as EC2 (`p5.48xlarge`) or HyperPod (`ml.p5.48xlarge`) names it."""
    known = [t.name for t in INSTANCE_TYPES]
    name = text.strip().lower()
    name = name[3:] if name.startswith("ml.") else name
    if name not in known:
        close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
        hint = f"; did you mean {close[0]}?" if close else f" (known: {', '.join(known)})"
        raise argparse.ArgumentTypeError(f"unknown instance type {text!r}{hint}")
    return name


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser(
        "perf",
        help="analyse nccl-tests results (stragglers, low or wrong results) and lagging ranks",
        description=(
            "Analyse nccl-tests output (text or JSON, any collective, any number of runs, pair "
            "sweeps) for straggler nodes, low bus bandwidth, wrong results and failed or hung "
            "runs; and flight recorder dumps or NCCL COLL debug logs for ranks that did not reach "
            "a collective. Read-only."
        ),
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "paths", nargs="*", metavar="PATH", help="file, .gz file, directory, or - for stdin"
    )
    expect = parser.add_argument_group("what to expect")
    expect.add_argument(
        "--instance-type",
        type=instance_type_name,
        metavar="TYPE",
        help="instance type of the nodes, as EC2 or HyperPod names it (p5.48xlarge or "
        "ml.p5.48xlarge; default: inferred from the GPU model when unambiguous)",
    )
    expect.add_argument(
        "--transport",
        choices=("efa", "ib", "socket"),
        help="network transport of the runs (default: from NCCL INFO lines when present)",
    )
    expect.add_argument(
        "--expected-busbw",
        type=_positive(float, "a number"),
        metavar="GBPS",
        help="your baseline busbw at large sizes in GB/s, measured on healthy nodes (preferred over the guide's figures)",
    )
    expect.add_argument(
        "--world-size",
        type=_positive(int, "a whole number"),
        metavar="GPUS",
        help="GPUs in the training job: print a suggested collective timeout (a heuristic)",
    )
    add_output_options(parser)
    parser.add_argument(
        "--bundle", metavar="PATH", help="analyse the inputs inside a saved bundle instead"
    )
    add_bundle_options(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    request = request_from(args, PerfRequest, refuse_missing=True)
    report = api.perf(request, notify=notify, deliver=deliver(args, render_perf, skipped=True))
    return exit_code_for(report, args.fail_on)
