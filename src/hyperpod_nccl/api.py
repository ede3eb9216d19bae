"""The operations as plain functions returning a Report; the CLI and the MCP server are thin
faces over these."""

from __future__ import annotations

import gzip
import time
import zlib
from collections.abc import Sequence

from hyperpod_nccl.inputs import UnreadableInput, expand, open_stream
from hyperpod_nccl.model import Finding, NotChecked, Priority, Report, Status
from hyperpod_nccl.rules.analyzer import LogAnalyzer
from hyperpod_nccl.rules.catalog import load_catalog
from hyperpod_nccl.rules.diagnosis import diagnose


def analyze_logs(paths: Sequence[str], *, backend: str = "auto") -> Report:
    """Analyse log files, directories, .gz files or `-` (stdin) and name the root cause."""
    started = time.perf_counter()
    catalog = load_catalog()
    inputs, not_checked = expand(paths)
    analyzer = LogAnalyzer(catalog, backend)
    read = 0
    partial: list[str] = []
    for item in inputs:
        try:
            with open_stream(item) as stream:
                analyzer.scan(item.name, stream)
            read += 1
        except UnreadableInput as exc:
            not_checked.append(NotChecked(item.name, str(exc)))
        except (EOFError, gzip.BadGzipFile, zlib.error) as exc:
            # A truncated or corrupt .gz: what was decompressed before the damage still counts.
            read += 1
            partial.append(item.name)
            not_checked.append(
                NotChecked(
                    item.name,
                    f"gzip data is truncated or corrupt ({exc}); analysed the part before the damage",
                )
            )
        except OSError as exc:
            not_checked.append(NotChecked(item.name, exc.strerror or str(exc)))
    findings = diagnose(analyzer.result, catalog)
    sources = analyzer.result.sources
    summary = {
        "inputs": len(inputs),
        "inputs_read": read,
        "bytes": sum(s.bytes for s in sources),
        "lines": sum(s.lines for s in sources),
        "matched_lines": sum(s.matched_lines for s in sources),
        "engine": analyzer.prefilter.name,
        "elapsed_s": round(time.perf_counter() - started, 3),
    }
    if not_checked:
        findings.append(
            Finding(
                code="INPUT_UNREADABLE",
                status=Status.INCOMPLETE,
                priority=Priority.P2,
                title=f"{len(not_checked)} input(s) could not be read in full; findings may be missing",
                reference="debugging-guide.md#input-unreadable",
                details={"inputs": [n.to_dict() for n in not_checked[:100]]},
            )
        )
    if not any(f.status is Status.FAIL for f in findings) and read:
        findings.append(
            Finding(
                code="NO_FAILURE_SIGNATURE",
                status=Status.PASS if not not_checked else Status.INFO,
                priority=Priority.P2,
                title=f"no failure signature in {summary['lines']:,} lines from {read} input(s)",
                reference="debugging-guide.md#no-failure-signature",
            )
        )
    return Report(command="logs", findings=findings, not_checked=not_checked, summary=summary)
