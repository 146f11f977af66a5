"""What an SDK author writes by hand instead of using dory_wire.

- :func:`decode_json` / :func:`decode_orjson`: split the body into lines,
  parse each with ``json.loads`` (or ``orjson.loads``), base64-decode when the
  frame says so, check the offsets and append to one ``bytearray`` per stream.
- :func:`py_bound`: a head/tail bounder meeting the preview contract
  (docs/preview.md: hard ceiling, cuts on line boundaries else on character
  boundaries, never between ``\\r`` and ``\\n``, tail preferred, unused budget
  moved to the other side, exact counts, U+FFFD rendering, idempotent). Built
  on ``bytes`` methods, which run at C speed.
"""

from __future__ import annotations

import base64
import json
from typing import Any, Callable

Loads = Callable[[bytes], Any]


class BaselineError(Exception):
    """The hand-written decoder met something it does not accept."""


def decode(chunks: Any, loads: Loads) -> tuple[bytearray, bytearray, int | None]:
    """Decodes an NDJSON process-output body given as an iterable of chunks.

    Returns (stdout bytes, stderr bytes, exit code).
    """
    out = {"stdout": bytearray(), "stderr": bytearray()}
    exit_code = None
    exited = False
    partial = b""
    b64decode = base64.b64decode
    for chunk in chunks:
        lines = (partial + chunk).split(b"\n") if partial else chunk.split(b"\n")
        partial = lines.pop()
        for line in lines:
            if not line:
                continue
            if exited:
                raise BaselineError("frame after exit")
            frame = loads(line)
            kind = frame["type"]
            if kind == "stdout" or kind == "stderr":
                data = frame["data"]
                encoding = frame.get("encoding")
                if encoding == "base64":
                    raw = b64decode(data, validate=True)
                elif encoding is None or encoding == "utf-8":
                    raw = data.encode()
                else:
                    raise BaselineError(f"unknown encoding {encoding!r}")
                end = frame["offset"]
                start = end - len(raw)
                if start < 0:
                    raise BaselineError("offset before chunk start")
                buf = out[kind]
                consumed = len(buf)
                if start > consumed:
                    raise BaselineError(f"gap: expected {consumed}, chunk starts at {start}")
                if end > consumed:
                    buf += raw if start == consumed else raw[consumed - start :]
            elif kind == "exit":
                exit_code = frame.get("exit_code")
                exited = True
    return out["stdout"], out["stderr"], exit_code


def decode_json(chunks: Any) -> tuple[bytearray, bytearray, int | None]:
    """The baseline with the standard library's ``json``."""
    return decode(chunks, json.loads)


def decode_orjson(chunks: Any) -> tuple[bytearray, bytearray, int | None]:
    """The baseline with ``orjson``."""
    import orjson

    return decode(chunks, orjson.loads)


# ---------------------------------------------------------------- preview


def _rendered_len(raw: bytes) -> int:
    return len(raw.decode("utf-8", "replace").encode())


def _notice(omitted_lines: int, omitted_bytes: int, first: int, last: int, total: int) -> str:
    return (
        f"[... {omitted_lines} lines ({omitted_bytes} bytes) omitted: "
        f"lines {first}-{last} of {total}; full output not saved ...]"
    )


def _cut_prefix(seg: bytes, room: int) -> int:
    """The longest prefix of ``seg`` rendering within ``room`` bytes that
    ends on a character boundary and not between ``\\r`` and ``\\n``."""
    cut = min(room, len(seg))
    while cut > 0:
        for _ in range(3):
            if cut < len(seg) and (seg[cut] & 0xC0) == 0x80:
                cut -= 1
        if 0 < cut < len(seg) and seg[cut - 1] == 0x0D and seg[cut] == 0x0A:
            cut -= 1
        over = _rendered_len(seg[:cut]) - room
        if over <= 0:
            return max(cut, 0)
        cut -= over
    return 0


def _cut_suffix(seg: bytes, room: int) -> int:
    """The length of the longest suffix of ``seg`` rendering within ``room``
    bytes that starts on a character boundary and not between ``\\r`` and ``\\n``."""
    start = max(len(seg) - room, 0)
    while start < len(seg):
        for _ in range(3):
            if start < len(seg) and (seg[start] & 0xC0) == 0x80:
                start += 1
        if 0 < start < len(seg) and seg[start - 1] == 0x0D and seg[start] == 0x0A:
            start += 1
        over = _rendered_len(seg[start:]) - room
        if over <= 0:
            return len(seg) - start
        start += over
    return 0


def _head(data: bytes, hi: int, lines: int, budget: int) -> int:
    """How many bytes of ``data[:hi]`` a head of at most ``lines`` lines and
    ``budget`` rendered bytes shows: whole lines, then a cut line."""
    pos = 0
    used = 0
    for _ in range(lines):
        if pos >= hi:
            break
        nl = data.find(b"\n", pos, hi)
        end = hi if nl < 0 else nl + 1
        size = _rendered_len(data[pos:end])
        if used + size > budget:
            return pos + _cut_prefix(data[pos:end], budget - used)
        used += size
        pos = end
    return pos


def _tail(data: bytes, lo: int, lines: int, budget: int) -> int:
    """How many bytes at the end of ``data[lo:]`` a tail of at most ``lines``
    lines and ``budget`` rendered bytes shows: whole lines, then a cut line."""
    end = len(data)
    used = 0
    for _ in range(lines):
        if end <= lo:
            break
        start = max(data.rfind(b"\n", lo, end - 1) + 1, lo)
        size = _rendered_len(data[start:end])
        if used + size > budget:
            return len(data) - end + _cut_suffix(data[start:end], budget - used)
        used += size
        end = start
    return len(data) - end


def _line_count(seg: bytes) -> int:
    return seg.count(b"\n") + (1 if seg and not seg.endswith(b"\n") else 0)


def py_bound(data: bytes, max_lines: int, max_bytes: int) -> str:
    """Bounds ``data`` to at most ``max_lines`` lines and ``max_bytes`` bytes."""
    total_bytes = len(data)
    newlines = data.count(b"\n")
    total_lines = newlines + (1 if data and not data.endswith(b"\n") else 0)
    # Rendering never shrinks bytes, so only small inputs can fit.
    if total_lines <= max_lines and total_bytes <= max_bytes:
        text = data.decode("utf-8", "replace")
        if len(text.encode()) <= max_bytes:
            return text
    # Reserve the longest notice these totals can give, plus two line breaks.
    reserve = len(_notice(total_lines, total_bytes, total_lines, total_lines, total_lines)) + 2
    budget = max(max_bytes - reserve, 0)
    line_budget = max_lines - 1
    # The tail gets the larger half (it holds the error); the head takes what
    # the tail left, then the tail what the head left. At least one byte stays
    # hidden, so head and tail never meet.
    tail_n = _tail(data, 1, line_budget - line_budget // 2, budget - budget // 2)
    tail_text = data[total_bytes - tail_n :]
    head_n = _head(
        data,
        total_bytes - tail_n - 1,
        line_budget - _line_count(tail_text),
        budget - _rendered_len(tail_text),
    )
    head = data[:head_n]
    tail_n = _tail(data, head_n + 1, line_budget - _line_count(head), budget - _rendered_len(head))
    tail = data[total_bytes - tail_n :]
    first = head.count(b"\n") + 1
    tail_whole = _line_count(tail)
    if tail and data[total_bytes - tail_n - 1] != 0x0A:
        tail_whole -= 1  # the tail starts inside a line: that line is omitted
    last = total_lines - tail_whole
    notice = _notice(last - first + 1, total_bytes - head_n - tail_n, first, last, total_lines)
    head_text = head.decode("utf-8", "replace")
    if head_text and not head_text.endswith("\n"):
        head_text += "\n"
    return head_text + notice + "\n" + tail.decode("utf-8", "replace")
