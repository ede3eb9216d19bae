"""Reading what a user names without being held up, flooded or misled by it.

Every input a command reads goes through here:

- only regular files are opened: a FIFO, socket or device (`/dev/zero`, `/dev/urandom`) is
  refused with one line naming what it is, and opening one never blocks (the file is opened
  non-blocking and checked with fstat before anything is read);
- gzip data is decompressed within limits: at most MAX_DECOMPRESSED_BYTES per input, and past
  RATIO_FLOOR_BYTES no more than MAX_RATIO times the compressed bytes read so far (a gzip bomb
  is stopped early, what came before it is kept);
- line-oriented readers cut lines at a fixed length, so one endless line costs no memory;
- directories are walked with an explicit stack, so a tree of any depth is walked.
"""

from __future__ import annotations

import errno
import fcntl
import gzip
import io
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, Any

GZIP_MAGIC = b"\x1f\x8b"
# A real log compresses 5 to 50 times; deflate's own limit is about 1032. Below the floor any
# ratio is accepted, so a small, very repetitive log is never refused.
MAX_RATIO = 100
RATIO_FLOOR_BYTES = 256 * 1024 * 1024
MAX_DECOMPRESSED_BYTES = 64 * 1024 * 1024 * 1024
# What a line-oriented reader keeps of one line; the rest of a longer line is skipped.
MAX_LINE_BYTES = 64 * 1024
# What a reason starts with when an input was read only in part because of a limit.
LIMIT_REACHED = "stopped reading"


class UnreadableInput(Exception):
    """The input cannot be analysed; the message is one line naming why."""


class LimitReached(UnreadableInput):
    """Reading stopped at a limit; what was read before it has been handed on."""


def file_kind(mode: int) -> str:
    """What a file is, in words, from its st_mode."""
    if stat.S_ISREG(mode):
        return "regular file"
    if stat.S_ISDIR(mode):
        return "directory"
    if stat.S_ISFIFO(mode):
        return "FIFO"
    if stat.S_ISSOCK(mode):
        return "socket"
    if stat.S_ISCHR(mode):
        return "character device"
    if stat.S_ISBLK(mode):
        return "block device"
    return "special file"


def not_regular(kind: str) -> str:
    return f"not a regular file ({kind}); skipped"


def irregular_reason(path: str) -> str | None:
    """Why `path` (symbolic links followed) will not be read, or None for a regular file."""
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        return exc.strerror or str(exc)
    return None if stat.S_ISREG(mode) else not_regular(file_kind(mode))


def open_regular(path: str) -> io.BufferedReader:
    """Open a regular file for binary reading; anything else raises UnreadableInput at once.

    The open is non-blocking, so a FIFO with no writer does not hold it up; the type is then
    checked on the open descriptor, so the file cannot be swapped for another between the
    check and the read.
    """
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except PermissionError as exc:
        raise UnreadableInput("permission denied") from exc
    except OSError as exc:
        if exc.errno == errno.ENXIO:  # a socket, or a FIFO opened for writing elsewhere
            raise UnreadableInput(not_regular(_kind_of(path))) from exc
        raise UnreadableInput(exc.strerror or str(exc)) from exc
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise UnreadableInput("is a directory")
        if not stat.S_ISREG(mode):
            raise UnreadableInput(not_regular(file_kind(mode)))
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _kind_of(path: str) -> str:
    try:
        return file_kind(os.stat(path).st_mode)
    except OSError:
        return "special file"


# --------------------------------------------------------------------------- gzip
@dataclass
class DecompressionLimits:
    max_bytes: int = MAX_DECOMPRESSED_BYTES
    ratio: int = MAX_RATIO
    ratio_floor: int = RATIO_FLOOR_BYTES


class _Counting(io.RawIOBase):
    """Counts the compressed bytes the decompressor has taken from `raw`."""

    def __init__(self, raw: IO[bytes]) -> None:
        self._raw = raw
        self.count = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        data = self._raw.read(len(buffer))
        memoryview(buffer)[: len(data)] = data
        self.count += len(data)
        return len(data)


class BoundedGzip(io.RawIOBase):
    """A gzip stream read in small steps (so everything decompressed before damage is already
    handed on) that raises LimitReached once the data is larger than the limits allow."""

    STEP = 64 * 1024

    def __init__(self, raw: IO[bytes], limits: DecompressionLimits | None = None) -> None:
        self._counting = _Counting(raw)
        self._gz = gzip.GzipFile(fileobj=self._counting, mode="rb")
        self._limits = limits or DecompressionLimits()
        self.out = 0

    def readable(self) -> bool:
        return True

    @property
    def compressed_read(self) -> int:
        """Bytes of the .gz file read so far (what a progress display counts)."""
        return int(self._counting.count)

    def readinto(self, buffer: Any) -> int:
        chunk = self._gz.read1(min(self.STEP, len(buffer)))
        self.out += len(chunk)
        self._check()
        memoryview(buffer)[: len(chunk)] = chunk
        return len(chunk)

    def _check(self) -> None:
        limits = self._limits
        mib = self.out // 2**20
        if self.out > limits.max_bytes:
            raise LimitReached(
                f"{LIMIT_REACHED} at {limits.max_bytes // 2**20} MiB decompressed, the limit "
                "for one input; read the part before it"
            )
        if self.out > limits.ratio_floor and self.out > limits.ratio * self._counting.count:
            raise LimitReached(
                f"{LIMIT_REACHED} after {mib} MiB: the gzip data decompresses to over "
                f"{limits.ratio} times its size (a decompression bomb?); read the part before it"
            )

    def close(self) -> None:
        self._gz.close()
        super().close()


def is_gzip(head: bytes) -> bool:
    return head.startswith(GZIP_MAGIC)


# --------------------------------------------------------------------------- lines
def bounded_lines(stream: IO[bytes], max_line: int = MAX_LINE_BYTES) -> Iterator[str]:
    """The lines of a buffered binary stream as text (UTF-8, bad bytes replaced, universal
    newlines), each cut at `max_line` bytes: the rest of a longer line is skipped, never held."""
    readline = stream.readline
    while True:
        line = readline(max_line)
        if not line:
            return
        if len(line) >= max_line and not line.endswith(b"\n"):
            while True:  # skip the rest of the over-long line
                rest = readline(max_line)
                if not rest or rest.endswith(b"\n"):
                    break
            line += b"\n"
        text = line.decode("utf-8", "replace")
        if "\r" in text:
            yield from text.replace("\r\n", "\n").replace("\r", "\n").splitlines(True)
        else:
            yield text


def line_chunks(stream: IO[bytes], size: int = 4 * 1024 * 1024) -> Iterator[bytes]:
    """Chunks of about `size` bytes (at most twice that), each ending at a line end where
    there is one. A line longer than `size` is cut at its last space or tab in the final
    quarter of the chunk (a token is rarely cut in two), else at `size` bytes."""
    pending = b""
    while True:
        data = stream.read(size)
        if not data:
            if pending:
                yield pending
            return
        pending += data
        cut = pending.rfind(b"\n") + 1
        if not cut:
            if len(pending) < size:
                continue
            window = max(0, len(pending) - size // 4)
            cut = max(pending.rfind(b" ", window), pending.rfind(b"\t", window)) + 1
            cut = cut or len(pending)
        yield pending[:cut]
        pending = pending[cut:]


# --------------------------------------------------------------------------- trees
@dataclass(frozen=True)
class WalkProblem:
    path: str
    reason: str


def walk_files(
    top: str, problems: list[WalkProblem] | None = None, *, dir_links: bool = False
) -> Iterator[str]:
    """Every entry under `top` that is not a directory, in name order, depth first, as
    os.walk would give them, but without recursion: a tree of any depth is walked. Symbolic
    links to directories are never entered; with `dir_links` they are yielded too."""
    stack = [top]
    while stack:
        directory = stack.pop()
        try:
            with os.scandir(directory) as listing:
                entries = sorted(listing, key=lambda e: e.name)
        except OSError as exc:
            if problems is not None:
                problems.append(
                    WalkProblem(exc.filename or directory, f"cannot list directory: {exc.strerror}")
                )
            continue
        subdirs = []
        for entry in entries:
            try:
                is_dir = entry.is_dir()
            except OSError:
                is_dir = False
            if is_dir:
                if not entry.is_symlink():
                    subdirs.append(entry.path)
                elif dir_links:
                    yield entry.path
                continue
            yield entry.path
        stack.extend(reversed(subdirs))


# --------------------------------------------------------------------------- writing
class TargetExists(Exception):
    """A path the user asked us to write already exists (or is a link); the message is one
    line."""


def refuse_existing(path: str, what: str, inputs: tuple[str, ...] = ()) -> None:
    """Refuse, in one line, to write `path` if anything is there: a file, a directory, a
    symbolic link (even a dangling one), or one of the inputs."""
    real = os.path.realpath(path)
    if any(os.path.realpath(given) == real for given in inputs if given != "-"):
        raise TargetExists(f"{what} {path} is one of the inputs; not overwriting it")
    if os.path.islink(path):
        raise TargetExists(f"{what} {path} is a symbolic link; not writing through it")
    if os.path.lexists(path):
        raise TargetExists(f"{what} {path} already exists; not overwriting it")


def create_private_temp(directory: str, name: str) -> tuple[int, str]:
    """A new file beside `name` in `directory`, created exclusively (O_EXCL, never through a
    link) under an unpredictable name; returns its descriptor and path."""
    import tempfile

    return tempfile.mkstemp(prefix=f".{name}.", suffix=".partial", dir=directory)


def publish(temp: str, target: str) -> None:
    """Give the finished `temp` its final name `target`, never replacing anything there:
    a hard link fails if `target` exists (even as a dangling link). Where the file system
    has no hard links, the temp file is renamed after a last check."""
    try:
        os.link(temp, target, follow_symlinks=False)
    except FileExistsError as exc:
        raise TargetExists(f"{target} appeared meanwhile; not overwriting it") from exc
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV):
            raise
        if os.path.lexists(target):
            raise TargetExists(f"{target} appeared meanwhile; not overwriting it") from exc
        os.rename(temp, target)
        return
    os.unlink(temp)


def write_new_file(path: str, data: bytes, mode: int = 0o666) -> None:
    """Write `data` to the new file `path` (permissions `mode` less the umask): all or
    nothing, and never over an existing path or through a link."""
    directory = os.path.dirname(os.path.abspath(path))
    fd, temp = create_private_temp(directory, os.path.basename(path))
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temp, mode & ~umask)
        publish(temp, path)
    finally:
        if os.path.lexists(temp):
            os.unlink(temp)


def create_new(path: str, mode: int = 0o600) -> IO[bytes]:
    """Open a new file for writing: O_EXCL (nothing there, not even a link) and O_NOFOLLOW."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    return os.fdopen(os.open(path, flags | getattr(os, "O_CLOEXEC", 0), mode), "wb")
