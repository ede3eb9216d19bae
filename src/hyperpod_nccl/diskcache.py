"""Where the tool keeps what it can rebuild at some cost: the compiled Hyperscan database,
the parsed catalog and code registry, and a stamp saying a catalog text was fully checked.
Losing the cache only costs time; a cache that cannot be written (a read-only home) is no
error."""

from __future__ import annotations

import hashlib
import importlib.util
import marshal
import os
import sys
from pathlib import Path
from typing import Any


def cache_file(name: str, base: Path | None = None) -> Path:
    """`name` in our cache folder under `base`, by default the user's cache directory."""
    root = base or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return root / "hyperpod-nccl" / name


def store(path: Path, data: bytes) -> None:
    """Write `data` to `path` whole or not at all (a concurrent run reads either the old file
    or the new one); a failure is ignored."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_bytes(data)
        os.replace(tmp, path)
    except OSError:
        pass


def load_yaml(text: str, cached: bool = False) -> Any:
    """YAML's safe load of `text` (with libyaml's loader when present). With `cached`, from
    the user cache when this same text was loaded before: the shipped catalog and code
    registry load on every run, and parsing them (and importing the parser) costs a run more
    than scanning 10 MB. The key covers the text, the Python (marshal's format) and the YAML
    parser installed."""
    path = cache_file(f"yaml-{_yaml_key(text)}.marshal") if cached else None
    if path is not None:
        try:
            return marshal.loads(path.read_bytes())
        except (OSError, ValueError, EOFError, TypeError):
            pass  # not cached yet, or damaged: parse
    import yaml  # here: a cached run never needs it

    data = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    if path is not None:
        try:
            blob = marshal.dumps(data)
        except ValueError:  # a value marshal cannot hold (a date): parsed again next time
            return data
        store(path, blob)
    return data


def _yaml_key(text: str) -> str:
    digest = hashlib.sha256(text.encode())
    digest.update(sys.version.encode())
    spec = importlib.util.find_spec("yaml")  # finds the package without importing it
    origin = spec.origin if spec is not None and spec.origin else ""
    try:
        digest.update(f"{origin}:{os.stat(origin).st_mtime_ns}".encode())
    except OSError:
        digest.update(origin.encode())
    return digest.hexdigest()[:32]
