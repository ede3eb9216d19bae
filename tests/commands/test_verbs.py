"""The independent write-verb reading the command tests rely on: it must see the writes the
issue names and must not mistake words inside quoted patterns for commands."""

from __future__ import annotations

import pytest
from command_verbs import writes


@pytest.mark.parametrize(
    "command",
    [
        "aws ec2 authorize-security-group-ingress --group-id sg-1 --ip-permissions 'IpProtocol=-1'",
        "scontrol update nodename=gpu01 state=resume",
        "printf '[Login]\\nRemoveIPC=no\\n' | sudo tee /etc/systemd/logind.conf.d/x.conf && sudo systemctl restart systemd-logind",
        "aws sagemaker batch-reboot-cluster-nodes --cluster-name c --node-ids i-0123456789abcdef0",
        "aws sagemaker batch-replace-cluster-nodes --cluster-name c --node-ids i-0123456789abcdef0",
        "kubectl drain ip-10-1-2-3 --ignore-daemonsets",
        "kubectl -n training delete pod worker-1",
        "kubectl cordon ip-10-1-2-3",
        "sbatch --exclude=gpu01 job.sh",
        "dcgmi diag -r 3",
        "echo x > /etc/foo",
    ],
)
def test_writes_are_seen(command: str) -> None:
    assert writes(command)


@pytest.mark.parametrize(
    "command",
    [
        "sudo dmesg -T | grep -iE 'out of memory|killed process|oom-kill'",
        "kubectl get events -A --sort-by=.lastTimestamp | grep -iE 'evict|preempt|kill|delete'",
        "scontrol show config | grep -iE 'update|reboot'",
        "nc -zv -w 5 10.1.97.41 45763 2>&1",
        "aws sagemaker describe-cluster --cluster-name c --query '{status:ClusterStatus}'",
        "py-spy dump --pid 5120   # run in the training container; do not restart it",
    ],
)
def test_reads_are_not_writes(command: str) -> None:
    assert not writes(command)
