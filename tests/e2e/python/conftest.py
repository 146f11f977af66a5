"""End-to-end tests against the reference server (see refserver.py)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from refserver import RefServer


@pytest.fixture(scope="session")
def server() -> Iterator[RefServer]:
    """A server with the default limits, shared by the tests that do not need their own."""
    with RefServer() as srv:
        yield srv
