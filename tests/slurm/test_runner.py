"""The runner's allow-list: read-only Slurm commands pass, anything that changes state does not,
and a refused command never starts."""

from __future__ import annotations

import pytest

from hyperpod_nccl.collect.runner import CommandRefused, LocalRunner, check_read_only
from hyperpod_nccl.collect.slurm import SQUEUE_FORMAT

ALLOWED = [
    ["sinfo", "--json"],
    ["sinfo", "-N", "-h", "-o", "%N|%T|%E"],
    ["squeue", "--json"],
    ["squeue", "-h", "-o", SQUEUE_FORMAT],
    ["scontrol", "ping"],
    ["scontrol", "--version"],
    ["scontrol", "show", "config"],
    ["scontrol", "show", "node", "-o"],
    ["scontrol", "show", "job", "-o", "1234"],
    ["sacct", "-j", "1234", "-P", "--format=JobID,State,ExitCode,NodeList"],
    ["sdiag"],
    ["munge", "-n"],
    ["cat", "/etc/slurm/slurm.conf"],
    ["cat", "/opt/slurm/etc/slurm.conf"],
    ["cat", "/etc/systemd/logind.conf"],
    ["cat", "/usr/lib/systemd/logind.conf.d/90-x.conf"],
    ["ls", "-1", "/etc/systemd/logind.conf.d"],
]
REFUSED = [
    ["scontrol", "update", "nodename=node01", "state=resume"],
    ["scontrol", "reconfigure"],
    ["scontrol", "reboot", "node01"],
    ["scontrol", "show", "node", "node01", "extra"],
    ["scancel", "1234"],
    ["sbatch", "--wrap", "true"],
    ["srun", "hostname"],
    ["sinfo", "--json", "--bogus"],
    ["sacct", "--delete"],
    ["munge", "-s", "x"],
    ["cat", "/etc/shadow"],
    ["cat", "/etc/slurm/../shadow.conf"],
    ["cat", "/etc/slurm/slurm.conf", "/etc/shadow"],
    ["cat", "/etc/slurm/prolog.sh"],  # scripts only once the configuration names them
    ["ls", "-1", "/etc"],
    ["bash", "-c", "sinfo"],
    [],
]


@pytest.mark.parametrize("argv", ALLOWED, ids=" ".join)
def test_read_only_commands_pass(argv: list[str]) -> None:
    check_read_only(argv)


@pytest.mark.parametrize("argv", REFUSED, ids=lambda a: " ".join(a) or "empty")
def test_state_changing_or_unknown_commands_are_refused(argv: list[str]) -> None:
    with pytest.raises(CommandRefused):
        check_read_only(argv)


def test_scripts_named_by_the_configuration_become_readable() -> None:
    runner = LocalRunner()
    with pytest.raises(CommandRefused):
        runner.run(["cat", "/etc/slurm/hpn-prolog.sh"], 5)
    runner.allow_files(["/etc/slurm/hpn-prolog.sh"])
    check_read_only(["cat", "/etc/slurm/hpn-prolog.sh"], runner.extra_files)
    with pytest.raises(CommandRefused):
        check_read_only(["cat", "/etc/slurm/other.sh"], runner.extra_files)


def test_a_refused_command_never_starts() -> None:
    with pytest.raises(CommandRefused):
        LocalRunner().run(["scontrol", "update", "nodename=node01", "state=drain"], 5)


def test_a_missing_program_is_a_result_not_an_exception(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    result = LocalRunner().run(["sinfo", "--json"], 5)
    assert result.rc is None and not result.timed_out and result.stderr
