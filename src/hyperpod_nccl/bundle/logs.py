"""Logs in and out of bundles: copy the logs a user named into a Snapshot, and analyse the
logs a bundle holds exactly as `hyperpod-nccl logs` analysed them.

Each input becomes the item `logs/NNNN/<its file name>`: the number keeps the inputs in the
order they were analysed, and the file name is kept because attribution reads ranks and hosts
from it (`rank3.log`, `train-worker-2.log`, `ip-10-1-2-3.log`). The path as the user gave it
is the item's `source`, so a re-analysis names its evidence as the first analysis did.
"""

from __future__ import annotations

import dataclasses
import gzip
import os
import re
import shlex
import shutil
import sys
import tempfile
import zlib
from collections.abc import Sequence
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any

from hyperpod_nccl.exit_codes import InputError
from hyperpod_nccl.inputs import UnreadableInput, expand, open_stream
from hyperpod_nccl.log_analysis import analyze_logs
from hyperpod_nccl.model import NotChecked, Report
from hyperpod_nccl.rules.meter import ByteMeter
from hyperpod_nccl.safeio import LimitReached
from hyperpod_nccl.suggest.shell import expansion
from hyperpod_nccl.treewalk import map_strings

if TYPE_CHECKING:  # imported where used: `logs` without a bundle need not load them
    from hyperpod_nccl.bundle.escalation import EscalationOptions, Notify
    from hyperpod_nccl.snapshot import Snapshot

LOGS_PREFIX = "logs/"
STDIN_LABEL = "<stdin>"
_UNSAFE = re.compile(r"[^A-Za-z0-9_.@:+=-]")


def _item_name(index: int, width: int, given: str) -> str:
    base = PurePath(given).name if given != STDIN_LABEL else "stdin.log"
    if base.lower().endswith(".gz"):
        base = base[:-3]  # stored decompressed: redaction must read it
    base = _UNSAFE.sub("_", base).strip(".") or "log"
    return f"{LOGS_PREFIX}{index:0{width}d}/{base}"


def spool_stdin(directory: str) -> str:
    """Copy standard input to a file, so that it can be analysed and bundled both."""
    path = Path(directory) / "stdin.log"
    with open(path, "wb") as out:
        shutil.copyfileobj(sys.stdin.buffer, out)
    return str(path)


def ingest_logs(snapshot: Snapshot, paths: Sequence[str], labels: dict[str, str]) -> None:
    """Copy the inputs `paths` names (files, .gz, directories) into `snapshot`, decompressed.

    `labels` maps a path to the name the analysis gave it (standard input spooled to a file).
    What cannot be read is recorded as missing, with the reason.
    """
    inputs, problems = expand(paths)
    width = max(4, len(str(len(inputs))))
    for index, item in enumerate(inputs, start=1):
        given = labels.get(item.name, item.name)
        name = _item_name(index, width, given)
        try:
            with open_stream(item) as stream:
                snapshot.put_stream(name, stream, source=given)
        except LimitReached as exc:
            snapshot.note(name, str(exc))  # put_stream kept what came before the limit
        except UnreadableInput as exc:
            snapshot.missing(name, str(exc), source=given)
        except (EOFError, gzip.BadGzipFile, zlib.error) as exc:
            # What was decompressed before the damage was kept by put_stream.
            snapshot.note(
                name, f"gzip data is truncated or corrupt ({exc}); kept the part before the damage"
            )
        except OSError as exc:
            snapshot.missing(name, exc.strerror or str(exc), source=given)
    for problem in problems:
        snapshot.missing(
            f"{LOGS_PREFIX}unread/{_UNSAFE.sub('_', PurePath(problem.check).name) or 'input'}",
            problem.reason,
            source=problem.check,
        )
    snapshot.meta.setdefault("command", "logs")


def relabel(report: Report, labels: dict[str, str]) -> Report:
    """Name evidence by the labels, not by the paths the analysis read (spool copies)."""
    if not labels:
        return report

    def fix(text: str) -> str:
        for path, label in labels.items():
            if text == path:
                return label
            if text.startswith(path + ":"):
                return label + text[len(path) :]
        return text

    def fix_tree(data: Any) -> Any:
        return map_strings(data, fix)

    def fix_command(text: str) -> str:
        # Commands name the file the analysis read (grep ... FILE): name the user's instead,
        # or ask for it where it is not a file here (stdin).
        for path, label in labels.items():
            if shlex.quote(path) in text:
                named = shlex.quote(label) if os.path.isfile(label) else expansion("log-file")
                text = text.replace(shlex.quote(path), named)
        return text

    for finding in report.findings:
        finding.evidence = [dataclasses.replace(e, source=fix(e.source)) for e in finding.evidence]
        finding.suggested_commands = [
            dataclasses.replace(c, command=fix_command(c.command))
            for c in finding.suggested_commands
        ]
        finding.details = fix_tree(finding.details)
    report.not_checked = [NotChecked(fix(n.check), n.reason) for n in report.not_checked]
    return report


def log_items(snapshot: Snapshot) -> list[str]:
    """The logs in a bundle: `logs/` of a `logs` bundle, else any collected log (pod and job
    logs of a `diagnose` bundle), in name order."""
    own = list(snapshot.collected(LOGS_PREFIX))
    if own:
        return own
    return [
        n
        for n in snapshot.collected()
        if snapshot.items[n].kind == "text"
        and ("/logs/" in f"/{n}" or n.endswith((".log", ".out")))
    ]


def bundle_inputs(snapshot: Snapshot) -> tuple[list[str], dict[str, str]]:
    """The files of a bundle's logs, in their original order, and the name each had when
    first analysed: logs given to `logs` (or `perf`) as the user gave them, other items by
    their bundle name."""
    names = log_items(snapshot)
    paths = [str(snapshot.path_of(n)) for n in names]
    labels = {
        path: (snapshot.items[name].source or name) if name.startswith(LOGS_PREFIX) else name
        for path, name in zip(paths, names, strict=True)
    }
    return paths, labels


def unread_inputs(snapshot: Snapshot) -> list[NotChecked]:
    """Inputs the first run could not read, as the bundle recorded them."""
    return [
        NotChecked(record.source or name, record.reason or "not collected")
        for name in snapshot.names(LOGS_PREFIX)
        if (record := snapshot.items[name]).status == "missing"
    ]


def analyze_bundle_logs(snapshot: Snapshot, backend: str = "auto") -> Report:
    """Analyse the logs a bundle holds, in their original order and under their original names."""
    paths, labels = bundle_inputs(snapshot)
    report = relabel(analyze_logs(paths, backend=backend), labels)
    report.not_checked += unread_inputs(snapshot)
    return report


class LogSession:
    """One `logs` run that reads a bundle (`--bundle`) or saves one (`--save-bundle`).

    Standard input is spooled to a private file when it must be both analysed and bundled
    (it can be read once only); a loaded bundle stays open until the run is over.
    """

    command = "logs"  # the command a saved bundle names in its manifest

    def __init__(self, paths: Sequence[str], bundle: str | None, save: bool) -> None:
        self._paths = list(paths)
        self._bundle = bundle
        self._save = save
        self._spool: str | None = None
        self._snapshot: Snapshot | None = None
        self._labels: dict[str, str] = {}

    def __enter__(self) -> LogSession:
        if self._bundle is not None:
            from hyperpod_nccl.snapshot import BundleError, Snapshot

            try:
                self._snapshot = Snapshot.load(self._bundle)
            except BundleError as exc:
                raise InputError(str(exc)) from exc
            if not log_items(self._snapshot):
                self._snapshot.close()
                raise InputError(f"{self._bundle}: the bundle holds no logs")
        elif self._save and "-" in self._paths:
            self._spool = tempfile.mkdtemp(prefix="hpn-stdin-")
            spooled = spool_stdin(self._spool)
            self._labels[spooled] = STDIN_LABEL
            self._paths = [spooled if p == "-" else p for p in self._paths]
        return self

    def __exit__(self, *exc: object) -> None:
        if self._snapshot is not None:
            self._snapshot.close()
        if self._spool is not None:
            shutil.rmtree(self._spool, ignore_errors=True)

    def analyze(self, backend: str = "auto", meter: ByteMeter | None = None) -> Report:
        if self._snapshot is not None:
            if self.diagnose_bundle is not None:
                raise RuntimeError(
                    "a diagnose bundle is replayed with its state: see commands/logs.py"
                )
            return analyze_bundle_logs(self._snapshot, backend)
        return relabel(analyze_logs(self._paths, backend=backend, meter=meter), self._labels)

    @property
    def diagnose_bundle(self) -> Snapshot | None:
        """The loaded bundle when `diagnose` saved it: its logs are half its story, so the
        command replays it with its cluster state (api.analyze_snapshot)."""
        snapshot = self._snapshot
        return (
            snapshot
            if snapshot is not None and snapshot.meta.get("command") == "diagnose"
            else None
        )

    def save_bundle(
        self, report: Report, options: EscalationOptions | None, notify: Notify | None = None
    ) -> None:
        """`--save-bundle`: the logs as analysed and the report, into a bundle (nothing
        without `options`)."""
        if options is None:
            return
        from hyperpod_nccl.bundle.escalation import save_requested_bundle
        from hyperpod_nccl.snapshot import Snapshot

        if self._snapshot is not None:  # a bundle saved again, e.g. now obfuscated
            save_requested_bundle(report, self._snapshot, options, notify)
            return
        snapshot = Snapshot(meta={"command": self.command})
        try:
            self._ingest(snapshot)
            save_requested_bundle(report, snapshot, options, notify)
        finally:
            snapshot.close()

    def _ingest(self, snapshot: Snapshot) -> None:
        ingest_logs(snapshot, self._paths, self._labels)
