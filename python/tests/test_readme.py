"""The README's tight-budget preview example runs as written and prints what
the README shows (the comment lines under it)."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"


def _python_blocks(text: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def test_tight_budget_example_prints_what_the_readme_shows() -> None:
    if not README.exists():
        pytest.skip("run from an installed wheel: the repository's README is not here")
    blocks = [b for b in _python_blocks(README.read_text()) if "max_bytes=257" in b]
    assert len(blocks) == 1, "the README has one tight-budget example"
    block = blocks[0]
    code = "\n".join(line for line in block.splitlines() if not line.startswith("#"))
    shown = [line[2:] for line in block.splitlines() if line.startswith("# ")]
    written: dict[str, bytes] = {}

    def save(spill_id: str, data: bytes) -> str:
        written[spill_id] = data
        return f"/workspace/.tool-output/{spill_id}.txt"

    out = io.StringIO()
    namespace: dict[str, object] = {"save": save}
    with contextlib.redirect_stdout(out):
        exec("from dory_wire import bound\n" + code, namespace)  # the README's own code
    # print() adds a newline after the preview's own last one.
    assert out.getvalue().removesuffix("\n").splitlines() == shown
    assert list(written) == ["3f9c0e8a5b7d4e21a0c6f1b2d3e4f5a6"]
