"""The message inventory (tests/fixtures/messages/*.yaml): the WARN/ERROR templates the
programs themselves print, each with its source file, line and commit, and instantiated here
into log lines as the program's logger would print them, with plausible values."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

MESSAGES = Path(__file__).resolve().parents[1] / "fixtures" / "messages"
FILES = (
    "nccl_ofi_efa.yaml",
    "torch_host.yaml",
    "launchers.yaml",
    "containers.yaml",
    "mpi_rccl.yaml",
    "kernel_storage.yaml",
)

# printf conversions, with the extensions of the programs that print these messages: Slurm's
# %pJ / %ps (a job or step id), the kernel's %pGg (GFP flag names) and %*pbl (a bitmap as a
# list), glibc's %m (strerror(errno)), Go's %v, %q and %w (a wrapped error); the kernel's
# %pI6 (an IPv6 address), %pIScp (a socket address with its port), %pd2 (a dentry's last two
# path parts) and %px (a raw pointer).
_PRINTF = re.compile(
    r"%(?P<ext>\*pbl|p[Js](?![a-z])|pGg|pI6|pIScp|pd2|px)"
    r"|%(?P<flags>[-+ #0]*)[0-9*]*(?:\.[0-9]+|\.\*)?(?:hh|h|ll|l|z|j|t|L)?(?P<conv>[diouxXeEfgGcspmqvw%])"
)
# A brace holding a printf conversion is literal text (Go's "{%s: %s}" for a taint).
_FIELD = re.compile(r"\{([^{}%]+)\}")
_PRINTF_VALUES = {
    "s": "value",
    "p": "0x7f3a5c001200",
    "c": "x",
    "%": "%",
    "m": "No such file or directory",  # strerror(ENOENT)
    "q": '"value"',  # Go's %q quotes its string
    "v": "value",
    "w": "value",  # Go's %w prints the wrapped error
}
_EXTENSIONS = {
    "ps": "StepId=1234.0",  # Slurm: log_build_step_id_str
    "pJ": "JobId=1234",
    "pGg": "GFP_KERNEL",  # the kernel's %pGg names the GFP flags
    "*pbl": "(null)",  # nodemask_pr_args of a NULL nodemask (oom_kill.c: a global OOM)
    "pI6": "fe80:0000:0000:0000:04d3:9cff:fe21:8c67",
    "pIScp": "10.1.0.31:988",
    "pd2": "ckpt/step_1000.pt",
    "px": "ffff9a4c2b8e1000",
}
# Values of {field:spec} fields in the kernel prefixes: a PCI address 0000:3b:00.0.
_PCI_PARTS = {"domain": "0000", "bus": "3b", "slot": "00", "dev": "00", "fn": "0"}
# kubectl describe's event columns (Type, Reason, Age, From) when the template names none.
_EVENT_DEFAULTS = {
    "type": "Warning",
    "reason": "Failed",
    "age": "2m (x3 over 10m)",
    "from": "kubelet",
}
_LEVEL_LETTER = {"ERROR": "E", "WARN": "W", "INFO": "I"}


@dataclass(frozen=True)
class Template:
    repo: str
    file: str
    line: int
    level: str
    template: str
    printed_as: str
    code: str
    prefix: str
    commit: str | None = None  # set where the template was read at another commit than the file's
    # Values a line carries by its nature (the Xid number the driver logs with a message).
    fields: tuple[tuple[str, str], ...] = ()
    # The arguments the program passes to the template's printf conversions, in order, where
    # a placeholder would misprint the line ("*** JOB 1234 ON ..." rather than "*** value ON").
    args: tuple[str, ...] = ()

    @property
    def key(self) -> tuple[str, str, int]:
        return (self.repo, self.file, self.line)

    def instantiate(self) -> str:
        message = _fill(self.template, self, list(self.args))
        prefix = _fill(self.prefix, self).replace("{msg}", "")
        text = (
            prefix + message
            if "{msg}" not in self.prefix
            else _fill(self.prefix.replace("{msg}", "\0"), self).replace("\0", message)
        )
        text = text.replace("\\n", "\n").strip("\n")
        return text.split("\n")[0]


def _field_value(name: str, t: Template) -> str:
    key = name.lower()
    fixed = dict(t.fields)
    if key in fixed:
        return fixed[key]
    if key.split(":", 1)[0] in _PCI_PARTS:
        return _PCI_PARTS[key.split(":", 1)[0]]
    if key in _EVENT_DEFAULTS and t.printed_as in (
        "k8s_event",
        "k8s_event_reason",
        "k8s_fit_reason",
    ):
        return _EVENT_DEFAULTS[key]
    if key == "pod":
        return "trainer-worker-0"
    if "|" in name:
        return _LEVEL_LETTER.get(t.level, "E")
    if key == "file_basename":
        return t.file.rsplit("/", 1)[-1]
    if key == "file":  # NCCL's __FILE__: the path below src/ (misc/socket.cc)
        return t.file.removeprefix("src/")
    if key == "log_prefix":  # ProcessGroupNCCL's logPrefix()
        return "[PG ID 0 PG GUID 0(default_pg) Rank 3] "
    if key in ("line", "lineno"):
        return str(t.line)
    if key == "subsys":  # libfabric's log subsystems: core, fabric, domain, ep_ctrl, cq ...
        return "ep_ctrl"
    if key == "pretty_function":
        return "int nccl_net_ofi_f(nccl_net_ofi_ep_t*)"
    if "host" in key or key == "node":
        return "ip-10-1-2-3"
    if key in ("mmdd",):
        return "1201"
    if key in ("hh", "mm", "ss"):
        return "10"
    if key.startswith(("nanoseconds", "usec")):
        return "123456"
    if key == "unix_time":
        return "1764583872"
    if key in ("mon",):
        return "Dec"
    if "exception" in key or key == "pythonexceptiontype":
        return "RuntimeError"
    numeric = ("ms", "sec", "timeout", "elapsed", "count", "size", "rank", "seq", "id", "num")
    if any(w in key for w in (*numeric, "pid", "port", "signal", "code", "dev", "world")):
        return "3"
    if key in ("type",):
        return "Warning"
    if "reason" in key:
        return "Failed"
    if any(w in key for w in ("name", "prefix", "message", "what", "error", "func", "path", "op")):
        return "value"
    return "3"


def _fill(text: str, t: Template, args: list[str] | None = None) -> str:
    text = text.replace("[%F %T]", "[2026-12-01 10:11:12]")
    text = _FIELD.sub(lambda m: _field_value(m.group(1), t), text)
    pending = args if args is not None else []

    def printf(m: re.Match[str]) -> str:
        ext, conv = m.group("ext"), m.group("conv")
        if conv == "%":
            return "%"
        if pending:
            return pending.pop(0)
        if ext:
            return _EXTENSIONS[ext]
        if conv in "xX" and "#" in m.group("flags"):
            return "0x3"
        return _PRINTF_VALUES.get(conv, "3")

    return _PRINTF.sub(printf, text)


def _prefix(raw: Any) -> str:
    if isinstance(raw, dict):
        return str(raw.get("format", ""))
    return str(raw or "")


def load_templates() -> list[Template]:
    templates: list[Template] = []
    for name in FILES:
        data = yaml.safe_load((MESSAGES / name).read_text("utf-8"))
        prefixes = {k: _prefix(v) for k, v in (data.get("prefixes") or {}).items()}
        for raw in data["templates"]:
            templates.append(
                Template(
                    repo=raw["repo"],
                    file=raw["file"],
                    line=int(raw["line"]),
                    level=str(raw["level"]),
                    template=str(raw["template"]),
                    printed_as=str(raw["printed_as"]),
                    code=str(raw["code"]),
                    prefix=prefixes.get(str(raw["printed_as"]), ""),
                    commit=str(raw["commit"]) if raw.get("commit") else None,
                    fields=tuple((str(k), str(v)) for k, v in (raw.get("fields") or {}).items()),
                    args=tuple(str(a) for a in raw.get("args") or ()),
                )
            )
    return templates


def templates_at(file: str, line: int, repo: str | None = None) -> list[Template]:
    """The inventory's templates at one source line, for the rule tests that cite it; `repo`
    None matches any repository."""
    return [
        t for t in _all_templates() if t.file == file and t.line == line and repo in (None, t.repo)
    ]


def failure_templates(file: str, line: int, repo: str | None = None) -> list[Template]:
    """The templates at one source line that name a failure (not benign, not context)."""
    return [t for t in templates_at(file, line, repo) if t.code not in ("benign", "context")]


@functools.lru_cache(maxsize=1)
def _all_templates() -> tuple[Template, ...]:
    return tuple(load_templates())
