"""`Reader.feed_into`: output bytes go straight into a Transcript, and
the result is exactly what `feed` + `Transcript.push` give, on every decode
vector and at every split tested."""

from __future__ import annotations

import random
from typing import Any

import pytest
from vectors import body_of, load_vectors

import dory_wire as dw

DECODE = [(name, v) for name, v in load_vectors() if v["kind"] == "decode"]


def _reader(vector: dict[str, Any]) -> dw.Reader:
    kwargs: dict[str, Any] = {}
    for key in ("cursor", "gap_policy", "max_frame_bytes"):
        if key in vector:
            kwargs[key] = vector[key]
    reader = dw.Reader(vector["endpoint"], **kwargs)
    reader.open(vector["status"], vector.get("content_type"), vector.get("process_id_header"))
    return reader


def _collect(vector: dict[str, Any], chunks: list[bytes], into: bool) -> tuple[Any, ...]:
    transcript = dw.Transcript()
    others: list[dw.Event] = []
    error = None
    try:
        reader = _reader(vector)
        for chunk in chunks:
            if into:
                others.extend(reader.feed_into(chunk, transcript))
            else:
                for event in reader.feed(chunk):
                    transcript.push(event)
                    if not isinstance(event, dw.Output):
                        others.append(event)
        reader.finish()
    except dw.DoryWireError as err:
        error = err.code
    return (
        transcript.bytes("stdout"),
        transcript.bytes("stderr"),
        list(transcript.skipped("stdout")),
        list(transcript.skipped("stderr")),
        others,
        error,
    )


def test_there_are_decode_vectors() -> None:
    assert len(DECODE) >= 80


@pytest.mark.parametrize(("name", "vector"), DECODE, ids=[n for n, _ in DECODE])
def test_feed_into_equals_feed_and_push(name: str, vector: dict[str, Any]) -> None:
    body = body_of(vector)
    rng = random.Random(name)
    cuts = sorted(rng.randrange(len(body) + 1) for _ in range(4))
    chunks = [body[a:b] for a, b in zip([0, *cuts], [*cuts, len(body)])]
    assert _collect(vector, chunks, into=True) == _collect(vector, chunks, into=False)
    assert _collect(vector, [body], into=True) == _collect(vector, chunks, into=True)


def test_feed_into_rejects_what_is_not_a_transcript() -> None:
    reader = dw.Reader("process_output")
    reader.open(200, "application/x-ndjson")
    with pytest.raises(TypeError, match="transcript"):
        reader.feed_into(b"", [])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="data"):
        reader.feed_into("text", dw.Transcript())  # type: ignore[arg-type]
