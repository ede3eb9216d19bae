"""explain and list_codes over MCP: the guide's sections and every code, from the same
sources as `hyperpod-nccl explain` and the rule catalog."""

from __future__ import annotations

from mcpclient import REPO, Agent, Call, Server

from hyperpod_nccl import kb
from hyperpod_nccl.checks import load_checks
from hyperpod_nccl.rules.catalog import load_catalog

OOM_EXAMPLE = REPO / "src" / "hyperpod_nccl" / "examples" / "logs" / "oom-one-rank"


def test_explain_returns_the_section_explain_prints(server: Server) -> None:
    async def three_ways(agent: Agent) -> list[Call]:
        topics = ["CONTAINER_OOM", "debugging-guide.md#container-oom", "container-oom"]
        return [await agent.call("explain", {"topic": topic}) for topic in topics]

    section = kb.resolve("CONTAINER_OOM")
    assert section is not None
    for call in server.session(three_ways):
        got = call.data
        assert got["reference"] == "debugging-guide.md#container-oom"
        assert got["title"] == section.title
        assert got["markdown"] == section.markdown
        assert got["sources"] == section.sources and got["sources"]
        assert all(s.startswith("https://") for s in got["sources"])


def test_every_fail_of_a_report_can_be_explained_from_its_reference(server: Server) -> None:
    """The skill's workflow: analyse, then read each FAIL's section."""

    async def workflow(agent: Agent) -> list[tuple[str, Call]]:
        report = (await agent.call("analyze_logs", {"paths": [str(OOM_EXAMPLE)]})).data
        fails = [f for f in report["findings"] if f["status"] == "FAIL"]
        assert fails
        return [
            (f["reference"], await agent.call("explain", {"topic": f["reference"]})) for f in fails
        ]

    for reference, call in server.session(workflow):
        assert reference in call.data["references"]  # a section may carry several anchors


def test_list_codes_holds_every_catalog_code_check_code_and_guide_reference(
    server: Server,
) -> None:
    codes = server.call("list_codes").data
    catalog = load_catalog()
    assert [c["code"] for c in codes["log_codes"]] != []
    assert {c["code"] for c in codes["log_codes"]} == set(catalog.codes)
    for entry in codes["log_codes"]:
        info = catalog.codes[entry["code"]]
        assert entry["priority"] == info.priority.value and entry["title"] == info.title
        assert entry["explains"] == list(info.explains)
    registry = load_checks()
    assert {c["code"] for c in codes["state_codes"]} == {
        code for spec in registry.values() for code in spec.codes
    }
    for entry in codes["state_codes"]:
        for check_id in entry["checks"]:
            assert entry["code"] in registry[check_id].codes
            assert registry[check_id].area in entry["areas"]
    assert [s["reference"] for s in codes["sections"]] == kb.iter_references(kb.list_sections())
    # A code's reference, when it has one, is a section explain resolves.
    for entry in codes["log_codes"] + codes["state_codes"]:
        if entry["reference"] is not None:
            section = kb.resolve(entry["reference"])
            assert section is not None, entry["reference"]


def test_every_log_code_has_a_guide_section(server: Server) -> None:
    codes = server.call("list_codes").data
    assert [c["code"] for c in codes["log_codes"] if c["reference"] is None] == []
