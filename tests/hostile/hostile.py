"""Run the real command line on hostile input, bounded: every run is a child process with a
wall-clock timeout (a hang fails the test instead of holding it) and a cap on its address
space (a run that would exhaust memory fails with MemoryError instead of taking the machine).
Each run also reports its peak resident memory (its own and its workers')."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# Far above what any analysis here needs (the interpreter, hyperscan, boto3 and the kubernetes
# client take a few hundred MB of address space), far below what the inputs would take.
ADDRESS_SPACE = 3 * 1024**3
TIMEOUT_S = 120

_PRELUDE = """
import resource, sys
limit = int(sys.argv[1])
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
rss_file = sys.argv[2]
sys.argv = ["hyperpod-nccl", *sys.argv[3:]]
code = 1
try:
    from hyperpod_nccl.cli import main
    code = main(sys.argv[1:])
finally:
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    workers = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    with open(rss_file, "w") as out:
        out.write(str(max(own, workers)))
sys.exit(code)
"""


@dataclass
class Result:
    code: int
    out: str
    err: str
    peak_rss_mb: float

    def json(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(self.out)
        return data

    def not_checked(self) -> dict[str, str]:
        """check -> its reasons, joined by ` | ` when there are several."""
        reasons: dict[str, list[str]] = {}
        for entry in self.json()["not_checked"]:
            reasons.setdefault(entry["check"], []).append(entry["reason"])
        return {check: " | ".join(found) for check, found in reasons.items()}


class Hang(AssertionError):
    pass


def run(
    *args: str,
    tmp: Path,
    timeout: float = TIMEOUT_S,
    address_space: int = ADDRESS_SPACE,
    stdin: bytes | None = None,
    cwd: Path | None = None,
    env_tmpdir: Path | None = None,
) -> Result:
    rss = tmp / f"rss-{os.getpid()}-{len(list(tmp.glob('rss-*')))}.txt"
    command = [sys.executable, "-c", _PRELUDE, str(address_space), str(rss), *args]
    try:
        done = subprocess.run(
            command,
            input=stdin if stdin is not None else b"",
            capture_output=True,
            cwd=cwd,
            env={**os.environ, "TMPDIR": str(env_tmpdir)} if env_tmpdir else None,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise Hang(f"hyperpod-nccl {' '.join(args)} did not finish in {timeout} s") from exc
    peak = int(rss.read_text()) / 1024 if rss.exists() else float("nan")
    return Result(
        done.returncode,
        done.stdout.decode("utf-8", "replace"),
        done.stderr.decode("utf-8", "replace"),
        peak,
    )


def assert_no_traceback(result: Result) -> None:
    assert "Traceback" not in result.err, result.err[-3000:]
    assert "MemoryError" not in result.err, result.err[-3000:]


def gzip_bomb(path: Path, gib: float = 10.0, line: bytes = b"") -> Path:
    """A gzip file that decompresses to `gib` GiB of zeros (no newline), a few MB on disk:
    one 64 MiB member repeated (gzip readers read concatenated members as one stream)."""
    block = 64 * 1024 * 1024
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
    member = compressor.compress(line + b"\0" * (block - len(line))) + compressor.flush()
    with open(path, "wb") as out:
        for _ in range(int(gib * 1024**3 // block)):
            out.write(member)
    return path


def unix_socket(path: Path) -> socket.socket:
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    server.listen(1)
    return server


def remove_tree(top: Path) -> None:
    """shutil.rmtree without its recursion (it fails on a tree over 1000 levels deep)."""
    dirs, stack = [], [str(top)]
    while stack:
        directory = stack.pop()
        dirs.append(directory)
        with os.scandir(directory) as listing:
            for entry in listing:
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
                else:
                    os.unlink(entry.path)
    for directory in reversed(dirs):
        os.rmdir(directory)


def deep_tree(top: Path, depth: int, leaf: str, text: str) -> Path:
    """`top/d/d/.../d/leaf` `depth` directories deep (built relative, so no path is long)."""
    here = os.getcwd()
    top.mkdir(parents=True, exist_ok=True)
    os.chdir(top)
    try:
        for _ in range(depth):
            os.mkdir("d")
            os.chdir("d")
        Path(leaf).write_text(text)
    finally:
        os.chdir(here)
    return top


# --------------------------------------------------------------------------- for isolation
def fail_without_a_message() -> None:
    raise AssertionError()


def sleep_for(seconds: float) -> str:
    import time

    time.sleep(seconds)
    return "slept"


def exit_hard(code: int) -> None:
    os._exit(code)


def holders_of(path: Path) -> list[int]:
    """Processes that have `path` open (Linux /proc), this one excepted."""
    target = str(path)
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            links = [os.readlink(fd) for fd in (entry / "fd").iterdir()]
        except OSError:
            continue
        if target in links:
            found.append(int(entry.name))
    return found
