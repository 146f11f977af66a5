"""`Reader.feed` hands each event's bytes from wherever the core left
them (the fed chunk itself, a line carried over from the previous chunk, a
decoded buffer) and interns the stream names: the events must be exactly the
same as one decoded frame by frame, for every kind of input and split."""

from __future__ import annotations

import random

import pytest

import dory_wire as dw

NDJSON = "application/x-ndjson"


def frame(kind: str, data: str, offset: int) -> bytes:
    return f'{{"type":"{kind}","data":"{data}","offset":{offset}}}\n'.encode()


def _body() -> tuple[bytes, list[dw.Output]]:
    """Plain frames (borrowed from the input), escaped and base64 frames
    (decoded into buffers of their own), on both streams, with heartbeats."""
    rng = random.Random(7)
    offsets = {"stdout": 0, "stderr": 0}
    parts: list[bytes] = []
    expected: list[dw.Output] = []
    for i in range(300):
        stream = "stdout" if rng.random() < 0.7 else "stderr"
        size = rng.choice([1, 5, 100, 3000])
        kind = i % 3
        if kind == 0:
            raw = bytes(rng.choice(b"abcxyz ") for _ in range(size))
            line = frame(stream, raw.decode(), offsets[stream] + len(raw))
        elif kind == 1:
            raw = bytes(rng.choice(b'ab"\\\t') for _ in range(size))
            escaped = raw.decode().replace("\\", "\\\\").replace('"', '\\"').replace("\t", "\\t")
            line = frame(stream, escaped, offsets[stream] + len(raw))
        else:
            import base64

            raw = bytes(rng.randrange(256) for _ in range(size))
            data = base64.b64encode(raw).decode()
            end = offsets[stream] + len(raw)
            line = (
                f'{{"type":"{stream}","data":"{data}","encoding":"base64","offset":{end}}}\n'
            ).encode()
        parts.append(line)
        expected.append(dw.Output(stream, raw, offsets[stream], offsets[stream] + len(raw)))
        offsets[stream] += len(raw)
        if i % 50 == 0:
            parts.append(b'{"type":"heartbeat"}\n')
    return b"".join(parts), expected


@pytest.mark.parametrize("piece", [1, 7, 100, 4096, 16 * 1024, 64 * 1024, 10**9])
@pytest.mark.parametrize("kind", [bytes, bytearray, memoryview])
def test_feed_at_every_piece_size_and_input_kind(piece: int, kind: type) -> None:
    body, expected = _body()
    reader = dw.Reader("process_output")
    reader.open(200, NDJSON)
    outputs: list[dw.Output] = []
    heartbeats = 0
    for i in range(0, len(body), piece):
        for event in reader.feed(kind(body[i : i + piece])):
            if isinstance(event, dw.Output):
                assert type(event.data) is bytes
                outputs.append(event)
            else:
                assert event == dw.Heartbeat()
                heartbeats += 1
    assert outputs == expected
    assert heartbeats == 6
    # A reader reused after a huge chunk keeps working.
    assert reader.feed(b"") == []


def test_stream_names_are_shared_objects() -> None:
    body = (
        frame("stdout", "a", 1)
        + frame("stderr", "b", 1)
        + frame("stdout", "c", 2)
        + b'{"type":"stderr","from":1,"to":5}\n'
    )
    reader = dw.Reader("process_output", gap_policy="skip")
    reader.open(200, NDJSON)
    events = reader.feed(body)
    names = [e.stream for e in events if isinstance(e, (dw.Output, dw.Skipped))]
    assert names == ["stdout", "stderr", "stdout"] + [
        e.stream for e in events if isinstance(e, dw.Skipped)
    ]
    stdout = [e for e in events if isinstance(e, dw.Output) and e.stream == "stdout"]
    # One str object per name: the same across events and accesses.
    assert stdout[0].stream is stdout[1].stream
    assert stdout[0].stream is stdout[0].stream
    assert type(stdout[0].stream) is str
    # Constructed events use the same objects for the known names.
    assert dw.Output("stdout", b"a", 0, 1).stream is stdout[0].stream
    assert dw.Output("stdout", b"a", 0, 1) == stdout[0]


def test_constructed_events_keep_any_str_stream() -> None:
    class Name(str):
        pass

    event = dw.Output(Name("stdout"), b"x", 0, 1)
    assert type(event.stream) is str
    assert event == dw.Output("stdout", b"x", 0, 1)
    odd = dw.Skipped("other", 1, 2)
    assert odd.stream == "other"
    assert repr(odd) == "Skipped(stream='other', start=1, end=2)"
    with pytest.raises(ValueError, match='unknown stream "other"'):
        dw.Transcript().push(odd)
    with pytest.raises(TypeError, match="stream"):
        dw.Output(1, b"x", 0, 1)  # type: ignore[arg-type]


def test_deferred_error_after_a_large_feed() -> None:
    # Events decoded before the error are returned (bytes intact); the
    # error comes with the next call.
    body = b"".join(frame("stdout", "y" * 1000, 1000 * (i + 1)) for i in range(40))
    reader = dw.Reader("process_output")
    reader.open(200, NDJSON)
    events = reader.feed(body + b"not json\n")
    assert b"".join(e.data for e in events if isinstance(e, dw.Output)) == b"y" * 40_000
    with pytest.raises(dw.MalformedFrame):
        reader.feed(frame("stdout", "z", 40_001))
