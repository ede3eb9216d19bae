"""Log text never drives the user's terminal: the text and Markdown reports, and the lines
on standard error, carry no control sequence from the logs (OSC window title, clear screen,
cursor moves, carriage returns); JSON keeps the text, escaped by its encoder."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from hyperpod_nccl.cli import main

TITLE = "\x1b]0;pwned\x07"
CLEAR = "\x1b[2J\x1b[H"
HIDDEN = "\x1b[8m"
OOM = "[rank2]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB."


@pytest.fixture
def hostile_log(tmp_path: Path) -> Path:
    path = tmp_path / f"rank2{CLEAR}.log"
    path.write_text(f"{TITLE}{OOM}{CLEAR}{HIDDEN} \r\x9b2J done\n")
    return path


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_terminal_formats_carry_no_control_sequence(
    hostile_log: Path, capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    # An input that is there but not read (a FIFO) is listed on stderr with its hostile name;
    # a missing one stops the run with one line naming it. Neither line carries the escapes.
    unread = hostile_log.parent / "unread\x1b[31m.log"
    os.mkfifo(unread)
    code = main(["logs", str(hostile_log), str(unread), "--format", fmt])
    out, err = capsys.readouterr()
    assert code == 0
    assert "out of memory" in out and "skipped" in err
    missing = main(["logs", str(hostile_log), str(hostile_log.parent / "missing\x1b[31m.log")])
    _, missing_err = capsys.readouterr()
    assert missing == 1 and "no such file or directory" in missing_err
    for stream in (out, err, missing_err):
        assert "\x1b" not in stream and "\r" not in stream and "\x9b" not in stream, repr(stream)
        assert "\x07" not in stream


def test_json_evidence_is_the_text_without_escapes(
    hostile_log: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main(["logs", str(hostile_log), "--format", "json"])
    out = capsys.readouterr().out
    assert "\x1b" not in out  # the encoder escapes it
    evidence = json.loads(out)["findings"][0]["evidence"][0]["text"]
    # The scan reads a line with its escape sequences removed (rules/paste.py: colour codes
    # split the words rules match), so the evidence is the text without them.
    assert "CUDA out of memory" in evidence and "\x1b" not in evidence


def test_perf_text_tables_are_clean(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fixture = Path(__file__).parents[1] / "fixtures" / "perf" / "nccl-tests"
    text = (fixture / "a100-sxm4-80gb-1node-8gpu-allreduce-healthy.txt").read_text()
    path = tmp_path / "run.out"
    path.write_text(TITLE + text.replace("\n", f"{CLEAR}\n", 3))
    main(["perf", str(path)])
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        (f"a{TITLE}b", "ab"),
        ("a\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\b", "alinkb"),
        (f"a{CLEAR}b", "ab"),
        ("tab\tkept\nnewline kept", "tab\tkept\nnewline kept"),
        ("a\rb\x00c\x7fd\x9be", "abcde"),
        ("ünïcode stays", "ünïcode stays"),
    ],
)
def test_strip_controls(raw: str, clean: str) -> None:
    from hyperpod_nccl.report.display import strip_controls

    assert strip_controls(raw) == clean
