"""The example inputs shipped with the package, so the commands the help and README show first
work from any install, not only from a checkout: `diagnose --example NAME` replays
`bundles/NAME`, `logs --example NAME` analyses `logs/NAME/`.

The bundles are rebuilt with `python scripts/build_example_bundles.py` (from a checkout).
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from hyperpod_nccl.exit_codes import UsageError

KINDS = ("bundles", "logs")


def _root() -> Path:
    # A regular (or editable) install keeps package data as files, which the scan and the
    # bundle reader open by path; a zipped install is not supported.
    return Path(str(resources.files(__name__)))


def names(kind: str) -> list[str]:
    """The examples of one kind ("bundles" or "logs"), sorted."""
    folder = _root() / kind
    if not folder.is_dir():
        return []
    return sorted(p.name for p in folder.iterdir() if p.is_dir() and not p.name.startswith("."))


def example_path(kind: str, name: str) -> str:
    """The path of example NAME of KIND; a name that is not one is a usage error listing
    the names there are."""
    known = names(kind)
    if name not in known:
        raise UsageError(f"no example {name!r}; examples: {', '.join(known) or 'none installed'}")
    return str(_root() / kind / name)
