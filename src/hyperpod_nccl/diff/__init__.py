"""`hyperpod-nccl diff GOOD BAD`: what changed between a known-good run and a failing one.

One module per job: `sides` opens each input (a bundle or a log directory), `logfacts` and
`statefacts` read the facts worth comparing from it, `facts` holds them, `failure` says how
each side failed, `compare` finds the differences, `rank` turns them into findings ordered by
the failures of the BAD side they explain, `report` is the result (its JSON is the contract's
`hyperpod-nccl/diff/v1`) and `render` prints it. Read-only and offline, like every command.
"""

from __future__ import annotations

from hyperpod_nccl.diff.run import diff_paths

__all__ = ["diff_paths"]
