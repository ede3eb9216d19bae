"""The transport interface: run the catalog's probe batch on one node and return its output.

A transport only chooses *how* to reach a node (the argv that wraps the batch script). What runs
there is always a `BatchScript` rendered from the probe catalog: `command()` verifies the script
before any argv is built, and `run()` accepts probe ids, never command text.
"""

from __future__ import annotations

import abc
import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from hyperpod_nccl.probes import batch
from hyperpod_nccl.probes.batch import BatchOutput, BatchScript


class TransportError(ValueError):
    """Bad transport input (a node name, target or option that fails validation)."""


@dataclass
class NodeRun:
    """What one session with one node produced."""

    node: str
    target: str
    elapsed_s: float = 0.0
    returncode: int | None = None
    output: BatchOutput | None = None
    reason: str | None = None  # set when the node could not be probed at all
    stderr_tail: str = ""
    started_at: float = field(default_factory=time.time)

    @property
    def reached(self) -> bool:
        return self.reason is None and self.output is not None


class Transport(abc.ABC):
    name = "abstract"

    def preflight(self) -> str | None:
        """Why this transport cannot run at all here (a tool missing), or None."""
        return None

    def target_of(self, node: str) -> str:
        return node

    @abc.abstractmethod
    def _argv(self, node: str, script: BatchScript) -> list[str]:
        """The command that runs `script.text` on `node` (script already verified)."""

    def command(self, node: str, script: BatchScript) -> list[str]:
        return self._argv(node, batch.verify(script))

    def _clean(self, stdout: str) -> str:
        return stdout

    def _failure(self, returncode: int, stdout: str, stderr: str) -> str:
        tail = [ln.strip() for ln in stderr.splitlines() if ln.strip()]
        return tail[-1] if tail else f"exited with status {returncode} and printed nothing"

    def run(self, node: str, probe_ids: Sequence[str], timeout_s: float) -> NodeRun:
        script = batch.build(list(probe_ids))
        argv = self.command(node, script)
        run = NodeRun(node, self.target_of(node))
        started = time.monotonic()
        # stdin stays an open, empty pipe until the command ends: session-manager-plugin ends
        # the session when its stdin reaches EOF ("Cannot perform start session: EOF").
        stdin_r, stdin_w = os.pipe()
        try:
            proc = subprocess.Popen(
                argv,
                stdin=stdin_r,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,  # so a timeout can stop the whole process group
            )
        except OSError as exc:
            os.close(stdin_r)
            os.close(stdin_w)
            run.reason = f"could not start {argv[0]}: {exc.strerror or exc}"
            return run
        os.close(stdin_r)
        try:
            out_b, err_b = proc.communicate(timeout=max(timeout_s, 0.1))
        except subprocess.TimeoutExpired:
            _kill_group(proc)
            out_b, err_b = proc.communicate()
            run.reason = f"no answer within the per-node timeout of {timeout_s:.0f}s"
        finally:
            os.close(stdin_w)
        run.elapsed_s = time.monotonic() - started
        run.returncode = proc.returncode
        stdout = self._clean(out_b.decode("utf-8", "replace"))
        stderr = err_b.decode("utf-8", "replace")
        run.stderr_tail = stderr[-2000:]
        output = batch.split_output(script, stdout)
        started_any = any(o.state != "not_run" for o in output.outcomes.values())
        if started_any:
            run.output = output
            if run.reason and not output.complete:
                run.reason = None  # partial results are kept; unfinished probes say why
                for outcome in output.outcomes.values():
                    if outcome.state in ("cut", "not_run"):
                        outcome.reason = (
                            f"the per-node timeout of {timeout_s:.0f}s ended the session first"
                        )
        elif run.reason is None:
            run.reason = self._failure(proc.returncode, stdout, stderr)
        return run


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)  # the group we started, by its id
