"""The per-call `redact` switch of the analysis tools, over the real stdio client: results are
redacted by default (as the CLI's output is), and `redact: false` shows what was read, as the
CLI's --no-redact does. Secrets are generated fresh from a seed (real formats, random bodies)."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

from mcpclient import REPO, Agent, Call, Server

ANALYSES = ("analyze_logs", "analyze_perf", "diagnose_cluster", "diagnose_bundle")
ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
OOM = "[rank2]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB."
EXAMPLE_BUNDLE = REPO / "src" / "hyperpod_nccl" / "examples" / "bundles" / "oom-one-rank"
# A line of the example bundle that is evidence of its NCCL_TIMEOUT finding.
EVIDENCE_LOG = Path("k8s/logs/training/pytorch/llama-pretrain-master-0.log")
EVIDENCE_LINE = 77
PERF_HANG = REPO / "tests/fixtures/perf/nccl-tests/a100-2node-ib-hang-with-nccl-info-partial.txt"


def _hf_token(seed: int) -> str:
    rng = random.Random(seed)
    return "hf_" + "".join(rng.choice(ALNUM) for _ in range(34))


def _codes(call: Call) -> list[tuple[str, str]]:
    return [(f["code"], f["status"]) for f in call.data["findings"]]


def test_every_analysis_tool_takes_redact_default_true_described_as_no_redact(
    server: Server,
) -> None:
    async def listing(agent: Agent) -> dict[str, dict[str, object]]:
        tools = await agent.client.list_tools()
        return {t.name: t.input_schema["properties"] for t in tools.tools}

    properties = server.session(listing)
    for name in ANALYSES:
        redact = properties[name]["redact"]
        assert isinstance(redact, dict), name
        assert redact["type"] == "boolean" and redact["default"] is True, name
        assert "--no-redact" in str(redact["description"]), name
    assert "redact" not in properties["explain"] and "redact" not in properties["list_codes"]


def test_analyze_logs_redacts_by_default_and_shows_secrets_when_asked(
    server: Server, tmp_path: Path
) -> None:
    token = _hf_token(14)
    log = tmp_path / "rank2.log"
    log.write_text(f"{OOM} while: HF_TOKEN={token}\n", encoding="utf-8")

    async def three(agent: Agent) -> list[Call]:
        return [
            await agent.call("analyze_logs", {"paths": [str(log)]}),
            await agent.call("analyze_logs", {"paths": [str(log)], "redact": True}),
            await agent.call("analyze_logs", {"text": log.read_text(), "redact": False}),
        ]

    default, redacted, shown = server.session(three)
    for call in (default, redacted):
        assert token not in call.text and token[3:15] not in call.text
        assert "[REDACTED:" in call.text
    assert token in shown.text and "[REDACTED:" not in shown.text
    # The switch changes what is shown, not what is found.
    assert _codes(default) == _codes(shown) and default.data["root_cause"] == "CUDA_OOM"


def test_diagnose_bundle_redacts_by_default_and_shows_secrets_when_asked(
    server: Server, tmp_path: Path
) -> None:
    bundle = tmp_path / "bundle"
    shutil.copytree(EXAMPLE_BUNDLE, bundle)
    token = _hf_token(41)
    log = bundle / EVIDENCE_LOG
    lines = log.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[EVIDENCE_LINE - 1] = lines[EVIDENCE_LINE - 1].rstrip("\n") + f" HF_TOKEN={token}\n"
    log.write_text("".join(lines), encoding="utf-8")

    async def two(agent: Agent) -> list[Call]:
        return [
            await agent.call("diagnose_bundle", {"path": str(bundle)}),
            await agent.call("diagnose_bundle", {"path": str(bundle), "redact": False}),
        ]

    default, shown = server.session(two)
    assert token not in default.text and "[REDACTED:" in default.text
    assert token in shown.text
    assert _codes(default) == _codes(shown)
    assert "NCCL_TIMEOUT" in {code for code, _ in _codes(shown)}


def test_analyze_perf_redacts_by_default_and_shows_secrets_when_asked(
    server: Server, tmp_path: Path
) -> None:
    # A token pasted into a file name: the finding's evidence names the file.
    token = _hf_token(7)
    output = tmp_path / f"allreduce-{token}.txt"
    shutil.copyfile(PERF_HANG, output)

    async def two(agent: Agent) -> list[Call]:
        return [
            await agent.call("analyze_perf", {"paths": [str(output)]}),
            await agent.call("analyze_perf", {"paths": [str(output)], "redact": False}),
        ]

    default, shown = server.session(two)
    assert token not in default.text and "[REDACTED:" in default.text
    assert token in shown.text
    assert _codes(default) == _codes(shown) and ("TEST_FAILED", "FAIL") in _codes(shown)
