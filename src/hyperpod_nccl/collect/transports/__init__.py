"""How probe batches reach a node: on this machine (`LocalTransport`), through Slurm's srun
(`SlurmTransport`) or through an SSM session (`SsmTransport`). All three run the same batch
script, built only from the probe catalog."""

from hyperpod_nccl.collect.transports.base import NodeRun, Transport, TransportError
from hyperpod_nccl.collect.transports.local import LocalTransport
from hyperpod_nccl.collect.transports.slurm import SlurmTransport
from hyperpod_nccl.collect.transports.ssm import SsmTarget, SsmTransport

__all__ = [
    "LocalTransport",
    "NodeRun",
    "SlurmTransport",
    "SsmTarget",
    "SsmTransport",
    "Transport",
    "TransportError",
]
