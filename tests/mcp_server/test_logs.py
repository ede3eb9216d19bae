"""analyze_logs over MCP: the same report as the api, for files, directories and pasted text."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import anyio
from mcpclient import REPO, Agent, Call, Server, as_pasted

from hyperpod_nccl.api import analyze_logs
from hyperpod_nccl.rules.parallel import PARALLEL_MIN_BYTES

OOM_EXAMPLE = REPO / "src" / "hyperpod_nccl" / "examples" / "logs" / "oom-one-rank"
CORPUS = REPO / "tests" / "fixtures" / "corpus" / "dev.jsonl"
HEALTHY = REPO / "tests" / "fixtures" / "logs" / "healthy"


def without_timings(document: dict[str, Any]) -> dict[str, Any]:
    """A report minus what differs between two runs of the same analysis."""
    summary = {k: v for k, v in document["summary"].items() if k not in ("elapsed_s", "workers")}
    return {**document, "summary": summary}


def api_report(paths: list[str], **options: Any) -> dict[str, Any]:
    return without_timings(analyze_logs(paths, **options).to_dict())


def test_example_job_names_the_oom_killed_rank_as_the_api_does(server: Server) -> None:
    call = server.call("analyze_logs", {"paths": [str(OOM_EXAMPLE)]})
    report = call.data
    assert report["schema"] == "hyperpod-nccl/report/v1"
    assert report["command"] == "logs"
    assert report["root_cause"] == "CONTAINER_OOM"
    root = report["findings"][0]
    assert root["root_cause"] is True and root["ranks"] == [2] and root["hosts"] == ["ip-10-1-7-41"]
    assert report["issues_found"] == sum(1 for f in report["findings"] if f["status"] == "FAIL")
    # Suggested commands come back as data, for the user to run.
    assert any(f["suggested_commands"] for f in report["findings"] if f["status"] == "FAIL")
    assert without_timings(report) == api_report([str(OOM_EXAMPLE)])


def test_progress_is_reported_from_start_to_outcome(server: Server) -> None:
    call = server.call("analyze_logs", {"paths": [str(OOM_EXAMPLE)]})
    steps = [p for p, _, _ in call.progress]
    assert len(call.progress) >= 2
    assert steps == sorted(steps) and len(set(steps)) == len(steps)  # strictly increasing
    first, last = call.progress[0], call.progress[-1]
    assert first[1] is None and first[2] == "analysing logs: started"
    assert last[1] == last[0]  # the last notification completes the total
    assert last[2] is not None and "root cause CONTAINER_OOM" in last[2]


def test_relative_paths_are_read_from_the_directory_the_server_started_in(
    server: Server,
) -> None:
    relative = os.path.relpath(OOM_EXAMPLE, REPO)
    report = server.call("analyze_logs", {"paths": [relative]}).data
    assert report["root_cause"] == "CONTAINER_OOM"
    assert report["findings"][0]["evidence"][0]["source"].startswith(relative)


def test_pasted_corpus_cases_get_the_same_report_as_the_same_text_in_a_file(
    server: Server, tmp_path: Path
) -> None:
    cases = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines()]

    async def paste_all(agent: Agent) -> list[Call]:
        return [await agent.call("analyze_logs", {"text": case["log"]}) for case in cases]

    calls = server.session(paste_all)
    agree = 0
    for case, call in zip(cases, calls, strict=True):
        as_file = tmp_path / case["id"] / "pasted.log"
        as_file.parent.mkdir()
        as_file.write_text(case["log"], encoding="utf-8")
        expected = as_pasted(api_report([str(as_file)]), str(as_file.parent))
        got = without_timings(call.data)
        assert got == expected, case["id"]
        sources = [e["source"] for f in got["findings"] for e in f["evidence"]]
        assert all(s.startswith("<pasted>/pasted.log:") for s in sources), case["id"]
        wanted = None if case["label"] == "HEALTHY" else case["label"]
        agree += got["root_cause"] == wanted
    assert agree / len(cases) > 0.8, agree  # the engine's accuracy on its dev set, through MCP
    # Pasted text lives in a private temporary directory for the call only.
    assert not list(Path(server.env["TMPDIR"]).iterdir())


def test_paths_and_pasted_text_are_analysed_together(server: Server) -> None:
    dmesg = (OOM_EXAMPLE / "dmesg-ip-10-1-7-41.txt").read_text(encoding="utf-8")
    ranks = [str(p) for p in sorted(OOM_EXAMPLE.glob("rank*.log"))]
    arguments = {"paths": ranks, "text": dmesg, "text_name": "dmesg-ip-10-1-7-41.txt"}
    report = server.call("analyze_logs", arguments).data
    assert report["summary"]["inputs"] == len(ranks) + 1
    assert report["root_cause"] == "CONTAINER_OOM"
    oom = report["findings"][0]
    assert oom["hosts"] == ["ip-10-1-7-41"]  # read from the name given to the pasted text
    assert any(e["source"].startswith("<pasted>/dmesg-ip-10-1-7-41.txt:") for e in oom["evidence"])


def test_a_missing_input_among_readable_ones_is_reported_incomplete(
    server: Server, tmp_path: Path
) -> None:
    missing = str(tmp_path / "rank9.log")
    report = server.call("analyze_logs", {"paths": [str(OOM_EXAMPLE), missing]}).data
    assert report["root_cause"] == "CONTAINER_OOM"
    assert {"check": missing, "reason": "no such file or directory"} in report["not_checked"]
    unreadable = [f for f in report["findings"] if f["code"] == "INPUT_UNREADABLE"]
    assert [f["status"] for f in unreadable] == ["INCOMPLETE"]


def test_a_healthy_log_has_no_root_cause_and_says_so(server: Server) -> None:
    report = server.call("analyze_logs", {"paths": [str(HEALTHY)]}).data
    assert report["root_cause"] is None and report["issues_found"] == 0
    assert [f["code"] for f in report["findings"] if f["status"] == "PASS"] == [
        "NO_FAILURE_SIGNATURE"
    ]


def test_big_logs_are_scanned_in_forked_workers_from_the_server_like_serially(
    server: Server, tmp_path: Path
) -> None:
    """Above PARALLEL_MIN_BYTES the scan forks workers; the server calls it from a worker
    thread of its event loop, and the report must still equal a serial scan's."""
    healthy = "".join(p.read_text(encoding="utf-8") for p in sorted(HEALTHY.iterdir()))
    job = tmp_path / "job"
    job.mkdir()
    for log in sorted(OOM_EXAMPLE.iterdir()):
        (job / log.name).write_bytes(log.read_bytes())
    with open(job / "earlier-healthy-runs.log", "w", encoding="utf-8") as out:
        written = 0
        while written <= PARALLEL_MIN_BYTES:
            written += out.write(healthy)
    report = server.call("analyze_logs", {"paths": [str(job)]}).data
    assert report["summary"]["workers"] > 1 or os.cpu_count() == 1
    assert without_timings(report) == api_report([str(job)], workers=1)
    assert report["root_cause"] == "CONTAINER_OOM"


def test_two_big_analyses_at_once_each_get_their_own_report(server: Server, tmp_path: Path) -> None:
    """The SDK runs concurrent calls concurrently; the forked scan must not mix two jobs."""
    healthy = "".join(p.read_text(encoding="utf-8") for p in sorted(HEALTHY.iterdir()))
    filler = tmp_path / "filler.log"
    with open(filler, "w", encoding="utf-8") as out:
        written = 0
        while written <= PARALLEL_MIN_BYTES:
            written += out.write(healthy)
    cases = {json.loads(line)["id"]: json.loads(line) for line in CORPUS.read_text().splitlines()}
    jobs = {}
    for case_id in ("a012", "a028"):  # CUDA_OOM on one job, GPU_ECC on the other
        job = tmp_path / case_id
        job.mkdir()
        os.link(filler, job / "earlier-healthy-runs.log")
        (job / "rank0.log").write_text(cases[case_id]["log"], encoding="utf-8")
        jobs[case_id] = str(job)

    async def both(agent: Agent) -> dict[str, Call]:
        calls: dict[str, Call] = {}

        async def one(case_id: str) -> None:
            calls[case_id] = await agent.call("analyze_logs", {"paths": [jobs[case_id]]})

        async with anyio.create_task_group() as group:
            for case_id in jobs:
                group.start_soon(one, case_id)
        return calls

    calls = server.session(both)
    for case_id, call in calls.items():
        report = call.data
        assert report["summary"]["workers"] > 1 or os.cpu_count() == 1
        assert report["root_cause"] == cases[case_id]["label"], case_id
        assert without_timings(report) == api_report([jobs[case_id]], workers=1), case_id
