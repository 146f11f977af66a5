"""pytest configuration: the test helpers importable, hypothesis settings."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from hypothesis import HealthCheck, settings

sys.path.insert(0, str(Path(__file__).parent))

# No timing assertions (deadline=None) and no example database in the tree;
# DORY_WIRE_HYPOTHESIS_EXAMPLES raises the budget for longer local runs.
settings.register_profile(
    "dory-wire",
    max_examples=int(os.environ.get("DORY_WIRE_HYPOTHESIS_EXAMPLES", "150")),
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile("dory-wire")
