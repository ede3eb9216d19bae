"""The unit tests of the checks import their case helpers from cases.py beside them."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
