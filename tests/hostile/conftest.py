"""Hostile and unlucky input: the helpers are in hostile.py."""

from __future__ import annotations

import sys
from pathlib import Path

# Appended, not inserted first: another folder's `from conftest import ...` must not find ours.
sys.path.append(str(Path(__file__).parent))
