"""The gzip stream a .tar.gz bundle is written through.

ISA-L's deflate (the `isal` package's igzip, where it has wheels) writes the same standard
gzip. On the 64 MB mixed log of benchmarks/bundle_throughput.py (one core, in-process) its
level 1 compressed at about 1 GB/s, zlib's level 1 at 270 MB/s and level 6 (the level used
before) at 86 MB/s; the file came out 9.3 times smaller at zlib 6, 7.8 at ISA-L 1 and 7.3 at
zlib 1. So bundles are written with ISA-L at level 1, or zlib at level 1 where it is not
installed; either way `tar xzf` and `Snapshot.load` read them.
"""

from __future__ import annotations

import gzip
from typing import IO, Any, cast

_igzip: Any
try:
    from isal import igzip as _isal_igzip

    _igzip = _isal_igzip
except ImportError:  # pragma: no cover - exercised where isal has no wheel
    _igzip = None

LEVEL = 1  # the fastest level of both that still compresses logs well (ISA-L: 0 is weaker)


def available() -> bool:
    """Whether ISA-L's gzip writer is installed."""
    return _igzip is not None


def gzip_writer(raw: IO[bytes], use_isal: bool | None = None) -> IO[bytes]:
    """A gzip stream writing into `raw` (closing it does not close `raw`). `use_isal`: None
    for ISA-L where installed, False for zlib."""
    if _igzip is not None and use_isal is not False:
        stream: IO[bytes] = _igzip.IGzipFile(fileobj=raw, mode="wb", compresslevel=LEVEL)
        return stream
    return cast(IO[bytes], gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=LEVEL))
