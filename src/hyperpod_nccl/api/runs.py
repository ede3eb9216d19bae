"""What every operation does with its inputs and its escalation bundle before and after the
work: refuse a bundle target or a missing input before anything is read, and save the bundle
once the report is out."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from hyperpod_nccl.api.requests import SaveOptions
from hyperpod_nccl.bundle.escalation import EscalationOptions, check_save_options
from hyperpod_nccl.checks.selection import Selection
from hyperpod_nccl.exit_codes import InputError
from hyperpod_nccl.model import NotChecked, Report

Notify = Callable[[str], None]  # a line for the person running it (the CLI: standard error)
Deliver = Callable[[Report], None]  # the report, as soon as it is ready


def quiet(line: str) -> None:
    """The default Notify: programmatic callers read the Report, not these lines."""


class NothingRead(InputError):
    """The run read none of its inputs (or found nothing it analyses in them): exit 1 after
    the report (which says why) was delivered and any bundle saved."""

    def __init__(self, message: str, report: Report) -> None:
        super().__init__(message)
        self.report = report


NONE_READ = "none of the inputs could be read"


def inputs_of(paths: Sequence[str], bundle: str | None) -> list[str]:
    return [*paths, *([bundle] if bundle else [])]


def check_save(request: SaveOptions, inputs: Sequence[str]) -> None:
    """Refuse, before any work, bundle options that cannot be honoured (UsageError, exit 2)."""
    check_save_options(
        request.save_bundle,
        obfuscate=request.obfuscate,
        redact=request.redact,
        inputs=list(inputs),
    )


def escalation(request: SaveOptions, argv: Sequence[str] | None = None) -> EscalationOptions | None:
    """The bundle to write, or None when the request asks for none."""
    if request.save_bundle is None:
        return None
    return EscalationOptions(
        request.save_bundle,
        obfuscate=request.obfuscate,
        redact=request.redact,
        argv=list(argv if argv is not None else request.argv),
    )


def check_inputs_exist(command: str, inputs: Sequence[str], *, redact: bool) -> None:
    """A path that is not there (a typo) is one line naming it and exit 1, before any
    analysis: a report of the other inputs would read as if the typo'd one was fine.
    Paths that exist but cannot be read in full are reported with the findings instead.
    Called after the operation's own usage checks, before any work."""
    missing = [str(p) for p in inputs if str(p) != "-" and not os.path.lexists(str(p))]
    if missing:
        from hyperpod_nccl.report.display import display_line

        names = display_line(", ".join(missing), redact=redact)
        raise InputError(f"{command}: no such file or directory: {names}")


R = TypeVar("R")


def build(kind: type[R], request: R | None, fields: dict[str, Any]) -> R:
    """The request an operation was called with: the object, or its fields as keywords
    (`api.diagnose(bundle=PATH)`), not both. An unknown field is a TypeError, as for any call."""
    if request is None:
        return kind(**fields)
    if fields:
        raise TypeError(f"give a {kind.__name__} or its fields, not both")
    return request


def left_out(selection: Selection, areas: Sequence[str]) -> list[NotChecked]:
    """The checks of these areas that --check/--skip left out, as one not-checked entry."""
    from hyperpod_nccl.checks import load_checks

    in_scope = [s for s in load_checks().values() if s.area in areas]
    names = selection.left_out(in_scope)
    if not names:
        return []
    listed = ", ".join(names[:12]) + (" ..." if len(names) > 12 else "")
    return [NotChecked("--check/--skip", f"{len(names)} check(s) not run as asked: {listed}")]
