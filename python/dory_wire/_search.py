"""Searching a spill: :func:`search_file` reads a saved output in chunks into
the core's :class:`Searcher` (every decision is the core's)."""

from __future__ import annotations

import os

from ._core import Searcher, SearchResult

__all__ = ["search_file"]

CHUNK_BYTES = 1 << 20
"""The size of each read: memory stays bounded whatever the file's size."""


def search_file(
    path: str | os.PathLike[str],
    pattern: str,
    *,
    context: int = 0,
    max_lines: int = 400,
    max_bytes: int = 16384,
    ignore_case: bool = False,
) -> SearchResult:
    """Searches the file at ``path`` (a spill, of any size) for ``pattern``:
    the matching lines with their 1-based numbers, ``context`` lines around
    each, within ``max_lines`` lines and ``max_bytes`` bytes (a run's
    defaults), with a notice naming the ``grep -n -E`` command that lists
    every match. Raises :class:`InvalidArgument` for a bad pattern,
    :class:`InvalidLimits` for limits a run refuses, ``OSError`` when the
    file cannot be read."""
    searcher = Searcher(
        pattern, context=context, max_lines=max_lines, max_bytes=max_bytes, ignore_case=ignore_case
    )
    name = os.fspath(path)
    with open(name, "rb") as file:
        while chunk := file.read(CHUNK_BYTES):
            searcher.push(chunk)
    return searcher.finish(name)
