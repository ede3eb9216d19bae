"""Parsers for DCGM, EFA/libfabric, limits and /dev/shm, processes, interfaces, NUMA, NCCL RAS,
firewall rules and PCIe ACS, on real outputs (sources in each fixture's first line)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from hyperpod_nccl.probes.parsers import dcgm, efa, firewall, host, pci, ras

Sample = Callable[[str], str]
CAPTURED_GPU = Path(__file__).resolve().parents[1] / "fixtures" / "captured" / "gpu"


# ------------------------------------------------------------------------ DCGM


def test_dcgm_diag_old_format_all_pass(sample: Sample) -> None:
    report = dcgm.parse_dcgmi(sample("dcgmi/dcgmi-diag-r3-dcgm304-deployment-pass-partial.txt"))
    names = [r.name for r in report.rows]
    assert "Page Retirement/Row Remap" in names and "Inforom" in names
    assert report.failures == [] and all(r.result == "Pass" for r in report.rows)


def test_dcgm_diag_gpu_memory_fail(sample: Sample) -> None:
    report = dcgm.parse_dcgmi(
        sample("dcgmi/dcgmi-diag-r2-gpu0-fail-cuda-busy-unavailable-partial.txt")
    )
    assert report.version == "3.3.1"
    (fail,) = report.failures
    assert fail.name == "GPU Memory" and fail.section == "Hardware"
    assert "Fail - GPU: 0" in fail.detail or fail.detail.startswith("GPU: 1")


def test_dcgm_diag_row_remap_error_row(sample: Sample) -> None:
    report = dcgm.parse_dcgmi(sample("dcgmi/dcgmi-diag-r3-fragment-row-remap-pending.txt"))
    (row,) = report.failures
    assert row.result == "Error" and "row" in row.detail and "remappings are pending" in row.detail


def test_dcgm4_per_gpu_format_passes(sample: Sample) -> None:
    report = dcgm.parse_dcgmi(sample("dcgmi/dcgmi-diag-dcgm423-new-format-per-gpu-partial.txt"))
    assert report.version == "4.2.3" and report.failures == []
    assert {r.name for r in report.rows} >= {"software", "memory"}


def test_dcgm_health_overall_failure(sample: Sample) -> None:
    report = dcgm.parse_dcgmi(
        sample("dcgmi/dcgmi-health-check-nvlink-down-all-links-pcie-a100.txt")
    )
    assert report.overall == "Failure"
    assert any(r.name == "NVLINK system" and r.failed for r in report.rows)


# ------------------------------------------------------------------------ EFA


def test_fi_info_p5_devices_and_mpirun_prefixes(sample: Sample) -> None:
    info = efa.parse_fi_info(sample("efa/fi_info-p-efa-rdm-p5-48xlarge-eks-mpijob-healthy.txt"))
    assert info.error is None
    assert info.efa_domains == ["rdmap201s0", "rdmap79s0"]


def test_fi_info_no_provider(sample: Sample) -> None:
    info = efa.parse_fi_info(sample("efa/fi_info-p-efa-head-node-minus61.txt"))
    assert info.error == "fi_getinfo: -61" and info.efa_domains == []


def test_fi_info_counts_devices_not_endpoints(sample: Sample) -> None:
    # one device exposes an RDM and a DGRAM endpoint (and an rxd layering): still one device
    info = efa.parse_fi_info(sample("efa/fi_info-p-efa-rdm-dgrm-rxd-legacy-libfabric.txt"))
    assert len(info.endpoints) == 3 and info.efa_domains == ["efa_0"]


def test_fi_info_captured_h200_without_libfabric() -> None:
    info = efa.parse_fi_info((CAPTURED_GPU / "fi-info-efa.txt").read_text("utf-8"))
    assert info.endpoints == [] and info.error is None


# ------------------------------------------------------------------------ limits and /dev/shm


def test_proc_limits_captured(sample: Sample) -> None:
    limits = host.parse_limits(sample("local/proc-self-limits-debian12-vm.txt"))
    assert limits["Max locked memory"] == host.Limit(8388608, 8388608)
    assert limits["Max stack size"] == host.Limit(8388608, None)
    h200 = host.parse_limits((CAPTURED_GPU / "proc-self-limits.txt").read_text("utf-8"))
    assert "Max locked memory" in h200


def test_ulimit_l_is_kib(sample: Sample) -> None:
    assert host.parse_ulimit_l(
        sample("limits-shm/ulimit-l-65536-container-after-fix.txt")
    ) == host.Limit(65536 * 1024, None)
    assert (
        host.parse_ulimit_l(
            sample("limits-shm/ulimit-memlock-cannot-modify-operation-not-permitted.txt")
        )
        is None
    )


def test_df_human_and_bytes(sample: Sample) -> None:
    (row,) = host.parse_df(sample("limits-shm/df-h-shm-1G-87pct-used-docker.txt"))
    assert (
        row.size == 1024**3 and row.mount == "/dev/shm" and round(row.used_fraction or 0, 2) == 0.86
    )
    docker = [
        r
        for r in host.parse_df(sample("limits-shm/docker-default-df-h-tmpfs-64M-partial.txt"))
        if r.filesystem == "tmpfs"
    ]
    assert docker[0].size == 64 * 1024**2
    (vm,) = host.parse_df(sample("local/df-B1-dev-shm-debian12-vm.txt"))
    assert vm.size == 25276510208 and vm.mount == "/dev/shm"


def test_mount_sizes(sample: Sample) -> None:
    sizes = [
        host.parse_mount_shm_size(ln)
        for ln in sample("limits-shm/mount-dev-shm-64M-vs-8G-vs-6G.txt").splitlines()
    ]
    assert sizes == [64 * 1024**2, 8 * 1024**3, 6144000 * 1024]


def test_shm_probe_output(sample: Sample) -> None:
    info = host.parse_shm(sample("local/shm-probe-debian12-vm.txt"))
    assert info.df is not None and info.df.size == 25276510208 and info.nccl_files == []


def test_processes_probe_reads_the_training_process(sample: Sample) -> None:
    (proc,) = host.parse_processes(sample("local/processes-probe-torch-nccl-memlock-64k.txt"))
    assert (proc.pid, proc.role, proc.comm) == (6622, "training", "python")
    assert (
        proc.nccl_version == "2.30.7" and proc.nccl_lib and proc.nccl_lib.endswith("libnccl.so.2")
    )
    assert proc.memlock == host.Limit(65536, 65536)
    assert proc.stack == host.Limit(8388608, None)
    assert proc.shm_size == 24684092 * 1024 and proc.shm_bytes == 25276510208
    assert proc.env == {
        "LOCAL_RANK": "0",
        "NCCL_SOCKET_IFNAME": "eth0",
        "NCCL_DEBUG": "INFO",
        "RANK": "0",
    }


# ------------------------------------------------------------------------ network, NUMA


def test_ip_link_mtu_and_primary(sample: Sample) -> None:
    links = host.parse_ip_link(sample("local/ip-o-link-debian12-vm.txt"))
    assert {i.name: i.mtu for i in links}["eth0"] == 1400
    assert [i.name for i in host.primary_interfaces(links)] == ["eth0"]


def test_numa(sample: Sample) -> None:
    numa = host.parse_numa(sample("local/numa-debian12-vm.txt"))
    assert (numa.nodes, numa.cpus, numa.balancing) == (1, {"node0": "0,1"}, 0)


def test_removeipc_last_assignment_wins_and_default_is_yes() -> None:
    assert host.parse_removeipc("# systemd: yes\n").value is True
    setting = host.parse_removeipc(
        "# systemd: yes\n/etc/systemd/logind.conf:RemoveIPC=yes\n/etc/systemd/logind.conf.d/10-hpc.conf:RemoveIPC=no\n"
    )
    assert (setting.value, setting.source) == (False, "/etc/systemd/logind.conf.d/10-hpc.conf")


def test_removeipc_probe_follows_logind_precedence_like_the_slurm_collector() -> None:
    # The probe's grep lists directories in its own order; logind sorts drop-ins by file name
    # across its directories, and one in /etc hides the same name in /usr/lib (logind.conf(5)).
    by_name = host.parse_removeipc(
        "# systemd: yes\n"
        "/usr/lib/systemd/logind.conf.d/20-site.conf:RemoveIPC=no\n"
        "/etc/systemd/logind.conf.d/10-hpc.conf:RemoveIPC=yes\n"
    )
    assert (by_name.value, by_name.source) == (False, "/usr/lib/systemd/logind.conf.d/20-site.conf")
    hidden = host.parse_removeipc(
        "/usr/lib/systemd/logind.conf.d/10-hpc.conf:RemoveIPC=no\n"
        "/etc/systemd/logind.conf.d/10-hpc.conf:RemoveIPC=yes\n"
    )
    assert (hidden.value, hidden.source) == (True, "/etc/systemd/logind.conf.d/10-hpc.conf")
    # A value logind does not accept is ignored, as logind ignores it.
    invalid = host.parse_removeipc("/etc/systemd/logind.conf.d/10-hpc.conf:RemoveIPC=maybe\n")
    assert (invalid.value, invalid.source) == (True, "systemd default")


# ------------------------------------------------------------------------ RAS


def test_ras_healthy(sample: Sample) -> None:
    status = ras.parse_ras(sample("ras/ncclras-healthy-32node-256rank-nccl-2.26.2.txt"))
    assert status.nccl_version == "2.26.2" and status.listener
    assert [(g.group, g.ranks_per_comm, g.status, g.errors) for g in status.groups] == [
        (0, 256, "RUNNING", [])
    ]
    assert status.problems == []


def test_ras_mismatch_in_warnings(sample: Sample) -> None:
    status = ras.parse_ras(sample("ras/ncclras-mismatch-allgather-opcount-nccl-2.26.2.txt"))
    (issue,) = status.problems
    assert (issue.section, issue.kind, issue.communicator) == ("Warnings", "MISMATCH", "#0-0")
    assert issue.lines[0] == "Communicator ranks have different AllGather operation counts"


def test_ras_incomplete_and_mismatch(sample: Sample) -> None:
    status = ras.parse_ras(sample("ras/ncclras-incomplete-mismatch-nccl-2.27.3-partial.txt"))
    assert [g.errors for g in status.groups] == [
        ["INCOMPLETE"],
        ["MISMATCH"],
        ["INCOMPLETE", "MISMATCH"],
    ]
    kinds = [i.kind for i in status.problems]
    assert kinds == ["INCOMPLETE", "INCOMPLETE", "INCOMPLETE"]
    assert "Process 60004 on node 10.4.109.13 managing GPU 0" in status.problems[0].lines


def test_ras_no_listener() -> None:
    assert ras.parse_ras("# no RAS listener on localhost:28028\n").listener is False


# ------------------------------------------------------------------------ firewall


def test_eks_node_rules_do_not_block_nccl(sample: Sample) -> None:
    fw = firewall.parse_firewall(
        "port_range: 32768\t60999\n" + sample("firewall/iptables-S-eks-node-vpc-cni-kube-proxy.txt")
    )
    drops = [r for r in fw.rules if r.drops]
    assert len(drops) == 2  # KUBE-FIREWALL localnet DROP and KUBE-FORWARD INVALID DROP
    assert firewall.blocking_rules(fw) == [] and firewall.dropping_policies(fw) == []


def test_policy_drop_with_only_icmp_and_invalid_drops(sample: Sample) -> None:
    fw = firewall.parse_firewall(
        sample("firewall/iptables-S-policy-drop-icmp-drop-hardened-host.txt")
    )
    assert firewall.blocking_rules(fw) == []
    assert firewall.dropping_policies(fw) == ["INPUT"]


def test_catch_all_reject_blocks_nccl_ports(sample: Sample) -> None:
    fw = firewall.parse_firewall(
        "port_range: 32768 60999\n"
        + sample("firewall/iptables-save-rhel-input-reject-icmp-host-prohibited.txt")
    )
    assert fw.policies["INPUT"] == "DROP" and fw.port_range == (32768, 60999)
    blocking = [r.raw for r in firewall.blocking_rules(fw)]
    assert "-A INPUT -j REJECT --reject-with icmp-host-prohibited" in blocking


def test_port_specific_drop_only_counts_when_it_overlaps_nccl() -> None:
    fw = firewall.parse_firewall(
        "port_range: 32768 60999\n"
        "-A INPUT -p tcp --dport 445 -j DROP\n"
        "-A INPUT -p tcp -m multiport --dports 28000:28100 -j DROP\n"
    )
    assert [r.raw for r in firewall.blocking_rules(fw)] == [
        "-A INPUT -p tcp -m multiport --dports 28000:28100 -j DROP"
    ]


# ------------------------------------------------------------------------ PCIe ACS


def test_acs_redirect_on_bridges(sample: Sample) -> None:
    report = pci.parse_acs(sample("pci/lspci-vvv-amd-gpp-bridges-acs-redirect-enabled.txt"))
    assert [p.address for p in report.redirecting_bridges] == ["00:01.1", "00:01.2"]
    assert report.ports[0].flags["ReqRedir"] is True and report.ports[0].flags["TransBlk"] is False


def test_acs_all_off(sample: Sample) -> None:
    report = pci.parse_acs(sample("pci/lspci-vv-xilinx-endpoint-acs-all-off-partial.txt"))
    (port,) = report.ports
    assert port.address == "01:00.0" and not port.redirects and report.redirecting_bridges == []
