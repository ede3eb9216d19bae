"""nvidia-smi parsers on real outputs (tests/fixtures/probes/nvidia-smi, sources in each file)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from hyperpod_nccl.probes.parsers import gpu

Sample = Callable[[str], str]
CAPTURED_GPU = Path(__file__).resolve().parents[1] / "fixtures" / "captured" / "gpu"


def test_default_table_p4d_driver_cuda_and_rows(sample: Sample) -> None:
    inv = gpu.parse_smi_table(sample("nvidia-smi/smi-default-a100-sxm4-40gb-p4d-partial.txt"))
    assert (inv.driver_version, inv.cuda_version) == ("580.126.09", "13.0")
    assert [(g.index, g.name, g.bus_id) for g in inv.gpus] == [
        (0, "NVIDIA A100-SXM4-40GB", "00000000:10:1C.0"),
        (1, "NVIDIA A100-SXM4-40GB", "00000000:10:1D.0"),
    ]
    assert all(g.volatile_uncorrectable_ecc == 0 for g in inv.gpus)
    assert inv.error is None


def test_default_table_pcie_card(sample: Sample) -> None:
    inv = gpu.parse_smi_table(
        sample("nvidia-smi/smi-default-a100-pcie-1gpu-100pct-util-truncated.txt")
    )
    assert inv.driver_version == "550.90.12"
    assert [g.name for g in inv.gpus] == ["NVIDIA A100 80GB PCIe"]


def test_unknown_error_is_reported_with_bus_ids(sample: Sample) -> None:
    inv = gpu.parse_smi_table(
        sample("nvidia-smi/smi-unable-to-determine-device-handle-unknown-error.txt")
    )
    assert inv.error and "Unable to determine the device handle" in inv.error
    assert inv.error_bus_ids == ["0000:09:00.0", "0000:07:00.0"]
    assert inv.gpus == []


def test_query_remap_pending_and_volatile_vs_aggregate(sample: Sample) -> None:
    q = gpu.parse_smi_query(sample("nvidia-smi/smi-q-a100-ecc-remap-pending-xid63.txt"))
    assert (q.driver_version, q.cuda_version, q.attached_gpus) == ("510.73.08", "11.6", 8)
    (g,) = q.gpus
    assert g.bus_id == "00000000:10:1C.0" and g.product == "NVIDIA A100-SXM4-80GB"
    assert g.remap_pending is True and g.remap_failure is False
    assert g.volatile_correctable == {"SRAM Correctable": 0, "DRAM Correctable": 177}
    assert g.volatile_uncorrectable_total == 0 and g.aggregate_uncorrectable_total == 0
    assert g.retirement_pending is None  # N/A on A100: row remapping replaced page retirement


def test_query_uncorrectable_pending_with_unknown_ecc_mode(sample: Sample) -> None:
    q = gpu.parse_smi_query(
        sample("nvidia-smi/smi-q-d-ecc-row-remapper-uncorrectable-pending-yes-2559-banks.txt")
    )
    (g,) = q.gpus
    assert g.remap_pending is True and g.remapped_uncorrectable == 1
    assert g.ecc_mode == "Unknown Error"
    assert any("ECC Mode" in f for f in g.unreadable)
    assert g.volatile_uncorrectable == {}  # N/A counters are not zeros


def test_query_sram_volatile_one_aggregate_five(sample: Sample) -> None:
    q = gpu.parse_smi_query(sample("nvidia-smi/smi-q-sram-uncorrectable.txt"))
    (g,) = q.gpus
    assert g.volatile_uncorrectable == {"SRAM Uncorrectable": 1, "DRAM Uncorrectable": 0}
    assert g.aggregate_uncorrectable == {"SRAM Uncorrectable": 5, "DRAM Uncorrectable": 0}


def test_query_page_retirement_healthy_and_injected(sample: Sample) -> None:
    healthy = gpu.parse_smi_query(sample("nvidia-smi/smi-q-page-retirement-8gpu-healthy.txt"))
    assert len(healthy.gpus) == 8
    assert all(g.retirement_pending is False and g.retired_dbe == 0 for g in healthy.gpus)
    faulty = gpu.parse_smi_query(
        sample("nvidia-smi/smi-q-page-retirement-8gpu-sbe-dbe-pending-faulty.txt")
    )
    assert any(g.retirement_pending for g in faulty.gpus)
    assert any((g.retired_dbe or 0) > 0 for g in faulty.gpus)


def test_query_retired_pages_block_without_gpu_header(sample: Sample) -> None:
    q = gpu.parse_smi_query(sample("nvidia-smi/smi-q-retired-pages-pending.txt"))
    (g,) = q.gpus
    assert g.retirement_pending is True and g.retired_sbe == 2


def test_nvlink_status_healthy_inactive_and_all_inactive(sample: Sample) -> None:
    healthy, err = gpu.parse_nvlink_status(
        sample("nvidia-smi/nvlink-s-a100-sxm4-80gb-8gpu-healthy.txt")
    )
    assert err is None and sorted(healthy) == list(range(8))
    assert all(len(g.links) == 12 and not g.inactive_links for g in healthy.values())
    v100, _ = gpu.parse_nvlink_status(sample("nvidia-smi/nvlink-s-inactive-links-v100-faulty.txt"))
    assert v100[3].inactive_links == [3, 5]
    dead, _ = gpu.parse_nvlink_status(
        sample("nvidia-smi/nvlink-s-a100-gpu6-all-links-inactive-faulty.txt")
    )
    assert dead[6].all_inactive and dead[6].name == "NVIDIA A100-SXM4-80GB"


def test_nvlink_errors_counters(sample: Sample) -> None:
    gpus, _ = gpu.parse_nvlink_errors(sample("nvidia-smi/nvlink-e-and-status-h100-healthy.txt"))
    counters = gpus[0].errors
    assert counters[0] == {"Replay Errors": 0, "Recovery Errors": 0, "CRC Errors": 0}
    assert 17 in counters


def test_topology_h100_nics_and_numa(sample: Sample) -> None:
    topo = gpu.parse_topology(sample("nvidia-smi/topo-m-h100-8gpu-6nic-partial.txt"))
    assert topo.gpus == [f"GPU{i}" for i in range(8)]
    assert topo.nics == [f"NIC{i}" for i in range(6)]
    assert topo.links[("GPU0", "GPU1")] == "NV18"
    assert topo.links[("GPU0", "NIC0")] == "PIX"
    assert topo.numa["GPU0"] == "0" and topo.numa["GPU4"] == "1"
    assert topo.gpu_pairs_without_nvlink() == []


def test_topology_a100_nv12(sample: Sample) -> None:
    topo = gpu.parse_topology(sample("nvidia-smi/topo-m-a100-8gpu-nv12.txt"))
    assert len(topo.gpus) == 8 and topo.links[("GPU7", "GPU6")] == "NV12"
    assert topo.cpus["GPU4"] == "24-47"


def test_captured_h200_outputs() -> None:
    """Real output of a lent H200 (one GPU in a VM, driver 580.159.04), captured by
    tools/capture/gpu_capture.sh into tests/fixtures/captured/gpu/ (provenance: SOURCES.md)."""
    table = gpu.parse_smi_table((CAPTURED_GPU / "nvidia-smi-h200.txt").read_text("utf-8"))
    assert (table.driver_version, table.cuda_version) == ("580.159.04", "13.0")
    assert [(g.name, g.bus_id, g.volatile_uncorrectable_ecc) for g in table.gpus] == [
        ("NVIDIA H200", "00000000:00:06.0", 0)
    ]
    query = gpu.parse_smi_query(
        (CAPTURED_GPU / "nvidia-smi-q-ecc-rowremap-pageretire-h200.txt").read_text("utf-8")
    )
    (h200,) = query.gpus
    assert h200.ecc_mode == "Enabled" and h200.remap_pending is False
    assert h200.volatile_uncorrectable == {
        "SRAM Uncorrectable Parity": 0,
        "SRAM Uncorrectable SEC-DED": 0,
        "DRAM Uncorrectable": 0,
    }
    assert h200.repair_pending == [] and h200.unrepairable_memory is False
    # driver 580 underlines the header row with terminal escapes even into a file
    topo = gpu.parse_topology((CAPTURED_GPU / "nvidia-smi-topo-m-h200.txt").read_text("utf-8"))
    assert topo.gpus == ["GPU0"] and topo.numa == {"GPU0": "0"} and topo.cpus == {"GPU0": "0-15"}
    # a single GPU in a VM has no NVLink: nvidia-smi printed nothing
    links, error = gpu.parse_nvlink_status(
        (CAPTURED_GPU / "nvidia-smi-nvlink-s-h200.txt").read_text("utf-8")
    )
    assert links == {} and error is None
