"""systemd-logind's RemoveIPC setting, resolved the way logind resolves its configuration.

logind reads its main file, then every `*.conf` drop-in of the logind.conf.d directories in
/etc, /run, /usr/local/lib and /usr/lib, sorted by file name (a name in /etc hides the same name
further down the list); a later setting overrides an earlier one. RemoveIPC defaults to yes.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath

# Main-file locations and drop-in directories, highest priority first.
MAIN_FILES = (
    "/etc/systemd/logind.conf",
    "/run/systemd/logind.conf",
    "/usr/local/lib/systemd/logind.conf",
    "/usr/lib/systemd/logind.conf",
)
DROPIN_DIRS = (
    "/etc/systemd/logind.conf.d",
    "/run/systemd/logind.conf.d",
    "/usr/local/lib/systemd/logind.conf.d",
    "/usr/lib/systemd/logind.conf.d",
)

_TRUE = {"1", "yes", "y", "true", "t", "on"}
_FALSE = {"0", "no", "n", "false", "f", "off"}
_SETTING = re.compile(r"^\s*RemoveIPC\s*=\s*(\S*)\s*$")


@dataclass(frozen=True)
class RemoveIpc:
    enabled: bool  # the effective value
    source: str | None  # the file and line that set it, None when it is the default
    text: str = ""


def remove_ipc(files: Mapping[str, str]) -> RemoveIpc:
    """The effective RemoveIPC from the files read (path -> content)."""
    result = RemoveIpc(True, None)
    for path in _read_order(files):
        section = ""
        for number, line in enumerate(files[path].splitlines(), 1):
            stripped = line.strip()
            if stripped.startswith("[") and stripped.endswith("]"):
                section = stripped[1:-1].strip()
                continue
            if section != "Login" or stripped.startswith(("#", ";")):
                continue
            match = _SETTING.match(stripped)
            if match and match.group(1).lower() in _TRUE | _FALSE:
                value = match.group(1).lower() in _TRUE
                result = RemoveIpc(value, f"{path}:{number}", stripped)
    return result


def _read_order(files: Mapping[str, str]) -> list[str]:
    main = next((p for p in MAIN_FILES if p in files), None)
    dropins: dict[str, str] = {}
    for directory in reversed(DROPIN_DIRS):  # lowest priority first, so /etc wins by overwrite
        for path in files:
            pure = PurePosixPath(path)
            if str(pure.parent) == directory and pure.suffix == ".conf":
                dropins[pure.name] = path
    return ([main] if main else []) + [dropins[name] for name in sorted(dropins)]
