"""Redaction as a tested property: secrets of every kind (secret_inventory.GENERATORS), in every
placement, in every size class (a small document, a large log on the keyword path, a log over
the 4 MiB streaming chunk with the secret across the cut) are found nowhere in what leaves the
tool: bundle members and names, the environment table, summary.md, the manifest, the reports,
the text and JSON output and MCP results (unless --no-redact)."""

from __future__ import annotations

import io
import json
import tarfile
from pathlib import Path

import pytest
from secret_inventory import Case, cases, leaks

from hyperpod_nccl.cli import main
from hyperpod_nccl.redaction import Redactor, redact_document
from hyperpod_nccl.snapshot.scrub import CHUNK_BYTES, Scrubber

FIXTURE = Path(__file__).parents[1] / "fixtures" / "bundle" / "efa-2node-nccl-info.txt"
CASES = cases()
IDS = [f"{c.kind}:{c.placement}" for c in CASES]
OOM = "[rank2]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n"


def _filler(size: int) -> str:
    base = FIXTURE.read_text("utf-8")
    return (base * (size // len(base) + 1))[:size].rsplit("\n", 1)[0] + "\n"


def _scrubbed(data: bytes) -> str:
    out = io.BytesIO()
    Scrubber().copy(io.BytesIO(data), out)
    return out.getvalue().decode("utf-8", "surrogateescape")


def test_the_inventory_covers_every_kind_the_issue_and_readme_name() -> None:
    kinds = {c.kind for c in CASES}
    placements = {c.placement for c in CASES}
    assert {
        "databricks-token", "azure-client-secret", "sendgrid-key", "gcp-private-key-id",
        "aws-secret-access-key", "k8s-secret-data", "private-key", "wandb-key", "hf-token",
        "github-token", "slack-token", "jwt", "aws-session-token", "nvidia-key",
    } <= kinds  # fmt: skip
    assert {
        "short-p", "pgpass", "netrc-multi-line", "json-next-line", "kubeconfig-exec-env",
        "block-scalar", "aws-configure", "after-underscore", "k8s-secret-yaml", "file-name",
        "nccl-env", "pem-after-trigger-line", "credentials-csv",
    } <= placements  # fmt: skip
    assert len(CASES) > 150


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_small_document(case: Case) -> None:
    out = redact_document(Redactor(), case.text)
    assert leaks(case.secret, out) == [], out
    assert leaks(case.secret, _scrubbed(case.text.encode())) == []


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_inside_a_large_log(case: Case) -> None:
    filler = _filler(100 * 1024)
    text = filler + case.text + "\n" + filler
    out = Redactor().text(text)
    assert leaks(case.secret, out) == [], [
        line for line in out.splitlines() if "REDACT" in line or case.secret.value[:6] in line
    ][:5]
    assert leaks(case.secret, _scrubbed(text.encode())) == []


MULTI_LINE = [c for c in CASES if c.text.count("\n") >= 1]


@pytest.mark.parametrize("case", MULTI_LINE, ids=[f"{c.kind}:{c.placement}" for c in MULTI_LINE])
def test_across_the_streaming_chunk_boundary(case: Case) -> None:
    snippet = (case.text + "\n").encode()
    lines = snippet.splitlines(keepends=True)
    filler = _filler(CHUNK_BYTES).encode()
    for cut_after in range(1, len(lines)):  # the chunk ends after each line of the snippet
        head = len(b"".join(lines[:cut_after]))
        lead = filler[: CHUNK_BYTES - head - 1]
        lead = lead[: lead.rfind(b"\n") + 1]
        pad = b"x" * (CHUNK_BYTES - head - len(lead) - 1) + b"\n"
        data = lead + pad + snippet + filler[:100_000]
        assert data[:CHUNK_BYTES].rfind(b"\n") + 1 == len(lead) + len(pad) + head
        assert leaks(case.secret, _scrubbed(data)) == [], (case.placement, cut_after)


def _members(path: Path) -> dict[str, str]:
    with tarfile.open(path, "r:gz") as tar:
        out = {}
        for member in tar.getmembers():
            stream = tar.extractfile(member)
            out[member.name] = stream.read().decode("utf-8", "replace") if stream else ""
    return out


def test_nothing_leaves_the_tool_through_a_bundle_or_its_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    big = [_filler(64 * 1024)]
    for n, case in enumerate(CASES):
        folder = logs / f"{n:03d}"
        folder.mkdir()
        # The OOM line (a rule's evidence, printed in every report) carries the secret too.
        # (A .pgpass line is one only on a line of its own.)
        first = "" if case.placement.startswith("pgpass") else case.text.splitlines()[0]
        (folder / case.file_name).write_text(f"{case.text}\n{OOM.rstrip()} while: {first}\n")
        big += [case.text, "\n", _filler(2048)]
    (logs / "big.log").write_text("".join(big) + OOM)
    target = tmp_path / "case.tar.gz"
    code = main(["logs", str(logs), "--save-bundle", str(target)])
    text_out = capsys.readouterr()
    assert code == 0, text_out.err
    main(["logs", str(logs), "--format", "json"])
    json_out = capsys.readouterr()
    members = _members(target)
    everything = "\n".join([*members, *members.values()])
    outputs = {"bundle": everything, "text": text_out.out + text_out.err, "json": json_out.out}
    found = {
        (c.kind, c.placement, where): leaks(c.secret, data)
        for c in CASES
        for where, data in outputs.items()
        if leaks(c.secret, data)
    }
    assert found == {}
    environment = json.loads(members["job/environment.json"])
    assert any(name.startswith(("NVIDIA_", "TORCH_", "OMPI_MCA_")) for name in environment)
    assert json.loads(json_out.out)["root_cause"] == "CUDA_OOM"


def test_mcp_results_are_redacted(tmp_path: Path) -> None:
    from hyperpod_nccl.mcp_server import analyses

    path = tmp_path / "rank0.log"
    path.write_text("".join(c.text + "\n" for c in CASES) + OOM)
    document = analyses.logs([str(path)], None, None, "auto")
    data = json.dumps(document)
    assert [(c.kind, c.placement) for c in CASES if leaks(c.secret, data)] == []


def test_no_redact_shows_them(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    case = next(c for c in CASES if c.kind == "hf-token" and c.placement == "bare")
    path = tmp_path / "rank3.log"
    path.write_text(f"{OOM.rstrip()} while: {case.text}\n")
    main(["logs", str(path), "--format", "json"])
    assert leaks(case.secret, capsys.readouterr().out) == []
    main(["logs", str(path), "--format", "json", "--no-redact"])
    assert case.secret.value in capsys.readouterr().out
