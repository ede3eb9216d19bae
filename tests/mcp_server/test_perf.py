"""analyze_perf over MCP: nccl-tests output, pair sweeps and flight recorder dumps give the
same report as the perf api."""

from __future__ import annotations

from typing import Any

from mcpclient import REPO, Server, as_pasted

from hyperpod_nccl.perf.analysis import PerfOptions, analyze_perf

PERF = REPO / "tests" / "fixtures" / "perf"
PAIR_SWEEP = PERF / "pair-sweep-8node"
P5_RUN = PERF / "nccl-tests" / "p5-48xlarge-2node-efa-allreduce-slurm-healthy-noheader.txt"


def steady(document: dict[str, Any]) -> dict[str, Any]:
    summary = {k: v for k, v in document["summary"].items() if k != "elapsed_s"}
    return {**document, "summary": summary}


def test_pair_sweep_names_the_straggler_as_the_api_does(server: Server) -> None:
    call = server.call("analyze_perf", {"paths": [str(PAIR_SWEEP)]})
    report = call.data
    assert report["command"] == "perf"
    assert report["root_cause"] == "STRAGGLER_NODE"
    straggler = report["findings"][0]
    assert straggler["status"] == "FAIL" and straggler["hosts"] == ["ip-10-1-0-16"]
    assert straggler["reference"] == "performance-testing.md#straggler-node"
    assert steady(report) == steady(analyze_perf([str(PAIR_SWEEP)]).to_dict())
    assert call.progress[-1][2] is not None and "STRAGGLER_NODE" in call.progress[-1][2]


def test_pasted_run_with_expectations_matches_the_api_with_the_same_options(
    server: Server,
) -> None:
    text = P5_RUN.read_text(encoding="utf-8")
    arguments = {
        "text": text,
        "text_name": P5_RUN.name,  # its name says which collective ran
        "instance_type": "p5.48xlarge",
        "transport": "efa",
        "world_size": 16,
    }
    report = server.call("analyze_perf", arguments).data
    expected = analyze_perf([str(P5_RUN)], PerfOptions("p5.48xlarge", "efa", None, 16)).to_dict()
    assert steady(report) == steady(as_pasted(expected, str(P5_RUN.parent)))
    assert report["summary"]["runs"][0]["collective"] == "all_reduce"
    assert "TIMEOUT_SIZING" in {f["code"] for f in report["findings"]}


def test_world_size_alone_gives_the_timeout_suggestion(server: Server) -> None:
    report = server.call("analyze_perf", {"world_size": 1024}).data
    assert [f["code"] for f in report["findings"]] == ["TIMEOUT_SIZING"]


def test_flight_recorder_dumps_name_the_lagging_rank(server: Server) -> None:
    dumps = sorted(str(p) for p in (PERF / "flight-recorder").glob("trace_[0-9]"))
    report = server.call("analyze_perf", {"paths": dumps}).data
    assert steady(report) == steady(analyze_perf(dumps).to_dict())
    assert "STALLED_RANKS" in {f["code"] for f in report["findings"]}
