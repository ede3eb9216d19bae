"""`perf` inputs in and out of bundles: save what `perf` read (nccl-tests output, NCCL COLL
logs, flight recorder dumps) into an escalation bundle, and re-analyse a bundle's inputs as
`perf` analysed them.

Inputs are stored like `logs` stores its own (`logs/NNNN/<file name>`, the path as given in
the item's source), so `logs --bundle` reads a perf bundle too. A flight recorder dump that
is a pickle is stored as its JSON form: redaction and obfuscation work on text, and would
break a pickle's length-prefixed strings; `perf` reads both forms alike.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Sequence
from pathlib import Path

from hyperpod_nccl.bundle.logs import (
    LogSession,
    bundle_inputs,
    ingest_logs,
    relabel,
    unread_inputs,
)
from hyperpod_nccl.inputs import LogInput, UnreadableInput, expand
from hyperpod_nccl.model import Report
from hyperpod_nccl.perf.analysis import PerfOptions, analyze_perf
from hyperpod_nccl.perf.flight_recorder import UnreadableDump, load_dump
from hyperpod_nccl.perf.reader import open_content
from hyperpod_nccl.snapshot import Snapshot


def _dump_as_json(item: LogInput, directory: str) -> str | None:
    """A pickled flight recorder dump written as JSON under `directory` (same file name, so
    the rank in it still reads); None for anything else, which is stored as it is."""
    if item.path is None:
        return None
    try:
        with open_content(item) as content:
            if content.kind != "pickle":
                return None
            dump = load_dump(content.data)
    except (UnreadableInput, UnreadableDump, OSError):
        return None  # stored as it is; the analysis already said what was wrong with it
    target = Path(tempfile.mkdtemp(dir=directory)) / Path(item.path).name
    # Tuples become lists and anything else its text: the analysis reads both forms alike.
    target.write_text(json.dumps(dump, default=str), "utf-8")
    return str(target)


def ingest_perf_inputs(snapshot: Snapshot, paths: Sequence[str], labels: dict[str, str]) -> None:
    """Copy the inputs into `snapshot` as `logs` does, pickled dumps as JSON."""
    inputs, problems = expand(paths)
    with tempfile.TemporaryDirectory(prefix="hpn-perf-") as directory:
        files: list[str] = []
        names = dict(labels)
        for item in inputs:
            converted = _dump_as_json(item, directory)
            if converted is not None:
                names[converted] = labels.get(item.name, item.name)
            files.append(converted or item.name)
        # Paths that could not be read are passed on, so the bundle records why.
        ingest_logs(snapshot, files + [p.check for p in problems], names)
    snapshot.meta["command"] = "perf"


def analyze_bundle_perf(snapshot: Snapshot, options: PerfOptions) -> Report:
    """`perf` over the inputs a bundle holds, evidence named as in the first analysis."""
    paths, labels = bundle_inputs(snapshot)
    report = relabel(analyze_perf(paths, options), labels)
    report.not_checked += unread_inputs(snapshot)
    return report


class PerfSession(LogSession):
    """One `perf` run that reads a bundle (`--bundle`) or saves one (`--save-bundle`), as a
    `logs` run does; standard input is spooled when it must be both analysed and saved."""

    command = "perf"

    def __enter__(self) -> PerfSession:
        super().__enter__()
        return self

    def analyze_perf(self, options: PerfOptions) -> Report:
        if self._snapshot is not None:
            return analyze_bundle_perf(self._snapshot, options)
        return relabel(analyze_perf(self._paths, options), self._labels)

    def _ingest(self, snapshot: Snapshot) -> None:
        ingest_perf_inputs(snapshot, self._paths, self._labels)
