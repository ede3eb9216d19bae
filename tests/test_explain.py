"""`hyperpod-nccl explain`: prints the guide section for a code or reference, lists every anchor,
and rejects unknown topics with close matches and exit code 2."""

from __future__ import annotations

import argparse
import importlib.util
import io
import json

import pytest

from hyperpod_nccl import cli, kb
from hyperpod_nccl.commands import explain

EXPLAIN = "hyperpod_nccl.commands.explain"


@pytest.fixture(autouse=True)
def _only_importable_commands(monkeypatch: pytest.MonkeyPatch) -> None:
    """Run the real dispatcher; skip sibling command modules that are not written yet."""
    modules = [m for m in cli.COMMAND_MODULES if importlib.util.find_spec(m) is not None]
    assert EXPLAIN in modules
    monkeypatch.setattr(cli, "COMMAND_MODULES", modules)
    monkeypatch.delenv("NO_COLOR", raising=False)


def test_explain_is_registered_in_the_cli() -> None:
    assert EXPLAIN in cli.COMMAND_MODULES


@pytest.mark.parametrize(
    "topic",
    ["CONTAINER_OOM", "container-oom", "#container-oom", "debugging-guide.md#container-oom"],
)
def test_explain_prints_the_section(topic: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["explain", topic]) == 0
    out = capsys.readouterr().out
    section = kb.resolve("debugging-guide.md#container-oom")
    assert section is not None
    assert out == section.markdown  # captured stdout is not a TTY: plain Markdown
    assert out.startswith("## ") and "Container memory OOM" in out.splitlines()[0]
    assert "OOMKilled" in out
    assert "Sources:" in out
    assert "<a id=" not in out
    # It is exactly that section: the next section's heading is not printed.
    assert "## 32." not in out


def test_explain_prints_performance_and_operations_sections(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli.main(["explain", "LOW_BUSBW"]) == 0
    assert "Low bus bandwidth" in capsys.readouterr().out.splitlines()[0]
    assert cli.main(["explain", "operations-reference.md#read-only-iam-policy"]) == 0
    read_only = capsys.readouterr().out
    assert '"ec2:DescribeSecurityGroups"' in read_only and "ssm:StartSession" not in read_only
    assert cli.main(["explain", "operations-reference.md#node-probe-iam-policy"]) == 0
    assert '"ssm:StartSession"' in capsys.readouterr().out


def test_every_listed_reference_is_accepted(capsys: pytest.CaptureFixture[str]) -> None:
    for section in kb.list_sections():
        for ref in section.references:
            assert cli.main(["explain", ref]) == 0, ref
            assert capsys.readouterr().out == section.markdown


def test_unknown_code_exits_2_with_close_matches(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["explain", "CONTAINER_OMM"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1
    assert "CONTAINER_OMM" in lines[0]
    assert "CONTAINER_OOM" in lines[0]


def test_unknown_anchor_and_reference_suggest_anchors(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["explain", "efa-tcp-fallbak"]) == 2
    assert "efa-tcp-fallback" in capsys.readouterr().err
    assert cli.main(["explain", "debuging-guide.md#container-oom"]) == 2
    assert "debugging-guide.md#container-oom" in capsys.readouterr().err


def test_unknown_topic_without_matches_points_at_list(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["explain", "QQQQ"]) == 2
    err = capsys.readouterr().err
    assert "--list" in err and len(err.strip().splitlines()) == 1


def test_missing_topic_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["explain"]) == 2
    assert "--list" in capsys.readouterr().err
    assert cli.main(["explain", "--list", "CONTAINER_OOM"]) == 2


def test_list_shows_every_anchor_with_its_title(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["explain", "--list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    expected = [(ref, s.title) for s in kb.list_sections() for ref in s.references]
    assert len(lines) == len(expected)
    for line, (ref, title) in zip(lines, expected, strict=True):
        assert line.startswith(ref)
        assert line.endswith(title)
    joined = "\n".join(lines)
    assert "debugging-guide.md#container-oom" in joined
    assert "performance-testing.md#timeout-sizing" in joined
    assert "operations-reference.md#kubernetes-rbac" in joined


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def _args(topic: str) -> argparse.Namespace:
    return argparse.Namespace(topic=topic, list_sections=False)


def test_tty_output_has_bold_headings() -> None:
    out = _Tty()
    assert explain.run(_args("CONTAINER_OOM"), out=out) == 0
    text = out.getvalue()
    first = text.splitlines()[0]
    assert first.startswith("\033[1m") and first.endswith("\033[0m")
    assert "Container memory OOM" in first and "##" not in first
    # Comment lines inside code fences are not headings.
    out = _Tty()
    assert explain.run(_args("NCCL_TIMEOUT"), out=out) == 0
    text = out.getvalue()
    assert "\n# Which collective" in text
    assert "\033[1m Which collective" not in text and "\033[1mWhich collective" not in text


def test_no_color_turns_styling_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    out = _Tty()
    assert explain.run(_args("CONTAINER_OOM"), out=out) == 0
    assert "\033[" not in out.getvalue()
    section = kb.resolve("CONTAINER_OOM")
    assert section is not None and out.getvalue() == section.markdown


def test_non_tty_output_is_plain_markdown() -> None:
    out = io.StringIO()
    assert explain.run(_args("GPU_XID"), out=out) == 0
    assert "\033[" not in out.getvalue()
    assert out.getvalue().startswith("## 27.")


def test_explain_takes_format_json_and_markdown(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["explain", "CONTAINER_OOM", "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    section = kb.resolve("CONTAINER_OOM")
    assert section is not None
    assert document["references"] == list(section.references)
    assert document["markdown"] == section.markdown and document["title"] == section.title
    assert cli.main(["explain", "CONTAINER_OOM", "--format", "markdown"]) == 0
    assert capsys.readouterr().out == section.markdown
    assert cli.main(["explain", "--list", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)["sections"]
    assert {"reference": "debugging-guide.md#container-oom", "title": section.title} in rows
