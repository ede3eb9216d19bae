"""nccl-tests text output, as real runs printed it, parsed into runs, rows and devices."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hyperpod_nccl.perf.collective import infer_collective
from hyperpod_nccl.perf.model import Run, RunStatus
from hyperpod_nccl.perf.nccl_tests import TextParser, _half, _half_plan


def parse(path: Path) -> tuple[list[Run], TextParser]:
    parser = TextParser(path.name)
    with path.open(encoding="utf-8") as f:
        parser.feed_all(f)
    runs = parser.finish()
    for run in runs:
        infer_collective(run, path.name)
    return runs, parser


def one_run(path: Path) -> Run:
    runs, _ = parse(path)
    assert len(runs) == 1, [r.label for r in runs]
    return runs[0]


def test_full_run_with_header_devices_table_and_footer(perf: Any) -> None:
    run = one_run(perf.nccl_tests / "a100-sxm4-80gb-2node-16gpu-allreduce-pairwise-healthy.txt")
    assert run.hosts == ["{host1}", "{host2}"]
    assert run.world_size == 16 and run.ranks_per_node == 8
    assert run.gpu_models == ["NVIDIA A100-SXM4-80GB"]
    assert run.nccl_version == "2.12.12+cuda11.6"
    assert run.params["minBytes"] == 33554432 and run.params["maxBytes"] == 1073741824
    assert [r.size for r in run.rows] == [33554432 * 2**i for i in range(6)]
    last = run.rows[-1]
    assert last.out_of_place is not None and last.in_place is not None
    assert (last.out_of_place.time_us, last.out_of_place.busbw) == (11013.0, 182.80)
    assert (last.in_place.algbw, last.in_place.busbw, last.in_place.wrong) == (96.74, 181.39, 0.0)
    assert run.out_of_bounds == 0 and run.out_of_bounds_ok is True
    assert run.avg_busbw == 150.209
    assert run.status is RunStatus.COMPLETED
    # busbw/algbw = 2(n-1)/n = 1.875 for 16 ranks: an all_reduce.
    assert (run.collective, run.collective_from) == ("all_reduce", "file name")


def test_collective_from_the_rows_when_nothing_names_it(perf: Any, tmp_path: Path) -> None:
    text = (perf.nccl_tests / "a100-sxm4-80gb-1node-8gpu-allreduce-healthy.txt").read_text()
    unnamed = tmp_path / "run.log"
    unnamed.write_text(text)
    run = one_run(unnamed)
    assert (run.collective, run.collective_from) == ("all_reduce", "busbw/algbw ratio")


def test_open_mpi_tag_output_prefix(perf: Any) -> None:
    run = one_run(perf.nccl_tests / "aws-batch-efa-allreduce-to-16G-healthy-avg156.txt")
    assert len(run.rows) == 32
    assert run.rows[0].size == 8 and run.rows[-1].size == 17179869184
    assert run.rows[-1].busbw == pytest.approx((483.05 + 483.35) / 2)
    assert run.avg_busbw == 156.742 and run.out_of_bounds == 0
    assert run.stream == ""  # one job's output, not independent streams


def test_srun_label_prefix_without_header_or_footer(perf: Any) -> None:
    run = one_run(perf.nccl_tests / "p5-48xlarge-2node-efa-allreduce-slurm-healthy-noheader.txt")
    assert len(run.rows) == 32
    assert run.peak_large_busbw() == pytest.approx((487.09 + 487.26) / 2)
    assert run.status is RunStatus.UNFINISHED  # no footer, no header: cannot tell


def test_launcher_tags_repeated_inside_rows(perf: Any) -> None:
    runs, parser = parse(perf.nccl_tests / "allreduce-bandwidth-collapse-above-64MB-partial.txt")
    (run,) = runs
    # The excerpt starts mid-row: that line is skipped and said so, the 10 full rows are read.
    assert parser.skipped_lines == []
    assert [r.size for r in run.rows][:2] == [1048576, 2097152]
    assert len(run.rows) == 10
    assert run.rows[-1].out_of_place is not None and run.rows[-1].out_of_place.busbw == 5.31


def test_all_gather_with_wrong_column_na(perf: Any) -> None:
    run = one_run(perf.nccl_tests / "h100-a3high-2node-allgather-tcpx-gke.txt")
    assert all(r.wrong is None for r in run.rows)  # N/A: checking was off
    assert {r.redop for r in run.rows} == {"none"}
    assert (
        run.collective == "all_gather"
    )  # from the file name; the rows cannot tell it from alltoall


def test_unindented_sizes_and_wide_wrong_column(perf: Any) -> None:
    run = one_run(perf.nccl_tests / "h100-a3mega-2node-allgather-tcpxo-healthy-gke.txt")
    assert len(run.rows) == 31
    assert run.rows[-1].size == 8589934592 and run.rows[-1].busbw == pytest.approx(
        (188.73 + 188.90) / 2
    )


def test_new_header_with_version_and_collective_name(perf: Any) -> None:
    run = one_run(perf.nccl_tests / "h100-alltoall-1node-4gpu-partial.txt")
    assert run.tests_version == "2.17.8"
    assert (run.collective, run.collective_from) == ("alltoall", "nccl-tests header")
    assert run.hosts == ["Node1"] and run.world_size == 4
    # The last field is cut ('N' of 'N/A'); the row is still read.
    assert len(run.rows) == 1 and run.rows[0].in_place is not None
    assert run.status is RunStatus.STOPPED  # 500 MiB of a sweep to 530 MiB, then nothing


def test_old_error_column_and_extra_leading_column(perf: Any) -> None:
    runs, _ = parse(perf.nccl_tests / "p4dn-1to4node-efa-allreduce-scaling-drop-low-busbw.txt")
    # One row per node count, told apart by the poster's leading `p4dn` column.
    assert [r.labels for r in runs] == [{"p4dn": str(n)} for n in (1, 2, 3, 4)]
    assert [r.rows[0].busbw for r in runs] == pytest.approx([230.79, 57.185, 31.76, 29.62])
    # `error` holds a maximum error (2e-07), not a count of wrong values.
    assert all(r.rows[0].wrong is None for r in runs)


def test_oldest_layout_with_bytes_columns_and_failure(perf: Any) -> None:
    run = one_run(perf.nccl_tests / "nccl1-old-layout-unhandled-cuda-error.txt")
    assert run.hosts == ["node03"] and run.world_size == 8
    assert run.devices[0].pid is None and run.devices[0].group is None
    assert run.params["maxBytes"] == 134217728
    assert run.columns[:4] == ["size", "count", "type", "redop"]
    assert run.status is RunStatus.FAILED
    assert [e.kind for e in run.errors] == ["nccl"]


def test_repeated_zero_sizes_are_not_interleaving(perf: Any) -> None:
    run = one_run(perf.nccl_tests / "reduce-scatter-2node-4gpu-each-partial.txt")
    assert [r.size for r in run.rows] == [0, 0, 0, 0, 0, 128, 256]
    assert not run.interleaved


def test_hang_before_the_table(perf: Any) -> None:
    run = one_run(perf.nccl_tests / "a100-2node-ib-hang-with-nccl-info-partial.txt")
    assert run.hosts == ["lascar", "ranokau"]
    assert run.rows == [] and run.errors == []
    assert run.status is RunStatus.STOPPED
    assert run.collective == "all_reduce"  # from the mpirun command line


def test_failure_lines_name_their_hosts(perf: Any) -> None:
    run = one_run(perf.nccl_tests / "test-nccl-failure-unhandled-cuda-after-16G-rows.txt")
    assert len(run.rows) == 5
    hosts = {e.host for e in run.errors}
    assert {"HCA-128", "HCA-108", "HCA-107"} <= hosts
    assert run.status is RunStatus.FAILED


def test_launch_failure_without_any_table(perf: Any) -> None:
    run = one_run(perf.nccl_tests / "mpirun-not-enough-slots-failed-launch.txt")
    assert [e.kind for e in run.errors] == ["launch"]
    assert run.status is RunStatus.FAILED


def test_pair_sweep_summary_lines(perf: Any) -> None:
    runs, _ = parse(perf.nccl_tests / "two-node-pair-sweep-slow-node-se02gn644.txt")
    assert [(r.hosts, r.summary_busbw) for r in runs] == [
        (["se02gn644", "se02gn699"], 49.36),
        (["se02gn632", "se02gn641"], 88.36),
        (["se02gn284", "se02gn678"], 49.28),
        (["se02gn641", "se02gn644"], 49.30),
        (["se02gn404", "se02gn699"], 86.81),
    ]


def test_many_runs_in_one_log_with_timestamp_and_srun_prefixes(perf: Any) -> None:
    runs, parser = parse(perf.pair_sweep_log)
    assert len(runs) == 12
    assert parser.skipped_lines == []
    assert all(
        r.status is RunStatus.COMPLETED and len(r.rows) == 6 and len(r.hosts) == 2 for r in runs
    )
    assert runs[2].hosts == ["ip-10-1-0-13", "ip-10-1-0-16"]


def test_interleaved_independent_streams_are_split_by_label(perf: Any, tmp_path: Path) -> None:
    """Two tasks each printing their own test (srun --label), lines mixed as they arrive."""
    a = (
        (perf.pair_sweep / "round1-pair1-ip-10-1-0-11-ip-10-1-0-18.log")
        .read_text()
        .splitlines()[1:]
    )
    b = (
        (perf.pair_sweep / "round1-pair2-ip-10-1-0-12-ip-10-1-0-17.log")
        .read_text()
        .splitlines()[1:]
    )
    mixed = []
    for i in range(max(len(a), len(b))):
        if i < len(a):
            mixed.append(f"0: {a[i]}")
        if i < len(b):
            mixed.append(f"1: {b[i]}")
    path = tmp_path / "two-tasks.log"
    path.write_text("\n".join(mixed) + "\n")
    runs, _ = parse(path)
    assert sorted((r.stream, tuple(r.hosts), len(r.rows)) for r in runs) == [
        ("0", ("ip-10-1-0-11", "ip-10-1-0-18"), 6),
        ("1", ("ip-10-1-0-12", "ip-10-1-0-17"), 6),
    ]
    assert not any(r.interleaved for r in runs)


def test_interleaved_rows_without_labels_are_flagged(perf: Any, tmp_path: Path) -> None:
    a = (perf.pair_sweep / "round1-pair1-ip-10-1-0-11-ip-10-1-0-18.log").read_text().splitlines()
    b = (perf.pair_sweep / "round1-pair2-ip-10-1-0-12-ip-10-1-0-17.log").read_text().splitlines()
    rows_a = [ln for ln in a if ln.strip()[:1].isdigit()]
    rows_b = [ln for ln in b if ln.strip()[:1].isdigit()]
    header = a[: a.index(rows_a[0])]
    mixed = header + [ln for pair in zip(rows_a, rows_b, strict=True) for ln in pair]
    path = tmp_path / "mixed.log"
    path.write_text("\n".join(mixed) + "\n")
    (run,) = parse(path)[0]
    assert run.interleaved


@pytest.mark.parametrize(
    ("debug_log", "transport"),
    [
        ("multinode-socket-fallback-channels-via-net-socket.txt", "socket"),
        ("efa-ofi-1.11.0-init-p4d-sagemaker-cloudwatch.txt", "efa"),
    ],
)
def test_nccl_info_lines_set_the_transport(
    perf: Any, tmp_path: Path, debug_log: str, transport: str
) -> None:
    """NCCL_DEBUG=INFO lines printed along with the test say which network NCCL used."""
    table = (
        perf.nccl_tests / "a100-sxm4-80gb-2node-16gpu-allreduce-pairwise-healthy.txt"
    ).read_text()
    info = (perf.root / "nccl-debug" / debug_log).read_text()
    head, sep, rest = table.partition("NCCL version")
    path = tmp_path / "with-info.log"
    path.write_text(head + info + sep + rest)
    run = one_run(path)
    assert run.transports == {transport}


@pytest.mark.parametrize(
    "names",
    [
        ["time", "algbw", "busbw", "#wrong"],
        ["time", "algbw", "busbw", "error"],
        ["cputime", "algbw", "busbw", "#wrong", "i_min", "i_max"],
        ["time", "algbw", "busbw"],
        ["time", "busbw", "algbw", "busbw", "#wrong"],  # a name twice: looked up by name
    ],
)
def test_a_half_read_by_its_plan_is_the_half_read_by_name(names: list[str]) -> None:
    """_half's positions worked out once per layout give what looking each value up by name
    gives, for rows cut anywhere."""
    tokens = ["650.2", "51.61", "96.76", "0", "0.5", "N/A", "7"]
    for cut in range(len(tokens) + 1):
        row = tokens[:cut]
        assert _half(row, names, _half_plan(names)) == _half(row, names, None)
