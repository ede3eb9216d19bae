"""Run the probe batch on this machine (`hyperpod-nccl probe` on a node)."""

from __future__ import annotations

import socket

from hyperpod_nccl.collect.transports.base import Transport
from hyperpod_nccl.probes.batch import BatchScript


def local_node_name() -> str:
    # Bundle item names allow letters, digits and ._-@:+= ; hostnames fit.
    return socket.gethostname().split(".")[0] or "localhost"


class LocalTransport(Transport):
    name = "local"

    def _argv(self, node: str, script: BatchScript) -> list[str]:
        return ["sh", "-c", script.text]
