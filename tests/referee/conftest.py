"""Make the helper modules of this folder (referee_scenario, referee_roundtrip) importable."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
