"""The reference server (``dory-refserver``) for the client's ``run`` tests:
the end-to-end suite's :class:`RefServer` (tests/e2e/python/refserver.py),
with the binary built once per session when ``DORY_REFSERVER_BIN`` names
none (``bash scripts/build.sh native``: the workspace's one host build, in
the default target directory, as tests/e2e/build.sh builds it)."""

from __future__ import annotations

import functools
import importlib.util
import os
import subprocess
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
_REFSERVER = ROOT / "tests" / "e2e" / "python" / "refserver.py"


@functools.lru_cache(maxsize=1)
def _module() -> Any:
    if not os.environ.get("DORY_REFSERVER_BIN"):
        env = {k: v for k, v in os.environ.items() if k != "CARGO_TARGET_DIR"}
        subprocess.run(["bash", "scripts/build.sh", "native"], cwd=ROOT, env=env, check=True)
        os.environ["DORY_REFSERVER_BIN"] = str(ROOT / "target" / "debug" / "dory-refserver")
    spec = importlib.util.spec_from_file_location("dory_e2e_refserver", _REFSERVER)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def refserver(*args: str) -> Any:
    """A ``RefServer`` with these flags (``with refserver(...) as server:``)."""
    return _module().RefServer(*args)
