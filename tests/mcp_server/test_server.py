"""The server as a whole: the tools it lists and their schemas, its instructions, how it is
started, and what its code may import (it reads through hyperpod_nccl.api and runs nothing)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path
from typing import Any, get_args

from mcpclient import REPO, Agent, Server

from hyperpod_nccl.mcp_server.schemas import PriorityName, StatusName
from hyperpod_nccl.model import Priority, Status

TOOLS = {
    "analyze_logs",
    "analyze_perf",
    "diagnose_cluster",
    "diagnose_bundle",
    "explain",
    "list_codes",
}
SERVER_CODE = [
    *sorted((REPO / "src" / "hyperpod_nccl" / "mcp_server").glob("*.py")),
    REPO / "src" / "hyperpod_nccl" / "commands" / "mcp.py",
]


def test_the_tools_are_listed_with_typed_inputs_report_outputs_and_read_only_hints(
    server: Server,
) -> None:
    async def listing(agent: Agent) -> tuple[Any, str | None]:
        tools = await agent.client.list_tools()
        return tools.tools, agent.client.instructions

    tools, instructions = server.session(listing)
    by_name = {t.name: t for t in tools}
    assert set(by_name) == TOOLS
    for tool in tools:
        assert tool.description and tool.input_schema["type"] == "object"
        assert tool.output_schema is not None, tool.name
        assert tool.annotations is not None and tool.annotations.read_only_hint is True
        assert tool.annotations.destructive_hint is False
    for name in ("analyze_logs", "analyze_perf", "diagnose_cluster", "diagnose_bundle"):
        schema = by_name[name].output_schema
        assert schema is not None
        assert {"schema", "root_cause", "issues_found", "findings", "not_checked"} <= set(
            schema["required"]
        )
    assert by_name["diagnose_cluster"].annotations.open_world_hint is True
    assert by_name["analyze_logs"].annotations.open_world_hint is False
    logs_input = by_name["analyze_logs"].input_schema["properties"]
    assert logs_input["paths"]["type"] == "array" and logs_input["engine"]["enum"] == [
        "auto",
        "hyperscan",
        "re",
    ]
    assert by_name["diagnose_bundle"].input_schema["required"] == ["path"]
    assert instructions is not None
    assert "never run them yourself" in " ".join(instructions.split())


def test_the_schemas_use_the_contract_vocabularies() -> None:
    assert set(get_args(StatusName)) == {s.value for s in Status}
    assert set(get_args(PriorityName)) == {p.value for p in Priority}


# Modules the server may import from this project: the api and what describes its output.
ALLOWED_PROJECT_IMPORTS = {
    "hyperpod_nccl",
    "hyperpod_nccl.api",
    "hyperpod_nccl.kb",
    "hyperpod_nccl.checks",
    "hyperpod_nccl.rules.catalog",
    "hyperpod_nccl.perf.analysis",
    "hyperpod_nccl.perf.expected",
    "hyperpod_nccl.kb.topics",  # the guide lookup the CLI's explain also uses
    "hyperpod_nccl.model",
    "hyperpod_nccl.exit_codes",
    "hyperpod_nccl.snapshot",
    "hyperpod_nccl.report.display",  # the report as shown: secrets and control codes out
}
FORBIDDEN_MODULES = {"subprocess", "pty", "shlex", "multiprocessing", "boto3", "botocore"}
FORBIDDEN_CALLS = {
    ("os", name)
    for name in ("system", "popen", "fork", "execv", "execvp", "execve", "spawnv", "spawnvp")
} | {("anyio", "run_process"), ("anyio", "open_process"), ("asyncio", "create_subprocess_exec")}


def test_the_only_process_the_server_starts_runs_its_own_analysis() -> None:
    """isolation.py runs each analysis in a child process (a fork of the server's own code,
    never a command): the one Process it makes has its own `_child` as the target."""
    path = next(p for p in SERVER_CODE if p.name == "isolation.py")
    tree = ast.parse(path.read_text(encoding="utf-8"))
    made = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("Process", "Popen", "Pool")
    ]
    assert len(made) == 1 and made[0].func.attr == "Process"  # type: ignore[attr-defined]
    target = {k.arg: k.value for k in made[0].keywords}["target"]
    assert isinstance(target, ast.Name) and target.id == "_child"


def imported_modules(tree: ast.AST) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


def test_the_server_code_reads_through_the_api_and_runs_no_commands() -> None:
    assert len(SERVER_CODE) > 5
    for path in SERVER_CODE:
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        modules = imported_modules(tree)
        project = {m for m in modules if m.split(".")[0] == "hyperpod_nccl"}
        own = {m for m in project if m.startswith("hyperpod_nccl.mcp_server")}
        assert project - own <= ALLOWED_PROJECT_IMPORTS, (path.name, project - own)
        forbidden = FORBIDDEN_MODULES - (
            {"multiprocessing"} if path.name == "isolation.py" else set()
        )
        assert not {m.split(".")[0] for m in modules} & forbidden, path.name
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
                assert (node.value.id, node.attr) not in FORBIDDEN_CALLS, (path.name, node.attr)


def test_help_lists_the_command_and_its_tools() -> None:
    top = subprocess.run(
        [sys.executable, "-m", "hyperpod_nccl.cli", "--help"], capture_output=True, text=True
    )
    assert top.returncode == 0 and "mcp" in top.stdout
    own = subprocess.run(
        [sys.executable, "-m", "hyperpod_nccl.cli", "mcp", "--help"],
        capture_output=True,
        text=True,
    )
    assert own.returncode == 0
    for tool in TOOLS:
        assert tool in own.stdout


def test_without_the_sdk_the_command_says_what_to_install(tmp_path: Path) -> None:
    """A stand-in `mcp` package that is not importable, first on the path."""
    shadow = tmp_path / "shadow" / "mcp"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text(
        'raise ModuleNotFoundError("No module named \'mcp\'", name="mcp")\n', encoding="utf-8"
    )
    done = subprocess.run(
        [sys.executable, "-m", "hyperpod_nccl.cli", "mcp"],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(tmp_path / "shadow"), "PATH": "/usr/bin:/bin"},
        stdin=subprocess.DEVNULL,
        timeout=60,
    )
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        "error: the MCP server needs the 'mcp' package: pip install 'hyperpod-nccl[mcp]'"
    ]
    assert done.stdout == ""


def test_text_printed_during_a_call_goes_to_stderr_not_onto_the_channel(tmp_path: Path) -> None:
    """Standard output carries the protocol. A library that prints (here the guide lookup,
    wrapped by a sitecustomize on the server's path) must not break it."""
    noisy = tmp_path / "noisy"
    noisy.mkdir()
    (noisy / "sitecustomize.py").write_text(
        "import hyperpod_nccl.kb as kb\n"
        "_resolve = kb.resolve\n"
        "def resolve(topic):\n"
        "    print('stray line printed by a library')\n"
        "    return _resolve(topic)\n"
        "kb.resolve = resolve\n",
        encoding="utf-8",
    )
    # Buffered, as standard output to a pipe is by default: what is buffered is written out
    # when the server exits, after the SDK has pointed fd 1 back at the channel.
    env = {"PYTHONPATH": str(noisy), "PYTHONUNBUFFERED": ""}
    server = Server(stderr=tmp_path / "server-stderr.log", env=env)

    async def three(agent: Agent) -> list[str]:
        calls = [await agent.call("explain", {"topic": "CONTAINER_OOM"}) for _ in range(3)]
        return [c.data["reference"] for c in calls]

    assert server.session(three) == ["debugging-guide.md#container-oom"] * 3
    assert server.log().count("stray line printed by a library") == 3
