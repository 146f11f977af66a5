"""``mypy --strict`` on a typed usage file of dory_wire.client: the names a
program uses keep their types."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent


@pytest.mark.parametrize("usage", sorted((HERE / "typing").glob("*.py")), ids=lambda p: p.name)
def test_usage_type_checks_strictly(usage: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", str(usage)],
        cwd=HERE.parent,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout + run.stderr
