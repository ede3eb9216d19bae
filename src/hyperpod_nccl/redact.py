"""Redaction lives in the bundle package (hyperpod_nccl.bundle.redact); this name stays for the
reports and faces that redact what they print. At run time this module *is* that one."""

import sys

from hyperpod_nccl.bundle import redact as _home
from hyperpod_nccl.bundle.redact import *  # noqa: F403  (the names, for type checkers)

sys.modules[__name__] = _home
