"""Make the command helpers importable as `command_gather` and `command_verbs`."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
