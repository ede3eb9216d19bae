"""Fixtures for the escalation-bundle tests; the helpers are in bundle_helpers.py."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from bundle_helpers import make_secrets


@pytest.fixture
def secrets() -> dict[str, str]:
    return make_secrets()
