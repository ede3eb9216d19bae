"""Slurm checks (controller, munge, node states, jobs, configuration, RemoveIPC, job output) on
small Snapshots cut from the project's test Slurm and the captures in tests/fixtures/slurm/."""

from __future__ import annotations

import pytest
from cases import FAIL, INCOMPLETE, INFO, PASS, WARN, Case, Want, run_case

from hyperpod_nccl.model import Priority

DOWN = "not run: scontrol ping says slurmctld is DOWN"

CASES = [
    Case(
        "slurm.controller",
        "slurm/live-vm",
        [
            Want(
                "SLURMCTLD_DOWN",
                PASS,
                Priority.P0,
                title="slurmctld answers on vm",
                evidence="Slurmctld(primary) at vm is UP",
            )
        ],
    ),
    Case(
        "slurm.controller",
        "slurm/controller-down",
        [
            Want(
                "SLURMCTLD_DOWN",
                FAIL,
                Priority.P0,
                hosts=["vm"],
                title="slurmctld does not answer (primary at vm)",
                evidence="** RESTORE SLURMCTLD DAEMON TO SERVICE **",
            )
        ],
    ),
    Case(
        "slurm.munge",
        "slurm/live-vm",
        [Want("SLURM_MUNGE_FAILED", PASS, Priority.P0, title="munge creates credentials on vm")],
    ),
    Case(
        "slurm.munge",
        "slurm/controller-down",
        [
            Want(
                "SLURM_MUNGE_FAILED",
                FAIL,
                Priority.P0,
                hosts=["vm"],
                title="munge cannot create a credential on vm",
                evidence="No such file or directory (Did you start munged?)",
            )
        ],
    ),
    Case(
        "slurm.node_states",
        "slurm/in-service",
        [
            Want(
                "SLURM_NODE_STATE",
                PASS,
                Priority.P1,
                title="all 2 of 2 Slurm nodes in service are schedulable",
                details={"nodes": 2, "schedulable": 2},
            )
        ],
    ),
    Case(
        "slurm.node_states",
        "slurm/controller-down",
        [Want("SLURM_NODE_STATE", INCOMPLETE, Priority.P1, title=DOWN)],
        why="no node list",
    ),
    Case(
        "slurm.node_states",
        "slurm/eight-node-states",
        [
            Want(
                "SLURM_NODE_NOT_RESPONDING",
                FAIL,
                Priority.P0,
                hosts=["node08"],
                evidence="node08 down* (DOWN+NOT_RESPONDING): Not responding [root@",
            ),
            Want(
                "SLURM_NODE_DOWN",
                FAIL,
                Priority.P0,
                hosts=["node03"],
                title="reason: hardware failure: PSU",
            ),
            Want(
                "SLURM_NODE_FAIL",
                FAIL,
                Priority.P1,
                hosts=["node05"],
                evidence="node05 fail (IDLE+FAIL): kernel panic",
            ),
            # An admin's free-text reason ("GPU ECC errors") is not read as Slurm's own: P1.
            Want(
                "SLURM_NODE_DRAIN",
                FAIL,
                Priority.P1,
                hosts=["node02", "node04", "node06"],
                evidence="node06 draining (MIXED+DRAIN): draining for upgrade",
            ),
        ],
    ),
    Case(
        "slurm.pending_jobs",
        "slurm/in-service",
        [
            Want(
                "SLURM_JOB_PENDING",
                PASS,
                Priority.P2,
                title="(1 pending, 2 listed)",
            )
        ],
        why="BeginTime is an intended wait",
    ),
    Case(
        "slurm.pending_jobs",
        "slurm/eight-node-states",
        [
            Want(
                "SLURM_JOB_PENDING",
                FAIL,
                Priority.P1,
                title="job 52173767_1470: it is held by its user",
                evidence="PENDING (launch failed requeued held)",
            )
        ],
    ),
    Case(
        "slurm.memlock_propagation",
        "slurm/live-vm",
        [
            Want(
                "SLURM_MEMLOCK_NOT_PROPAGATED",
                FAIL,
                Priority.P1,
                hosts=["vm"],
                title="locked-memory limit of 8192 KiB",
                evidence="PropagateResourceLimits=ALL, PropagateResourceLimitsExcept=(unset)",
            )
        ],
    ),
    Case(
        "slurm.memlock_propagation",
        "slurm/configured",
        [
            Want(
                "SLURM_MEMLOCK_NOT_PROPAGATED",
                PASS,
                Priority.P1,
                evidence="PropagateResourceLimitsExcept=MEMLOCK",
            )
        ],
    ),
    Case(
        "slurm.task_plugin",
        "slurm/live-vm",
        [Want("SLURM_TASK_PLUGIN", WARN, Priority.P2, evidence="TaskPlugin = task/none")],
    ),
    Case(
        "slurm.task_plugin",
        "slurm/configured",
        [
            Want(
                "SLURM_TASK_PLUGIN",
                PASS,
                Priority.P2,
                title="TaskPlugin=task/affinity,task/cgroup",
            )
        ],
    ),
    Case(
        "slurm.script_environment",
        "slurm/live-vm",
        [
            Want(
                "SLURM_PROLOG_ENV",
                INFO,
                Priority.P2,
                evidence='echo "export NCCL_DEBUG=WARN"',
                details={"variables": {"NCCL_DEBUG": "WARN", "FI_EFA_USE_DEVICE_RDMA": "1"}},
            ),
            Want(
                "SLURM_PROLOG_ENV",
                WARN,
                Priority.P2,
                title="Prolog sets NCCL_SOCKET_IFNAME=lo, which never reaches",
                details={"variables": {"NCCL_SOCKET_IFNAME": "lo"}},
            ),
        ],
    ),
    Case(
        "slurm.script_environment",
        "slurm/configured",
        [Want("SLURM_PROLOG_ENV", PASS, Priority.P2, title="no Slurm job script sets")],
    ),
    Case(
        "slurm.removeipc",
        "slurm/live-vm",
        [
            Want(
                "SLURM_REMOVEIPC",
                FAIL,
                Priority.P1,
                hosts=["vm"],
                title="RemoveIPC=yes on Slurm node vm (from the default",
                evidence="RemoveIPC unset: yes by default",
            )
        ],
    ),
    Case(
        "slurm.removeipc",
        "slurm/configured",
        [
            Want(
                "SLURM_REMOVEIPC",
                PASS,
                Priority.P1,
                hosts=["vm"],
                title="RemoveIPC=no on vm (/etc/systemd/logind.conf.d/10-slurm.conf:2)",
            )
        ],
    ),
    Case(
        "slurm.job_output",
        "slurm/job-output",
        [
            Want(
                "CUDA_OOM",
                FAIL,
                Priority.P0,
                hosts=["ng30903"],
                title="job 17: GPU memory exhausted on ng30903",
                evidence="NCCL WARN Cuda failure 'out of memory'",
                details={"job": "17"},
            ),
            Want("PEER_EXITED", FAIL, hosts=["ng30903"], details={"job": "17"}),
            Want(
                "NO_FAILURE_SIGNATURE",
                PASS,
                title="job 18: no failure signature in 8 lines",
                details={"job": "18"},
            ),
            Want(
                "SLURM_JOB_OUTPUT",
                INCOMPLETE,
                Priority.P2,
                title="job 19: slurm/job_output/19/fsx/jobs/slurm-19.out not read: unreadable",
            ),
        ],
    ),
    Case("slurm.job_output", "slurm/live-vm", [], why="no job output collected"),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_slurm_check(case: Case) -> None:
    run_case(case)
