"""`analyze_perf`: read nccl-tests results and per-rank progress evidence, return a Report.

Inputs are files, directories, .gz files or `-`. Each is recognised by its content: nccl-tests
text output (any number of runs, any launcher prefixes), nccl-tests JSON, pair-sweep summary
lines, flight recorder dumps (pickle or JSON), NCCL COLL debug lines and the flight recorder
analyzer's text. What an input held, or why it was skipped, is in the report.
"""

from __future__ import annotations

import gzip
import io
import json
import time
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, BinaryIO

from hyperpod_nccl import root_cause
from hyperpod_nccl.codes import load_registry
from hyperpod_nccl.inputs import UnreadableInput, expand
from hyperpod_nccl.model import Finding, NotChecked, Priority, Report, Status
from hyperpod_nccl.perf import bandwidth, flight_recorder, nccl_json, progress, results, straggler
from hyperpod_nccl.perf.collective import infer_collective
from hyperpod_nccl.perf.evidence import reference
from hyperpod_nccl.perf.fastread import FastReader
from hyperpod_nccl.perf.model import Run
from hyperpod_nccl.perf.nccl_tests import TextParser
from hyperpod_nccl.perf.reader import Content, open_content
from hyperpod_nccl.perf.timeout import timeout_finding
from hyperpod_nccl.safeio import LimitReached
from hyperpod_nccl.suggest.complete import complete

MAX_ROWS_PER_RUN_IN_SUMMARY = 64
MAX_RUNS_IN_SUMMARY = 500


@dataclass
class PerfOptions:
    instance_type: str | None = None
    transport: str | None = None
    expected_busbw: float | None = None
    world_size: int | None = None


@dataclass
class _Inputs:
    runs: list[Run]
    collector: progress.ProgressCollector
    not_checked: list[NotChecked]
    read: int = 0
    lines: int = 0
    bytes: int = 0


def _read_text(name: str, lines: Any, state: _Inputs, stream: BinaryIO | None = None) -> list[Run]:
    """The runs in one text input. With `stream` (a plain file) it is read in chunks by
    perf/fastread.py, with the same result as reading `lines` one by one."""
    parser = TextParser(name)
    reader = FastReader(name, parser, state.collector)
    try:
        if stream is not None:
            reader.read(stream)
        else:
            reader.read_lines(lines)
    except LimitReached as exc:  # a decompression limit: the lines before it still count
        state.not_checked.append(NotChecked(name, str(exc)))
    count, size = reader.counts.lines, reader.counts.chars
    state.collector.feed_lines(name, [])  # close an analyzer block left open at the end
    state.lines += count
    state.bytes += size
    runs = parser.finish()
    skipped = parser.skipped_lines
    if skipped:
        shown = ", ".join(map(str, skipped[:8])) + (" ..." if len(skipped) > 8 else "")
        state.not_checked.append(
            NotChecked(
                name,
                f"{len(skipped)} table line(s) could not be read (truncated or mixed with other output), skipped: lines {shown}",
            )
        )
    for run in runs:
        if run.interleaved:
            state.not_checked.append(
                NotChecked(
                    run.label,
                    "result rows of several runs are interleaved without launcher labels; left out of "
                    "bandwidth comparisons (rerun with `srun --label` or `mpirun --tag-output`)",
                )
            )
    return runs


def _read_document(name: str, content: Content, state: _Inputs) -> list[Run]:
    text = content.data.decode("utf-8", errors="replace")
    state.bytes += len(content.data)
    try:
        doc = json.loads(text)
    except ValueError:
        doc = None
    if isinstance(doc, dict) and nccl_json.is_nccl_tests_json(doc):
        return [nccl_json.run_from_document(name, doc)]
    if isinstance(doc, dict) and flight_recorder.is_dump(doc):
        progress.read_into(state.collector, name, content)
        return []
    if doc is None:
        partial = nccl_json.run_from_partial(name, text)
        if partial is not None:
            state.not_checked.append(
                NotChecked(
                    name, "the nccl-tests JSON document is cut short; read the rows before the end"
                )
            )
            return [partial]
        if progress.read_into(state.collector, name, content):
            return []
    return _read_text(name, io.StringIO(text), state)


def _read_all(paths: Sequence[str]) -> _Inputs:
    inputs, not_checked = expand(paths)
    state = _Inputs([], progress.ProgressCollector(), not_checked)
    for item in inputs:
        before_runs = len(state.runs)
        before_sources = len(state.collector.sources)
        try:
            with open_content(item) as content:
                if content.kind == "pickle":
                    progress.read_into(state.collector, item.name, content)
                    state.bytes += len(content.data)
                elif content.kind == "json":
                    state.runs.extend(_read_document(item.name, content, state))
                else:
                    state.runs.extend(
                        _read_text(item.name, content.lines or [], state, content.stream)
                    )
            state.read += 1
        except UnreadableInput as exc:
            state.not_checked.append(NotChecked(item.name, str(exc)))
            continue
        except (EOFError, gzip.BadGzipFile, zlib.error) as exc:
            state.read += 1
            state.not_checked.append(
                NotChecked(
                    item.name,
                    f"gzip data is truncated or corrupt ({exc}); read the part before the damage",
                )
            )
        except OSError as exc:
            state.not_checked.append(NotChecked(item.name, exc.strerror or str(exc)))
            continue
        if len(state.runs) == before_runs and len(state.collector.sources) == before_sources:
            state.not_checked.append(
                NotChecked(
                    item.name,
                    "no nccl-tests output, flight recorder dump or NCCL COLL lines found; skipped",
                )
            )
    for run in state.runs:
        infer_collective(run, run.source)
    return state


def _run_summary(run: Run) -> dict[str, Any]:
    rows = run.rows[-MAX_ROWS_PER_RUN_IN_SUMMARY:]
    return {
        "label": run.label,
        "source": run.source,
        "collective": run.collective,
        "collective_from": run.collective_from,
        "hosts": run.hosts,
        "world_size": run.world_size,
        "gpus": run.gpu_models,
        "status": run.status.value,
        "nccl_version": run.nccl_version,
        "transports": sorted(run.transports),
        "peak_large_busbw": run.peak_large_busbw(),
        "avg_busbw": run.avg_busbw,
        "summary_busbw": run.summary_busbw,
        "rows": [
            [
                r.size,
                r.out_of_place.busbw if r.out_of_place else None,
                r.in_place.busbw if r.in_place else None,
                r.wrong,
            ]
            for r in rows
        ],
    }


def analyze_perf(paths: Sequence[str], options: PerfOptions | None = None) -> Report:
    """Analyse nccl-tests results and per-rank progress evidence in the given inputs."""
    options = options or PerfOptions()
    started = time.perf_counter()
    state = _read_all(paths) if paths else _Inputs([], progress.ProgressCollector(), [])
    runs = state.runs
    findings: list[Finding] = []
    tables = [r for r in runs if r.summary_busbw is None]  # summary lines carry no run status
    findings += results.test_failed(tables)
    findings += results.wrong_results(tables)
    findings += bandwidth.low_busbw(
        runs, bandwidth.Options(options.instance_type, options.transport, options.expected_busbw)
    )
    cohorts, left_out = straggler.analyse(runs)
    if runs:
        findings += straggler.straggler_findings(cohorts, left_out)
    lagging = state.collector.result()
    findings += lagging.findings
    if options.world_size:
        findings.append(timeout_finding(options.world_size))
    if paths and not runs and not lagging.members and not lagging.findings:
        findings.append(
            Finding(
                code="INPUT_UNREADABLE",
                status=Status.INCOMPLETE,
                priority=Priority.P2,
                title=(
                    f"none of the {len(state.not_checked) or 'given'} input(s) holds nccl-tests output, a "
                    "flight recorder dump or NCCL COLL debug lines; nothing was analysed"
                ),
                reference=reference("INPUT_UNREADABLE"),
                details={"inputs": [n.to_dict() for n in state.not_checked[:100]]},
            )
        )
    root_cause.rank(findings)
    summary: dict[str, Any] = {
        "inputs_read": state.read,
        "lines": state.lines,
        "bytes": state.bytes,
        "runs_found": len(runs),
        "runs": [_run_summary(r) for r in runs[:MAX_RUNS_IN_SUMMARY]],
        "nodes": [n.to_dict() for c in cohorts for n in c.nodes.values()],
        "cohorts": [
            {
                "key": c.key,
                "peers_busbw": c.reference,
                "slow_below_busbw": c.threshold,
                "skipped": c.skipped,
            }
            for c in cohorts
        ],
        "progress": [m.to_dict() for m in lagging.members],
        "elapsed_s": round(time.perf_counter() - started, 3),
    }
    complete(findings, load_registry())
    return Report(
        command="perf",
        findings=findings,
        not_checked=state.not_checked + lagging.not_checked,
        summary=summary,
    )
