"""Where the tool keeps what it can rebuild at some cost: the compiled Hyperscan database,
and a stamp saying a catalog text was fully checked. Losing the cache only costs time; a
cache that cannot be written (a read-only home) is no error."""

from __future__ import annotations

import os
from pathlib import Path


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
