"""Errors as MCP tool errors: one line for the agent, never a traceback.

The tools raise `AnticipatedError` (or let the api's UsageError/InputError through) for
inputs the user can fix; `one_line` turns any of them into the single line the agent sees.
"""

from __future__ import annotations

from pydantic import ValidationError

from hyperpod_nccl.exit_codes import InputError, UsageError
from hyperpod_nccl.kb import KnowledgeBaseError
from hyperpod_nccl.snapshot import BundleError


class AnticipatedError(Exception):
    """Bad input or nothing usable to analyse: the message says what to change."""


# What the api raises for input the user can fix; anything else is a bug and is logged
# with its traceback on the server's standard error.
ANTICIPATED: tuple[type[BaseException], ...] = (
    AnticipatedError,
    UsageError,
    InputError,
    BundleError,
    KnowledgeBaseError,
    OSError,
)


def one_line(text: str) -> str:
    """The first non-empty line of a message, stripped."""
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return text.strip() or "error"


def describe(exc: BaseException) -> str:
    """A one-line message for an anticipated exception."""
    if isinstance(exc, OSError) and exc.strerror:
        where = f"{exc.filename}: " if exc.filename else ""
        return f"{where}{exc.strerror}"
    return one_line(str(exc))


def describe_invalid_arguments(exc: ValidationError) -> str:
    """`invalid arguments: region: Input should be a valid string; ...` on one line."""
    parts = []
    for error in exc.errors():
        where = ".".join(str(part) for part in error["loc"]) or "arguments"
        parts.append(f"{where}: {one_line(str(error['msg']))}")
    return "invalid arguments: " + "; ".join(parts)
