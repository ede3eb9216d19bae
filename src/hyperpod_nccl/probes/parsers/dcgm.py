"""DCGM: `dcgmi diag` result tables (old and DCGM 4 per-GPU formats) and `dcgmi health -c`."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_ROW = re.compile(r"^\|\s*(?P<name>[^|]*?)\s*\|\s*(?P<value>[^|]*?)\s*\|?\s*$")
_SECTION = re.compile(r"^[|+]-+\s+(?P<name>[A-Za-z ]+?)\s+-+")
_RESULT_WORDS = ("Pass", "Fail", "Warn", "Skip", "Error", "Failure", "Healthy", "Warning")


@dataclass
class DcgmRow:
    section: str
    name: str
    result: str  # Pass | Fail | Warn | Skip | Error | Info | Warning | ...
    detail: str = ""

    @property
    def failed(self) -> bool:
        return self.result.lower() in ("fail", "error", "failure")


@dataclass
class DcgmReport:
    rows: list[DcgmRow] = field(default_factory=list)
    overall: str | None = None  # `dcgmi health -c`: Healthy | Warning | Failure
    version: str | None = None
    error: str | None = None

    @property
    def failures(self) -> list[DcgmRow]:
        return [r for r in self.rows if r.failed]


def _result_of(value: str) -> str | None:
    for word in _RESULT_WORDS:
        if value == word or value.startswith(word + " ") or value.startswith(word + " -"):
            return word
    m = re.match(r"GPU\d+:\s*(\w+)", value)
    return m.group(1) if m else None


def parse_dcgmi(text: str) -> DcgmReport:
    """Rows of a `dcgmi diag` or `dcgmi health -c` table. A continuation row (empty name column)
    adds its text to the row above; `Error`/`Warning`/`Info` rows carry the message as detail."""
    report = DcgmReport()
    section = ""
    last: DcgmRow | None = None
    for raw in text.splitlines():
        line = raw.rstrip()
        if re.search(
            r"^Error: |Unable to (connect|establish)|is not running|Health monitor is not", line
        ):
            report.error = report.error or line.strip()
        sec = _SECTION.match(line)
        if sec:
            section = sec.group("name").strip()
            last = None
            continue
        m = _ROW.match(line)
        if not m or set(line) <= set("+-=| "):
            continue
        name, value = m.group("name"), m.group("value")
        if name in ("Diagnostic", "Health Monitor Report"):
            continue
        if name == "DCGM Version":
            report.version = value
            continue
        if name == "Overall Health":
            report.overall = value
            continue
        if not name:
            if last is not None:
                sub = _result_of(value)
                if sub and sub.lower() in ("fail", "error"):
                    # "Pass - GPU: 1" then "Fail - GPU: 0"; DCGM 4: "GPU3: Fail" under a summary
                    last.result = sub
                last.detail = (last.detail + " " + value).strip()
            continue
        name = name.lstrip("-> ").strip()
        result = _result_of(value)
        if name in ("Error", "Warning", "Info"):
            last = DcgmRow(section, name, name, value)
        elif result is not None:
            rest = value[len(result) :].strip(" -")
            last = DcgmRow(section, name, result, rest)
        else:
            last = DcgmRow(section, name, "Info", value)
        report.rows.append(last)
    return report
