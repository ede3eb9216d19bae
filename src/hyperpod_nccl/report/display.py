"""What a report looks like when it is shown: secrets redacted (unless --no-redact) and, for
terminal formats, the control sequences a log may carry (an OSC window title, clear screen,
cursor moves, a carriage return that overwrites the line) removed.

Reports are analysed and saved as read; only the copy that is printed, or returned to an MCP
client, goes through here. JSON keeps the text as it is apart from secrets (its encoder
escapes every control character).
"""

from __future__ import annotations

import copy
import dataclasses
import re
from typing import Any

from hyperpod_nccl.model import Evidence, NotChecked, Report
from hyperpod_nccl.redaction import Redactor
from hyperpod_nccl.treewalk import map_strings

# ESC ] ... BEL or ST (OSC: titles, hyperlinks, clipboard); ESC [ ... final (CSI: colours,
# cursor, erase); ESC and one character; any other C0 or C1 control but tab and newline.
_CONTROL = re.compile(
    r"\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"
    r"|\x1b\[[0-?]*[ -/]*[@-~]"
    r"|\x1b[ -~]?"
    r"|[\x00-\x08\x0b-\x1f\x7f\x80-\x9f]"
)


def strip_controls(text: str) -> str:
    """`text` without terminal control sequences (tab and newline stay)."""
    return _CONTROL.sub("", text) if text else text


def for_display(report: Report, *, redact: bool = True, terminal: bool = True) -> Report:
    """A copy of `report` to print: secrets redacted, control sequences removed."""
    if not redact and not terminal:
        return report
    redactor = Redactor() if redact else None

    def text(value: str) -> str:
        if redactor is not None:
            value = redactor.text(value)
        return strip_controls(value) if terminal else value

    def controls(value: Any) -> Any:
        return map_strings(value, strip_controls, keys=True)

    def tree(value: Any) -> Any:
        """Redacted by key and by text once (Redactor.json walks it all), then cleaned."""
        if redactor is not None:
            value = redactor.json(value)
        return controls(value) if terminal else value

    shown = copy.copy(report)
    shown.findings = []
    for finding in report.findings:
        f = copy.copy(finding)
        f.title = text(finding.title)
        f.hosts = [text(h) for h in finding.hosts]
        f.first_seen = text(finding.first_seen) if finding.first_seen else finding.first_seen
        f.evidence = [Evidence(text(e.source), text(e.text)) for e in finding.evidence]
        f.suggested_commands = [
            dataclasses.replace(
                c,
                purpose=text(c.purpose),
                command=text(c.command),
                preconditions=text(c.preconditions),
                blast_radius=text(c.blast_radius),
                runs_on=text(c.runs_on),
            )
            for c in finding.suggested_commands
        ]
        f.details = tree(finding.details)
        shown.findings.append(f)
    shown.not_checked = [NotChecked(text(n.check), text(n.reason)) for n in report.not_checked]
    shown.summary = tree(report.summary)
    return shown


def display_line(line: str, *, redact: bool = True) -> str:
    """One line for standard error (a skipped input and why): redacted, controls removed."""
    return strip_controls(Redactor().text(line) if redact else line)
