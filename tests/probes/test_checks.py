"""Node checks on Snapshots holding real probe outputs, laid out as the runner writes them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from hyperpod_nccl import kb
from hyperpod_nccl.checks import load_checks, run_checks
from hyperpod_nccl.checks.node_report import node_report
from hyperpod_nccl.model import Finding, Priority, Status
from hyperpod_nccl.snapshot import Snapshot

Sample = Callable[[str], str]
AddNode = Callable[..., None]
CAPTURED_GPU = Path(__file__).resolve().parents[1] / "fixtures" / "captured" / "gpu"
ABSENT_SMI = "nvidia-smi is not installed on the node (or not on PATH)"


def _node(findings: list[Finding], code: str, node: str) -> list[Finding]:
    return [f for f in findings if f.code == code and node in f.hosts]


def _by_status(findings: list[Finding], code: str, status: Status) -> list[Finding]:
    return [f for f in findings if f.code == code and f.status is status]


def test_every_node_check_code_has_a_guide_section() -> None:
    node_checks = [s for s in load_checks().values() if s.area == "node"]
    assert len(node_checks) >= 18
    for spec in node_checks:
        for code in spec.codes:
            assert kb.resolve(kb.reference_for_code(code)) is not None, (spec.id, code)


def test_remap_pending_fails_p0_on_that_node_only(
    snapshot: Snapshot, add_node: AddNode, sample: Sample
) -> None:
    add_node(
        snapshot,
        "gpu-bad",
        {"gpu_ecc": sample("nvidia-smi/smi-q-a100-ecc-remap-pending-xid63.txt")},
    )
    add_node(
        snapshot, "gpu-ok", {"gpu_ecc": sample("nvidia-smi/smi-q-page-retirement-8gpu-healthy.txt")}
    )
    findings = run_checks(snapshot, ["node"])
    (fail,) = _node(findings, "GPU_ECC", "gpu-bad")
    assert (fail.status, fail.priority, fail.hosts) == (Status.FAIL, Priority.P0, ["gpu-bad"])
    assert "row remap pending" in fail.title and fail.reference == "debugging-guide.md#gpu-ecc"
    assert any("batch-reboot-cluster-nodes" in c.command for c in fail.suggested_commands)
    (ok,) = _by_status(findings, "GPU_ECC", Status.PASS)
    assert ok.hosts == ["gpu-ok"]


def test_volatile_versus_aggregate_ecc(
    snapshot: Snapshot, add_node: AddNode, sample: Sample
) -> None:
    add_node(snapshot, "n1", {"gpu_ecc": sample("nvidia-smi/smi-q-sram-uncorrectable.txt")})
    findings = _node(run_checks(snapshot, ["node"]), "GPU_ECC", "n1")
    (fail,) = [f for f in findings if f.status is Status.FAIL]
    assert "1 uncorrectable ECC error(s) since the driver loaded" in fail.title


def test_xid_classification_application_versus_hardware(
    snapshot: Snapshot, add_node: AddNode, sample: Sample
) -> None:
    add_node(snapshot, "app", {"kernel_log": sample("xid/xid13-sm-warp-exceptions-then-xid43.txt")})
    add_node(
        snapshot,
        "hw",
        {"kernel_log": sample("xid/xid79-fallen-off-bus-with-nvswitch-sxid20034.txt")},
    )
    findings = run_checks(snapshot, ["node"])
    app = _node(findings, "GPU_XID", "app")
    assert {f.status for f in app} == {Status.WARN} and all(f.priority is Priority.P2 for f in app)
    assert any("Xid 13" in f.title and "not a hardware fault" in f.title for f in app)
    hw = _node(findings, "GPU_XID", "hw")
    (xid79,) = [f for f in hw if "Xid 79" in f.title]
    assert (xid79.status, xid79.priority) == (Status.FAIL, Priority.P0) and "reboot" in xid79.title
    assert not [f for f in hw if "fallen off the bus (no Xid 79" in f.title]  # not counted twice
    (sxid,) = [f for f in _node(findings, "NVLINK_ERROR", "hw") if f.status is Status.FAIL]
    assert "SXid 20034" in sxid.title


def test_xid_window_leaves_out_old_events(
    snapshot: Snapshot, add_node: AddNode, sample: Sample
) -> None:
    text = "# now: 2025-01-23T00:00:00+00:00\n# source: dmesg\n" + sample(
        "xid/xid13-sm-warp-exceptions-then-xid43.txt"
    )
    add_node(snapshot, "n1", {"kernel_log": text})
    assert _by_status(run_checks(snapshot, ["node"]), "GPU_XID", Status.PASS)  # 2 days old > 24 h
    snapshot.meta["probe_since"] = "2025-01-21T00:00:00Z"
    assert _by_status(run_checks(snapshot, ["node"]), "GPU_XID", Status.WARN)


def test_gpu_checks_skip_with_the_reason_when_nvidia_smi_is_absent(
    snapshot: Snapshot, add_node: AddNode
) -> None:
    add_node(
        snapshot,
        "cpu1",
        {},
        absent={
            p: ABSENT_SMI for p in ("gpu_inventory", "gpu_ecc", "nvlink_status", "gpu_topology")
        },
    )
    findings = run_checks(snapshot, ["node"])
    for code in ("GPU_ACCESS_LOST", "GPU_ECC", "NVLINK_ERROR", "NCCL_TOPOLOGY"):
        (skipped,) = _by_status(findings, code, Status.SKIPPED)
        assert ABSENT_SMI in skipped.title and skipped.hosts == ["cpu1"]
    assert not [
        f for f in findings if f.status is Status.PASS and f.code in ("GPU_ECC", "NVLINK_ERROR")
    ]


def test_nvidia_smi_unknown_error_is_gpu_access_lost(
    snapshot: Snapshot, add_node: AddNode, sample: Sample
) -> None:
    add_node(
        snapshot,
        "n1",
        {
            "gpu_inventory": sample(
                "nvidia-smi/smi-unable-to-determine-device-handle-unknown-error.txt"
            )
        },
    )
    (fail,) = _by_status(run_checks(snapshot, ["node"]), "GPU_ACCESS_LOST", Status.FAIL)
    assert fail.priority is Priority.P0 and fail.details["bus_ids"] == [
        "0000:09:00.0",
        "0000:07:00.0",
    ]


def test_missing_gpu_against_instance_type(
    snapshot: Snapshot, add_node: AddNode, sample: Sample
) -> None:
    add_node(
        snapshot,
        "p4d",
        {
            "gpu_inventory": sample("nvidia-smi/smi-default-a100-sxm4-40gb-p4d-partial.txt"),
            "host_info": "instance_type: p4d.24xlarge\n",
        },
    )
    (fail,) = [
        f for f in run_checks(snapshot, ["node"]) if f.code == "GPU_XID" and f.status is Status.FAIL
    ]
    assert "2 GPUs visible, p4d.24xlarge has 8" in fail.title


def test_inactive_nvlinks_fail(snapshot: Snapshot, add_node: AddNode, sample: Sample) -> None:
    add_node(
        snapshot,
        "v100",
        {"nvlink_status": sample("nvidia-smi/nvlink-s-inactive-links-v100-faulty.txt")},
    )
    (fail,) = _by_status(run_checks(snapshot, ["node"]), "NVLINK_ERROR", Status.FAIL)
    assert "links [3, 5] inactive" in fail.title


def test_dcgm_row_remap_error_is_gpu_ecc(
    snapshot: Snapshot, add_node: AddNode, sample: Sample
) -> None:
    add_node(
        snapshot,
        "n1",
        {"dcgm_diag": sample("dcgmi/dcgmi-diag-r3-fragment-row-remap-pending.txt")},
        absent={"dcgm_health": "timed out after 30s"},
    )
    findings = run_checks(snapshot, ["node"])
    (fail,) = [
        f for f in findings if f.status is Status.FAIL and "n1" in f.hosts and "dcgm" in f.title
    ]
    assert fail.code == "GPU_ECC" and fail.priority is Priority.P0


def test_efa_count_against_instance_type(
    snapshot: Snapshot, add_node: AddNode, sample: Sample
) -> None:
    devices = "".join(f"rdmap{i}s0 driver=efa pci=0000:{i:02x}:00.0\n" for i in range(31))
    add_node(
        snapshot,
        "p5",
        {
            "host_info": "instance_type: p5.48xlarge\n",
            "efa_devices": devices,
            "kernel_modules": "efa 147456 0 - Live 0x0000000000000000\n",
            "fi_info": sample("efa/fi_info-p-efa-rdm-p5-48xlarge-eks-mpijob-healthy.txt"),
        },
    )
    (fail,) = _by_status(run_checks(snapshot, ["node"]), "EFA_COUNT_MISMATCH", Status.FAIL)
    assert "31 EFA devices, p5.48xlarge supports 32" in fail.title and fail.priority is Priority.P0


def test_efa_provider_missing_is_tcp_fallback(
    snapshot: Snapshot, add_node: AddNode, sample: Sample
) -> None:
    add_node(
        snapshot,
        "p4d",
        {
            "host_info": "instance_type: p4d.24xlarge\n",
            "efa_devices": "".join(
                f"rdmap{i}s0 driver=efa pci=0000:{i:02x}:00.0\n" for i in range(4)
            ),
            "kernel_modules": "efa 147456 0 - Live 0x0000000000000000\n",
            "fi_info": sample("efa/fi_info-p-efa-head-node-minus61.txt"),
        },
    )
    (fail,) = _by_status(run_checks(snapshot, ["node"]), "EFA_TCP_FALLBACK", Status.FAIL)
    assert "fi_getinfo: -61" in fail.title


def test_memlock_of_the_training_process_not_of_the_probe(
    snapshot: Snapshot, add_node: AddNode, sample: Sample
) -> None:
    add_node(
        snapshot,
        "n1",
        {
            "processes": sample("local/processes-probe-torch-nccl-memlock-64k.txt"),
            "efa_devices": "rdmap16s27 driver=efa pci=0000:10:1b.0\n",
        },
    )
    (fail,) = _by_status(run_checks(snapshot, ["node"]), "MEMLOCK", Status.FAIL)
    assert "64 KiB" in fail.title and "1 training process(es) (python)" in fail.title
    assert fail.priority is Priority.P0


def test_shm_64m_fails_1g_warns_and_host_is_fallback(
    snapshot: Snapshot, add_node: AddNode, sample: Sample
) -> None:
    mount64 = sample("limits-shm/mount-dev-shm-64M-vs-8G-vs-6G.txt").splitlines()[0]
    add_node(
        snapshot,
        "docker",
        {"processes": f"=== pid=7 role=training\ncomm: python\nshm_mount: {mount64}\n"},
    )
    add_node(snapshot, "onegig", {"shm": sample("limits-shm/df-h-shm-1G-87pct-used-docker.txt")})
    add_node(snapshot, "vm", {"shm": sample("local/shm-probe-debian12-vm.txt")})
    findings = run_checks(snapshot, ["node"])
    (fail,) = _node(findings, "SHM_TOO_SMALL", "docker")
    assert fail.status is Status.FAIL and "67108864 bytes" in fail.title and "pid 7" in fail.title
    (warn,) = _node(findings, "SHM_TOO_SMALL", "onegig")
    assert warn.status is Status.PASS  # 1 GiB and 86 % used: under both thresholds
    assert _node(findings, "SHM_TOO_SMALL", "vm")[0].status is Status.PASS


def test_eks_firewall_is_not_a_finding_but_catch_all_reject_is(
    snapshot: Snapshot, add_node: AddNode, sample: Sample
) -> None:
    add_node(
        snapshot,
        "eks",
        {
            "firewall": "port_range: 32768\t60999\n"
            + sample("firewall/iptables-S-eks-node-vpc-cni-kube-proxy.txt")
        },
    )
    add_node(
        snapshot,
        "rhel",
        {
            "firewall": "port_range: 32768\t60999\n"
            + sample("firewall/iptables-save-rhel-input-reject-icmp-host-prohibited.txt")
        },
    )
    findings = run_checks(snapshot, ["node"])
    assert _node(findings, "HOST_FIREWALL", "eks")[0].status is Status.PASS
    (fail,) = _node(findings, "HOST_FIREWALL", "rhel")
    assert fail.status is Status.FAIL and "32768-60999" in fail.title


def test_stale_segments_only_when_no_job_runs(
    snapshot: Snapshot, add_node: AddNode, sample: Sample
) -> None:
    shm = (
        sample("local/shm-probe-debian12-vm.txt")
        + "nccl: 9637888 1764460800.0 1000 /dev/shm/nccl-shm-recv-250a7cc850ba9298-0-1-3\n"
    )
    add_node(snapshot, "idle", {"shm": shm, "processes": "=== pid=1 role=self\ncomm: sh\n"})
    add_node(
        snapshot,
        "busy",
        {"shm": shm, "processes": sample("local/processes-probe-torch-nccl-memlock-64k.txt")},
    )
    findings = run_checks(snapshot, ["node"])
    (warn,) = _node(findings, "STALE_SHARED_MEMORY", "idle")
    assert warn.status is Status.WARN and "1 NCCL segment(s)" in warn.title
    assert [f.status for f in _node(findings, "STALE_SHARED_MEMORY", "busy")] == [Status.PASS]


def test_removeipc_fails_only_on_slurm_nodes(snapshot: Snapshot, add_node: AddNode) -> None:
    setting = "# systemd: yes\n"
    add_node(snapshot, "slurm", {"removeipc": setting, "host_info": "daemon: slurmd\n"})
    add_node(snapshot, "eks", {"removeipc": setting, "host_info": "daemon: kubelet\n"})
    findings = run_checks(snapshot, ["node"])
    assert _node(findings, "SLURM_REMOVEIPC", "slurm")[0].status is Status.FAIL
    assert _node(findings, "SLURM_REMOVEIPC", "eks")[0].status is Status.PASS


def test_ras_problems_merge_across_reporting_nodes(
    snapshot: Snapshot, add_node: AddNode, sample: Sample
) -> None:
    text = sample("ras/ncclras-incomplete-mismatch-nccl-2.27.3-partial.txt")
    add_node(snapshot, "a", {"nccl_ras": text})
    add_node(snapshot, "b", {"nccl_ras": text})
    add_node(snapshot, "c", {"nccl_ras": "# no RAS listener on localhost:28028\n"})
    findings = [f for f in run_checks(snapshot, ["node"]) if f.code == "NCCL_RAS"]
    fails = [f for f in findings if f.status is Status.FAIL]
    assert fails and all(f.hosts == ["a", "b"] for f in fails)
    assert any("Process 60004 on node 10.4.109.13" in e.text for f in fails for e in f.evidence)
    (skipped,) = [f for f in findings if f.status is Status.SKIPPED]
    assert skipped.hosts == ["c"]


def test_acs_redirect_fails_on_gpu_nodes(
    snapshot: Snapshot, add_node: AddNode, sample: Sample
) -> None:
    acs = "# uid: 0\n" + sample("pci/lspci-vvv-amd-gpp-bridges-acs-redirect-enabled.txt")
    add_node(
        snapshot,
        "gpu",
        {
            "pci_acs": acs,
            "gpu_inventory": sample("nvidia-smi/smi-default-a100-sxm4-40gb-p4d-partial.txt"),
        },
    )
    add_node(snapshot, "cpu", {"pci_acs": acs})
    findings = run_checks(snapshot, ["node"])
    assert _node(findings, "GPU_P2P_BLOCKED", "gpu")[0].status is Status.FAIL
    assert _node(findings, "GPU_P2P_BLOCKED", "cpu")[0].status is Status.PASS


def test_cross_node_names_the_outliers(
    snapshot: Snapshot, add_node: AddNode, sample: Sample
) -> None:
    p4d = sample("nvidia-smi/smi-default-a100-sxm4-40gb-p4d-partial.txt")
    for node in ("n1", "n2", "n3"):
        add_node(
            snapshot,
            node,
            {"gpu_inventory": p4d, "net_links": sample("local/ip-o-link-debian12-vm.txt")},
        )
    add_node(
        snapshot,
        "n4",
        {
            "gpu_inventory": sample(
                "nvidia-smi/smi-default-a100-pcie-1gpu-100pct-util-truncated.txt"
            ),
            "net_links": sample("local/ip-o-link-debian12-vm.txt").replace("mtu 1400", "mtu 9001"),
        },
    )
    findings = run_checks(snapshot, ["node"])
    (driver,) = [f for f in findings if f.code == "DRIVER_MISMATCH" and f.status is Status.FAIL]
    assert driver.hosts == ["n4"] and "from the 580.126.09 of the other 3" in driver.title
    gpus, mtu = (
        next(f for f in findings if f.code == "NODE_CONFIG_DRIFT" and f.details.get("fact") == fact)
        for fact in ("GPU count", "MTU")
    )
    assert gpus.status is Status.FAIL and gpus.hosts == ["n4"]
    assert mtu.status is Status.WARN and mtu.details["values"] == {
        "1400": ["n1", "n2", "n3"],
        "9001": ["n4"],
    }


def test_unreachable_nodes_are_named_and_every_fail_counts(
    snapshot: Snapshot, add_node: AddNode, sample: Sample
) -> None:
    add_node(
        snapshot,
        "bad",
        {
            "gpu_ecc": sample("nvidia-smi/smi-q-a100-ecc-remap-pending-xid63.txt"),
            "kernel_log": sample("xid/xid79-fallen-off-bus-with-nvswitch-sxid20034.txt"),
        },
    )
    for node, reason in (
        ("gone1", "TargetNotConnected: i-1 is not connected."),
        ("gone2", "TargetNotConnected: i-2 is not connected."),
    ):
        snapshot.missing(f"nodes/{node}/session.json", reason)
        snapshot.missing(f"nodes/{node}/gpu_ecc.txt", f"node not reached: {reason}")
    report = node_report(snapshot)
    unreachable = [f for f in report.findings if f.code == "NODE_UNREACHABLE"]
    assert sorted(h for f in unreachable for h in f.hosts) == ["gone1", "gone2"]
    assert all(f.status is Status.INCOMPLETE for f in unreachable)
    assert [n.check for n in report.not_checked] == ["node gone1", "node gone2"]
    fails = report.failures
    assert len(fails) >= 3 and report.summary["failures"] == len(fails)
    assert report.summary["failures_by_node"] == {"bad": len(fails)}
    assert all(f.reference and kb.resolve(f.reference) for f in fails)
    body = report.to_dict()
    assert body["issues_found"] == len(fails) and body["summary"]["unreachable"] == 2


def test_captured_h200_node_is_healthy(snapshot: Snapshot, add_node: AddNode) -> None:
    read = lambda name: (CAPTURED_GPU / name).read_text("utf-8")  # noqa: E731
    add_node(
        snapshot,
        "h200",
        {
            "gpu_inventory": read("nvidia-smi-h200.txt"),
            "gpu_ecc": read("nvidia-smi-q-ecc-rowremap-pageretire-h200.txt"),
            "gpu_topology": read("nvidia-smi-topo-m-h200.txt"),
            "nvlink_status": read("nvidia-smi-nvlink-s-h200.txt"),
            "kernel_log": read("dmesg-tail.txt"),
        },
    )
    findings = run_checks(snapshot, ["node"])
    assert not [f for f in findings if f.status in (Status.FAIL, Status.WARN)], findings
    (inv,) = [f for f in findings if f.code == "GPU_ACCESS_LOST"]
    assert inv.status is Status.INFO and "1x NVIDIA H200, driver 580.159.04, CUDA 13.0" in inv.title


@pytest.mark.parametrize(
    "probe", ["gpu_ecc", "kernel_log", "firewall", "processes", "shm", "nccl_ras"]
)
def test_garbage_output_never_passes_silently(
    snapshot: Snapshot, add_node: AddNode, probe: str
) -> None:
    add_node(snapshot, "n1", {probe: "\x00\x01 garbage that is no tool's output \n???\n"})
    findings = run_checks(snapshot, ["node"])
    assert not [f for f in findings if f.code == "CHECK_FAILED"]
