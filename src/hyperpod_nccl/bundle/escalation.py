"""Write an escalation bundle: everything a run collected, its reports, the job's environment,
component versions and a support-case summary, redacted (and optionally obfuscated) on the
way to disk. With obfuscation, the mapping from stand-ins back to the real names goes to a
separate file next to the bundle, readable by its owner only, and never into the archive.

Layout (inside the .tar.gz or directory):

    manifest.json          tool version, command line (secrets removed), time window (UTC),
                           what was collected and what was not and why, what was scrubbed
    summary.md             the support-case summary (`hyperpod-nccl bundle summary`)
    reports/report.txt     the report as printed, and as JSON (the contract) and Markdown
    reports/report.json
    reports/report.md
    job/environment.json   NCCL_*, FI_*, TORCH_* ... variables the job's logs show
    versions.json          this tool, Python and its libraries, and versions the logs print
    logs/NNNN/<file>       for `logs`: the inputs, decompressed and redacted
    ...                    for `diagnose`/`perf`: the collected state, as collected
"""

from __future__ import annotations

import json
import os
import platform
import socket
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from hyperpod_nccl import __version__
from hyperpod_nccl.bundle.jobfacts import JobFacts
from hyperpod_nccl.bundle.obfuscate import Obfuscator
from hyperpod_nccl.bundle.summary import render_summary
from hyperpod_nccl.exit_codes import InputError, UsageError
from hyperpod_nccl.model import Report
from hyperpod_nccl.redaction import Redactor
from hyperpod_nccl.report.markdown import render_markdown
from hyperpod_nccl.report.text import render_text
from hyperpod_nccl.safeio import TargetExists, create_new, line_chunks, refuse_existing
from hyperpod_nccl.snapshot import BundleError, Snapshot
from hyperpod_nccl.snapshot.scrub import Scrubber

SUMMARY = "summary.md"
REPORTS = ("reports/report.txt", "reports/report.json", "reports/report.md")
ENVIRONMENT = "job/environment.json"
VERSIONS = "versions.json"
_LIBRARIES = ("boto3", "botocore", "kubernetes", "hyperscan", "PyYAML")
_OWN_ITEMS = (SUMMARY, *REPORTS, ENVIRONMENT, VERSIONS)


@dataclass(frozen=True)
class EscalationOptions:
    path: str
    obfuscate: bool = False
    redact: bool = True
    argv: Sequence[str] = ()
    inputs: Sequence[str] = ()  # what the run reads: never a bundle's target


@dataclass(frozen=True)
class SavedBundle:
    path: Path
    mapping_path: Path | None
    redacted: dict[str, int]


def mapping_path_for(bundle: str) -> Path:
    """Where the obfuscation mapping goes: beside the bundle, never inside it."""
    return Path(bundle.rstrip("/") + ".mapping.json")


def check_target(options: EscalationOptions) -> None:
    """Refuse before any work is done if the bundle (or its mapping file) already exists."""
    try:
        refuse_existing(options.path, "bundle", tuple(options.inputs))
        mapping = mapping_path_for(options.path)
        if options.obfuscate:
            refuse_existing(str(mapping), "mapping file", tuple(options.inputs))
    except TargetExists as exc:
        raise BundleError(str(exc)) from exc
    # The nearest directory that exists must be writable: say so now, not after the work.
    directory = os.path.dirname(os.path.abspath(options.path))
    while not os.path.isdir(directory) and os.path.dirname(directory) != directory:
        if os.path.lexists(directory):
            raise BundleError(f"cannot create {options.path}: {directory} is not a directory")
        directory = os.path.dirname(directory)
    if not os.access(directory, os.W_OK | os.X_OK):
        raise BundleError(f"cannot create {options.path}: {directory} is not writable")


def tool_versions() -> dict[str, str]:
    versions = {
        "hyperpod-nccl": __version__,
        "python": platform.python_version(),
        "platform": platform.platform(terse=True),
    }
    for name in _LIBRARIES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return versions


def read_job_facts(snapshot: Snapshot) -> JobFacts:
    """Environment, versions and time span from every text item (logs above all)."""
    facts = JobFacts()
    for name in snapshot.collected():
        record = snapshot.items[name]
        path = snapshot.path_of(name)
        if record.kind != "text" or path is None or name in _OWN_ITEMS:
            continue
        with open(path, "rb") as stream:
            facts.read_stream(record.source or name, stream)
    return facts


def save_escalation_bundle(
    report: Report, snapshot: Snapshot, options: EscalationOptions
) -> SavedBundle:
    """Add the reports, facts and summary to `snapshot`, then save it scrubbed."""
    check_target(options)
    facts = read_job_facts(snapshot)
    redactor = Redactor() if options.redact else None
    environment = snapshot.get_json(ENVIRONMENT) or facts.environment
    if redactor is not None:
        # Values are keys in this table ({NAME: {VALUE: [where]}}); the summary shows them
        # in a Markdown table, which no text rule reads as NAME=VALUE: redact them here.
        environment = redactor.json(environment)
    versions: dict[str, Any] = {k: {v: ["this tool"]} for k, v in tool_versions().items()}
    versions.update(snapshot.get_json(VERSIONS) or {})
    versions.update(facts.versions)
    meta = snapshot.meta
    argv = list(options.argv or sys.argv)
    # The program's own path can name the user's home directory; its name says enough.
    meta["command_line"] = Redactor().argv(["hyperpod-nccl", *argv[1:]])
    if "window" not in meta:
        # A live run's own window (`--since`), else the time span its logs cover.
        start, end = meta.get("window_start"), meta.get("window_end")
        meta["window"] = {"start": start, "end": end, "zone": "UTC"} if start else facts.window()
    if facts.cluster_arns:
        meta["cluster_arns_in_logs"] = facts.cluster_arns
    meta["scrubbing"] = {"secrets_redacted": options.redact, "obfuscated": options.obfuscate}

    snapshot.put_text(REPORTS[0], render_text(report, color=False), source="hyperpod-nccl")
    # As JSON data, so that redaction goes string by string and the JSON stays valid.
    snapshot.put_json(REPORTS[1], report.to_dict(), source="hyperpod-nccl")
    snapshot.put_text(REPORTS[2], render_markdown(report), source="hyperpod-nccl")
    snapshot.put_json(ENVIRONMENT, environment, source="the job's logs")
    snapshot.put_json(VERSIONS, versions, source="this tool and the job's logs")
    summary = render_summary(
        report.to_dict(), meta, environment, versions, snapshot.manifest()["items"]
    )
    snapshot.put_text(SUMMARY, summary, source="hyperpod-nccl")

    obfuscator = _learned_obfuscator(snapshot, report) if options.obfuscate else None
    scrub = Scrubber(redactor=redactor, obfuscator=obfuscator)
    path = snapshot.save(options.path, scrub)
    mapping_path = None
    if obfuscator is not None:
        mapping_path = mapping_path_for(options.path)
        _write_private(mapping_path, json.dumps(obfuscator.mapping(), indent=1, sort_keys=True))
    counts = dict(scrub.redactor.counts) if scrub.redactor is not None else {}
    return SavedBundle(path, mapping_path, counts)


def _learned_obfuscator(snapshot: Snapshot, report: Report) -> Obfuscator:
    """An Obfuscator that has read everything the bundle will hold, so that an identifier is
    replaced everywhere even where its context alone would not give it away."""
    obfuscator = Obfuscator()
    for host in sorted({h for f in report.findings for h in f.hosts}):
        obfuscator.learn_host(host)
    local = socket.gethostname()
    if local:
        obfuscator.learn_host(local)
    obfuscator.learn(json.dumps(snapshot.meta, default=str))
    for name in snapshot.names():
        obfuscator.learn(name)
        record = snapshot.items[name]
        obfuscator.learn(f"{record.source or ''} {record.reason or ''}")
        path = snapshot.path_of(name)
        if path is None:
            continue
        with open(path, "rb") as stream:
            for chunk in line_chunks(stream, 4 << 20):
                obfuscator.learn_bytes(chunk)
    return obfuscator


def _write_private(path: Path, text: str) -> None:
    """Create `path` readable and writable by its owner only; never overwrite."""
    with create_new(str(path), 0o600) as out:
        out.write(text.encode("utf-8"))


Notify = Callable[[str], None]


def save_requested_bundle(
    report: Report, snapshot: Snapshot, options: EscalationOptions, notify: Notify | None = None
) -> None:
    """Write the escalation bundle a run asked for and tell `notify` (one line for a person)
    where, with a warning first when it keeps secrets. A bundle that cannot be written raises
    InputError (exit 1)."""
    tell = notify or (lambda line: None)
    if not options.redact:
        tell(
            "hyperpod-nccl: WARNING: --no-redact: the bundle keeps every secret it read "
            "(keys, tokens, passwords). Do not share it."
        )
    try:
        saved = save_escalation_bundle(report, snapshot, options)
    except (BundleError, OSError) as exc:
        raise InputError(f"cannot save the bundle: {exc}") from exc
    redacted = sum(saved.redacted.values())
    line = f"hyperpod-nccl: bundle saved to {saved.path}"
    line += f" ({redacted} secret(s) redacted)" if options.redact else " (NOT redacted)"
    if saved.mapping_path is not None:
        line += f"; obfuscation mapping (keep it, do not send it) in {saved.mapping_path}"
    tell(line)


def check_save_options(
    path: str | None, *, obfuscate: bool, redact: bool, inputs: Sequence[str] = ()
) -> None:
    """Refuse, before any work, bundle options that cannot be honoured (UsageError, exit 2):
    --obfuscate without a target, an archive type we do not write, a target that
    exists, is a link or is one of the inputs."""
    if path is None:
        # --no-redact also shows secrets in the printed report, so it stands alone.
        if obfuscate:
            raise UsageError("--obfuscate: bundle options only apply with --save-bundle PATH")
        return
    if path.endswith((".tar", ".zip", ".gz", ".bz2", ".xz", ".zst", ".7z")) and not path.endswith(
        (".tar.gz", ".tgz")
    ):
        raise UsageError(f"--save-bundle {path}: write PATH.tar.gz, or a directory")
    try:
        check_target(EscalationOptions(path, obfuscate=obfuscate, inputs=list(inputs)))
    except BundleError as exc:
        raise UsageError(f"--save-bundle: {exc}") from exc
