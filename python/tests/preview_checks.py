"""The preview invariants of VECTORS.md, shared by the vector runner and the
property tests."""

from __future__ import annotations

import random

import dory_wire as dw


def count_lines(data: bytes) -> int:
    """Lines as PREVIEW.md defines them: runs ending with ``\\n``, plus a
    non-empty final run."""
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def render(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


def line_of(data: bytes, offset: int) -> int:
    """1-based line number of the byte at ``offset``."""
    return data.count(b"\n", 0, offset) + 1


def check_invariants(
    data: bytes,
    preview: dw.Preview,
    max_lines: int,
    max_bytes: int,
    spill_path: str | None = None,
) -> None:
    text = preview.text
    encoded = text.encode("utf-8")  # str from the core: valid UTF-8 by construction
    assert len(encoded) <= max_bytes, f"{len(encoded)} bytes > max_bytes {max_bytes}"
    assert count_lines(encoded) <= max_lines, f"{count_lines(encoded)} lines > {max_lines}"
    assert preview.total_bytes == len(data)
    assert preview.total_lines == count_lines(data)
    assert preview.head_bytes + preview.omitted_bytes + preview.tail_bytes == preview.total_bytes
    if not preview.truncated:
        assert text == render(data)
        assert preview.omitted_bytes == 0
        assert preview.omitted_lines == 0
        assert preview.omitted_range is None
        assert preview.spill_path is None
        return
    head = render(data[: preview.head_bytes])
    tail = render(data[len(data) - preview.tail_bytes :]) if preview.tail_bytes else ""
    assert text.startswith(head), "the preview must start with a rendering of a prefix"
    assert text.endswith(tail), "the preview must end with a rendering of a suffix"
    assert len(head) + len(tail) <= len(text)
    middle = text[len(head) : len(text) - len(tail)]
    # The notice on its own line: an optional line break closing a cut head,
    # the notice, the line break before the tail.
    notice = middle[1:] if middle.startswith("\n") and not head.endswith("\n") and head else middle
    assert notice.endswith("\n") or not tail, repr(middle)
    notice = notice[:-1] if notice.endswith("\n") else notice
    assert "\n" not in notice, f"exactly one notice line expected, got {middle!r}"
    assert notice.startswith("[... "), notice
    assert notice.endswith(" ...]"), notice
    assert "omitted" in notice
    unit = "line" if preview.omitted_lines == 1 else "lines"
    assert f"{preview.omitted_lines} {unit} ({preview.omitted_bytes} bytes) omitted" in notice
    assert preview.omitted_bytes > 0 or preview.omitted_lines > 0
    assert preview.omitted_range is not None
    first, last = preview.omitted_range
    assert last - first + 1 == preview.omitted_lines
    assert first == line_of(data, preview.head_bytes)
    assert last == line_of(data, len(data) - preview.tail_bytes - 1)
    if spill_path is not None and preview.spill_path is not None:
        assert preview.spill_path == spill_path
        assert spill_path in notice
    if preview.spill_path is None:
        assert "full output not saved" in notice


def check_rebound(preview: dw.Preview, max_lines: int, max_bytes: int) -> None:
    """Bounding a preview again with the same limits gives it back unchanged."""
    again = dw.bound(preview.text, max_lines=max_lines, max_bytes=max_bytes)
    assert not again.truncated
    assert again.text == preview.text


def random_chunks(data: bytes, rng: random.Random, max_chunk: int = 64) -> list[bytes]:
    out = []
    i = 0
    while i < len(data):
        n = rng.randint(0, max_chunk)
        out.append(data[i : i + n])
        i += n
    return out


def streamed(
    data: bytes,
    chunks: list[bytes],
    max_lines: int,
    max_bytes: int,
    *,
    spill_id: str | None = None,
    spill_path: str | None = None,
    spill_error: str | None = None,
    hint: str | None = None,
) -> dw.Preview:
    bounder = dw.StreamingBounder(max_lines, max_bytes, spill_id=spill_id)
    for chunk in chunks:
        bounder.push(chunk)
    assert bounder.total_bytes == len(data)
    return bounder.finish(spill_path=spill_path, spill_error=spill_error, hint=hint)
