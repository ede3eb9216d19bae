"""Logs as they reach us: every real example line of the catalog, pasted in the shapes real
pastes take (hard-wrapped at a terminal's width, word-wrapped at spaces by a text box, in
Markdown bold, quoted, indented, behind a stray backtick, in CRLF, in ANSI colour), gives the
codes the clean line gives, with either engine."""

from __future__ import annotations

from pathlib import Path

import pytest

from hyperpod_nccl.api import analyze_logs
from hyperpod_nccl.rules.analyzer import LogAnalyzer
from hyperpod_nccl.rules.catalog import load_catalog
from hyperpod_nccl.rules.engine import hyperscan_available
from hyperpod_nccl.rules.paste import (
    join_word_wrapped,
    normalize,
    strip_ansi,
    strip_bold,
    unwrap,
    wrap_width,
)

CATALOG = load_catalog()
EXAMPLES = sorted(
    {example for rule in CATALOG.rules if rule.makes_findings for example in rule.examples}
)
# An NCCL INFO line in the form NCCL 2.2x prints at init, long enough to wrap twice at 80; of
# a job on two nodes (on one node an EFA fallback is only a warning, test_single_node_fallback).
FILLER = (
    "gpu-node-0:1042:1107 [3] NCCL INFO comm 0x55d5c0a1b2c0 rank 3 nRanks 16 nNodes 2 "
    "localRanks 8 localRank 3 MNNVL 0 - Init COMPLETE, cudaDev 3 nvmlDev 3 busId 9b000 "
    "commId 0x8a2f1c3d4e5b6a79"
)


def _hard_wrap(line: str, width: int) -> list[str]:
    return [line[i : i + width] for i in range(0, len(line), width)] or [""]


def _word_wrap(line: str, width: int) -> list[str]:
    """Break at single spaces between words, each broken line keeping its trailing space, as
    a text box copies a message it wrapped (fresh2 g020)."""
    out: list[str] = []
    start = 0
    for i in range(1, len(line) - 1):
        cut = line[i] == " " and line[i - 1] != " " and line[i + 1] != " "
        if cut and i + 1 - start >= width:
            out.append(line[start : i + 1])
            start = i + 1
    return [*out, line[start:]]


def _shapes(line: str) -> dict[str, bytes]:
    width = 80
    wrapped = _hard_wrap(FILLER, width) + _hard_wrap(line, width) + _hard_wrap(FILLER, width)
    words = [FILLER, *_word_wrap(line, 40), FILLER]
    return {
        "wrapped": "\n".join(wrapped).encode() + b"\n",
        "word-wrapped": "\n".join(words).encode() + b"\n",
        "bold": f"{FILLER}\n**{line}**\n{FILLER}\n".encode(),
        "quoted": f"> {line}\n".encode(),
        "indented": f"    {line}\n".encode(),
        "backtick": f"`{line}\n".encode(),
        "crlf": f"{line}\r\n{FILLER}\r\n".encode(),
        "ansi": f"\x1b[31m{line}\x1b[0m\n\x1b]0;title\x07{FILLER}\n".encode(),
    }


def _report(path: Path, engine: str) -> tuple[set[str], str | None]:
    report = analyze_logs([str(path)], backend=engine).to_dict()
    codes = {f["code"] for f in report["findings"] if f["status"] in ("FAIL", "WARN")}
    return codes, report["root_cause"]


def _codes(path: Path, engine: str) -> set[str]:
    return _report(path, engine)[0]


ENGINES = ["re", "hyperscan"] if hyperscan_available() else ["re"]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("example", EXAMPLES, ids=[e[:40] for e in EXAMPLES])
def test_pasted_shapes_give_the_clean_lines_codes(
    example: str, engine: str, tmp_path: Path
) -> None:
    clean = tmp_path / "clean.log"
    clean.write_text(example + "\n", "utf-8")
    expected = _codes(clean, engine)
    root = _report(clean, engine)[1]
    for shape, data in _shapes(example).items():
        pasted = tmp_path / f"{shape}.log"
        pasted.write_bytes(data)
        if shape == "word-wrapped":
            # A piece may read as something alone ('ImportError: /path: ' is a Python
            # exception) when the whole reads as nothing new: that piece's code comes too,
            # the clean line's codes and root cause stay.
            codes, pasted_root = _report(pasted, engine)
            assert expected <= codes and pasted_root == root, (shape, example)
        else:
            assert _codes(pasted, engine) == expected, (shape, example)


def test_hyperscan_is_installed_where_ci_runs() -> None:
    # The parity above must run with both engines in CI, not only the pure-Python one.
    assert hyperscan_available()


def test_unwrap_keeps_line_numbers_and_leaves_unwrapped_text_alone() -> None:
    lines = [*_hard_wrap("x" * 130, 60), "short", *_hard_wrap("y" * 61, 60)]
    lines[1] = "z" + lines[1][1:]
    data = "\n".join(lines).encode()
    out = unwrap(data).split(b"\n")
    assert out[0] == b"x" * 60 + b"z" + b"x" * 69 and out[1:3] == [b"", b""]
    assert out[3] == b"short" and out[4] == b"y" * 61 and out[5] == b""
    assert len(out) == len(lines)
    plain = b"one line\nanother, of another length\n"
    assert unwrap(plain) == plain
    # lines of one width that each start a record (NCCL channel lines): not wrapping
    channels = [
        f"node1:42:99 [0] NCCL INFO Channel {i:02d}/08 : 0 1 2 3 4 5 6 7 via P2P".encode()
        for i in range(8)
    ]
    assert wrap_width(channels) is None


WATCHDOG_8RANK = (
    Path(__file__).parents[1]
    / "fixtures"
    / "eks"
    / "samples"
    / "watchdog-timeout-8rank-allreduce-seqnum1580-last-enqueued-completed.txt"
)


def test_records_of_one_length_behind_a_counter_column_are_not_unwrapped() -> None:
    # hiyouga/LlamaFactory#7396: each line starts with the poster's line counter
    # (`[80746] [rank0]:...`, `[80747] [rank4]:...`); ranks 0 and 4 print lines of the same
    # length, which is no terminal width. Every rank's record must stay a line of its own.
    text = WATCHDOG_8RANK.read_bytes().split(b"\n", 1)[1]
    lines = text.split(b"\n")
    assert len(lines[0]) == len(lines[1])
    assert normalize(text).split(b"\n")[:4] == lines[:4]
    report = analyze_logs([str(WATCHDOG_8RANK)])
    timeout = next(f for f in report.findings if f.code == "NCCL_TIMEOUT")
    assert {0, 3, 4} <= set(timeout.ranks)


def _reading(line: bytes) -> object:
    return LogAnalyzer(CATALOG, backend="re").reading(line)


def test_word_wrapped_lines_are_joined_and_records_are_not() -> None:
    data = (
        b"DataLoader worker (pid 270071) is killed by signal: \n"
        b"Bus error. It is possible that dataloader's workers are out of shared memory. \n"
        b"Please try to raise your shared memory limit. \n"
        b"[rank0]: next\n"
    )
    out = join_word_wrapped(data, _reading).split(b"\n")
    assert out[0].startswith(b"DataLoader worker (pid 270071) is killed by signal: Bus error.")
    assert out[0].endswith(b"raise your shared memory limit. ")
    assert out[1:4] == [b"", b"", b"[rank0]: next"]  # line numbers kept
    # A line that starts a record of its own (NCCL's host:pid:tid, a time, a rank) is not the
    # rest of the line before it; nor is an indented line, nor one after several spaces.
    records = (
        b"ip-10-1-2-3:4:5 [0] NCCL INFO NCCL_SOCKET_IFNAME set to enp \n"
        b"ip-10-1-2-3:4:5 [0] NCCL INFO Bootstrap : Using enp1s0:10.1.2.3<0>\n"
        b"[rank1]: a \n[rank1]: b\n2024-05-28 14:04:27,954 x \n2024-05-28 14:04:28,954 y\n"
        b"exitcode  : -11 (pid: 3304209)     \nnext\nTraceback: \n  File x\n"
    )
    assert join_word_wrapped(records, _reading) == records
    # Nor is a line that reads as something of its own: the join would hide it.
    own = b"DataLoader worker (pid 1) is killed by signal: \nCUDA error: out of memory\n"
    assert join_word_wrapped(own, _reading) == own


def test_a_break_that_carried_its_space_to_the_next_line_is_joined() -> None:
    # github.com/vllm-project/aibrix thread (tests/fixtures/corpus/fresh30.jsonl aj015): Ray's
    # memory-monitor summary wrapped at 120 columns inside '(tasks / actors)'
    data = (
        b"(raylet) [DATE] (raylet) node_manager.cc:3007: 2 Workers (tasks /\n"
        b" actors) killed due to memory pressure (OOM), 0 Workers crashed due to other reasons\n"
        b'  File "train.py", line 3\n'
    )
    out = join_word_wrapped(data, _reading).split(b"\n")
    assert out[0].endswith(
        b"2 Workers (tasks / actors) killed due to memory pressure (OOM), "
        b"0 Workers crashed due to other reasons"
    )
    assert out[1:3] == [b"", b'  File "train.py", line 3']
    # No join where nothing new is read: an indented line stays a line of its own.
    plain = b"progress 10%\n step 2 done\n"
    assert join_word_wrapped(plain, _reading) == plain


def test_markdown_bold_around_a_line_is_removed_and_stars_in_text_are_kept() -> None:
    assert strip_bold(b'    **"message": "no nodes",**\n') == b'    "message": "no nodes",\n'
    assert (
        strip_bold(b"**hvd1:2918:3333 [0] NCCL WARN x**\r\n")
        == b"hvd1:2918:3333 [0] NCCL WARN x\r\n"
    )
    kept = (
        b"slurmstepd: error: *** JOB 608 ON n1 CANCELLED AT 2022-08-12T02:06:12 ***\n"
        b"*** STEP 5.0 ON n1 CANCELLED AT 2022-08-12T02:06:12 ***\n"
        b"    return lambda *args, **kwargs: self.run(grid=grid, **kwargs)\n"
    )
    assert strip_bold(kept) == kept
    # One word in bold inside a line is an emphasis too: the word stays, the stars go.
    assert (
        strip_bold(b"nginx-784b7cc96d-dkh7f   0/1     **Pending**   0          39m\n")
        == b"nginx-784b7cc96d-dkh7f   0/1     Pending   0          39m\n"
    )
    assert (
        strip_bold(b"NCCL WARN Call to **write** failed\n") == b"NCCL WARN Call to write failed\n"
    )
    # Spans of several words in bold (github.com/bytedance/byteps, fresh29 ai003); an exponent
    # and a call's two ** arguments are no pair.
    assert strip_bold(
        b"[2020-12-31 08:38:59.299027: F byteps/common/**shared_memory.cc:39**] **Check failed: "
        b"e == cudaSuccess || e == cudaErrorCudartUnloading CUDA: invalid argument**\n"
    ) == (
        b"[2020-12-31 08:38:59.299027: F byteps/common/shared_memory.cc:39] Check failed: "
        b"e == cudaSuccess || e == cudaErrorCudartUnloading CUDA: invalid argument\n"
    )
    assert strip_bold(b"x = y**2 + z**3; f(**a, **b)\n") == b"x = y**2 + z**3; f(**a, **b)\n"


def test_escape_sequences_are_removed_and_text_is_kept() -> None:
    assert strip_ansi(b"\x1b[1;31mNCCL WARN\x1b[0m x\x1b]0;t\x07") == b"NCCL WARN x"
    assert normalize(b"plain\n") == b"plain\n"


def test_colour_codes_a_syslog_daemon_escaped_are_removed_after_unwrapping() -> None:
    # github.com/vllm-project/aibrix thread (tests/fixtures/corpus/fresh30.jsonl aj015): Ray's
    # coloured '(raylet)' prefix as rsyslog writes its ESC bytes, '#033'
    line = b"#033[2m#033[33m(raylet)#033[0m Refer to the documentation on how to address it\n"
    assert normalize(line) == b"(raylet) Refer to the documentation on how to address it\n"
    assert normalize(b"issue #0331 stays\n") == b"issue #0331 stays\n"
