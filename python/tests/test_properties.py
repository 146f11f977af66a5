"""Property tests: the preview bounder (hard ceiling, counts, idempotence,
streaming = whole) and the reader's split invariance."""

from __future__ import annotations

import base64
import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from preview_checks import check_invariants, check_rebound, streamed

import dory_wire as dw

# -- preview --------------------------------------------------------------

PIECES = [
    b"a",
    b"word ",
    b"\n",
    b"\r\n",
    b"\r",
    b"\t",
    b"\xc3\xa9",  # é
    b"\xe6\xbc\xa2",  # 漢
    b"\xf0\x9f\x98\x80",  # an emoji
    b"\xff",  # never valid
    b"\xe2\x82",  # a truncated sequence
    b"\x80",  # a lone continuation byte
    b"x" * 97,
    b"[... 3 lines (9 bytes) omitted ...]\n",  # looks like a notice
]

data_strategy = st.one_of(
    st.binary(max_size=2000),
    st.lists(st.sampled_from(PIECES), max_size=300).map(b"".join),
    st.lists(st.text(max_size=60), max_size=80).map(lambda lines: "\n".join(lines).encode()),
)
max_lines_strategy = st.integers(min_value=1, max_value=40)
max_bytes_strategy = st.integers(min_value=dw.MIN_MAX_BYTES, max_value=1500)
path_strategy = st.text(
    alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x2FF), min_size=1, max_size=400
)


def split_at(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({min(c, len(data)) for c in cuts})
    bounds = [0, *points, len(data)]
    return [data[a:b] for a, b in zip(bounds, bounds[1:])]


@given(
    data=data_strategy,
    max_lines=max_lines_strategy,
    max_bytes=max_bytes_strategy,
    path=st.one_of(st.none(), path_strategy),
    hint=st.one_of(st.none(), st.text(max_size=80)),
    cuts=st.lists(st.integers(min_value=0, max_value=2000), max_size=12),
)
def test_bound_properties(
    data: bytes,
    max_lines: int,
    max_bytes: int,
    path: str | None,
    hint: str | None,
    cuts: list[int],
) -> None:
    writer = None if path is None else (lambda spill_id, full: path)
    # With a writer the default id is random: fix one, so runs compare.
    spill_id = None if path is None else "0123456789abcdef0123456789abcdef"
    kw: dict[str, Any] = {"spill": writer, "spill_id": spill_id, "hint": hint}
    preview = dw.bound(data, max_lines=max_lines, max_bytes=max_bytes, **kw)
    # The hard ceiling, the counts, the head/notice/tail shape.
    check_invariants(data, preview, max_lines, max_bytes, path)
    # Idempotence: bounding the preview again gives it back.
    check_rebound(preview, max_lines, max_bytes)
    # Determinism.
    assert dw.bound(data, max_lines=max_lines, max_bytes=max_bytes, **kw) == preview
    # Streaming = whole, however the input is split.
    outcome: dict[str, Any] = {}
    if preview.truncated and path is not None:
        # Also when the core refused the path (too long for the notice): the
        # streaming bounder must refuse it the same way.
        outcome["spill_path"] = path
    got = streamed(
        data, split_at(data, cuts), max_lines, max_bytes, spill_id=spill_id, hint=hint, **outcome
    )
    assert got == preview


@given(data=data_strategy, max_lines=max_lines_strategy, max_bytes=max_bytes_strategy)
def test_bound_accepts_every_byte_input_type(data: bytes, max_lines: int, max_bytes: int) -> None:
    expected = dw.bound(data, max_lines=max_lines, max_bytes=max_bytes)
    for same in (bytearray(data), memoryview(data)):
        assert dw.bound(same, max_lines=max_lines, max_bytes=max_bytes) == expected


@given(text=st.text(max_size=1500), max_lines=max_lines_strategy, max_bytes=max_bytes_strategy)
def test_bound_str_is_its_utf8_bytes(text: str, max_lines: int, max_bytes: int) -> None:
    try:
        encoded = text.encode("utf-8")
    except UnicodeEncodeError:
        return  # lone surrogates are not text
    assert dw.bound(text, max_lines=max_lines, max_bytes=max_bytes) == dw.bound(
        encoded, max_lines=max_lines, max_bytes=max_bytes
    )


@given(
    lines=st.integers(min_value=0, max_value=5000),
    width=st.integers(min_value=0, max_value=300),
    max_lines=max_lines_strategy,
    max_bytes=max_bytes_strategy,
)
def test_streaming_memory_is_bounded(
    lines: int, width: int, max_lines: int, max_bytes: int
) -> None:
    bounder = dw.StreamingBounder(max_lines, max_bytes)
    line = b"z" * width + b"\n"
    for _ in range(lines):
        bounder.push(line)
        assert bounder.retained_bytes <= 2 * (2 * max_bytes + 8)
    preview = bounder.finish()
    assert preview.total_bytes == lines * len(line)


# -- reader split invariance ---------------------------------------------

chunk_strategy = st.one_of(
    st.binary(max_size=40),
    st.text(max_size=20).map(lambda t: t.encode("utf-8", errors="surrogatepass")),
)

op_strategy = st.one_of(
    st.tuples(st.just("out"), st.sampled_from(["stdout", "stderr"]), chunk_strategy),
    st.tuples(st.just("again"), st.sampled_from(["stdout", "stderr"]), st.integers(0, 30)),
    st.just(("heartbeat",)),
    st.just(("unknown",)),
)


def encode_frame(stream: str, data: bytes, end: int, style: int) -> bytes:
    """One stdout/stderr frame, its data as JSON text when it is UTF-8 (in
    one of two escaping styles) or base64."""
    try:
        text = data.decode("utf-8")
        as_text = style != 2
    except UnicodeDecodeError:
        as_text = False
    if as_text:
        frame: dict[str, Any] = {"type": stream, "data": text, "offset": end}
        return json.dumps(frame, ensure_ascii=style == 0).encode() + b"\n"
    frame = {
        "type": stream,
        "data": base64.b64encode(data).decode(),
        "encoding": "base64",
        "offset": end,
    }
    return json.dumps(frame).encode() + b"\n"


def build_stream(
    ops: list[tuple[Any, ...]], styles: list[int], exit_code: int | None, crlf: bool
) -> tuple[bytes, dict[str, bytes]]:
    produced = {"stdout": b"", "stderr": b""}
    lines = []
    for i, op in enumerate(ops):
        style = styles[i % len(styles)] if styles else 0
        if op[0] == "out":
            _, stream, data = op
            produced[stream] += data
            lines.append(encode_frame(stream, data, len(produced[stream]), style))
        elif op[0] == "again":
            # A resent tail: overlaps what was delivered; only new bytes count.
            _, stream, back = op
            start = max(0, len(produced[stream]) - back)
            data = produced[stream][start:]
            lines.append(encode_frame(stream, data, len(produced[stream]), style))
        elif op[0] == "heartbeat":
            lines.append(b'{"type":"heartbeat"}\n')
        else:
            lines.append(b'{"type":"progress","percent":50}\n')
    if exit_code is not None:
        lines.append(
            json.dumps({"type": "exit", "exit_code": exit_code, "timed_out": False}).encode()
            + b"\n"
        )
    if crlf:
        lines = [line[:-1] + b"\r\n" for line in lines]
    return b"".join(lines), produced


def run_reader(body_chunks: list[bytes]) -> tuple[list[Any], Any, dw.Cursor]:
    reader = dw.Reader("process_output")
    reader.open(200, "application/x-ndjson")
    events: list[Any] = []
    for chunk in body_chunks:
        events.extend(reader.feed(chunk))
    last, end = reader.finish()
    return events + last, end, reader.cursor


@given(
    ops=st.lists(op_strategy, max_size=25),
    styles=st.lists(st.integers(0, 2), max_size=5),
    exit_code=st.one_of(st.none(), st.integers(-(2**63), 2**63 - 1)),
    crlf=st.booleans(),
    cuts=st.lists(st.integers(min_value=0, max_value=5000), max_size=20),
)
def test_reader_split_invariance(
    ops: list[tuple[Any, ...]],
    styles: list[int],
    exit_code: int | None,
    crlf: bool,
    cuts: list[int],
) -> None:
    body, produced = build_stream(ops, styles, exit_code, crlf)
    whole = run_reader([body])
    assert run_reader(split_at(body, cuts)) == whole
    assert run_reader([body[i : i + 1] for i in range(len(body))]) == whole

    events, end, cursor = whole
    for stream, data in produced.items():
        delivered = b"".join(
            e.data for e in events if isinstance(e, dw.Output) and e.stream == stream
        )
        assert delivered == data, stream
    assert cursor == dw.Cursor(len(produced["stdout"]), len(produced["stderr"]))
    if exit_code is None:
        assert end == dw.Disconnected(cursor, "end_of_body")
    else:
        assert end == dw.Exited(exit_code, False)
        assert events[-1] == dw.Exit(exit_code, False)
    # Offsets are contiguous per stream.
    for stream in ("stdout", "stderr"):
        position = 0
        for e in events:
            if isinstance(e, dw.Output) and e.stream == stream:
                assert e.start == position
                assert e.end == position + len(e.data)
                position = e.end


@given(data=data_strategy, cuts=st.lists(st.integers(min_value=0, max_value=2000), max_size=12))
def test_utf8_decoder_matches_python_replace(data: bytes, cuts: list[int]) -> None:
    decoder = dw.Utf8Decoder()
    text = "".join(decoder.push(piece) for piece in split_at(data, cuts)) + decoder.finish()
    assert text == data.decode("utf-8", errors="replace")


@given(
    pieces=st.lists(
        st.lists(
            st.sampled_from(
                [0x61, 0x80, 0x82, 0x9F, 0xA0, 0xA9, 0xAC, 0xC3, 0xE2, 0xED, 0xF0, 0xFF]
            ),
            max_size=4,
        ).map(bytes),
        max_size=30,
    )
)
def test_utf8_decoder_on_fragments_of_sequences(pieces: list[bytes]) -> None:
    # Lead and continuation bytes in tiny pushes: every way a sequence can be
    # split, truncated or invalid across push boundaries.
    decoder = dw.Utf8Decoder()
    text = "".join(decoder.push(piece) for piece in pieces) + decoder.finish()
    assert text == b"".join(pieces).decode("utf-8", errors="replace")
