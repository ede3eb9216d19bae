"""What the analysis tools read: paths the agent names, and text it pastes.

Pasted text goes to a file in a private temporary directory (0700, file 0600) for the
duration of the call, so it is analysed exactly as a file would be. The file takes the name
the agent gives (the analyses read ranks, hosts and collectives from names such as
`rank3.log`), and the report calls the directory `<pasted>`: `<pasted>/rank3.log:12`.
Standard input is the MCP channel itself, so `-` is refused.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from hyperpod_nccl.mcp_server.errors import AnticipatedError

PASTED_LABEL = "<pasted>"
PASTED_FILE = "pasted.log"
MAX_NAME = 255  # NAME_MAX on Linux
# Far above any log an agent pastes, low enough that a runaway paste cannot fill /tmp.
MAX_PASTED_BYTES = 64 * 1024 * 1024


def checked_paths(paths: Sequence[str]) -> list[str]:
    """The paths as the api wants them: `~` expanded; `-` and empty names refused."""
    checked = []
    for given in paths:
        if not given.strip():
            raise AnticipatedError("an empty path was given")
        if given.strip() == "-":
            raise AnticipatedError(
                "'-' (standard input) is the MCP channel here; pass the log text in 'text' instead"
            )
        checked.append(os.path.expanduser(given))
    return checked


def checked_name(name: str | None) -> str:
    """The file name for pasted text: a plain name, no directories."""
    if name is None:
        return PASTED_FILE
    if not name or name in (".", "..") or "/" in name or "\0" in name or len(name) > MAX_NAME:
        raise AnticipatedError(f"text_name {name!r} is not a plain file name (such as rank3.log)")
    return name


@contextmanager
def with_pasted_text(
    paths: Sequence[str], text: str | None, name: str | None = None
) -> Iterator[tuple[list[str], str]]:
    """Yield the inputs to analyse (the paths, then the pasted text's file when text is
    given) and the temporary directory to relabel; both are removed afterwards."""
    inputs = checked_paths(paths)
    if text is None:
        if name is not None:
            raise AnticipatedError("text_name names pasted text; give the text in 'text'")
        yield inputs, ""
        return
    filename = checked_name(name)
    data = text.encode("utf-8", errors="replace")
    if len(data) > MAX_PASTED_BYTES:
        raise AnticipatedError(
            f"pasted text is {len(data):,} bytes, over the {MAX_PASTED_BYTES:,}-byte limit; "
            "write it to a file and pass its path instead"
        )
    with tempfile.TemporaryDirectory(prefix="hyperpod-nccl-mcp-") as directory:
        path = os.path.join(directory, filename)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        yield [*inputs, path], directory


def relabel(document: Any, path: str, label: str = PASTED_LABEL) -> Any:
    """A copy of a JSON document with every occurrence of `path` in its strings replaced."""
    if not path:
        return document
    if isinstance(document, str):
        return document.replace(path, label)
    if isinstance(document, list):
        return [relabel(item, path, label) for item in document]
    if isinstance(document, dict):
        return {key: relabel(value, path, label) for key, value in document.items()}
    return document


def require_input(paths: Sequence[str], text: str | None) -> None:
    if not paths and text is None:
        raise AnticipatedError("give at least one path in 'paths', or the log text in 'text'")
