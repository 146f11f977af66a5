"""The spill search: search_file reads a file in chunks; the Searcher is the core's."""

from __future__ import annotations

from pathlib import Path

import pytest

import dory_wire as dw


def test_search_file_reads_a_spill(tmp_path: Path) -> None:
    path = tmp_path / "out put.txt"
    path.write_bytes(b"".join(b"line %d\n" % i for i in range(1, 3001)) + b"error: it broke\r\n")
    result = dw.search_file(path, "error|line 7$", context=1, max_lines=5)
    assert result.matched_lines == 2
    assert result.text.startswith("6-line 6\n7:line 7\n8-line 8\n")
    assert result.truncated
    assert result.command == f"grep -n -E 'error|line 7$' '{path}'"
    assert result.text.endswith(f"[... 1 more matching line of 2; {result.command} ...]\n")
    assert result.total_bytes == path.stat().st_size
    assert result.spill_path == str(path)


def test_bad_patterns_and_limits_raise_the_core_errors(tmp_path: Path) -> None:
    with pytest.raises(dw.InvalidArgument) as info:
        dw.Searcher("(")
    assert info.value.argument == "pattern"
    with pytest.raises(dw.InvalidLimits):
        dw.search_file(tmp_path / "missing.txt", "a", max_lines=1)
    with pytest.raises(FileNotFoundError):
        dw.search_file(tmp_path / "missing.txt", "a")


def test_a_searcher_finishes_once() -> None:
    searcher = dw.Searcher("a", ignore_case=True)
    searcher.push(b"A\n")
    assert searcher.buffered_bytes >= 0
    assert searcher.finish().text == "1:A\n"
    with pytest.raises(dw.InvalidState):
        searcher.finish()
    with pytest.raises(dw.InvalidState):
        searcher.push(b"x")
