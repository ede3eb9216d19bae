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
import stat
import tarfile
import tempfile
import threading
import zlib
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path, PurePosixPath
from typing import IO, Any

from hyperpod_nccl.safeio import (
    MAX_RATIO,
    RATIO_FLOOR_BYTES,
    TargetExists,
    UnreadableInput,
    create_new,
    create_private_temp,
    file_kind,
    open_regular,
    publish,
    walk_files,
)
from hyperpod_nccl.snapshot import meta as meta_format
from hyperpod_nccl.snapshot.compress import gzip_writer
from hyperpod_nccl.snapshot.manifest import manifest_problem
from hyperpod_nccl.snapshot.meta import Meta
from hyperpod_nccl.snapshot.scrub import Scrubber

MANIFEST = "manifest.json"
BUNDLE_SCHEMA = meta_format.SCHEMA
# Limits enforced when reading a bundle someone handed us.
MAX_MEMBER_BYTES = 512 * 1024 * 1024
MAX_TOTAL_BYTES = 4 * 1024 * 1024 * 1024
MAX_MEMBERS = 200_000
MAX_MANIFEST_BYTES = 64 * 1024 * 1024
# Item names are a few levels deep (k8s/logs/<namespace>/<pod>/<container>.log); a bundle
# whose names go deeper was not written by this tool.
MAX_NAME_PARTS = 32
MAX_NAME_CHARS = 1024
_NAME = re.compile(r"^[A-Za-z0-9_.@:+=-]+(?:/[A-Za-z0-9_.@:+=-]+)*$")
_UNSAFE_CHARS = re.compile(r"[^A-Za-z0-9_.@:+=-]")


BUNDLE_RATIO_FLOOR_BYTES = 4 * RATIO_FLOOR_BYTES


@dataclass(frozen=True)
class BundleLimits:
    """How much a bundle may hold before reading it is refused (each refusal names the limit)."""

    member_bytes: int = MAX_MEMBER_BYTES
    total_bytes: int = MAX_TOTAL_BYTES
    members: int = MAX_MEMBERS
    manifest_bytes: int = MAX_MANIFEST_BYTES


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


def _name_problem(name: str) -> str | None:
    """Why `name` cannot be an item name, or None."""
    parts = name.split("/")
    if len(parts) > MAX_NAME_PARTS:
        return f"deeper than {MAX_NAME_PARTS} levels"
    if len(name) > MAX_NAME_CHARS:
        return f"longer than {MAX_NAME_CHARS} characters"
    if not _NAME.fullmatch(name) or any(part in (".", "..") for part in parts):
        return "a bundle never holds such a name"
    return None


def _check_name(name: str) -> str:
    if _name_problem(name) is not None:
        raise BundleError(f"invalid item name {_shown(name)}")
    return name


def _shown(name: str) -> str:
    """A name for a one-line message: quoted, control characters escaped, cut short."""
    return repr(name if len(name) <= 120 else name[:117] + "...")


@dataclass
class Snapshot:
    """Collected state. `meta` holds the run's context: command, cluster, region, window...
    (every key is declared in hyperpod_nccl.snapshot.meta.Meta)."""

    meta: Meta = field(default_factory=lambda: Meta())
    items: dict[str, ItemRecord] = field(default_factory=dict)
    _root: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="hpn-snapshot-")))
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def __post_init__(self) -> None:
        meta_format.fill_defaults(self.meta, _now())

    # ------------------------------------------------------------------ writing (collectors)
    def put_json(self, name: str, data: Any, source: str = "") -> None:
        text = json.dumps(data, indent=1, sort_keys=True, default=str)
        self._write(name, text, source, "json")

    def put_text(self, name: str, text: str, source: str = "") -> None:
        self._write(name, text, source, "text")

    def put_stream(self, name: str, stream: IO[bytes], source: str = "") -> None:
        """Copy a text stream (a log) as it is, in bounded memory. If reading fails part way,
        what was read is kept, recorded, and the error raised."""
        path = self._root / _check_name(name)
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            with open(path, "wb") as out:
                shutil.copyfileobj(stream, out, 1024 * 1024)
        finally:
            size = path.stat().st_size
            with self._lock:
                self.items[name] = ItemRecord(name, "collected", source, None, "text", size, _now())

    def note(self, name: str, note: str) -> None:
        """Say something about a collected item, e.g. that it is only the readable part."""
        with self._lock:
            self.items[name].reason = note

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
            **meta_format.to_manifest(self.meta),
            "items": [asdict(r) for r in sorted(self.items.values(), key=lambda r: r.name)],
        }

    # ------------------------------------------------------------------ bundles
    def save(self, path: str, scrub: Scrubber | None = None) -> Path:
        """Write a bundle: a .tar.gz if `path` ends so, else a directory. Never overwrites.

        Every item, item name and the manifest pass through `scrub` first: by default a
        Scrubber that redacts secrets (see hyperpod_nccl.redaction). The manifest records what
        the scrubbing did.
        """
        scrub = scrub if scrub is not None else Scrubber()
        target = Path(path)
        if os.path.lexists(path):
            raise BundleError(f"{path} already exists; not overwriting it")
        names = self._scrubbed_names(scrub)
        if path.endswith((".tar.gz", ".tgz")):
            target.parent.mkdir(parents=True, exist_ok=True)
            # An unpredictable name, created exclusively: an existing file (or a link) beside
            # the target is never written, followed or removed.
            fd, tmp = create_private_temp(str(target.parent), target.name)
            try:
                with (
                    os.fdopen(fd, "wb") as raw,
                    gzip_writer(raw) as gz,
                    tarfile.open(fileobj=gz, mode="w") as tar,
                ):
                    for name in self.collected():
                        with tempfile.TemporaryFile(dir=self._root) as scrubbed:
                            self._write_scrubbed(name, scrub, scrubbed)
                            info = tarfile.TarInfo(names[name])
                            info.size = scrubbed.tell()
                            info.mtime = int(datetime.now(timezone.utc).timestamp())
                            scrubbed.seek(0)
                            tar.addfile(info, scrubbed)
                    manifest = self._scrubbed_manifest(scrub, names).encode()
                    _add_bytes(tar, MANIFEST, manifest)
                _umask_mode(tmp)
                publish(tmp, path)
            except TargetExists as exc:
                raise BundleError(str(exc)) from exc
            finally:
                if os.path.lexists(tmp):
                    os.unlink(tmp)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.mkdir()  # fails on anything already there, a dangling link included
            for name in self.collected():
                dest = target / names[name]
                dest.parent.mkdir(parents=True, exist_ok=True)
                with create_new(str(dest), 0o666) as out:
                    self._write_scrubbed(name, scrub, out)
            with create_new(str(target / MANIFEST), 0o666) as out:
                out.write(self._scrubbed_manifest(scrub, names).encode("utf-8"))
        return target

    def _scrubbed_names(self, scrub: Scrubber) -> dict[str, str]:
        """Item name -> name in the bundle: scrubbed, safe, and still unique."""
        taken: set[str] = {MANIFEST}
        names: dict[str, str] = {}
        for name in self.names():
            parts = [
                _UNSAFE_CHARS.sub("_", p).strip(".") or "_" for p in scrub.name(name).split("/")
            ]
            new = "/".join(parts)
            stem, dot, ext = new.rpartition(".") if "." in parts[-1] else (new, "", "")
            n = 1
            while new in taken:
                n += 1
                new = f"{stem}-{n}{dot}{ext}"
            taken.add(new)
            names[name] = new
        return names

    def _write_scrubbed(self, name: str, scrub: Scrubber, out: IO[bytes]) -> None:
        record = self.items[name]
        if record.kind == "json":
            data = scrub.data(json.loads((self._root / name).read_text("utf-8", "replace")))
            out.write(json.dumps(data, indent=1, sort_keys=True, default=str).encode())
            return
        with open(self._root / name, "rb") as source:
            scrub.copy(source, out)

    def _scrubbed_manifest(self, scrub: Scrubber, names: dict[str, str]) -> str:
        items = []
        for record in sorted(self.items.values(), key=lambda r: r.name):
            entry = asdict(record)
            entry["name"] = names[record.name]
            entry["source"] = scrub.text(record.source or "")
            entry["reason"] = scrub.text(record.reason) if record.reason else record.reason
            items.append(entry)
        meta = scrub.data(meta_format.to_manifest(self.meta))
        # Counted last, after every item went through the scrubber.
        manifest = {**meta, "scrubbing": scrub.describe(), "items": items}
        return json.dumps(manifest, indent=1, sort_keys=True)

    @classmethod
    def load(cls, path: str, limits: BundleLimits | None = None) -> Snapshot:
        """Read a bundle written by `save`, refusing unsafe or oversized archive members.

        The whole bundle is checked before anything is extracted: every member's name, type
        and size, their number and total, how far a .tar.gz decompresses, and the manifest
        against its schema (hyperpod_nccl.snapshot.manifest). Refused, with a one-line
        BundleError naming the member or field: absolute paths, `..`, names with characters
        a bundle never writes, duplicates, symbolic and hard links, device files, FIFOs and
        sparse files, anything over `limits`, and a malformed manifest.
        """
        limits = limits or BundleLimits()
        source = Path(path)
        if not source.exists():
            raise BundleError(f"{path}: no such bundle")
        kind = file_kind(source.stat().st_mode)
        if kind not in ("regular file", "directory"):
            raise BundleError(f"{path}: not a regular file ({kind}); refusing to read it")
        if source.is_dir():
            files, manifest_data = _plan_dir_bundle(source, limits)
            manifest = _parse_manifest(path, manifest_data)
            snapshot = cls()
            try:
                _copy_dir_bundle(source, files, snapshot._root)
                snapshot._use_manifest(manifest)
            except BaseException:
                snapshot.close()
                raise
            return snapshot
        try:
            raw = open_regular(path)
        except UnreadableInput as exc:
            raise BundleError(f"{path}: {exc}") from exc
        with raw:
            _sniff_archive(source, raw)
            planned, manifest_data = _plan_tar_bundle(source, raw, limits)
            manifest = _parse_manifest(path, manifest_data)
            snapshot = cls()
            try:
                raw.seek(0)
                _extract_tar_bundle(source, raw, planned, snapshot._root)
                snapshot._use_manifest(manifest)
            except BaseException:
                snapshot.close()
                raise
        return snapshot

    def _use_manifest(self, manifest: dict[str, Any]) -> None:
        """Take the run's context and item records from a manifest already validated."""
        items = manifest.get("items") or []
        self.meta = meta_format.from_manifest(manifest)
        for raw in items:
            fields = {k: raw[k] for k in ItemRecord.__dataclass_fields__ if raw.get(k) is not None}
            record = ItemRecord(**fields)
            if record.status == "collected" and not (self._root / record.name).is_file():
                record = ItemRecord(
                    record.name,
                    "missing",
                    record.source,
                    "listed in the manifest but absent from the bundle",
                )
            self.items[record.name] = record

    def close(self) -> None:
        shutil.rmtree(self._root, ignore_errors=True)


def _umask_mode(path: str) -> None:
    """The permissions a plain `open` would have given (mkstemp makes files private)."""
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(path, 0o666 & ~umask)


def _add_bytes(tar: tarfile.TarFile, name: str, data: bytes) -> None:
    import io

    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mtime = int(datetime.now(timezone.utc).timestamp())
    tar.addfile(info, io.BytesIO(data))


def _safe_member_name(source: Path, name: str) -> str:
    pure = PurePosixPath(name)
    if name.startswith("/") or pure.is_absolute() or ".." in pure.parts or "\\" in name:
        raise BundleError(f"{source}: refusing member {_shown(name)}: its path leaves the bundle")
    clean = str(pure)
    problem = None if clean == MANIFEST else _name_problem(clean)
    if problem is not None:
        raise BundleError(f"{source}: refusing member {_shown(name)}: {problem}")
    return clean


def _member_kind(member: tarfile.TarInfo) -> str | None:
    """What makes a member unsafe to extract, or None for a plain file or directory."""
    if member.issym():
        return f"symbolic link to {member.linkname!r}"
    if member.islnk():
        return f"hard link to {member.linkname!r}"
    if member.ischr() or member.isblk():
        return "device file"
    if member.isfifo():
        return "FIFO"
    if member.issparse():
        return "sparse file"
    if not (member.isfile() or member.isdir()):
        return "special member"
    return None


@dataclass
class _Budget:
    """Counts members and bytes against the limits; refuses with the limit named."""

    source: Path
    limits: BundleLimits
    members: int = 0
    total: int = 0

    def count(self) -> None:
        self.members += 1
        if self.members > self.limits.members:
            raise BundleError(f"{self.source}: more than {self.limits.members} members; refusing")

    def ratio(self, compressed: int) -> None:
        """A .tar.gz whose members add up to far more than its own size is a bomb. The floor
        is above what a save can write from one input (an input is read up to the ratio floor
        before its own ratio counts), so a bundle this tool saved is never refused."""
        if self.total > BUNDLE_RATIO_FLOOR_BYTES and self.total > MAX_RATIO * compressed:
            raise BundleError(
                f"{self.source}: refusing the bundle: its members add up to over {MAX_RATIO} "
                f"times its {compressed}-byte size (a decompression bomb?)"
            )

    def take(self, name: str, size: int) -> None:
        if size > self.limits.member_bytes:
            raise BundleError(
                f"{self.source}: refusing member {name!r}: {size} bytes is over the "
                f"{self.limits.member_bytes}-byte limit per member"
            )
        self.total += size
        if self.total > self.limits.total_bytes:
            raise BundleError(
                f"{self.source}: refusing the bundle: its members add up to over the "
                f"{self.limits.total_bytes}-byte limit"
            )


def _parse_manifest(path: str, data: bytes | None) -> dict[str, Any]:
    """The manifest, decoded and checked against its schema; any problem is one line."""
    if data is None:
        raise BundleError(f"{path}: not a hyperpod-nccl bundle (no {MANIFEST})")
    try:
        manifest = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise BundleError(f"{path}: {MANIFEST} is not UTF-8 text") from exc
    except RecursionError as exc:
        raise BundleError(f"{path}: {MANIFEST} is nested too deeply") from exc
    except ValueError as exc:
        raise BundleError(f"{path}: {MANIFEST} is not valid JSON") from exc
    problem = manifest_problem(manifest)
    if problem is not None:
        raise BundleError(f"{path}: {MANIFEST} {problem}")
    for index, item in enumerate(manifest.get("items") or []):
        name_problem = _name_problem(item["name"])
        if name_problem is not None:
            raise BundleError(
                f"{path}: {MANIFEST} field items[{index}].name {_shown(item['name'])}: {name_problem}"
            )
    assert isinstance(manifest, dict)
    return manifest


_MAGIC = {
    b"\x1f\x8b": "gzip",
    b"BZh": "bzip2",
    b"\xfd7zXZ\x00": "xz",
}


def _sniff_archive(source: Path, raw: IO[bytes]) -> None:
    """Say in one line what a file is when it is no tar archive at all."""
    head = raw.read(512 + 8)
    raw.seek(0)
    if head.startswith((b"PK\x03\x04", b"PK\x05\x06")):
        raise BundleError(f"{source}: not a readable .tar.gz bundle (it is a zip archive)")
    if not head:
        raise BundleError(f"{source}: not a readable .tar.gz bundle (the file is empty)")
    if not any(head.startswith(m) for m in _MAGIC) and head[257:262] != b"ustar":
        raise BundleError(f"{source}: not a readable .tar.gz bundle (neither gzip nor tar data)")


def _tar_error(source: Path, exc: BaseException) -> BundleError:
    first = next((line.strip() for line in str(exc).splitlines() if line.strip()), "")
    reason = first.rstrip(":") or type(exc).__name__
    return BundleError(f"{source}: not a readable .tar.gz bundle ({reason})")


def _plan_tar_bundle(
    source: Path, raw: IO[bytes], limits: BundleLimits
) -> tuple[dict[str, int], bytes | None]:
    """Read every member header (nothing is written): each member checked, the count, the
    total and the ratio of the total to the archive's size against the limits. Returns the
    files to extract (name -> size) and the manifest's bytes."""
    budget = _Budget(source, limits)
    planned: dict[str, int] = {}
    manifest: bytes | None = None
    compressed = os.fstat(raw.fileno()).st_size
    try:
        with tarfile.open(fileobj=raw, mode="r|*") as tar:
            for member in tar:
                tar.members.clear()  # type: ignore[attr-defined]  # checked one by one, never all kept
                budget.count()
                name = _safe_member_name(source, member.name)
                unsafe = _member_kind(member)
                if unsafe:
                    raise BundleError(f"{source}: refusing member {_shown(name)}: {unsafe}")
                if member.isdir():
                    continue
                if name in planned or (name == MANIFEST and manifest is not None):
                    raise BundleError(f"{source}: refusing member {_shown(name)}: it appears twice")
                if name == MANIFEST:
                    manifest = _read_manifest_member(source, tar, member, limits)
                    continue
                budget.take(name, member.size)
                budget.ratio(compressed)
                planned[name] = member.size
    except BundleError:
        raise
    except (tarfile.TarError, EOFError, OSError, zlib.error) as exc:
        raise _tar_error(source, exc) from exc
    return planned, manifest


def _read_manifest_member(
    source: Path, tar: tarfile.TarFile, member: tarfile.TarInfo, limits: BundleLimits
) -> bytes:
    if member.size > limits.manifest_bytes:
        raise BundleError(
            f"{source}: {MANIFEST} is over the {limits.manifest_bytes}-byte limit; refusing"
        )
    stream = tar.extractfile(member)
    if stream is None:
        raise BundleError(f"{source}: cannot read member {MANIFEST!r}")
    return stream.read(limits.manifest_bytes + 1)


def _extract_tar_bundle(source: Path, raw: IO[bytes], planned: dict[str, int], root: Path) -> None:
    """Extract the members `_plan_tar_bundle` accepted; anything else in a second reading
    (the file changed) is refused."""
    done: set[str] = set()
    try:
        with tarfile.open(fileobj=raw, mode="r|*") as tar:
            for member in tar:
                tar.members.clear()  # type: ignore[attr-defined]
                if member.isdir() or member.name == MANIFEST:
                    continue
                name = str(PurePosixPath(member.name))
                if planned.get(name) != member.size or name in done or not member.isfile():
                    raise BundleError(f"{source}: the bundle changed while it was read")
                done.add(name)
                stream = tar.extractfile(member)
                if stream is None:
                    raise BundleError(f"{source}: cannot read member {_shown(name)}")
                dest = root / name
                dest.parent.mkdir(parents=True, exist_ok=True)
                with create_new(str(dest)) as out:
                    shutil.copyfileobj(stream, out)
    except BundleError:
        raise
    except (tarfile.TarError, EOFError, OSError, zlib.error) as exc:
        raise _tar_error(source, exc) from exc


def _plan_dir_bundle(source: Path, limits: BundleLimits) -> tuple[list[str], bytes | None]:
    """Check every entry of a directory bundle (nothing is copied): links, special files,
    hard links, names, count and sizes. Returns the files to copy and the manifest's bytes."""
    budget = _Budget(source, limits)
    files: list[str] = []
    manifest: bytes | None = None
    # Links to directories come too (never entered), and are refused like any link.
    for entry in walk_files(str(source), dir_links=True):
        full = Path(entry)
        relative = full.relative_to(source).as_posix()
        info = full.lstat()
        if stat.S_ISLNK(info.st_mode):
            raise BundleError(f"{source}: refusing symbolic link {_shown(relative)}")
        if not stat.S_ISREG(info.st_mode):
            raise BundleError(f"{source}: refusing special file {_shown(relative)}")
        if info.st_nlink > 1:
            raise BundleError(f"{source}: refusing {_shown(relative)}: it is a hard link")
        _safe_member_name(source, relative)
        budget.count()
        if relative == MANIFEST:
            if info.st_size > limits.manifest_bytes:
                raise BundleError(
                    f"{source}: {MANIFEST} is over the {limits.manifest_bytes}-byte limit; refusing"
                )
            with open_regular(entry) as stream:
                manifest = stream.read(limits.manifest_bytes + 1)
            continue
        budget.take(relative, info.st_size)
        files.append(relative)
    return files, manifest


def _copy_dir_bundle(source: Path, files: list[str], root: Path) -> None:
    for relative in files:
        dest = root / relative
        dest.parent.mkdir(parents=True, exist_ok=True)
        try:
            with open_regular(str(source / relative)) as src, create_new(str(dest)) as out:
                shutil.copyfileobj(src, out)
        except UnreadableInput as exc:
            raise BundleError(f"{source}: cannot read {_shown(relative)}: {exc}") from exc


def missing_kind(reason: str | None) -> str:
    """The kind of a recorded reason: access_denied, throttled, not_found, unreachable, ..."""
    if not reason:
        return "not_collected"
    head = reason.split(":", 1)[0]
    return {
        "AccessDenied": "access_denied",
        "Forbidden": "access_denied",
        "Throttled": "throttled",
        "NotFound": "not_found",
        "Unreachable": "unreachable",
        "Timeout": "throttled",
        "Truncated": "truncated",
    }.get(head, "error" if reason != "not collected" else "not_collected")
