"""The message inventory (tests/fixtures/messages/*.yaml): the WARN/ERROR templates the
programs themselves print, each with its source file, line and commit, and instantiated here
into log lines as the program's logger would print them, with plausible values."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

MESSAGES = Path(__file__).resolve().parents[1] / "fixtures" / "messages"
FILES = ("nccl_ofi_efa.yaml", "torch_host.yaml")

_PRINTF = re.compile(r"%[-+ #0]*[0-9]*(?:\.[0-9]+|\.\*)?(?:hh|h|ll|l|z|j|t|L)?([diouxXeEfgGcsp%])")
_FIELD = re.compile(r"\{([^{}]+)\}")
_PRINTF_VALUES = {"s": "value", "p": "0x7f3a5c001200", "c": "x", "%": "%"}
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

    @property
    def key(self) -> tuple[str, str, int]:
        return (self.repo, self.file, self.line)

    def instantiate(self) -> str:
        message = _fill(self.template, self)
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


def _fill(text: str, t: Template) -> str:
    text = text.replace("[%F %T]", "[2026-12-01 10:11:12]")
    text = _FIELD.sub(lambda m: _field_value(m.group(1), t), text)

    def printf(m: re.Match[str]) -> str:
        return _PRINTF_VALUES.get(m.group(1), "3")

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
                )
            )
    return templates
