"""The Snapshot: everything a run collected, and what it could not collect and why.

Collectors only write into a Snapshot; checks only read one. A Snapshot saved to disk is a
*bundle*: a directory or a .tar.gz holding `manifest.json` and the collected items (JSON
documents and text files) under their names, e.g. `aws/sagemaker/describe_cluster.json`
or `k8s/logs/default/train-worker-0/main.log`. Replaying a bundle runs the same checks with
no network.

Items are spooled to a private temporary directory as they arrive, so memory does not grow
with the amount collected.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tarfile
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path, PurePosixPath
from typing import Any

from hyperpod_nccl import __version__

MANIFEST = "manifest.json"
BUNDLE_SCHEMA = "hyperpod-nccl/bundle/v1"
# Limits enforced when reading a bundle someone handed us.
MAX_MEMBER_BYTES = 512 * 1024 * 1024
MAX_TOTAL_BYTES = 4 * 1024 * 1024 * 1024
MAX_MEMBERS = 200_000
_NAME = re.compile(r"^[A-Za-z0-9_.@:+=-]+(?:/[A-Za-z0-9_.@:+=-]+)*$")


class BundleError(Exception):
    """A bundle cannot be written or read safely; the message is one line."""


@dataclass
class ItemRecord:
    """One thing a collector tried to get."""

    name: str
    status: str  # collected | missing
    source: str = ""
    reason: str | None = None
    kind: str = "json"  # json | text
    bytes: int = 0
    collected_at: str = ""


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _check_name(name: str) -> str:
    if not _NAME.match(name) or any(part in (".", "..") for part in name.split("/")):
        raise BundleError(f"invalid item name {name!r}")
    return name


@dataclass
class Snapshot:
    """Collected state. `meta` holds the run's context: command, cluster, region, window..."""

    meta: dict[str, Any] = field(default_factory=dict)
    items: dict[str, ItemRecord] = field(default_factory=dict)
    _root: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="hpn-snapshot-")))
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def __post_init__(self) -> None:
        self.meta.setdefault("schema", BUNDLE_SCHEMA)
        self.meta.setdefault("tool_version", __version__)
        self.meta.setdefault("created_at", _now())

    # ------------------------------------------------------------------ writing (collectors)
    def put_json(self, name: str, data: Any, source: str = "") -> None:
        text = json.dumps(data, indent=1, sort_keys=True, default=str)
        self._write(name, text, source, "json")

    def put_text(self, name: str, text: str, source: str = "") -> None:
        self._write(name, text, source, "text")

    def missing(self, name: str, reason: str, source: str = "") -> None:
        """Record that `name` could not be collected, and why (AccessDenied, timeout, ...)."""
        _check_name(name)
        with self._lock:
            self.items[name] = ItemRecord(name, "missing", source, reason, collected_at=_now())

    def _write(self, name: str, text: str, source: str, kind: str) -> None:
        path = self._root / _check_name(name)
        path.parent.mkdir(parents=True, exist_ok=True)
        data = text.encode("utf-8", "replace")
        path.write_bytes(data)
        with self._lock:
            self.items[name] = ItemRecord(name, "collected", source, None, kind, len(data), _now())

    # ------------------------------------------------------------------ reading (checks)
    def has(self, name: str) -> bool:
        record = self.items.get(name)
        return record is not None and record.status == "collected"

    def get_json(self, name: str) -> Any | None:
        text = self.get_text(name)
        return None if text is None else json.loads(text)

    def get_text(self, name: str) -> str | None:
        if not self.has(name):
            return None
        return (self._root / name).read_text("utf-8", "replace")

    def path_of(self, name: str) -> Path | None:
        """A file path for streaming large text items (logs) without loading them."""
        return (self._root / name) if self.has(name) else None

    def why_missing(self, name: str) -> str | None:
        """Why an item is absent: the recorded reason, or 'not collected' if never tried."""
        record = self.items.get(name)
        if record is None:
            return "not collected"
        return record.reason if record.status == "missing" else None

    def names(self, prefix: str = "") -> list[str]:
        return sorted(n for n in self.items if n.startswith(prefix))

    def collected(self, prefix: str = "") -> Iterator[str]:
        return (n for n in self.names(prefix) if self.has(n))

    def manifest(self) -> dict[str, Any]:
        return {
            **self.meta,
            "items": [asdict(r) for r in sorted(self.items.values(), key=lambda r: r.name)],
        }

    # ------------------------------------------------------------------ bundles
    def save(self, path: str) -> Path:
        """Write a bundle: a .tar.gz if `path` ends so, else a directory. Never overwrites."""
        target = Path(path)
        if target.exists():
            raise BundleError(f"{path} already exists; not overwriting it")
        manifest = json.dumps(self.manifest(), indent=1, sort_keys=True)
        if path.endswith((".tar.gz", ".tgz")):
            target.parent.mkdir(parents=True, exist_ok=True)
            tmp = target.with_name(target.name + ".partial")
            with tarfile.open(tmp, "w:gz") as tar:
                _add_bytes(tar, MANIFEST, manifest.encode())
                for name in self.collected():
                    tar.add(self._root / name, arcname=name, recursive=False)
            os.replace(tmp, target)
        else:
            target.mkdir(parents=True)
            (target / MANIFEST).write_text(manifest, "utf-8")
            for name in self.collected():
                dest = target / name
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(self._root / name, dest)
        return target

    @classmethod
    def load(cls, path: str) -> Snapshot:
        """Read a bundle written by `save`, refusing unsafe archive members."""
        source = Path(path)
        if not source.exists():
            raise BundleError(f"{path}: no such bundle")
        snapshot = cls()
        if source.is_dir():
            _copy_dir_bundle(source, snapshot._root)
        else:
            _extract_tar_bundle(source, snapshot._root)
        manifest_path = snapshot._root / MANIFEST
        if not manifest_path.is_file():
            raise BundleError(f"{path}: not a hyperpod-nccl bundle (no {MANIFEST})")
        try:
            manifest = json.loads(manifest_path.read_text("utf-8"))
        except (OSError, ValueError) as exc:
            raise BundleError(f"{path}: {MANIFEST} is not valid JSON") from exc
        manifest_path.unlink()
        items = manifest.pop("items", [])
        snapshot.meta = manifest
        for raw in items:
            record = ItemRecord(**{k: raw.get(k) for k in ItemRecord.__dataclass_fields__})
            _check_name(record.name)
            if record.status == "collected" and not (snapshot._root / record.name).is_file():
                record = ItemRecord(
                    record.name,
                    "missing",
                    record.source,
                    "listed in the manifest but absent from the bundle",
                )
            snapshot.items[record.name] = record
        return snapshot

    def close(self) -> None:
        shutil.rmtree(self._root, ignore_errors=True)


def _add_bytes(tar: tarfile.TarFile, name: str, data: bytes) -> None:
    import io

    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mtime = int(datetime.now(timezone.utc).timestamp())
    tar.addfile(info, io.BytesIO(data))


def _safe_member_name(name: str) -> str:
    pure = PurePosixPath(name)
    if pure.is_absolute() or ".." in pure.parts or name.startswith("/"):
        raise BundleError(f"refusing archive member with an unsafe path: {name!r}")
    return str(pure)


def _extract_tar_bundle(source: Path, root: Path) -> None:
    total = 0
    count = 0
    try:
        with tarfile.open(source, "r:*") as tar:
            for member in tar:
                count += 1
                if count > MAX_MEMBERS:
                    raise BundleError(f"{source}: more than {MAX_MEMBERS} members; refusing")
                name = _safe_member_name(member.name)
                if member.isdir():
                    continue
                if not member.isfile():
                    raise BundleError(
                        f"{source}: refusing member {name!r}: links and device files are not allowed"
                    )
                if member.size > MAX_MEMBER_BYTES:
                    raise BundleError(
                        f"{source}: member {name!r} is {member.size} bytes, over the {MAX_MEMBER_BYTES} limit"
                    )
                total += member.size
                if total > MAX_TOTAL_BYTES:
                    raise BundleError(f"{source}: bundle is over the {MAX_TOTAL_BYTES}-byte limit")
                stream = tar.extractfile(member)
                if stream is None:
                    raise BundleError(f"{source}: cannot read member {name!r}")
                dest = root / name
                dest.parent.mkdir(parents=True, exist_ok=True)
                with open(dest, "wb") as out:
                    shutil.copyfileobj(stream, out)
    except (tarfile.TarError, EOFError, OSError) as exc:
        raise BundleError(f"{source}: not a readable .tar.gz bundle ({exc})") from exc


def _copy_dir_bundle(source: Path, root: Path) -> None:
    total = 0
    for dirpath, dirnames, filenames in os.walk(source, followlinks=False):
        for name in dirnames + filenames:
            full = Path(dirpath) / name
            if full.is_symlink():
                raise BundleError(f"{source}: refusing symbolic link {full.relative_to(source)}")
        for name in filenames:
            full = Path(dirpath) / name
            if not full.is_file():
                raise BundleError(f"{source}: refusing special file {full.relative_to(source)}")
            size = full.stat().st_size
            total += size
            if size > MAX_MEMBER_BYTES or total > MAX_TOTAL_BYTES:
                raise BundleError(f"{source}: bundle exceeds the size limits")
            dest = root / full.relative_to(source)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(full, dest)
