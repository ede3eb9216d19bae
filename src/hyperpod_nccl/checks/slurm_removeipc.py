"""The RemoveIPC check on the hosts whose systemd-logind configuration was read."""

from __future__ import annotations

from hyperpod_nccl.checks import check
from hyperpod_nccl.checks.findings import reference
from hyperpod_nccl.checks.slurm_data import (
    AREA,
    json_item,
    load_nodes,
    missing,
)
from hyperpod_nccl.model import Evidence, Finding, Priority, Status, SuggestedCommand
from hyperpod_nccl.probes.parsers.logind import remove_ipc
from hyperpod_nccl.snapshot import Snapshot
from hyperpod_nccl.snapshot.items import SLURM_LOGIND_PREFIX, node_item


def _compute_hosts(snapshot: Snapshot) -> set[str] | None:
    nodes, _, _ = load_nodes(snapshot)
    if nodes is None:
        return None
    return {h for n in nodes for h in (n.name, n.hostname, n.address) if h}


@check("slurm.removeipc", AREA, ["SLURM_REMOVEIPC"])
def removeipc(snapshot: Snapshot) -> list[Finding]:
    """systemd-logind's RemoveIPC on the hosts read: `yes` deletes jobs' shared memory."""
    code = "SLURM_REMOVEIPC"
    names = [n for n in snapshot.names(SLURM_LOGIND_PREFIX) if n.endswith(".json")]
    if not names:
        return [missing(code, "RemoveIPC", snapshot, SLURM_LOGIND_PREFIX)]
    compute = _compute_hosts(snapshot)
    findings = []
    for name in names:
        record = json_item(snapshot, name)
        if record is None:
            findings.append(missing(code, "RemoveIPC", snapshot, name))
            continue
        host = str(record.get("host"))
        if snapshot.has(node_item(host, "removeipc")):
            continue  # the node probe's check (node.removeipc) reports this host
        if record.get("errors"):
            problems = "; ".join(f"{p}: {why}" for p, why in record["errors"].items())
            findings.append(
                Finding(
                    code=code,
                    status=Status.INCOMPLETE,
                    priority=Priority.P2,
                    title=f"RemoveIPC on {host} not checked: {problems}",
                    reference=reference(code),
                    hosts=[host],
                )
            )
            continue
        effective = remove_ipc(record.get("files") or {})
        where = effective.source or "the default (no RemoveIPC line in logind.conf or its drop-ins)"
        evidence = [
            Evidence(effective.source or name, effective.text or "RemoveIPC unset: yes by default")
        ]
        runs_jobs = compute is None or host in compute
        if not effective.enabled:
            findings.append(
                Finding(
                    code=code,
                    status=Status.PASS,
                    priority=Priority.P1,
                    title=f"RemoveIPC=no on {host} ({where})",
                    reference=reference(code),
                    hosts=[host],
                    evidence=evidence,
                )
            )
        elif runs_jobs:
            findings.append(
                Finding(
                    code=code,
                    status=Status.FAIL,
                    priority=Priority.P1,
                    title=(
                        f"RemoveIPC=yes on Slurm node {host} (from {where}): systemd-logind can "
                        "delete a job's shared memory (/dev/shm/nccl-*) when its user's last "
                        "login session ends, crashing NCCL"
                    ),
                    reference=reference(code),
                    hosts=[host],
                    evidence=evidence,
                    suggested_commands=[
                        SuggestedCommand(
                            purpose="see the setting logind uses (on the node)",
                            command="systemd-analyze cat-config systemd/logind.conf | grep -i RemoveIPC",
                            preconditions="a shell on the node",
                        ),
                        SuggestedCommand(
                            purpose="keep logind away from job IPC (on every compute node, and in the lifecycle scripts)",
                            command=(
                                "sudo mkdir -p /etc/systemd/logind.conf.d && printf '[Login]\\nRemoveIPC=no\\n' "
                                "| sudo tee /etc/systemd/logind.conf.d/90-slurm-removeipc.conf && "
                                "sudo systemctl restart systemd-logind"
                            ),
                            preconditions="root on the node",
                            changes_state=True,
                            blast_radius="systemd-logind restarts; running jobs continue",
                        ),
                    ],
                )
            )
        else:
            findings.append(
                Finding(
                    code=code,
                    status=Status.SKIPPED,
                    priority=Priority.P2,
                    title=(
                        f"RemoveIPC=yes on {host}, which runs no Slurm jobs; the compute nodes "
                        "were not read (run on a compute node, or use the node probes)"
                    ),
                    reference=reference(code),
                    hosts=[host],
                    evidence=evidence,
                )
            )
    return findings
