"""The preview invariants of VECTORS.md, shared by the vector runner and the
property tests."""

from __future__ import annotations

import builtins
import random
from typing import Any, Callable

import dory_wire as dw


def count_lines(data: bytes) -> int:
    """Lines as docs/preview.md defines them: runs ending with ``\\n``, plus a
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
    hint: str | None = None,
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
    # The notice on its own line: a line break closing a cut head, the
    # notice, the line break before the tail.
    head_cut = bool(head) and not data[: preview.head_bytes].endswith(b"\n")
    notice = middle[1:] if head_cut else middle
    if tail:
        assert notice.endswith("\n"), repr(middle)
        notice = notice[:-1]
    assert "\n" not in notice, f"exactly one notice line expected, got {middle!r}"
    assert notice.startswith("[... "), notice
    assert notice.endswith(" ...]"), notice
    assert "omitted" in notice
    assert preview.omitted_bytes > 0
    assert preview.omitted_range is not None
    first, last = preview.omitted_range
    assert last - first + 1 == preview.omitted_lines
    assert first == line_of(data, preview.head_bytes)
    assert last == line_of(data, len(data) - preview.tail_bytes - 1)
    allowed = expected_notices(data, preview, hint)
    if preview.spill_path is not None and hint is None:
        # The caller's hint (unknown here) may follow the command.
        stem = allowed[0][: -len(" ...]")]
        assert notice == allowed[0] or notice.startswith(stem + "; "), notice
    else:
        assert notice in allowed, notice
    if spill_path is not None and preview.spill_path is not None:
        assert preview.spill_path == spill_path
    if preview.spill_path is None:
        assert "sed -n" not in notice


def shell_word(path: str) -> str:
    """``path`` as one POSIX shell word: as it is when every character is in
    ``[A-Za-z0-9/._+,:@%=-]``, else single-quoted with ``'`` as ``'\\''``."""
    if path and all(c.isascii() and (c.isalnum() or c in "/._-+,:@%=") for c in path):
        return path
    return "'" + path.replace("'", "'\\''") + "'"


def expected_notices(data: bytes, preview: dw.Preview, hint: str | None = None) -> list[str]:
    """The notices docs/preview.md allows for this preview: the pointer form
    when it names a path, else the plain, compact and minimal forms."""
    assert preview.omitted_range is not None
    first, last = preview.omitted_range
    head, tail_start = preview.head_bytes, len(data) - preview.tail_bytes
    first_partial = head > 0 and data[head - 1 : head] != b"\n"
    last_partial = preview.tail_bytes > 0 and data[tail_start - 1 : tail_start] != b"\n"
    n = preview.omitted_bytes
    counted = f"{n} byte omitted" if n == 1 else f"{n} bytes omitted"
    lines = f"line {first}" if first == last else f"lines {first}-{last}"
    where = f"{lines} of {preview.total_lines}"
    if first_partial or last_partial:
        if first == last:
            where += ", partly shown"
        elif first_partial and last_partial:
            where += f", {first} and {last} partly shown"
        else:
            where += f", {first if first_partial else last} partly shown"
    if preview.spill_path is not None:
        pointer = f"; sed -n '{first},{last}p' {shell_word(preview.spill_path)}"
        if hint:
            pointer += f"; {hint}"
        return [f"[... {counted}: {where}{pointer} ...]"]
    return [f"[... {counted}: {where} ...]", f"[... {counted} ...]", "[... omitted ...]"]


def check_rebound(
    preview: dw.Preview,
    max_lines: int,
    max_bytes: int,
    *,
    max_tokens: int | None = None,
    tokenizer: str | None = None,
) -> None:
    """Bounding a preview again with the same limits (a token limit
    included) gives it back unchanged, with the same token count."""
    again = dw.bound(
        preview.text,
        max_lines=max_lines,
        max_bytes=max_bytes,
        max_tokens=max_tokens,
        tokenizer=tokenizer,
    )
    assert not again.truncated
    assert again.text == preview.text
    assert again.tokens == preview.tokens


def random_chunks(data: bytes, rng: random.Random, max_chunk: int = 64) -> list[bytes]:
    out = []
    i = 0
    while i < len(data):
        n = rng.randint(0, max_chunk)
        out.append(data[i : i + n])
        i += n
    return out


def _raising(spill_error: str) -> Callable[[str], str]:
    """A writer that fails with the error ``spill_error`` describes
    (``spill writer failed: Type: message``, a built-in ``Type``)."""
    described = spill_error.removeprefix("spill writer failed: ")
    name, _, message = described.partition(": ")
    kind = getattr(builtins, name, None)
    if not (isinstance(kind, type) and issubclass(kind, Exception)):
        raise AssertionError(f"cannot rebuild the writer failure {spill_error!r}")

    def writer(spill_id: str) -> str:
        raise kind(message) if message else kind()

    return writer


def streamed(
    data: bytes,
    chunks: list[bytes],
    max_lines: int,
    max_bytes: int,
    *,
    spill_id: str | None = None,
    spill: Callable[[str], object] | None = None,
    spill_path: str | None = None,
    spill_error: str | None = None,
    hint: str | None = None,
    keep: Any = None,
    terminal: bool = False,
    max_tokens: int | None = None,
    tokenizer: str | None = None,
) -> dw.Preview:
    """The streaming bounder over ``chunks`` (with ``keep``, ``terminal``
    and the token limit), finished with ``spill`` (or a writer returning
    ``spill_path``, or failing as ``spill_error`` says)."""
    if spill is None and spill_path is not None:
        path = spill_path
        spill = lambda _id: path  # noqa: E731
    if spill is None and spill_error is not None:
        spill = _raising(spill_error)
    bounder = dw.StreamingBounder(
        max_lines,
        max_bytes,
        spill_id=spill_id,
        keep=keep,
        terminal=terminal,
        max_tokens=max_tokens,
        tokenizer=tokenizer,
    )
    for chunk in chunks:
        bounder.push(chunk)
    assert bounder.total_bytes == len(data)
    return bounder.finish(spill, hint=hint)  # type: ignore[arg-type]
