"""Bad input comes back as a structured tool error: is_error set, one line that says what to
change, and no traceback on the channel or in the server's log."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcpclient import REPO, Agent, Call, Server

OOM_EXAMPLE = REPO / "src" / "hyperpod_nccl" / "examples" / "logs" / "oom-one-rank"
PERF_EXAMPLE = REPO / "tests" / "fixtures" / "perf" / "nccl-tests"

# (tool, arguments, words the one-line message must hold)
BAD_CALLS: list[tuple[str, dict[str, Any], list[str]]] = [
    ("analyze_logs", {"paths": ["/no/such/rank0.log"]}, ["/no/such/rank0.log", "no such file"]),
    ("analyze_logs", {"paths": ["-"]}, ["standard input", "'text'"]),
    ("analyze_logs", {"paths": [""]}, ["empty path"]),
    ("analyze_logs", {}, ["paths", "text"]),
    ("analyze_logs", {"text": "x", "text_name": "../rank0.log"}, ["plain file name"]),
    ("analyze_logs", {"paths": [str(OOM_EXAMPLE)], "text_name": "rank0.log"}, ["'text'"]),
    ("analyze_logs", {"paths": "rank0.log"}, ["invalid arguments", "paths"]),
    (
        "analyze_logs",
        {"paths": [str(OOM_EXAMPLE)], "engine": "grep"},
        ["invalid arguments", "engine"],
    ),
    ("analyze_perf", {}, ["nccl-tests output", "world_size"]),
    ("analyze_perf", {"paths": ["/no/such/nccl.out"]}, ["/no/such/nccl.out", "no such file"]),
    ("analyze_perf", {"paths": [str(OOM_EXAMPLE)]}, ["no nccl-tests output"]),
    ("analyze_perf", {"world_size": 16, "instance_type": "p9.huge"}, ["p9.huge", "p5.48xlarge"]),
    ("analyze_perf", {"world_size": 0}, ["invalid arguments", "world_size"]),
    ("explain", {"topic": "CONTAINER_OOMM"}, ["CONTAINER_OOMM", "close matches: CONTAINER_OOM"]),
    ("explain", {"topic": "debugging-guide.md#no-such-anchor"}, ["no guide section"]),
    ("explain", {}, ["invalid arguments", "topic"]),
    ("diagnose_cluster", {"cluster": "ml-cluster", "region": "mars-west-1"}, ["invalid region"]),
    (
        "diagnose_cluster",
        {"cluster": "ml-cluster", "region": "us-west-2", "since": "forever"},
        ["since"],
    ),
    ("diagnose_cluster", {"orchestrator": "nomad"}, ["invalid arguments", "orchestrator"]),
    (
        "diagnose_bundle",
        {"path": "/no/such/case.tar.gz"},
        ["/no/such/case.tar.gz", "no such bundle"],
    ),
    ("no_such_tool", {}, ["no_such_tool"]),
]


def assert_one_line_error(call: Call, words: list[str]) -> None:
    assert call.error, call.text
    assert call.result.structured_content is None
    assert len(call.text.splitlines()) == 1, call.text
    assert "Traceback" not in call.text
    for word in words:
        assert word in call.text, (word, call.text)


def test_each_bad_call_is_a_one_line_tool_error_and_the_server_lives_on(server: Server) -> None:
    async def calls(agent: Agent) -> tuple[list[Call], Call]:
        bad = [await agent.call(tool, arguments) for tool, arguments, _ in BAD_CALLS]
        return bad, await agent.call("explain", {"topic": "CONTAINER_OOM"})

    bad, after = server.session(calls)
    for (_, _, words), call in zip(BAD_CALLS, bad, strict=True):
        assert_one_line_error(call, words)
    assert after.data["reference"] == "debugging-guide.md#container-oom"
    assert "Traceback" not in server.log()


def test_a_bundle_that_is_not_a_diagnose_bundle_is_refused(server: Server, tmp_path: Path) -> None:
    plain = tmp_path / "not-a-bundle"
    plain.mkdir()
    (plain / "rank0.log").write_text("hello\n", encoding="utf-8")
    call = server.call("diagnose_bundle", {"path": str(plain)})
    assert_one_line_error(call, [str(plain)])


@pytest.mark.parametrize("unreadable", ["directory", "binary"])
def test_nothing_readable_is_an_error_not_an_empty_report(
    server: Server, tmp_path: Path, unreadable: str
) -> None:
    target = tmp_path / "empty"
    target.mkdir()
    if unreadable == "binary":
        target = tmp_path / "core.bin"
        target.write_bytes(bytes(range(32)) * 512)
    call = server.call("analyze_logs", {"paths": [str(target)]})
    assert_one_line_error(call, ["none of the inputs could be read", str(target)])
