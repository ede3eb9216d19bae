"""Redaction's home is hyperpod_nccl.redaction (with its secret rules and keyword finder), a
package that depends on nothing else of ours, so reports, bundles and faces can all use it.
This name stays; at run time it is that module."""

import sys

from hyperpod_nccl import redaction as _home
from hyperpod_nccl.redaction import *  # noqa: F403  (the names, for type checkers)

sys.modules[__name__] = _home
