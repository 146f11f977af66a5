"""dory_wire.client.AsyncClient against a scripted API: the same frames,
offsets, ends and reconnecting read as the synchronous client."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TypeVar

import httpx
import pytest
from test_client_fakes import BASE, EXIT_0, Answer, FakeApi, cut, error, identity, lines, out

from dory_wire import Cursor, Exited
from dory_wire.client import (
    ApiError,
    AsyncClient,
    AsyncProcess,
    ExecResult,
    Frame,
    OutputExpired,
    OutputGap,
    StreamDisconnected,
)

HELLO = b"hello\x00\xff"
T = TypeVar("T")


def run(api: FakeApi, body: Callable[[AsyncClient], Awaitable[T]]) -> T:
    async def main() -> T:
        async with (
            httpx.AsyncClient(transport=api.transport()) as http,
            AsyncClient(BASE, http_client=http) as client,
        ):
            return await body(client)

    return asyncio.run(main())


async def process(client: AsyncClient) -> AsyncProcess:
    """The process p_1 (the fake API's first answer is its identity)."""
    computer = await client.computers.get("c1")
    return await computer.processes.get("p_1")


async def collect(stream: AsyncIterator[Frame]) -> list[Frame]:
    return [frame async for frame in stream]


def test_the_documented_loop_resumes_after_cuts() -> None:
    api = FakeApi(identity("p_1"))
    full = lines(out("stdout", HELLO, 7), out("stderr", b"notice", 6), EXIT_0)
    api.add(
        Answer(pieces=[full[:90]], error=cut()),  # the stdout frame is 78 bytes
        Answer(pieces=[], refuse=httpx.ConnectError("refused")),
        Answer(pieces=[full]),
    )

    async def body(client: AsyncClient) -> tuple[dict[str, bytes], list[Cursor]]:
        proc = await process(client)
        got = {"stdout": b"", "stderr": b""}
        offsets = Cursor(0, 0)
        resumed_from = []
        for _attempt in range(3):
            resumed_from.append(offsets)
            stream = proc.iter_output(offsets.stdout, offsets.stderr)
            try:
                async for frame in stream:
                    if frame.stream is not None and frame.type != "skipped":
                        got[frame.stream] += frame.bytes
                    offsets = stream.cursor
                if stream.end == Exited(0, False):
                    break
            except StreamDisconnected as err:
                offsets = err.cursor
            finally:
                await stream.aclose()
        return got, resumed_from

    got, resumed_from = run(api, body)
    assert got == {"stdout": HELLO, "stderr": b"notice"}
    assert resumed_from == [Cursor(0, 0), Cursor(7, 0), Cursor(7, 0)]


def test_read_output_and_typed_errors() -> None:
    api = FakeApi(identity("p_1"))
    full = lines(out("stdout", HELLO, 7), EXIT_0)
    api.add(
        Answer(pieces=[full[:40]], error=cut()),
        Answer(pieces=[full]),
        error(410, {"error": "output_expired", "message": "gone"}),
        error(
            409, {"error": "output_gap", "earliest_stdout_offset": 9, "earliest_stderr_offset": 0}
        ),
        Answer(status=502, content_type="text/html", pieces=[b"<html>"]),
    )

    async def body(client: AsyncClient) -> list[object]:
        proc = await process(client)
        transcript = await proc.read_output(backoff_seconds=0)
        results: list[object] = [transcript.bytes("stdout"), transcript.exit]
        for _ in range(3):
            try:
                await proc.read_output()
            except (OutputExpired, OutputGap, ApiError) as err:
                results.append(type(err))
        return results

    assert run(api, body) == [HELLO, (0, False), OutputExpired, OutputGap, ApiError]


def test_stall_and_refusal_carry_the_cursor() -> None:
    api = FakeApi(identity("p_1"))
    api.add(
        Answer(pieces=[lines(out("stderr", b"e", 1))], error=httpx.ReadTimeout("timed out")),
        Answer(refuse=httpx.ConnectError("refused")),
    )

    async def body(client: AsyncClient) -> list[tuple[str, Cursor]]:
        proc = await process(client)
        seen = []
        for start in (Cursor(0, 0), Cursor(0, 1)):
            with pytest.raises(StreamDisconnected) as info:
                await collect(proc.iter_output(start.stdout, start.stderr))
            seen.append((info.value.reason, info.value.cursor))
        return seen

    assert run(api, body) == [("stalled", Cursor(0, 1)), ("no_response", Cursor(0, 1))]


def test_exec_kill_and_setup() -> None:
    api = FakeApi()
    result = (
        b'{"proc_id":"p_2","stdout":"hi","stderr":"","stdout_truncated":false,'
        b'"stderr_truncated":false,"exit_code":0,"timed_out":false}'
    )
    api.add(
        Answer(content_type="application/json", pieces=[result]),
        Answer(
            pieces=[lines({"type": "started", "proc_id": "p_3"}, EXIT_0)],
            headers={"ce-process-id": "p_3"},
        ),
        identity("p_3", "exited"),
        Answer(pieces=[lines(out("stdout", b"setup\n", 6), EXIT_0)]),
    )

    async def body(client: AsyncClient) -> list[object]:
        computer = await client.computers.get("c1")
        done = await computer.exec(["echo", "hi"])
        assert isinstance(done, ExecResult)
        async with computer.exec_stream(["true"]) as stream:
            frames = await collect(stream)
        killed = await computer.processes.kill("p_3")
        setup = await computer.setup.read_logs()
        return [
            done.stdout,
            [f.type for f in frames],
            stream.proc_id,
            killed.status,
            setup.bytes("stdout"),
        ]

    assert run(api, body) == [b"hi", ["started", "exit"], "p_3", "exited", b"setup\n"]
