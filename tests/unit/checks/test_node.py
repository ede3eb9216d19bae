"""Node checks on small Snapshots of probe outputs: the catalog's probes run on the development
VM, the real captures under tests/fixtures/probes/ and tests/fixtures/captured/gpu, laid out as
the probe runner writes them (nodes/NODE/PROBE.txt and session.json)."""

from __future__ import annotations

import pytest
from cases import FAIL, INCOMPLETE, INFO, PASS, SKIP, WARN, Case, Want, run_case

from hyperpod_nccl.model import Priority

NO_SMI = "nvidia-smi is not installed on the node (or not on PATH)"
NO_PLUGIN = "session-manager-plugin is not on PATH"
SSM_NODES = ["i-00005a3c7e9b1d200", "i-00005a3c7e9b1d201"]
NOT_COLLECTED_4 = ["a100", "lost", "p4d", "v100"]
# host-faults nodes that lack a given probe, by probe
HOST_NODES = ["cpu", "docker", "eks", "gpu", "rhel", "slurm", "training"]


def others(*have: str) -> list[str]:
    return [n for n in HOST_NODES if n not in have]


CASES = [
    # GPU inventory, ECC, Xid, NVLink, topology
    Case(
        "node.gpu_inventory",
        "node/gpu-faults",
        [
            Want(
                "GPU_ACCESS_LOST",
                FAIL,
                Priority.P0,
                hosts=["lost"],
                evidence="Unable to determine the device handle for GPU 0000:09:00.0: Unknown Error",
            ),
            Want(
                "GPU_XID",
                FAIL,
                Priority.P0,
                hosts=["p4d"],
                title="2 GPUs visible, p4d.24xlarge has 8",
            ),
            Want(
                "GPU_ACCESS_LOST", SKIP, hosts=["a100", "v100"], title="nvidia-smi: not collected"
            ),
        ],
    ),
    Case(
        "node.gpu_inventory",
        "node/h200",
        [
            Want(
                "GPU_ACCESS_LOST",
                INFO,
                Priority.P2,
                hosts=["h200"],
                title="1x NVIDIA H200, driver 580.159.04, CUDA 13.0",
            )
        ],
    ),
    Case(
        "node.gpu_inventory",
        "node/vm-cpu",
        [Want("GPU_ACCESS_LOST", SKIP, Priority.P2, hosts=["vm"], title=NO_SMI)],
    ),
    Case(
        "node.gpu_ecc",
        "node/gpu-faults",
        [
            Want(
                "GPU_ECC",
                FAIL,
                Priority.P0,
                hosts=["p4d"],
                title="GPU 00000000:10:1C.0: row remap pending",
                evidence="Remapped Rows Pending : Yes",
            ),
            Want("GPU_ECC", PASS, hosts=["a100"], title="8 GPU(s): no uncorrectable errors"),
            Want("GPU_ECC", SKIP, hosts=["lost", "v100"]),
        ],
    ),
    Case(
        "node.gpu_ecc",
        "node/h200",
        [Want("GPU_ECC", PASS, Priority.P2, hosts=["h200"], title="no pending remaps")],
    ),
    Case(
        "node.xid",
        "node/gpu-faults",
        [
            Want(
                "GPU_XID",
                FAIL,
                Priority.P0,
                hosts=["p4d"],
                title="Xid 79 (FALLEN_OFF_BUS) x1 on GPU 0000:91:00",
                evidence="GPU has fallen off the bus.",
            ),
            Want("NVLINK_ERROR", FAIL, Priority.P0, hosts=["p4d"], title="SXid 20034 x4"),
            # Xid 13 and 43 come from the program, not the GPU: warnings at P2.
            Want("GPU_XID", WARN, Priority.P2, hosts=["a100"], title="Xid 13 (GR_EXCEPTION) x16"),
            Want("GPU_XID", WARN, Priority.P2, hosts=["a100"], title="Xid 43 (RESET_CHANNEL)"),
            Want("GPU_XID", SKIP, hosts=["lost", "v100"]),
        ],
    ),
    Case(
        "node.xid",
        "node/h200",
        [Want("GPU_XID", PASS, Priority.P2, hosts=["h200"], title="no Xid in the whole log")],
    ),
    Case(
        "node.nvlink",
        "node/gpu-faults",
        [
            Want(
                "NVLINK_ERROR",
                FAIL,
                Priority.P0,
                hosts=["v100"],
                title="GPU 3 (Tesla V100-SXM2-32GB): NVLink links [3, 5] inactive",
            ),
            Want("NVLINK_ERROR", PASS, hosts=["a100"], title="12 links active"),
            Want("NVLINK_ERROR", SKIP, hosts=["lost", "p4d"]),
        ],
    ),
    Case(
        "node.nvlink",
        "node/h200",
        [Want("NVLINK_ERROR", PASS, Priority.P2, hosts=["h200"], title="0 links active")],
    ),
    Case(
        "node.topology",
        "node/h200",
        [Want("NCCL_TOPOLOGY", INFO, Priority.P2, hosts=["h200"], title="1 GPUs")],
    ),
    Case(
        "node.topology",
        "node/vm-cpu",
        [Want("NCCL_TOPOLOGY", SKIP, hosts=["vm"], title=NO_SMI)],
    ),
    Case(
        "node.dcgm",
        "node/dcgm",
        [
            Want(
                "GPU_ECC",
                FAIL,
                Priority.P0,
                hosts=["n1"],
                title="GPU 3 has uncorrectable memory errors and row remappings are pending",
            ),
            Want(
                "DCGM_HEALTH",
                FAIL,
                Priority.P1,
                hosts=["n2"],
                title="GPU 0's NvLink link 0 is currently down",
            ),
            Want("DCGM_HEALTH", PASS, Priority.P2, hosts=["n3"], title="DCGM reports no failure"),
        ],
    ),
    Case(
        "node.dcgm",
        "node/vm-cpu",
        [Want("DCGM_HEALTH", SKIP, hosts=["vm"], title="dcgmi is not installed")],
    ),
    # EFA
    Case(
        "node.efa",
        "node/efa",
        [
            Want(
                "EFA_COUNT_MISMATCH",
                FAIL,
                Priority.P0,
                hosts=["p5"],
                title="31 EFA devices, p5.48xlarge supports 32",
                details={"devices": 31, "expected": 32},
            ),
            Want(
                "EFA_TCP_FALLBACK",
                FAIL,
                Priority.P0,
                hosts=["p4d"],
                title="libfabric finds no EFA provider (fi_getinfo: -61)",
            ),
            Want("EFA_COUNT_MISMATCH", PASS, hosts=["g4dn"], title="1 EFA devices"),
        ],
    ),
    Case(
        "node.efa",
        "node/vm-cpu",
        [
            Want(
                "EFA_COUNT_MISMATCH", SKIP, hosts=["vm"], title="is not an EFA GPU or Trainium type"
            )
        ],
    ),
    Case(
        "node.ofi_nccl",
        "node/efa",
        [
            Want("EFA_TCP_FALLBACK", WARN, Priority.P1, hosts=["p5"], title="no aws-ofi-nccl"),
            Want("EFA_TCP_FALLBACK", PASS, hosts=["g4dn"], title="libnccl-net-ofi.so"),
            Want("EFA_TCP_FALLBACK", SKIP, hosts=["p4d"], title="plugin files: not collected"),
        ],
    ),
    Case(
        "node.ofi_nccl",
        "node/vm-cpu",
        [Want("EFA_TCP_FALLBACK", SKIP, hosts=["vm"], title="no EFA device on this node")],
    ),
    Case(
        "node.gpudirect",
        "node/efa",
        [
            Want(
                "GPUDIRECT_RDMA_UNAVAILABLE",
                SKIP,
                hosts=["g4dn", "p4d", "p5"],
                title="this node lacks the NVIDIA driver",
            )
        ],
    ),
    Case(
        "node.gpudirect",
        "node/vm-cpu",
        [Want("GPUDIRECT_RDMA_UNAVAILABLE", SKIP, hosts=["vm"], title="this node lacks EFA")],
    ),
    # Host: limits, /dev/shm, RemoveIPC, firewall, ACS, RAS
    Case(
        "node.limits",
        "node/host-faults",
        [
            Want(
                "MEMLOCK",
                FAIL,
                Priority.P0,
                hosts=["training"],
                title="locked-memory limit 64 KiB (not unlimited) for 1 training process(es) (python)",
                evidence="pid 6622 python: Max locked memory soft 65536",
            ),
            Want("MEMLOCK", SKIP, hosts=["docker"], title="no readable /proc/<pid>/limits"),
            Want("MEMLOCK", SKIP, hosts=others("docker", "training"), title="not collected"),
        ],
    ),
    # With no training process, slurmd's 8 MiB is what new jobs inherit: a P2 warning.
    Case(
        "node.limits",
        "node/vm-cpu",
        [
            Want(
                "MEMLOCK", WARN, Priority.P2, hosts=["vm"], title="8 MiB (not unlimited) for slurmd"
            )
        ],
    ),
    Case(
        "node.limits",
        "node/dcgm",
        [Want("MEMLOCK", SKIP, hosts=["n1", "n2", "n3"], title="not collected")],
        why="no processes probe",
    ),
    Case(
        "node.shm",
        "node/host-faults",
        [
            Want(
                "SHM_TOO_SMALL",
                FAIL,
                Priority.P1,
                hosts=["docker"],
                title="/dev/shm of pid 7 (python) is 64 MiB (67108864 bytes)",
            ),
            Want("SHM_TOO_SMALL", PASS, hosts=["training"], title="23.5 GiB for pid 6622"),
            Want("SHM_TOO_SMALL", SKIP, hosts=others("docker", "training")),
        ],
    ),
    Case(
        "node.shm",
        "node/vm-cpu",
        [Want("SHM_TOO_SMALL", PASS, Priority.P2, hosts=["vm"], title="23.5 GiB for the host")],
    ),
    Case(
        "node.stale_shm",
        "node/stale-shm",
        [
            Want(
                "STALE_SHARED_MEMORY",
                WARN,
                Priority.P2,
                hosts=["vm"],
                title="1 NCCL segment(s) (9.2 MiB) left in /dev/shm with no NCCL process running",
                evidence="/dev/shm/nccl-shm-recv-hpn12d0000000000-0-1-3 9637888 bytes owner root",
            )
        ],
    ),
    Case(
        "node.stale_shm",
        "node/vm-cpu",
        [Want("STALE_SHARED_MEMORY", PASS, hosts=["vm"], title="no NCCL segments and no job")],
    ),
    Case(
        "node.removeipc",
        "node/host-faults",
        [
            Want(
                "SLURM_REMOVEIPC",
                FAIL,
                Priority.P1,
                hosts=["slurm"],
                title="RemoveIPC=yes (systemd default) on a Slurm node",
            ),
            Want("SLURM_REMOVEIPC", SKIP, hosts=others("slurm")),
        ],
    ),
    Case(
        "node.removeipc",
        "node/vm-cpu",
        [Want("SLURM_REMOVEIPC", PASS, hosts=["vm"], title="no systemd-logind on this host")],
    ),
    Case(
        "node.firewall",
        "node/host-faults",
        [
            Want(
                "HOST_FIREWALL",
                FAIL,
                Priority.P0,
                hosts=["rhel"],
                title="2 DROP/REJECT rule(s) can match NCCL's ports (28028, 29500, 32768-60999)",
                evidence="-A INPUT -j REJECT --reject-with icmp-host-prohibited",
            ),
            Want("HOST_FIREWALL", PASS, hosts=["eks"], title="none on NCCL's ports"),
            Want("HOST_FIREWALL", SKIP, hosts=others("eks", "rhel")),
        ],
    ),
    Case(
        "node.firewall",
        "node/vm-cpu",
        [Want("HOST_FIREWALL", SKIP, hosts=["vm"], title="iptables is not installed")],
    ),
    Case(
        "node.pci_acs",
        "node/host-faults",
        [
            Want(
                "GPU_P2P_BLOCKED",
                FAIL,
                Priority.P1,
                hosts=["gpu"],
                title="ACS request/completion redirect enabled on 2 PCIe bridge(s) (00:01.1, 00:01.2)",
            ),
            Want("GPU_P2P_BLOCKED", PASS, hosts=["cpu"], title="no NVIDIA GPU on this node"),
            Want("GPU_P2P_BLOCKED", SKIP, hosts=others("cpu", "gpu")),
        ],
    ),
    Case(
        "node.pci_acs",
        "node/vm-cpu",
        [Want("GPU_P2P_BLOCKED", SKIP, hosts=["vm"], title="lspci is not installed")],
    ),
    Case(
        "node.ras",
        "node/ras",
        [
            # The job-wide report seen from a and b is one finding per problem, naming both.
            Want(
                "NCCL_RAS",
                FAIL,
                Priority.P0,
                hosts=["a", "b"],
                evidence="Process 60004 on node 10.4.109.13 managing GPU 0",
            ),
            Want("NCCL_RAS", PASS, hosts=["d"], title="1 communicator group(s), no errors"),
            Want("NCCL_RAS", SKIP, hosts=["c"], title="nothing listens on localhost:28028"),
        ],
    ),
    Case(
        "node.ras",
        "node/vm-cpu",
        [Want("NCCL_RAS", SKIP, Priority.P2, hosts=["vm"], title="no NCCL job with RAS")],
    ),
    # Inventory and reachability: they report or skip, never fail (see test_coverage).
    Case(
        "node.numa",
        "node/vm-cpu",
        [
            Want(
                "NODE_INVENTORY",
                INFO,
                hosts=["vm"],
                title="1 NUMA node(s), automatic NUMA balancing off",
            )
        ],
    ),
    Case(
        "node.numa",
        "node/h200",
        [Want("NODE_INVENTORY", SKIP, hosts=["h200"], title="NUMA layout: not collected")],
    ),
    Case(
        "node.mtu",
        "node/vm-cpu",
        [Want("NODE_INVENTORY", INFO, hosts=["vm"], title="(eth0 mtu 1400)")],
    ),
    Case(
        "node.mtu",
        "node/h200",
        [Want("NODE_INVENTORY", SKIP, hosts=["h200"], title="not collected")],
    ),
    Case(
        "node.versions",
        "node/vm-cpu",
        [
            Want(
                "NODE_INVENTORY",
                INFO,
                hosts=["vm"],
                title="no NCCL, CUDA toolkit or EFA installer on the host",
            )
        ],
    ),
    Case(
        "node.versions",
        "node/host-faults",
        [
            Want(
                "NODE_INVENTORY",
                INFO,
                hosts=["docker", "training"],
                details={
                    "nodes": {
                        "docker": "no NCCL, CUDA toolkit or EFA installer on the host",
                        "training": "NCCL 2.30.7 (loaded by the job)",
                    }
                },
            ),
            Want("NODE_INVENTORY", SKIP, hosts=others("docker", "training")),
        ],
        why="the NCCL the job loaded",
    ),
    Case(
        "node.reachability",
        "node/unreachable",
        [
            Want(
                "NODE_UNREACHABLE",
                INCOMPLETE,
                Priority.P1,
                hosts=["gone1"],
                title="TargetNotConnected: i-1 is not connected.",
            ),
            Want("NODE_UNREACHABLE", INCOMPLETE, Priority.P1, hosts=["gone2"]),
        ],
    ),
    Case(
        "node.reachability",
        "node/ssm-blocked",
        [Want("NODE_UNREACHABLE", SKIP, Priority.P1, hosts=SSM_NODES, title=NO_PLUGIN)],
    ),
    Case(
        "node.cross_node",
        "node/cross-node",
        [
            Want(
                "DRIVER_MISMATCH",
                FAIL,
                Priority.P1,
                hosts=["n4"],
                title="from the 580.126.09 of the other 3",
                details={"fact": "NVIDIA driver", "majority": "580.126.09"},
            ),
            Want(
                "NODE_CONFIG_DRIFT",
                FAIL,
                Priority.P0,
                hosts=["n4"],
                details={"fact": "GPU count", "values": {"2": ["n1", "n2", "n3"], "1": ["n4"]}},
            ),
            Want("NODE_CONFIG_DRIFT", PASS, details={"fact": "MTU"}),
            Want(
                "DRIVER_MISMATCH",
                WARN,
                Priority.P2,
                hosts=["n4"],
                details={"fact": "CUDA version supported by the driver"},
            ),
        ],
    ),
    Case(
        "node.cross_node",
        "node/vm-pair",
        [
            Want(
                "NODE_CONFIG_DRIFT",
                PASS,
                hosts=["vm1", "vm2"],
                title="MTU is the same on all 2 nodes that report it: 1400",
            )
        ],
    ),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_node_check(case: Case) -> None:
    run_case(case)
