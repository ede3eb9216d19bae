"""Checks of the Slurm controller and of munge on the host that ran the tool."""

from __future__ import annotations

import re

from hyperpod_nccl.checks import check
from hyperpod_nccl.checks.findings import reference
from hyperpod_nccl.checks.slurm_data import (
    AREA,
    json_item,
    missing,
)
from hyperpod_nccl.model import Evidence, Finding, Priority, Status, SuggestedCommand
from hyperpod_nccl.snapshot import Snapshot
from hyperpod_nccl.snapshot.items import SLURM_MUNGE, SLURM_PING

_CONTROLLER = re.compile(r"Slurmctld\((\w+)\) at (\S+) is (UP|DOWN)")


@check("slurm.controller", AREA, ["SLURMCTLD_DOWN", "SLURM_COMMAND_TIMEOUT"])
def controller(snapshot: Snapshot) -> list[Finding]:
    """Is slurmctld answering? (`scontrol ping`)"""
    ping = json_item(snapshot, SLURM_PING)
    if ping is None:
        return [missing("SLURMCTLD_DOWN", "slurmctld", snapshot, SLURM_PING)]
    source = f"slurm/ping.json ({' '.join(ping['argv'])} on {ping['host']})"
    output = (ping.get("stdout") or "") + (ping.get("stderr") or "")
    evidence = [Evidence(source, line.strip()) for line in output.splitlines() if line.strip()][:5]
    if ping.get("timed_out"):
        return [
            Finding(
                code="SLURM_COMMAND_TIMEOUT",
                status=Status.INCOMPLETE,
                priority=Priority.P1,
                title=(
                    f"slurmctld did not answer `scontrol ping` within {ping['elapsed_s']:.0f} s; "
                    "node, job and configuration checks could not run"
                ),
                reference=reference("SLURM_COMMAND_TIMEOUT"),
                hosts=[ping["host"]],
                evidence=evidence,
                suggested_commands=[_ping_command()],
            )
        ]
    controllers = _CONTROLLER.findall(ping.get("stdout") or "")
    up = [c for c in controllers if c[2] == "UP"]
    if up:  # a backup controller that is down does not stop scheduling
        return [
            Finding(
                code="SLURMCTLD_DOWN",
                status=Status.PASS,
                priority=Priority.P0,
                title=f"slurmctld answers on {', '.join(c[1] for c in up)}",
                reference=reference("SLURMCTLD_DOWN"),
                evidence=evidence,
            )
        ]
    down_hosts = [c[1] for c in controllers if c[2] == "DOWN"]
    what = ", ".join(f"{c[0]} at {c[1]}" for c in controllers if c[2] == "DOWN")
    return [
        Finding(
            code="SLURMCTLD_DOWN",
            status=Status.FAIL,
            priority=Priority.P0,
            title=(
                f"slurmctld does not answer ({what or 'scontrol ping failed'}): no jobs start "
                "and running jobs cannot start new steps"
            ),
            reference=reference("SLURMCTLD_DOWN"),
            hosts=down_hosts,
            evidence=evidence,
            suggested_commands=[
                _ping_command(),
                SuggestedCommand(
                    purpose="read why slurmctld stopped (on the controller node)",
                    command="systemctl status slurmctld; journalctl -u slurmctld --since -1h | tail -50",
                    preconditions="a shell on the controller node",
                ),
            ],
        )
    ]


def _ping_command() -> SuggestedCommand:
    return SuggestedCommand(
        purpose="ask slurmctld again",
        command="scontrol ping",
    )


@check("slurm.munge", AREA, ["SLURM_MUNGE_FAILED"])
def munge(snapshot: Snapshot) -> list[Finding]:
    """Can this host create a munge credential? Every Slurm message is signed with one."""
    record = json_item(snapshot, SLURM_MUNGE)
    if record is None:
        return [missing("SLURM_MUNGE_FAILED", "munge", snapshot, SLURM_MUNGE)]
    source = f"slurm/munge.json (munge -n on {record['host']})"
    if record.get("rc") == 0 and (record.get("stdout") or "").startswith("MUNGE:"):
        return [
            Finding(
                code="SLURM_MUNGE_FAILED",
                status=Status.PASS,
                priority=Priority.P0,
                title=f"munge creates credentials on {record['host']}",
                reference=reference("SLURM_MUNGE_FAILED"),
            )
        ]
    message = (record.get("stderr") or record.get("stdout") or "").strip()
    if record.get("timed_out"):
        message = f"munge -n did not answer within {record['elapsed_s']:.0f} s"
    elif record.get("rc") is None:
        message = f"munge could not start: {message or 'not installed'}"
    return [
        Finding(
            code="SLURM_MUNGE_FAILED",
            status=Status.FAIL,
            priority=Priority.P0,
            title=(
                f"munge cannot create a credential on {record['host']}: Slurm commands and "
                "daemons there cannot authenticate"
            ),
            reference=reference("SLURM_MUNGE_FAILED"),
            hosts=[record["host"]],
            evidence=[Evidence(source, line) for line in message.splitlines()[:5]],
            suggested_commands=[
                SuggestedCommand(
                    purpose="check munged and the key on this host",
                    command="systemctl status munge; ls -l /etc/munge/munge.key; munge -n | unmunge",
                    preconditions="a shell on the host",
                )
            ],
        )
    ]
