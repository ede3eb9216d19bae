"""The Snapshot every check reads. Its home is the bundle package (hyperpod_nccl.bundle.snapshot),
beside the bundle format it is saved in; this name stays so the layers above need not reach
into that package. At run time this module *is* that one (same object, same state)."""

import sys

from hyperpod_nccl.bundle import snapshot as _home
from hyperpod_nccl.bundle.snapshot import *  # noqa: F403  (the names, for type checkers)

sys.modules[__name__] = _home
