"""skills/hyperpod-nccl/SKILL.md: valid open agent-skills frontmatter, and every command,
option, MCP tool, argument, report field and finding code it names exists."""

from __future__ import annotations

import json
import re
import shlex
from typing import Any

import pytest
import yaml
from mcpclient import REPO, Agent, Server

from hyperpod_nccl import kb
from hyperpod_nccl.cli import build_parser
from hyperpod_nccl.model import Evidence, Finding, NotChecked, Priority, Report, Status
from hyperpod_nccl.model import SuggestedCommand as Suggested

SKILL = REPO / "skills" / "hyperpod-nccl" / "SKILL.md"
# The agent-skills specification (agentskills.io/specification): name 1-64 characters,
# lower-case letters, digits and single hyphens, matching the folder; description 1-1024
# characters; compatibility at most 500; metadata a map of strings.
NAME = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.MULTILINE | re.DOTALL)
SPAN = re.compile(r"`([^`\n]+)`")


def split_skill(text: str) -> tuple[dict[str, Any], str]:
    assert text.startswith("---\n"), "SKILL.md must open with YAML frontmatter"
    head, _, body = text[4:].partition("\n---\n")
    frontmatter = yaml.safe_load(head)
    assert isinstance(frontmatter, dict)
    return frontmatter, body


FRONTMATTER, BODY = split_skill(SKILL.read_text(encoding="utf-8"))


def test_frontmatter_follows_the_agent_skills_format() -> None:
    allowed = {"name", "description", "license", "compatibility", "metadata", "allowed-tools"}
    assert set(FRONTMATTER) <= allowed
    name = FRONTMATTER["name"]
    assert isinstance(name, str) and 1 <= len(name) <= 64 and NAME.match(name)
    assert name == SKILL.parent.name
    description = FRONTMATTER["description"]
    assert isinstance(description, str) and 1 <= len(description.strip()) <= 1024
    assert "Use when" in description  # says when to use it, not only what it does
    compatibility = FRONTMATTER.get("compatibility", "")
    assert isinstance(compatibility, str) and len(compatibility) <= 500
    metadata = FRONTMATTER.get("metadata", {})
    assert all(isinstance(k, str) and isinstance(v, str) for k, v in metadata.items())
    assert len(BODY.splitlines()) < 500  # the specification's advice for the body


def command_lines(body: str) -> list[str]:
    """Every `hyperpod-nccl ...` command the skill shows, in code blocks and code spans."""
    snippets = [line for block in FENCE.findall(body) for line in block.splitlines()]
    snippets += SPAN.findall(FENCE.sub("", body))
    found = []
    for snippet in snippets:
        for part in re.split(r"\||&&", snippet):
            part = part.split(" # ")[0].strip()
            if part.startswith("hyperpod-nccl "):
                found.append(part)
    return found


def test_every_command_line_parses_with_the_real_command_line_parser() -> None:
    lines = command_lines(BODY)
    assert len(lines) >= 10
    parser = build_parser()
    commands = set()
    for line in lines:
        argv = shlex.split(line)[1:]
        parsed = parser.parse_args(argv)  # raises UsageError on an unknown command or option
        assert getattr(parsed, "handler", None) is not None, line
        commands.add(argv[0])
    # The workflow uses every step's command.
    assert {"logs", "diagnose", "perf", "explain", "bundle", "probe", "mcp"} <= commands


def test_every_mcp_tool_argument_and_report_field_named_exists(server: Server) -> None:
    async def listing(agent: Agent) -> Any:
        return (await agent.client.list_tools()).tools

    tools = server.session(listing)
    names = {t.name for t in tools}
    arguments = {a for t in tools for a in t.input_schema.get("properties", {})}
    finding = Finding(
        "X",
        Status.FAIL,
        Priority.P0,
        "t",
        evidence=[Evidence("f:1", "x")],
        suggested_commands=[Suggested("p", "c", "pre", "blast")],
    )
    report = Report("logs", [finding], [NotChecked("c", "r")]).to_dict()
    fields = set(report) | set(report["findings"][0]) | set(Suggested("p", "c").to_dict())
    fields |= set(report["findings"][0]["evidence"][0])
    spans = set(SPAN.findall(BODY))
    assert names <= spans, names - spans  # every tool is taught
    # Identifiers with an underscore in code spans name a tool, an argument or a report field.
    snake = {s for s in spans if re.fullmatch(r"[a-z]+(?:_[a-z]+)+", s)}
    assert snake - (names | arguments | fields) == set()
    assert {"text_name", "suggested_commands", "not_checked", "root_cause"} <= snake


@pytest.mark.parametrize(
    "code",
    sorted({s for s in SPAN.findall(BODY) if re.fullmatch(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+", s)}),
)
def test_every_finding_code_named_has_a_guide_section(code: str) -> None:
    assert kb.section_for_code(code) is not None, code


def test_statuses_and_priorities_named_are_the_contract_s() -> None:
    words = set(re.findall(r"\b(?:P\d|PASS|FAIL|WARN|INFO|SKIPPED|INCOMPLETE)\b", BODY))
    assert words <= {s.value for s in Status} | {p.value for p in Priority}
    assert {"SKIPPED", "INCOMPLETE", "P0"} <= words


def test_the_mcp_client_configuration_shown_is_valid_json() -> None:
    blocks = [b for b in FENCE.findall(BODY) if "mcpServers" in b]
    assert len(blocks) == 1
    config = json.loads(blocks[0])
    server = config["mcpServers"]["hyperpod-nccl"]
    assert [server["command"], *server["args"]] == ["hyperpod-nccl", "mcp"]
