"""iter_events / aiter_events over real (async) iterables of chunks."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Generator, Iterator
from pathlib import Path
from typing import Any

import pytest

import dory_wire as dw

NDJSON = "application/x-ndjson"
BODY = (
    b'{"type":"stdout","data":"hello ","offset":6}\n'
    b'{"type":"stderr","data":"oops","offset":4}\n'
    b'{"type":"heartbeat"}\n'
    b'{"type":"stdout","data":"world","offset":11}\n'
    b'{"type":"exit","exit_code":3,"timed_out":false}\n'
)
EXPECTED = [
    dw.Output("stdout", b"hello ", 0, 6),
    dw.Output("stderr", b"oops", 0, 4),
    dw.Heartbeat(),
    dw.Output("stdout", b"world", 6, 11),
    dw.Exit(3, False),
]


def opened(endpoint: str = "process_output", status: int = 200, **kw: Any) -> dw.Reader:
    reader = dw.Reader(endpoint, **kw)
    reader.open(status, NDJSON if status < 300 else "application/json")
    return reader


def pieces(data: bytes, size: int) -> Iterator[bytes]:
    for i in range(0, len(data), size):
        yield data[i : i + size]


@pytest.mark.parametrize("size", [1, 7, 1000])
def test_iter_events(size: int) -> None:
    events = dw.iter_events(opened(), pieces(BODY, size))
    with pytest.raises(RuntimeError, match="not exhausted"):
        _ = events.end
    assert list(events) == EXPECTED
    assert events.end == dw.Exited(3, False)
    assert list(events) == []  # exhausted stays exhausted


def test_iter_events_return_value_for_yield_from() -> None:
    def relay() -> Generator[dw.Event, None, dw.End]:
        end = yield from dw.iter_events(opened(), [BODY])
        return end

    gen = relay()
    assert list(gen) == EXPECTED
    with pytest.raises(StopIteration):
        next(gen)
    gen2 = relay()
    got = [next(gen2) for _ in EXPECTED]
    assert got == EXPECTED
    with pytest.raises(StopIteration) as stop:
        next(gen2)
    assert stop.value.value == dw.Exited(3, False)


def test_iter_events_yields_events_before_the_error() -> None:
    body = BODY.replace(b'{"type":"heartbeat"}', b'{"type":"heartbeat"')
    events = dw.iter_events(opened(), [body])
    got = [next(events), next(events)]
    assert got == EXPECTED[:2]
    with pytest.raises(dw.MalformedFrame):
        next(events)
    assert list(events) == []
    with pytest.raises(RuntimeError):
        _ = events.end


def test_iter_events_yields_finish_events() -> None:
    reader = dw.Reader("process_output", gap_policy="skip")
    reader.open(409, "application/json")
    body = b'{"error":"output_gap","earliest_stdout_offset":7,"earliest_stderr_offset":0}'
    events = dw.iter_events(reader, [body])
    assert list(events) == [dw.Skipped("stdout", 0, 7)]
    assert events.end == dw.Disconnected(dw.Cursor(7, 0), "gap")


def test_iter_events_document() -> None:
    reader = dw.Reader("document")
    reader.open(200, "application/json")
    events = dw.iter_events(reader, pieces(b'{"proc_id":"p_1","status":"exited"}', 3))
    assert list(events) == [dw.Identity("p_1", "exited")]
    assert events.end == dw.Document()


class Chunks:
    """A plain async iterable (not a generator), like aiohttp's iter_chunked."""

    def __init__(self, data: bytes, size: int) -> None:
        self._pieces = list(pieces(data, size))

    def __aiter__(self) -> AsyncIterator[bytes]:
        return self._iter()

    async def _iter(self) -> AsyncIterator[bytes]:
        for piece in self._pieces:
            await asyncio.sleep(0)
            yield piece


@pytest.mark.parametrize("liveness", [True, False])
@pytest.mark.parametrize("size", [1, 5, 1000])
def test_aiter_events(size: int, liveness: bool) -> None:
    async def main() -> tuple[list[dw.Event], dw.End]:
        events = dw.aiter_events(opened(), Chunks(BODY, size), liveness=liveness)
        got = [event async for event in events]
        return got, events.end

    got, end = asyncio.run(main())
    assert got == EXPECTED
    assert end == dw.Exited(3, False)


def test_aiter_events_detects_a_stalled_stream() -> None:
    async def stalls() -> AsyncIterator[bytes]:
        yield BODY[:60]
        await asyncio.Event().wait()  # never set: the server went silent
        yield b""  # pragma: no cover

    async def main() -> tuple[list[dw.Event], dw.End]:
        events = dw.aiter_events(opened(liveness_timeout_seconds=0.05), stalls())
        got = [event async for event in events]
        return got, events.end

    got, end = asyncio.run(asyncio.wait_for(main(), timeout=60))
    assert got == EXPECTED[:1]
    assert isinstance(end, dw.Disconnected)
    assert end.reason == "stalled"
    assert end.cursor == dw.Cursor(6, 0)


def test_aiter_events_propagates_source_errors() -> None:
    async def broken() -> AsyncIterator[bytes]:
        yield BODY[:60]
        raise ConnectionResetError("peer reset")

    async def main() -> None:
        events = dw.aiter_events(opened(), broken())
        assert await events.__anext__() == EXPECTED[0]
        with pytest.raises(ConnectionResetError):
            await events.__anext__()

    asyncio.run(main())


def test_aiter_events_raises_stream_errors() -> None:
    async def main() -> None:
        reader = opened(cursor={"stdout": 1})
        with pytest.raises(dw.OutputGap):
            async for _ in dw.aiter_events(
                reader, Chunks(b'{"type":"stdout","data":"x","offset":9}\n', 4)
            ):
                pass

    asyncio.run(main())


def test_abound_with_async_writer(tmp_path: Any) -> None:
    saved: dict[str, bytes] = {}

    async def writer(spill_id: str, data: bytes) -> str:
        await asyncio.sleep(0)
        saved[spill_id] = data
        return f"/spill/{spill_id}.txt"

    text = "".join(f"line {i}\n" for i in range(500))
    preview = asyncio.run(
        dw.abound(text, max_lines=10, max_bytes=2000, spill=writer, spill_id="abc", hint="use cat")
    )
    assert preview.spill_path == "/spill/abc.txt"
    assert saved == {"abc": text.encode()}
    assert "p' /spill/abc.txt; use cat ...]" in preview.text
    assert "use cat" in preview.text
    assert preview == dw.bound(
        text,
        max_lines=10,
        max_bytes=2000,
        spill=lambda i, d: f"/spill/{i}.txt",
        spill_id="abc",
        hint="use cat",
    )
    # A sync writer works with abound too.
    directory = dw.SpillDirectory(tmp_path)
    preview = asyncio.run(dw.abound(text, max_lines=10, max_bytes=2000, spill=directory))
    assert preview.spill_path is not None
    with open(preview.spill_path, "rb") as f:
        assert f.read() == text.encode()


def test_spill_directory(tmp_path: Any) -> None:
    text = "x\n" * 5000
    spill_id = dw.new_spill_id()
    assert len(spill_id) == 32
    assert int(spill_id, 16) >= 0
    preview = dw.bound(
        text,
        max_lines=20,
        max_bytes=1000,
        spill=dw.SpillDirectory(tmp_path / "out"),
        spill_id=spill_id,
    )
    path = tmp_path / "out" / f"{spill_id}.txt"
    assert preview.spill_path == str(path.resolve())
    assert path.read_bytes() == text.encode()
    assert [p.name for p in (tmp_path / "out").iterdir()] == [path.name]
    assert preview.spill_id == spill_id
    # Nothing is written when the data fits.
    small = dw.bound(
        "fits\n", max_lines=20, max_bytes=1000, spill=dw.SpillDirectory(tmp_path / "x")
    )
    assert not small.truncated
    assert not (tmp_path / "x").exists()


def test_default_spill_id_is_content_derived() -> None:
    text = "y\n" * 5000
    a = dw.bound(text, max_lines=20, max_bytes=1000)
    b = dw.bound(text, max_lines=20, max_bytes=1000)
    assert a.spill_id is not None
    assert len(a.spill_id) == 32
    assert a == b


def test_default_spill_id_with_a_writer_is_random(tmp_path: Path) -> None:
    # docs/preview.md: a binding's default spill id is random, so crafted output
    # cannot choose (or collide with) another output's spill file.
    text = "z\n" * 5000
    spill = dw.SpillDirectory(tmp_path)
    a = dw.bound(text, max_lines=20, max_bytes=1000, spill=spill)
    b = dw.bound(text, max_lines=20, max_bytes=1000, spill=spill)
    assert a.spill_id is not None
    assert b.spill_id is not None
    assert len(a.spill_id) == 32
    assert int(a.spill_id, 16) >= 0
    assert a.spill_id != b.spill_id
    assert a.spill_path != b.spill_path
