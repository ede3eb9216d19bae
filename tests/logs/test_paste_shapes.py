"""Logs as they reach us: every real example line of the catalog, pasted in the shapes real
pastes take (hard-wrapped at a terminal's width, quoted, indented, behind a stray backtick,
in CRLF, in ANSI colour), gives the codes the clean line gives, with either engine."""

from __future__ import annotations

from pathlib import Path

import pytest

from hyperpod_nccl.api import analyze_logs
from hyperpod_nccl.rules.catalog import load_catalog
from hyperpod_nccl.rules.engine import hyperscan_available
from hyperpod_nccl.rules.paste import normalize, strip_ansi, unwrap, wrap_width

CATALOG = load_catalog()
EXAMPLES = sorted(
    {example for rule in CATALOG.rules if rule.makes_findings for example in rule.examples}
)
# An NCCL INFO line in the form NCCL 2.2x prints at init, long enough to wrap twice at 80.
FILLER = (
    "gpu-node-0:1042:1107 [3] NCCL INFO comm 0x55d5c0a1b2c0 rank 3 nRanks 8 nNodes 1 "
    "localRanks 8 localRank 3 MNNVL 0 - Init COMPLETE, cudaDev 3 nvmlDev 3 busId 9b000 "
    "commId 0x8a2f1c3d4e5b6a79"
)


def _hard_wrap(line: str, width: int) -> list[str]:
    return [line[i : i + width] for i in range(0, len(line), width)] or [""]


def _shapes(line: str) -> dict[str, bytes]:
    width = 80
    wrapped = _hard_wrap(FILLER, width) + _hard_wrap(line, width) + _hard_wrap(FILLER, width)
    return {
        "wrapped": "\n".join(wrapped).encode() + b"\n",
        "quoted": f"> {line}\n".encode(),
        "indented": f"    {line}\n".encode(),
        "backtick": f"`{line}\n".encode(),
        "crlf": f"{line}\r\n{FILLER}\r\n".encode(),
        "ansi": f"\x1b[31m{line}\x1b[0m\n\x1b]0;title\x07{FILLER}\n".encode(),
    }


def _codes(path: Path, engine: str) -> set[str]:
    report = analyze_logs([str(path)], backend=engine).to_dict()
    return {f["code"] for f in report["findings"] if f["status"] in ("FAIL", "WARN")}


ENGINES = ["re", "hyperscan"] if hyperscan_available() else ["re"]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("example", EXAMPLES, ids=[e[:40] for e in EXAMPLES])
def test_pasted_shapes_give_the_clean_lines_codes(
    example: str, engine: str, tmp_path: Path
) -> None:
    clean = tmp_path / "clean.log"
    clean.write_text(example + "\n", "utf-8")
    expected = _codes(clean, engine)
    for shape, data in _shapes(example).items():
        pasted = tmp_path / f"{shape}.log"
        pasted.write_bytes(data)
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


def test_escape_sequences_are_removed_and_text_is_kept() -> None:
    assert strip_ansi(b"\x1b[1;31mNCCL WARN\x1b[0m x\x1b]0;t\x07") == b"NCCL WARN x"
    assert normalize(b"plain\n") == b"plain\n"
