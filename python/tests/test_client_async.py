# The source of test_client_sync.py, the same tests for the synchronous
# client: after a change here, run python3 scripts/unasync.py (`make test`
# fails until it is run).
"""dory_wire.client's AsyncClient against a scripted API: requests, frames,
offsets, every way a response can end, and the reconnecting read."""

from __future__ import annotations

import base64
import dataclasses
import errno
import hashlib
import json
import os
import re
import socket
import stat
import time
import tracemalloc
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from run_server import refserver
from test_client_fakes import (
    BASE,
    EXIT_0,
    JSON,
    Answer,
    FakeApi,
    cut,
    error,
    identity,
    lines,
    out,
)

from dory_wire import (
    DEFAULT_RUN_MAX_BYTES,
    DEFAULT_RUN_MAX_LINES,
    MIN_RUN_MAX_BYTES,
    Bounder,
    Cursor,
    Disconnected,
    Exited,
    InvalidArgument,
    Output,
    PendingSpill,
    Preview,
    Reconnect,
    Request,
    bound,
    run_spill_id,
)
from dory_wire.client import (
    ApiError,
    AsyncClient,
    AsyncProcess,
    DoryWireError,
    ExecResult,
    Frame,
    Identity,
    NoAnswer,
    OffsetBeyondOutput,
    OutputExpired,
    OutputGap,
    RunResult,
    SpillDirectory,
    StreamDisconnected,
    Transcript,
)

HELLO = b"hello\x00\xff"

pytestmark = pytest.mark.anyio


@pytest.fixture
def api() -> FakeApi:
    return FakeApi()


@pytest.fixture
def slept(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The client's sleeps, recorded instead of slept."""
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    monkeypatch.setattr("dory_wire.client._async.anyio.sleep", sleep)
    return waits


@pytest.fixture
async def client(api: FakeApi) -> AsyncIterator[AsyncClient]:
    async with (
        httpx.AsyncClient(transport=api.transport()) as http,
        AsyncClient(BASE, http_client=http) as c,
    ):
        yield c


async def process(client: AsyncClient, api: FakeApi, proc_id: str = "p_1") -> AsyncProcess:
    api.add(identity(proc_id))
    computer = client.computers.get("c1")
    return await computer.processes.get(proc_id)


async def collect_into(frames: list[Frame], stream: AsyncIterator[Frame]) -> None:
    async for frame in stream:
        frames.append(frame)


async def collect(stream: AsyncIterator[Frame]) -> list[Frame]:
    frames: list[Frame] = []
    await collect_into(frames, stream)
    return frames


# -- requests ------------------------------------------------------------------------


async def test_start_replay_get_kill_send_the_documented_requests(
    client: AsyncClient,
    api: FakeApi,
) -> None:
    computer = client.computers.get("c 1")
    api.add(identity("p_1"), identity("p_1"), identity("p_1"), identity("p_1", "exited"))
    command = ["sh", "-c", "printf hi"]
    started = await computer.processes.start(command, timeout_seconds=30, idempotency_key="k1")
    replay = await computer.processes.start(command, timeout_seconds=30, idempotency_key="k1")
    assert isinstance(started, Identity)
    assert (started.proc_id, started.status) == ("p_1", "running")
    assert replay == started
    handle = await computer.processes.get("p_1")
    assert (handle.proc_id, handle.status) == ("p_1", "running")
    killed = await computer.processes.kill("p_1")
    assert killed.status == "exited"
    assert api.paths() == [
        "POST /computers/c%201/processes",
        "POST /computers/c%201/processes",
        "GET /computers/c%201/processes/p_1",
        "POST /computers/c%201/processes/p_1/kill",
    ]
    first = api.requests[0]
    assert first.headers["idempotency-key"] == "k1"
    assert json.loads(first.content) == {"command": command, "timeout_seconds": 30}
    assert first.headers["user-agent"].startswith("dory-wire/")
    assert "idempotency-key" not in api.requests[2].headers


async def test_a_shell_line_is_sent_as_a_string_and_no_timeout_is_omitted(
    client: AsyncClient, api: FakeApi
) -> None:
    api.add(identity("p_2"))
    computer = client.computers.get("c1")
    await computer.processes.start("echo hi")
    assert json.loads(api.requests[0].content) == {"command": "echo hi"}


async def test_output_request_carries_the_offsets_and_follow(
    client: AsyncClient,
    api: FakeApi,
) -> None:
    proc = await process(client, api)
    api.add(Answer(pieces=[lines(out("stdout", b"x", 8), EXIT_0)]))
    frames = await collect(proc.iter_output(stdout_offset=7, stderr_offset=3))
    assert [f.type for f in frames] == ["stdout", "exit"]
    assert api.paths()[-1] == "GET /computers/c1/processes/p_1/output"
    assert api.query(-1) == {"stdout_offset": "7", "stderr_offset": "3", "follow": "true"}
    api.add(Answer(pieces=[b""]))
    await collect(proc.iter_output(follow=False))
    assert api.query(-1)["follow"] == "false"


async def test_the_request_is_sent_when_iteration_starts(client: AsyncClient, api: FakeApi) -> None:
    proc = await process(client, api)
    stream = proc.iter_output()
    assert len(api.requests) == 1
    await stream.aclose()
    assert len(api.requests) == 1


async def test_base_url_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DORY_URL", "http://example.test:9/api/")
    async with AsyncClient() as c:
        assert c.base_url == "http://example.test:9/api"
    monkeypatch.delenv("DORY_URL")
    with pytest.raises(ValueError, match="DORY_URL"):
        AsyncClient()
    async with AsyncClient("http://other.test") as c:
        assert c.base_url == "http://other.test"


@pytest.mark.parametrize(
    "bad", ["ftp://x", "not a url", "localhost:8080", "http://", "http://h/?q=1", ""]
)
async def test_a_base_url_the_core_refuses_fails_at_construction(bad: str) -> None:
    # The core's rule, the same inputs as the JS and Rust tests.
    with pytest.raises(InvalidArgument) as info:
        AsyncClient(bad)
    assert info.value.argument == "base_url"


# -- frames --------------------------------------------------------------------------


async def test_frames_carry_the_wire_fields_and_the_exact_bytes(
    client: AsyncClient,
    api: FakeApi,
) -> None:
    proc = await process(client, api)
    body = lines(
        out("stdout", HELLO, 7),
        {"type": "heartbeat"},
        out("stderr", b"notice", 6),
        {"type": "progress", "pct": 5},
        EXIT_0,
    )
    api.add(Answer(pieces=[body]))
    stream = proc.iter_output()
    seen = []
    async for frame in stream:
        seen.append((frame, stream.stdout_offset, stream.stderr_offset))
    stdout, heartbeat, stderr, unknown, exit_ = (f for f, _, _ in seen)
    assert (stdout.type, stdout.bytes, stdout.offset) == ("stdout", HELLO, 7)
    assert (stdout.encoding, stdout.data) == ("base64", base64.b64encode(HELLO).decode())
    assert (stdout.stream, stdout.start, stdout.end) == ("stdout", 0, 7)
    assert (stderr.type, stderr.data, stderr.encoding, stderr.bytes) == (
        "stderr",
        "notice",
        "utf-8",
        b"notice",
    )
    assert heartbeat.type == "heartbeat"
    assert (heartbeat.data, heartbeat.bytes, heartbeat.encoding, heartbeat.offset) == (
        "",
        b"",
        None,
        None,
    )
    assert (unknown.type, unknown.frame_type) == ("unknown", "progress")
    assert (exit_.type, exit_.exit_code, exit_.timed_out) == ("exit", 0, False)
    assert [(o, e) for _, o, e in seen] == [(7, 0), (7, 0), (7, 6), (7, 6), (7, 6)]
    assert stream.end == Exited(0, False)
    assert isinstance(stdout.event, Output)


async def test_offsets_follow_the_frames_yielded_not_the_chunk_decoded(
    client: AsyncClient, api: FakeApi
) -> None:
    proc = await process(client, api)
    body = lines(out("stdout", b"ab", 2), out("stdout", b"cd", 4), out("stderr", b"e", 1))
    api.add(Answer(pieces=[body]))
    stream = proc.iter_output()
    first = await stream.__anext__()
    # The whole chunk was decoded, but only the first frame was consumed.
    assert (first.bytes, stream.stdout_offset, stream.stderr_offset) == (b"ab", 2, 0)
    assert stream.cursor == Cursor(2, 0)
    await stream.aclose()


async def test_a_read_starts_from_the_offsets_or_the_readers_own_cursor(
    client: AsyncClient, api: FakeApi
) -> None:
    proc = await process(client, api)
    api.add(Answer(pieces=[lines(out("stdout", b"abcd", 4), EXIT_0)]))
    transcript = await proc.read_output(cursor=Cursor(2, 0))
    assert transcript.bytes("stdout") == b"cd"
    assert "stdout_offset=2&stderr_offset=0" in str(api.requests[-1].url)
    with pytest.raises(TypeError, match="not both"):
        proc.iter_output(5, cursor=Cursor(2, 0))


async def test_a_stream_is_read_once_as_in_javascript(client: AsyncClient, api: FakeApi) -> None:
    proc = await process(client, api)
    api.add(Answer(pieces=[lines(out("stdout", b"ab", 2), EXIT_0)]))
    stream = proc.iter_output()
    assert [f.type for f in await collect(stream)] == ["stdout", "exit"]
    # A second loop would otherwise yield nothing, which reads like no output.
    with pytest.raises(TypeError, match="read once"):
        await collect(stream)
    await stream.aclose()


async def test_a_frame_resent_after_a_reconnect_yields_only_new_bytes(
    client: AsyncClient, api: FakeApi
) -> None:
    proc = await process(client, api)
    text = "é€x".encode()  # 2 + 3 + 1 bytes
    api.add(Answer(pieces=[lines(out("stdout", text, 6), EXIT_0)]))
    # Resuming inside the euro sign: the re-sent chunk is trimmed to its last bytes.
    frames = await collect(proc.iter_output(stdout_offset=3))
    stdout = frames[0]
    assert stdout.bytes == text[3:]
    assert (stdout.start, stdout.offset) == (3, 6)
    assert stdout.encoding == "base64"  # the trimmed bytes start inside a character
    assert base64.b64decode(stdout.data) == text[3:]
    api.add(Answer(pieces=[lines(out("stdout", text, 6), EXIT_0)]))
    frames = await collect(proc.iter_output(stdout_offset=2))
    assert (frames[0].data, frames[0].encoding, frames[0].start) == ("€x", "utf-8", 2)
    api.add(Answer(pieces=[lines(out("stdout", text, 6), EXIT_0)]))
    assert [f.type async for f in proc.iter_output(stdout_offset=6)] == ["exit"]


async def test_an_exec_stream_starts_with_started_and_knows_its_process(
    client: AsyncClient, api: FakeApi
) -> None:
    computer = client.computers.get("c1")
    body = lines({"type": "started", "proc_id": "p_9"}, out("stdout", b"ok", 2), EXIT_0)
    api.add(Answer(pieces=[body], headers={"ce-process-id": "p_9"}))
    stream = computer.exec_stream(["true"], idempotency_key="k")
    frames = await collect(stream)
    assert [(f.type, f.proc_id) for f in frames] == [
        ("started", "p_9"),
        ("stdout", None),
        ("exit", None),
    ]
    assert stream.proc_id == "p_9"
    request = api.requests[0]
    assert (request.method, request.url.path) == ("POST", "/computers/c1/exec")
    assert request.headers["accept"] == "application/x-ndjson"
    assert request.headers["idempotency-key"] == "k"


async def test_an_exec_stream_whose_started_contradicts_the_header_fails(
    client: AsyncClient, api: FakeApi
) -> None:
    from dory_wire import IdentityMismatch

    body = lines({"type": "started", "proc_id": "p_other"}, EXIT_0)
    api.add(Answer(pieces=[body], headers={"ce-process-id": "p_9"}))
    computer = client.computers.get("c1")
    with pytest.raises(IdentityMismatch):
        await collect(computer.exec_stream(["true"]))


async def test_a_keyed_exec_replay_yields_the_json_identity_then_its_output(
    client: AsyncClient,
    api: FakeApi,
) -> None:
    # The core's follower: a keyed replay's identity continues on the first
    # process's output (never a second run).
    api.add(identity("p_9", "exited"), Answer(pieces=[lines(out("stdout", b"once", 4), EXIT_0)]))
    computer = client.computers.get("c1")
    stream = computer.exec_stream(["true"], idempotency_key="used")
    frames = await collect(stream)
    assert [(f.type, f.proc_id, f.status) for f in frames] == [
        ("identity", "p_9", "exited"),
        ("stdout", None, None),
        ("exit", None, None),
    ]
    assert frames[1].bytes == b"once"
    assert stream.proc_id == "p_9"
    assert stream.end == Exited(0, False)
    assert api.paths() == ["POST /computers/c1/exec", "GET /computers/c1/processes/p_9/output"]
    assert api.query(1) == {"stdout_offset": "0", "stderr_offset": "0", "follow": "true"}


async def test_synchronous_exec_returns_the_result_or_a_replay_identity(
    client: AsyncClient, api: FakeApi
) -> None:
    doc = {
        "proc_id": "p_3",
        "stdout": base64.b64encode(HELLO).decode(),
        "stdout_encoding": "base64",
        "stderr": "notice",
        "stdout_truncated": False,
        "stderr_truncated": True,
        "exit_code": 0,
        "timed_out": False,
    }
    api.add(Answer(content_type=JSON, pieces=[json.dumps(doc).encode()]), identity("p_3"))
    computer = client.computers.get("c1")
    result = await computer.exec(["sh"], timeout_seconds=5)
    assert isinstance(result, ExecResult)
    assert (result.stdout, result.stderr, result.stderr_truncated) == (HELLO, b"notice", True)
    assert api.requests[0].headers["accept"] == JSON
    replay = await computer.exec(["sh"], idempotency_key="k")
    assert replay == Identity("p_3", "running")


# -- how a response ends --------------------------------------------------------------


async def test_a_cut_mid_frame_is_a_disconnect_with_the_consumed_cursor(
    client: AsyncClient, api: FakeApi
) -> None:
    proc = await process(client, api)
    body = lines(out("stdout", b"abc", 3), out("stderr", b"xy", 2))
    api.add(Answer(pieces=[body[:-7]], error=cut()))
    stream = proc.iter_output()
    frames: list[Frame] = []
    with pytest.raises(StreamDisconnected) as info:
        await collect_into(frames, stream)
    err = info.value
    assert [f.bytes for f in frames] == [b"abc"]
    assert (err.reason, err.cursor, err.stdout_offset, err.stderr_offset) == (
        "end_of_body",
        Cursor(3, 0),
        3,
        0,
    )
    assert isinstance(err.__cause__, httpx.RemoteProtocolError)
    assert str(err) == (
        "stream_disconnected: the response ended before exit (peer closed connection "
        "without sending complete message body); resume from stdout_offset 3, stderr_offset 0"
    )
    assert isinstance(err, DoryWireError)
    assert (err.code, err.kind) == ("stream_disconnected", "transport")
    assert (stream.stdout_offset, stream.stderr_offset) == (3, 0)
    assert isinstance(stream.end, Disconnected)


async def test_a_cut_between_frames_and_before_the_first_byte(
    client: AsyncClient,
    api: FakeApi,
) -> None:
    proc = await process(client, api)
    api.add(Answer(pieces=[lines(out("stdout", b"abc", 3))], error=cut()))
    with pytest.raises(StreamDisconnected) as info:
        await collect(proc.iter_output())
    assert info.value.cursor == Cursor(3, 0)
    api.add(Answer(pieces=[], error=cut()))
    with pytest.raises(StreamDisconnected) as info:
        await collect(proc.iter_output(stdout_offset=3, stderr_offset=1))
    assert (info.value.reason, info.value.cursor) == ("end_of_body", Cursor(3, 1))


async def test_a_clean_end_without_exit_disconnects_a_followed_stream_only(
    client: AsyncClient, api: FakeApi
) -> None:
    proc = await process(client, api)
    api.add(Answer(pieces=[lines(out("stdout", b"abc", 3))]))
    with pytest.raises(StreamDisconnected) as info:
        await collect(proc.iter_output())
    assert info.value.__cause__ is None
    # follow=false: what exists now, and the end.
    api.add(Answer(pieces=[lines(out("stdout", b"abc", 3))]))
    stream = proc.iter_output(follow=False)
    assert [f.bytes async for f in stream] == [b"abc"]
    assert stream.end == Disconnected(Cursor(3, 0), "end_of_body")
    # ... but a cut finite read is still a disconnect.
    api.add(Answer(pieces=[lines(out("stdout", b"abc", 3))], error=cut()))
    with pytest.raises(StreamDisconnected):
        await collect(proc.iter_output(follow=False))


async def test_exit_then_a_cut_is_a_normal_end(client: AsyncClient, api: FakeApi) -> None:
    proc = await process(client, api)
    api.add(Answer(pieces=[lines(out("stdout", b"abc", 3), EXIT_0)], error=cut()))
    stream = proc.iter_output()
    assert [f.type async for f in stream] == ["stdout", "exit"]
    assert stream.end == Exited(0, False)


async def test_an_unkeyed_start_to_a_closed_port_is_sent_again_then_never_reached(
    slept: list[float],
) -> None:
    # Nothing listens on the port (bound, then freed): every connect is
    # refused, so the unkeyed start cannot have reached the service. The
    # core sends it again within the budget (5 retries), then says so.
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    async with AsyncClient(f"http://127.0.0.1:{port}") as client:
        computer = client.computers.get("c1")
        with pytest.raises(NoAnswer) as info:
            await computer.processes.start("true")
    err = info.value
    assert (err.reason, err.attempts, err.reached) == ("not_connected", 6, False)
    assert str(err).endswith("; tried 6 times; it never reached the service"), str(err)
    assert isinstance(err.__cause__, httpx.ConnectError)
    assert len(slept) == 5  # the backoff of any reconnect


async def test_a_refused_connection_is_a_disconnect_without_response(
    client: AsyncClient, api: FakeApi
) -> None:
    proc = await process(client, api)
    api.add(Answer(refuse=httpx.ConnectError("[Errno 111] Connection refused")))
    stream = proc.iter_output(stdout_offset=5)
    with pytest.raises(StreamDisconnected) as info:
        await stream.__anext__()
    assert (info.value.reason, info.value.cursor) == ("not_connected", Cursor(5, 0))
    assert info.value.proc_id == "p_1"
    assert isinstance(info.value.__cause__, httpx.ConnectError)
    with pytest.raises(StopAsyncIteration):
        await stream.__anext__()


async def test_a_read_timeout_is_a_stall_decided_by_the_core(
    client: AsyncClient,
    api: FakeApi,
) -> None:
    proc = await process(client, api)
    api.add(Answer(pieces=[lines(out("stdout", b"a", 1))], error=httpx.ReadTimeout("timed out")))
    with pytest.raises(StreamDisconnected) as info:
        await collect(proc.iter_output(liveness_timeout_seconds=0.5))
    assert (info.value.reason, info.value.cursor) == ("stalled", Cursor(1, 0))
    assert isinstance(info.value.__cause__, httpx.ReadTimeout)
    # The stream's socket reads time out after the liveness timeout.
    assert api.requests[-1].extensions["timeout"]["read"] == 0.5


async def test_a_gap_frame_fails_or_skips_with_the_exact_ranges(
    client: AsyncClient,
    api: FakeApi,
) -> None:
    proc = await process(client, api)
    gap = {"type": "gap", "earliest_stdout_offset": 10, "earliest_stderr_offset": 0}
    api.add(Answer(pieces=[lines(out("stdout", b"abc", 3), gap)]))
    stream = proc.iter_output()
    frames: list[Frame] = []
    with pytest.raises(OutputGap) as info:
        await collect_into(frames, stream)
    assert [f.bytes for f in frames] == [b"abc"]
    assert (info.value.consumed, info.value.earliest) == (Cursor(3, 0), Cursor(10, 0))
    api.add(Answer(pieces=[lines(out("stdout", b"abc", 3), gap)]))
    stream = proc.iter_output(gap_policy="skip")
    frames = []
    with pytest.raises(StreamDisconnected) as disconnect:
        await collect_into(frames, stream)
    assert [(f.type, f.stream, f.start, f.end) for f in frames[1:]] == [
        ("skipped", "stdout", 3, 10)
    ]
    assert (disconnect.value.reason, disconnect.value.cursor) == ("gap", Cursor(10, 0))
    assert stream.stdout_offset == 10


@pytest.mark.parametrize(
    ("status", "doc", "expected"),
    [
        (
            409,
            {"error": "output_gap", "earliest_stdout_offset": 4, "earliest_stderr_offset": 0},
            OutputGap,
        ),
        (410, {"error": "output_expired", "message": "gone"}, OutputExpired),
        (400, {"error": "offset_beyond_output", "stdout_offset": 99}, OffsetBeyondOutput),
        (404, {"error": "not_found", "message": "unknown process"}, ApiError),
    ],
)
async def test_error_answers_raise_the_core_errors(
    client: AsyncClient, api: FakeApi, status: int, doc: dict[str, object], expected: type
) -> None:
    proc = await process(client, api)
    api.add(error(status, doc))
    with pytest.raises(expected):
        await collect(proc.iter_output())
    # read_output raises them too, at once: never retried.
    api.add(error(status, doc))
    with pytest.raises(expected):
        await proc.read_output(retries=3)
    assert len(api.requests) == 3


async def test_a_409_under_skip_reconnects_from_the_earliest_offsets(
    client: AsyncClient, api: FakeApi
) -> None:
    proc = await process(client, api)
    doc = {"error": "output_gap", "earliest_stdout_offset": 4, "earliest_stderr_offset": 0}
    api.add(error(409, doc), Answer(pieces=[lines(out("stdout", b"efg", 7), EXIT_0)]))
    transcript = await proc.read_output(gap_policy="skip")
    assert transcript.skipped("stdout") == [(0, 4)]
    assert transcript.bytes("stdout") == b"efg"
    assert not transcript.is_complete("stdout")
    assert api.query(-1)["stdout_offset"] == "4"


async def test_a_non_json_502_is_an_api_error_with_its_status(
    client: AsyncClient,
    api: FakeApi,
) -> None:
    proc = await process(client, api)
    api.add(Answer(status=502, content_type="text/html", pieces=[b"<html>bad gateway</html>"]))
    with pytest.raises(ApiError) as info:
        await collect(proc.iter_output())
    assert (info.value.status, info.value.api_code) == (502, None)


async def test_an_error_answer_cut_short_is_a_disconnect(client: AsyncClient, api: FakeApi) -> None:
    proc = await process(client, api)
    api.add(Answer(status=409, content_type=JSON, pieces=[b'{"error":"outp'], error=cut()))
    with pytest.raises(StreamDisconnected) as info:
        await collect(proc.iter_output())
    assert info.value.reason == "end_of_body"


async def test_an_error_found_before_a_cut_is_raised_not_hidden(
    client: AsyncClient,
    api: FakeApi,
) -> None:
    from dory_wire import MalformedFrame

    proc = await process(client, api)
    api.add(Answer(pieces=[lines(out("stdout", b"a", 1)) + b"{oops}\n"], error=cut()))
    stream = proc.iter_output()
    frame = await stream.__anext__()
    assert frame.bytes == b"a"
    with pytest.raises(MalformedFrame):
        await stream.__anext__()


async def test_an_unsupported_content_type_is_raised_at_once(
    client: AsyncClient,
    api: FakeApi,
) -> None:
    from dory_wire import UnsupportedContentType

    proc = await process(client, api)
    api.add(Answer(content_type="text/plain", pieces=[b"hello"]))
    with pytest.raises(UnsupportedContentType):
        await collect(proc.iter_output())


async def test_other_exceptions_are_not_taken_for_a_disconnect(
    client: AsyncClient,
    api: FakeApi,
) -> None:
    proc = await process(client, api)
    api.add(Answer(pieces=[b"{"], error=RuntimeError("a bug")))
    with pytest.raises(RuntimeError, match="a bug"):
        await collect(proc.iter_output())


async def test_close_closes_the_response_only(client: AsyncClient, api: FakeApi) -> None:
    proc = await process(client, api)
    api.add(Answer(pieces=[lines(out("stdout", b"a", 1), out("stdout", b"b", 2))]))
    async with proc.iter_output() as stream:
        frame = await stream.__anext__()
        assert frame.bytes == b"a"
    assert api.closed >= 1
    with pytest.raises(ValueError, match="closed"):
        await stream.__anext__()
    assert [r.url.path.rsplit("/", 1)[-1] for r in api.requests] == ["p_1", "output"]


# -- the reconnecting read -------------------------------------------------------------


async def test_read_output_reconnects_from_the_offsets_and_trims_overlap(
    client: AsyncClient, api: FakeApi
) -> None:
    proc = await process(client, api)
    full = lines(out("stdout", HELLO, 7), out("stderr", b"notice", 6), EXIT_0)
    api.add(
        Answer(pieces=[full[:30]], error=cut()),  # nothing complete
        Answer(pieces=[full[:80]], error=cut()),  # stdout complete
        # The server re-sends the chunk containing the offset whole.
        Answer(pieces=[lines(out("stderr", b"notice", 6))[:-3]], error=cut()),
        Answer(pieces=[lines(out("stderr", b"notice", 6), EXIT_0)]),
    )
    transcript = await proc.read_output(backoff_seconds=0)
    assert isinstance(transcript, Transcript)
    assert (transcript.bytes("stdout"), transcript.bytes("stderr")) == (HELLO, b"notice")
    assert transcript.exit == (0, False)
    assert [api.query(i)["stdout_offset"] for i in range(1, 5)] == ["0", "0", "7", "7"]


async def test_read_output_gives_up_after_the_retry_budget(
    client: AsyncClient, api: FakeApi, slept: list[float]
) -> None:
    proc = await process(client, api)
    api.add(Answer(pieces=[lines(out("stdout", b"ab", 2))], error=cut()))
    api.add(*(Answer(refuse=httpx.ConnectError("refused")) for _ in range(4)))
    kept = Transcript()
    with pytest.raises(StreamDisconnected) as info:
        await proc.read_output(
            retries=3,
            backoff_seconds=0.5,
            max_backoff_seconds=1.5,
            jitter=False,
            transcript=kept,
        )
    assert (info.value.reason, info.value.cursor) == ("not_connected", Cursor(2, 0))
    assert isinstance(info.value.__cause__, httpx.ConnectError)
    assert slept == [0.5, 1.0, 1.5]
    assert kept.bytes("stdout") == b"ab"


async def test_read_output_follow_false_returns_what_exists(
    client: AsyncClient,
    api: FakeApi,
) -> None:
    proc = await process(client, api)
    api.add(Answer(pieces=[lines(out("stdout", b"so far", 6))]))
    transcript = await proc.read_output(follow=False)
    assert (transcript.bytes("stdout"), transcript.exit) == (b"so far", None)


async def test_the_documented_loop_resumes_after_cuts(client: AsyncClient, api: FakeApi) -> None:
    proc = await process(client, api)
    full = lines(out("stdout", HELLO, 7), out("stderr", b"notice", 6), EXIT_0)
    api.add(
        Answer(pieces=[full[:90]], error=cut()),  # the stdout frame is 78 bytes
        Answer(pieces=[], refuse=httpx.ConnectError("refused")),
        Answer(pieces=[full]),
    )
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
    assert got == {"stdout": HELLO, "stderr": b"notice"}
    assert resumed_from == [Cursor(0, 0), Cursor(7, 0), Cursor(7, 0)]


async def test_read_output_and_typed_errors(client: AsyncClient, api: FakeApi) -> None:
    proc = await process(client, api)
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
    transcript = await proc.read_output(backoff_seconds=0)
    results: list[object] = [transcript.bytes("stdout"), transcript.exit]
    for _ in range(3):
        try:
            await proc.read_output()
        except (OutputExpired, OutputGap, ApiError) as err:
            results.append(type(err))
    assert results == [HELLO, (0, False), OutputExpired, OutputGap, ApiError]


async def test_stall_and_refusal_carry_the_cursor(client: AsyncClient, api: FakeApi) -> None:
    proc = await process(client, api)
    api.add(
        Answer(pieces=[lines(out("stderr", b"e", 1))], error=httpx.ReadTimeout("timed out")),
        Answer(refuse=httpx.ConnectError("refused")),
    )
    seen = []
    for start in (Cursor(0, 0), Cursor(0, 1)):
        with pytest.raises(StreamDisconnected) as info:
            await collect(proc.iter_output(start.stdout, start.stderr))
        seen.append((info.value.reason, info.value.cursor))
    assert seen == [("stalled", Cursor(0, 1)), ("not_connected", Cursor(0, 1))]


async def test_exec_kill_and_setup(client: AsyncClient, api: FakeApi) -> None:
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
    computer = client.computers.get("c1")
    done = await computer.exec(["echo", "hi"])
    assert isinstance(done, ExecResult)
    async with computer.exec_stream(["true"]) as stream:
        frames = await collect(stream)
    killed = await computer.processes.kill("p_3")
    setup = await computer.setup.read_logs()
    assert [
        done.stdout,
        [f.type for f in frames],
        stream.proc_id,
        killed.status,
        setup.bytes("stdout"),
    ] == [b"hi", ["started", "exit"], "p_3", "exited", b"setup\n"]


async def test_the_budget_counts_connections_without_progress(
    client: AsyncClient, api: FakeApi, slept: list[float]
) -> None:
    # The core's budget: progress resets it and is followed at once.
    proc = await process(client, api)
    refused = Answer(refuse=httpx.ConnectError("refused"))
    api.add(refused, refused, Answer(pieces=[lines(out("stdout", b"a", 1))], error=cut()))
    api.add(refused, refused, refused)
    with pytest.raises(StreamDisconnected) as info:
        await proc.read_output(
            retries=2,
            backoff_seconds=0.1,
            max_backoff_seconds=0.3,
            jitter=False,
        )
    assert slept == [0.1, 0.2, 0.1, 0.2]
    assert (info.value.reason, info.value.cursor) == ("not_connected", Cursor(1, 0))
    assert len(api.requests) == 1 + 6


async def test_setup_logs_are_one_stream_from_one_offset(client: AsyncClient, api: FakeApi) -> None:
    computer = client.computers.get("c1")
    setup = computer.setup
    api.add(Answer(pieces=[lines(out("stdout", b"setup: ok\n", 10), EXIT_0)]))
    stream = setup.iter_logs(offset=0)
    assert [f.type async for f in stream] == ["stdout", "exit"]
    assert stream.stdout_offset == 10
    assert api.paths()[-1] == "GET /computers/c1/setup/logs"
    assert api.query(-1) == {"offset": "0", "follow": "true"}
    api.add(
        Answer(pieces=[lines(out("stdout", b"setup: ok\n", 10))], error=cut()),
        Answer(pieces=[lines(EXIT_0)]),
    )
    transcript = await setup.read_logs(offset=0)
    assert (transcript.bytes("stdout"), transcript.exit) == (b"setup: ok\n", (0, False))
    assert api.query(-1) == {"offset": "10", "follow": "true"}


def test_stream_disconnected_pickles_with_its_fields() -> None:
    import pickle

    from dory_wire.client._errors import disconnected

    err = disconnected("stalled", Cursor(1, 2), "p_1", None)
    assert str(err) == (
        "stream_disconnected: no complete frame came within the liveness timeout; "
        "resume from stdout_offset 1, stderr_offset 2"
    )
    copy = pickle.loads(pickle.dumps(err))
    assert (copy.cursor, copy.reason, copy.proc_id, str(copy)) == (
        Cursor(1, 2),
        "stalled",
        "p_1",
        str(err),
    )


async def test_headers_are_added_without_overriding_what_a_request_needs(api: FakeApi) -> None:
    headers = {"accept": "text/plain", "Authorization": "Bearer t"}
    async with (
        httpx.AsyncClient(transport=api.transport()) as http,
        AsyncClient(BASE, http_client=http, headers=headers) as c,
    ):
        api.add(Answer(pieces=[lines({"type": "started", "proc_id": "p_1"}, EXIT_0)]))
        computer = c.computers.get("c1")
        await collect(computer.exec_stream(["true"]))
    request = api.requests[0]
    assert request.headers["accept"] == "application/x-ndjson"
    assert request.headers["authorization"] == "Bearer t"


@settings(max_examples=200)
@given(
    chunks=st.lists(
        st.tuples(st.sampled_from(["stdout", "stderr"]), st.binary(min_size=1, max_size=40)),
        max_size=12,
    ),
    cuts=st.lists(st.integers(min_value=0, max_value=2000), max_size=6),
    pieces=st.integers(min_value=1, max_value=7),
)
async def test_any_cuts_give_the_exact_bytes_and_wire_forms(
    chunks: list[tuple[str, bytes]], cuts: list[int], pieces: int
) -> None:
    """The documented loop over responses cut anywhere (each reconnect asks
    from the saved offsets; the fake server re-sends the chunk containing the
    offset whole): the bytes are exact and every frame's data/encoding give
    back its bytes."""
    ends = {"stdout": 0, "stderr": 0}
    frames = []
    for stream, data in chunks:
        ends[stream] += len(data)
        frames.append((stream, data, ends[stream]))
    expected = {s: b"".join(d for t, d, _ in frames if t == s) for s in ends}

    def body_from(at: dict[str, int]) -> bytes:
        kept = [out(s, d, e) for s, d, e in frames if e > at[s]]
        return lines(*kept, EXIT_0)

    api = FakeApi(identity("p_1"))
    got = {"stdout": bytearray(), "stderr": bytearray()}
    async with (
        httpx.AsyncClient(transport=api.transport()) as http,
        AsyncClient(BASE, http_client=http) as c,
    ):
        computer = c.computers.get("c1")
        proc = await computer.processes.get("p_1")
        at = {"stdout": 0, "stderr": 0}
        for attempt in range(len(cuts) + 1):
            body = body_from(at)
            if attempt < len(cuts):
                body, error_ = body[: cuts[attempt]], cut()
            else:
                error_ = None
            step = max(1, len(body) // pieces)
            parts = [body[i : i + step] for i in range(0, len(body), step)]
            api.add(Answer(pieces=parts, error=error_))
            stream = proc.iter_output(at["stdout"], at["stderr"])
            try:
                async for frame in stream:
                    if frame.type in got:
                        wire = (
                            base64.b64decode(frame.data, validate=True)
                            if frame.encoding == "base64"
                            else frame.data.encode()
                        )
                        assert wire == frame.bytes
                        assert frame.offset is not None
                        assert frame.offset - len(frame.bytes) == frame.start
                        got[frame.type] += frame.bytes
                    at = {"stdout": stream.stdout_offset, "stderr": stream.stderr_offset}
                break
            except StreamDisconnected as err:
                resumed = (err.stdout_offset, err.stderr_offset)
            assert resumed == (at["stdout"], at["stderr"])
    assert {s: bytes(v) for s, v in got.items()} == expected


# -- every request is the core's ---------------------------------------------------------


async def test_every_request_is_the_cores(api: FakeApi) -> None:
    """Method, target, headers and body of each call are the core's
    Request's; the client adds its default headers and the timeouts of the
    request's ``wait``."""
    async with (
        httpx.AsyncClient(transport=api.transport()) as http,
        AsyncClient(BASE, http_client=http, timeout=7, liveness_timeout_seconds=3) as c,
    ):
        computer = c.computers.get("c 1")
        result = (
            b'{"proc_id":"p/2","stdout":"","stderr":"","stdout_truncated":false,'
            b'"stderr_truncated":false,"exit_code":0,"timed_out":false}'
        )
        api.add(identity("p/2"), identity("p/2"), identity("p/2"))
        api.add(Answer(content_type=JSON, pieces=[result]))
        api.add(Answer(pieces=[lines(EXIT_0)]), Answer(pieces=[lines(EXIT_0)]))
        api.add(Answer(pieces=[lines({"type": "started", "proc_id": "p/2"}, EXIT_0)]))
        await computer.processes.start(["ls", "-l"], timeout_seconds=5, idempotency_key="k")
        proc = await computer.processes.get("p/2")
        await proc.kill()
        await computer.exec("ls", idempotency_key="k2")
        await collect(proc.iter_output(4, 2, follow=False))
        await collect(computer.setup.iter_logs(9))
        await collect(computer.exec_stream("ls"))
    expected = [
        Request.start("c 1", ["ls", "-l"], 5, "k"),
        Request.get_process("c 1", "p/2"),
        Request.kill("c 1", "p/2"),
        Request.exec("c 1", "ls", None, "k2"),
        Request.output("c 1", "p/2", Cursor(4, 2), follow=False),
        Request.setup_logs("c 1", 9),
        Request.exec("c 1", "ls", stream=True),
    ]
    assert len(api.requests) == len(expected)
    for sent, core in zip(api.requests, expected):
        assert sent.method == core.method
        assert sent.url.raw_path.decode() == core.target
        assert sent.content == (core.body or b"")
        for name, value in core.headers:
            assert sent.headers[name] == value
        assert sent.headers["user-agent"].startswith("dory-wire/")
        if core.body is not None:
            assert sent.headers["content-type"] == "application/json"
        else:
            assert "content-type" not in sent.headers
        read = {"default": 7.0, "stream": 3.0, "unbounded": None}[core.wait]
        assert sent.extensions["timeout"] == {
            "connect": 7.0,
            "read": read,
            "write": 7.0,
            "pool": 7.0,
        }, core


async def test_wrong_arguments_are_the_cores_errors_before_any_request(
    client: AsyncClient, api: FakeApi
) -> None:
    from dory_wire import InvalidArgument

    with pytest.raises(TypeError, match=r"^computer_id must be a str, not int$"):
        client.computers.get(5)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument) as empty:
        client.computers.get("")
    assert (empty.value.argument, str(empty.value)) == (
        "computer_id",
        "invalid_argument: computer_id: must not be empty",
    )
    computer = client.computers.get("c1")
    with pytest.raises(TypeError, match=r"^command must be a str or a sequence of str, not int$"):
        await computer.processes.start(123)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"^command\[1\] must be a str, not int$"):
        await computer.exec(["ls", 1])  # type: ignore[list-item]
    with pytest.raises(InvalidArgument, match="command"):
        await computer.processes.start("")
    with pytest.raises(InvalidArgument, match="timeout_seconds"):
        await computer.processes.start("ls", timeout_seconds=0)
    with pytest.raises(InvalidArgument, match="idempotency_key"):
        computer.exec_stream("ls", idempotency_key="a\nb")
    with pytest.raises(TypeError, match=r"^proc_id must be a str, not NoneType$"):
        await computer.processes.get(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"^proc_id must be a str, not int$"):
        await computer.processes.kill(7)  # type: ignore[arg-type]
    proc = await process(client, api)
    sent = len(api.requests)
    with pytest.raises(InvalidArgument) as policy:
        proc.iter_output(gap_policy="ignore")  # type: ignore[arg-type]
    assert policy.value.argument == "gap_policy"
    with pytest.raises(InvalidArgument) as retries:
        await proc.read_output(retries=-1)
    assert retries.value.argument == "retries"
    with pytest.raises(InvalidArgument, match="liveness_timeout_seconds"):
        await proc.read_output(liveness_timeout_seconds=0)
    with pytest.raises(TypeError, match=r"^jitter must be a bool, not str$"):
        await proc.read_output(jitter="yes")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"^on_reconnect must be a callable, not int$"):
        await proc.read_output(on_reconnect=5)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument, match="offset"):
        computer.setup.iter_logs(-1)
    assert len(api.requests) == sent  # nothing was sent


# -- reconnects, as the core's follower decides -------------------------------------------


async def test_the_reconnect_hook_sees_the_cores_records_in_order(
    client: AsyncClient, api: FakeApi, slept: list[float]
) -> None:
    proc = await process(client, api)
    api.add(
        Answer(pieces=[lines(out("stdout", b"abc", 3)) + b'{"type":'], error=cut()),
        Answer(refuse=httpx.ConnectError("[Errno 111] Connection refused")),
        error(503, {"error": "unavailable", "message": "busy"}),
        Answer(refuse=httpx.ReadTimeout("timed out")),
        Answer(pieces=[lines(out("stdout", b"abcd", 4), EXIT_0)]),
    )
    api.answers[2].headers["retry-after"] = "1"
    seen: list[Reconnect] = []
    transcript = await proc.read_output(jitter=False, on_reconnect=seen.append)
    assert (transcript.bytes("stdout"), transcript.exit) == (b"abcd", (0, False))
    url = f"{BASE}/computers/c1/processes/p_1/output?stdout_offset=3&stderr_offset=0&follow=true"
    assert seen == [
        Reconnect(
            1,
            0,
            "end_of_body",
            Cursor(3, 0),
            0.0,
            "p_1",
            "peer closed connection without sending complete message body",
        ),
        Reconnect(
            2,
            1,
            "not_connected",
            Cursor(3, 0),
            0.25,
            "p_1",
            f"GET {url}: [Errno 111] Connection refused",
        ),
        # 500 ms, raised to the 1 s Retry-After.
        Reconnect(3, 2, "unavailable", Cursor(3, 0), 1.0, "p_1", "HTTP 503"),
        Reconnect(
            4, 3, "no_response", Cursor(3, 0), 1.0, "p_1", "no headers within the liveness timeout"
        ),
    ]
    # What the hook saw is what was slept (nothing after progress).
    assert slept == [0.25, 1.0, 1.0]
    assert [api.query(i)["stdout_offset"] for i in range(1, 6)] == ["0", "3", "3", "3", "3"]


async def test_jitter_off_waits_the_exact_backoff_and_on_spreads_it(
    client: AsyncClient, api: FakeApi, slept: list[float], monkeypatch: pytest.MonkeyPatch
) -> None:
    proc = await process(client, api)
    refused = Answer(refuse=httpx.ConnectError("refused"))
    api.add(*[refused] * 6)
    with pytest.raises(StreamDisconnected) as info:
        await proc.read_output(backoff_seconds=0.1, max_backoff_seconds=0.3, jitter=False)
    assert slept == [0.1, 0.2, 0.3, 0.3, 0.3]  # retries=5, then the core gives up
    assert info.value.reason == "not_connected"
    # Jitter on (the default): base/2 + j * base/2 for the client's random j.
    monkeypatch.setattr("dory_wire.client._async.random.random", lambda: 0.5)
    slept.clear()
    api.add(*[refused] * 3)
    with pytest.raises(StreamDisconnected):
        await proc.read_output(retries=2, backoff_seconds=0.1)
    assert slept == [0.075, 0.15]


async def test_a_503_with_retry_after_is_retried_by_reads_only(
    client: AsyncClient, api: FakeApi, slept: list[float]
) -> None:
    proc = await process(client, api)
    busy = Answer(
        status=503,
        content_type=JSON,
        pieces=[b'{"error":"unavailable","message":"busy"}'],
        headers={"retry-after": "2"},
    )
    api.add(busy, Answer(pieces=[lines(out("stdout", b"ok", 2), EXIT_0)]))
    transcript = await proc.read_output(jitter=False)
    assert (transcript.bytes("stdout"), slept) == (b"ok", [2.0])
    # A 429 too, its Retry-After capped by the longest backoff.
    api.add(
        Answer(status=429, content_type=JSON, pieces=[b"{}"], headers={"retry-after": "60"}),
        Answer(pieces=[lines(EXIT_0)]),
    )
    await proc.read_output(jitter=False, max_backoff_seconds=3)
    assert slept == [2.0, 3.0]
    # One response: the frame iterator raises what the follower would retry.
    api.add(busy)
    with pytest.raises(StreamDisconnected) as info:
        await collect(proc.iter_output())
    assert (info.value.reason, info.value.cursor, str(info.value)) == (
        "unavailable",
        Cursor(0, 0),
        "stream_disconnected: the service was unavailable (HTTP 503); "
        "resume from stdout_offset 0, stderr_offset 0",
    )
    # An exec without a key may not be sent twice: its 503 is an answer.
    api.add(busy)
    computer = client.computers.get("c1")
    with pytest.raises(ApiError) as refused:
        await collect(computer.exec_stream("ls"))
    assert refused.value.status == 503


async def test_a_trickle_that_never_completes_a_frame_ends_stalled_in_time(
    client: AsyncClient, api: FakeApi
) -> None:
    proc = await process(client, api)
    frame = lines(out("stdout", b"x" * 200, 200))
    # One byte every 20 ms: the socket never times out, no frame completes.
    trickle = Answer(pieces=[frame[i : i + 1] for i in range(len(frame))], delay=0.02)
    api.add(trickle)
    started = time.monotonic()
    with pytest.raises(StreamDisconnected) as info:
        await collect(proc.iter_output(liveness_timeout_seconds=0.3))
    waited = time.monotonic() - started
    assert (info.value.reason, info.value.cursor) == ("stalled", Cursor(0, 0))
    assert 0.3 <= waited < 2.0, waited  # the whole body would take 4 s
    # read_output: a stall is a reconnect without progress; the budget ends it.
    api.add(trickle)
    with pytest.raises(StreamDisconnected) as spent:
        await proc.read_output(retries=0, liveness_timeout_seconds=0.3)
    assert spent.value.reason == "stalled"


async def test_an_exec_stream_follows_its_process_through_a_cut_never_exec_again(
    client: AsyncClient, api: FakeApi, slept: list[float]
) -> None:
    computer = client.computers.get("c1")
    started = lines({"type": "started", "proc_id": "p_9"}, out("stdout", b"ab", 2))
    api.add(
        Answer(pieces=[started + b'{"type":"std'], error=cut()),
        Answer(pieces=[lines(out("stdout", b"abc", 3), EXIT_0)]),
    )
    seen: list[Reconnect] = []
    stream = computer.exec_stream(["seq", "3"], on_reconnect=seen.append)
    frames = await collect(stream)
    assert [(f.type, f.bytes) for f in frames] == [
        ("started", b""),
        ("stdout", b"ab"),
        ("stdout", b"c"),
        ("exit", b""),
    ]
    assert api.paths() == ["POST /computers/c1/exec", "GET /computers/c1/processes/p_9/output"]
    assert api.query(1) == {"stdout_offset": "2", "stderr_offset": "0", "follow": "true"}
    assert [(r.attempt, r.reason, r.cursor, r.proc_id) for r in seen] == [
        (1, "end_of_body", Cursor(2, 0), "p_9")
    ]
    assert (stream.proc_id, stream.cursor, stream.end, slept) == (
        "p_9",
        Cursor(3, 0),
        Exited(0, False),
        [],
    )


async def test_an_exec_stream_cut_before_its_process_is_known(
    client: AsyncClient, api: FakeApi, slept: list[float]
) -> None:
    computer = client.computers.get("c1")
    # Without a key: never sent again; nothing is known to read on from.
    api.add(Answer(pieces=[b'{"type":"sta'], error=cut()))
    with pytest.raises(StreamDisconnected) as info:
        await collect(computer.exec_stream("make"))
    assert (info.value.reason, info.value.proc_id) == ("end_of_body", None)
    assert isinstance(info.value.__cause__, httpx.RemoteProtocolError)
    assert api.paths() == ["POST /computers/c1/exec"]
    # With a key: the same request again, after the backoff.
    api.add(
        Answer(refuse=httpx.ConnectError("refused")),
        Answer(pieces=[lines({"type": "started", "proc_id": "p_9"}, EXIT_0)]),
    )
    frames = await collect(computer.exec_stream("make", idempotency_key="k", jitter=False))
    assert [f.type for f in frames] == ["started", "exit"]
    assert [r.headers["idempotency-key"] for r in api.requests[1:]] == ["k", "k"]
    assert api.requests[1].content == api.requests[2].content
    assert slept == [0.25]


def test_stream_disconnected_messages_are_the_cores() -> None:
    """The client's StreamDisconnected of each reason says what the core's
    follower says when it gives up for that reason."""
    import dory_wire as dw
    from dory_wire.client._errors import disconnected

    ndjson = "application/x-ndjson"

    def core_error(reason: str) -> dw.StreamDisconnected:
        f = dw.Follower.process_output("c1", "p1", retries=0)
        f.request()
        try:
            if reason == "no_response":
                f.no_response("refused")
            elif reason == "unavailable":
                f.open(503, JSON)
                f.finish("reset")
            else:
                f.open(200, ndjson)
                if reason == "gap":
                    f.feed(
                        b'{"type":"gap","earliest_stdout_offset":0,"earliest_stderr_offset":0}\n'
                    )
                if reason == "stalled":
                    f.waited_seconds(100.0)
                f.finish("reset" if reason == "end_of_body" else None)
        except dw.StreamDisconnected as err:
            return err
        raise AssertionError(f"the core did not give up for {reason}")

    for reason in ("end_of_body", "gap", "stalled", "no_response", "unavailable"):
        core = core_error(reason)
        assert core.reason == reason
        detail = {
            "end_of_body": "reset",
            "no_response": "refused",
            "unavailable": "HTTP 503: reset",
        }.get(reason, "")
        ours = disconnected(core.reason, core.cursor, core.proc_id, None, detail)
        assert str(ours) == str(core), reason


# -- run (docs/run.md), against the reference server ---------------------------------------

LIMITS = {"max_lines": 40, "max_bytes": 2000}
# Sleeps between the writes: each arrives alone, in this order.
INTERLEAVED = (
    "echo out 1; sleep 0.2; echo err 1 >&2; sleep 0.2; echo out 2; sleep 0.2; echo err 2 >&2"
)
# A euro sign split across two writes, 3,000 lines of stdout, then stderr's
# last line once stdout is done: the same bytes and order every time.
NOISY = (
    "printf 'euro \\342'; sleep 0.3; printf '\\202\\254\\n';"
    " seq -f 'line %05g of the build' 1 3000; sleep 0.3; echo 'error: the end' >&2"
)
NOISY_STDOUT = "euro €\n".encode() + b"".join(
    f"line {i:05d} of the build\n".encode() for i in range(1, 3001)
)
NOISY_STDERR = b"error: the end\n"
ENOSPC = "spill writer failed: OSError: [Errno 28] No space left on device"


def whole(data: bytes, spill_id: str, path: str | None = None, **limits: int) -> Preview:
    """``bound()`` of a view's full bytes with the run's limits, split and spill id."""
    limits = limits or LIMITS
    bounder = Bounder(limits["max_lines"], limits["max_bytes"], split="tail")
    bounded = bounder.bound(data, spill_id=spill_id)
    return bounded.render(spill_path=path) if isinstance(bounded, PendingSpill) else bounded


def ended_text(data: bytes, spill_id: str, end: str, path: str | None = None, **limits: int) -> str:
    """The text of a run's combined view of ``data`` that ended with ``end``,
    its notice naming ``path``."""
    limits = limits or LIMITS
    less = {"max_lines": limits["max_lines"] - 1, "max_bytes": limits["max_bytes"] - len(end) - 2}
    text = whole(data, spill_id, path, **less).text
    sep = "\n" if text and not text.endswith("\n") else ""
    return f"{text}{sep}{end}\n"


def assert_ended(
    got: Preview, data: bytes, spill_id: str, end: str, path: str | None = None, **limits: int
) -> None:
    """A run's combined view: ``bound()`` of its full bytes within the limits
    less the end line (one line, its bytes and two ``\\n``), then that line."""
    limits = limits or LIMITS
    less = {"max_lines": limits["max_lines"] - 1, "max_bytes": limits["max_bytes"] - len(end) - 2}
    expected = whole(data, spill_id, path, **less)
    assert got.text == ended_text(data, spill_id, end, path, **limits)
    fields = ("truncated", "total_lines", "total_bytes", "head_bytes", "tail_bytes")
    fields += ("omitted_lines", "omitted_bytes", "omitted_range", "spill_id", "spill_path")
    for field in (*fields, "spill_error"):
        assert getattr(got, field) == getattr(expected, field), field
    assert got.notices[:-1] == expected.notices
    assert (got.notices[-1].kind, got.notices[-1].text) == ("end", end)


class Hook:
    """An ``on_output`` that records every call."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, bytes, str]] = []

    def __call__(self, stream: str, data: bytes, text: str) -> None:
        self.calls.append((stream, data, text))

    def data(self, stream: str) -> bytes:
        return b"".join(d for s, d, _ in self.calls if s == stream)

    def text(self, stream: str) -> str:
        return "".join(t for s, _, t in self.calls if s == stream)


async def run_on(flags: tuple[str, ...], command: str, **options: Any) -> RunResult:
    """``run(command)`` against a fresh server started with ``flags``."""
    with refserver(*flags) as server:
        client = AsyncClient(server.url)
        try:
            computer = client.computers.get("run")
            return await computer.run(["sh", "-c", command], **options)
        finally:
            await client.aclose()


async def test_run_shows_both_streams_in_the_order_they_arrived(tmp_path: Path) -> None:
    hook = Hook()
    result = await run_on((), INTERLEAVED, on_output=hook, spill=SpillDirectory(tmp_path))
    assert result.combined.text == "out 1\nerr 1\nout 2\nerr 2\n[... exit code 0 ...]\n"
    assert (result.stdout.text, result.stderr.text) == ("out 1\nout 2\n", "err 1\nerr 2\n")
    assert (result.exit_code, result.timed_out) == (0, False)
    assert (result.stdout_lost_bytes, result.stderr_lost_bytes) == (0, 0)
    assert re.fullmatch(r"run-[0-9a-f]{32}", result.idempotency_key)
    assert result.proc_id
    assert [(s, t) for s, _, t in hook.calls] == [
        ("stdout", "out 1\n"),
        ("stderr", "err 1\n"),
        ("stdout", "out 2\n"),
        ("stderr", "err 2\n"),
    ]
    assert list(tmp_path.iterdir()) == []  # every view fits: each spill was discarded
    spill_id = run_spill_id(result.idempotency_key)
    data = b"out 1\nerr 1\nout 2\nerr 2\n"
    assert_ended(result.combined, data, f"{spill_id}-combined", "[... exit code 0 ...]")


@pytest.mark.parametrize(
    "faults",
    [
        ("--drop-seed", "11", "--drop-max-bytes", "3000", "--max-chunk-bytes", "1000"),
        ("--drop-after-bytes", "2500", "--max-chunk-bytes", "1000"),
    ],
    ids=["drop-seed", "drop-after-bytes"],
)
async def test_run_through_dropped_connections_equals_the_clean_run(
    tmp_path: Path, faults: tuple[str, ...]
) -> None:
    spill = SpillDirectory(tmp_path)
    options: dict[str, Any] = {"idempotency_key": "noisy-1", "spill": spill, **LIMITS}
    clean = await run_on((), NOISY, **options)
    hook = Hook()
    seen: list[Reconnect] = []
    during: list[list[str]] = []

    def watch(stream: str, data: bytes, text: str) -> None:
        if not during:  # the views' spills are being written, under temporary names
            during.append(sorted(p.name for p in tmp_path.iterdir()))
            during.append([hashlib.sha256(p.read_bytes()).hexdigest() for p in final_files()])
        hook(stream, data, text)

    def final_files() -> list[Path]:
        return sorted(p for p in tmp_path.iterdir() if not p.name.startswith("."))

    before = [hashlib.sha256(p.read_bytes()).hexdigest() for p in final_files()]
    cut = await run_on(
        faults, NOISY, on_output=watch, on_reconnect=seen.append, backoff_seconds=0, **options
    )
    assert len(seen) >= 3, "the server was to cut the responses"
    assert dataclasses.replace(cut, proc_id=clean.proc_id) == clean
    # Each byte reached on_output once, the euro sign decoded whole.
    assert (hook.data("stdout"), hook.data("stderr")) == (NOISY_STDOUT, NOISY_STDERR)
    assert hook.text("stdout") == NOISY_STDOUT.decode()
    assert "\ufffd" not in hook.text("stdout")
    assert hook.calls[0] == ("stdout", b"euro \xe2", "euro ")
    # Each preview is bound() of its view's full bytes; the cut ones name their spill.
    spill_id = run_spill_id("noisy-1")
    paths = {v: str((tmp_path / f"{spill_id}-{v}.txt").resolve()) for v in ("stdout", "combined")}
    assert cut.stdout == whole(NOISY_STDOUT, f"{spill_id}-stdout", paths["stdout"])
    assert cut.stderr == whole(NOISY_STDERR, f"{spill_id}-stderr")
    everything = NOISY_STDOUT + NOISY_STDERR
    end = "[... exit code 0 ...]"
    assert_ended(cut.combined, everything, f"{spill_id}-combined", end, paths["combined"])
    assert "error: the end" in cut.combined.text
    # The spills: the full bytes, mode 0600, renamed into place at the end.
    temporary = [n for n in during[0] if n.startswith(".")]
    assert len(temporary) == 2
    assert all(re.fullmatch(r"\.spill-.*\.tmp", n) for n in temporary)
    # Meanwhile the clean run's files stayed whole: the new ones replace them at the end.
    assert len(before) == 2
    assert during[1] == before
    names = sorted(Path(p).name for p in paths.values())
    assert sorted(p.name for p in tmp_path.iterdir()) == names
    for view, data in (("stdout", NOISY_STDOUT), ("combined", everything)):
        file = Path(paths[view])
        assert hashlib.sha256(file.read_bytes()).digest() == hashlib.sha256(data).digest()
        assert stat.S_IMODE(file.stat().st_mode) == 0o600


async def test_a_gap_is_said_under_skip_and_raised_under_fail(tmp_path: Path) -> None:
    command = ["sh", "-c", "head -c 5000 /dev/zero | tr '\\0' a; echo; echo e >&2"]
    with refserver("--retention-bytes", "1000") as server:
        client = AsyncClient(server.url)
        try:
            computer = client.computers.get("run")
            # Started and done before run reads: its first bytes are gone.
            started = await computer.processes.start(command, idempotency_key="gap-1")
            server.wait_exited(started.proc_id)
            process = await computer.processes.get(started.proc_id)
            transcript = await process.read_output(gap_policy="skip")
            lost = transcript.skipped("stdout")
            assert len(lost) == 1
            assert lost[0][0] == 0
            # stderr's 2 bytes may be evicted too, depending on how the
            # server's chunks fell: what read_output saw lost is the truth.
            lost_err = sum(end - start for start, end in transcript.skipped("stderr"))
            skip: dict[str, Any] = {"gap_policy": "skip", **LIMITS}
            skipped = await computer.run(command, idempotency_key="gap-1", **skip)
            with pytest.raises(OutputGap):
                await computer.run(
                    command, idempotency_key="gap-1", spill=SpillDirectory(tmp_path), **LIMITS
                )
        finally:
            await client.aclose()
    count = lost[0][1]
    assert skipped.proc_id == started.proc_id
    assert (skipped.stdout_lost_bytes, skipped.stderr_lost_bytes) == (count, lost_err)
    line = f"[... {count} bytes lost: stdout offsets 0-{count} were not retained ...]\n"
    assert skipped.stdout.text.endswith(line)
    if lost_err == 0:
        assert skipped.combined.text.endswith(line + "[... exit code 0 ...]\n")
        assert "lost" not in skipped.stderr.text
    else:
        both = f"[... {count + lost_err} bytes lost in 2 ranges, the first "
        assert both in skipped.combined.text
        assert skipped.stderr.text.endswith(
            f"[... {lost_err} bytes lost: stderr offsets 0-{lost_err} were not retained ...]\n"
        )
    assert skipped.stdout.total_bytes == 5001 - count
    assert list(tmp_path.iterdir()) == []  # the failed call's spills were discarded


async def test_the_same_key_reattaches_to_the_same_process(tmp_path: Path) -> None:
    marks = tmp_path / "started"
    command = ["sh", "-c", f"echo started >> {marks}; seq 1 500; sleep 0.2; echo bye >&2"]
    spill = SpillDirectory(tmp_path / "spill")
    with refserver() as server:
        client = AsyncClient(server.url)
        try:
            computer = client.computers.get("run")
            first = await computer.run(command, idempotency_key="again-1", spill=spill, **LIMITS)
            second = await computer.run(command, idempotency_key="again-1", spill=spill, **LIMITS)
            fresh = [(await computer.run("true")).idempotency_key for _ in range(2)]
        finally:
            await client.aclose()
    assert second == first
    assert first.idempotency_key == "again-1"
    assert marks.read_text() == "started\n"  # the command ran once
    assert first.stdout.spill_path is not None
    assert Path(first.stdout.spill_path).read_bytes() == b"".join(
        b"%d\n" % i for i in range(1, 501)
    )
    assert fresh[0] != fresh[1]


@pytest.mark.parametrize("kill", [True, False], ids=["kill_on_cancel", "keep_running"])
async def test_a_cancelled_run_returns_nothing_and_kills_only_when_asked(
    tmp_path: Path, kill: bool
) -> None:
    command = ["sh", "-c", "echo ready; sleep 30"]

    def interrupt(stream: str, data: bytes, text: str) -> None:
        raise KeyboardInterrupt

    with refserver() as server:
        client = AsyncClient(server.url)
        try:
            computer = client.computers.get("run")
            with pytest.raises(KeyboardInterrupt):
                await computer.run(
                    command,
                    idempotency_key="cancel-1",
                    on_output=interrupt,
                    kill_on_cancel=kill,
                    spill=SpillDirectory(tmp_path),
                )
            # The keyed start again starts nothing: it names the process.
            proc_id = (await computer.processes.start(command, idempotency_key="cancel-1")).proc_id
            if kill:
                server.wait_exited(proc_id, timeout=10)
            else:
                assert (await computer.processes.get(proc_id)).status == "running"
                await computer.processes.kill(proc_id)
        finally:
            await client.aclose()
    assert list(tmp_path.iterdir()) == []  # the spill files were discarded


def resident_bytes() -> int:
    """This process's resident memory now (Linux's /proc/self/statm; 0
    where there is none)."""
    try:
        with open("/proc/self/statm", encoding="ascii") as f:
            pages = int(f.read().split()[1])
    except OSError:
        return 0
    return pages * os.sysconf("SC_PAGE_SIZE")


async def test_ten_megabytes_in_memory_bounded_by_the_limits(tmp_path: Path) -> None:
    size = 10_000_000
    line = b"the same line of output, again and again\n"
    data = (line * (size // len(line) + 1))[:size]
    # The core's buffers are out of tracemalloc's sight: the process's
    # resident memory, sampled at each chunk (from the first, once the
    # client and its connection exist), says what they hold.
    resident: list[int] = []

    def sample(stream: str, chunk: bytes, text: str) -> None:
        resident.append(resident_bytes())

    command = f"yes '{line.decode().strip()}' | head -c {size}"
    tracemalloc.start()
    try:
        result = await run_on((), command, spill=SpillDirectory(tmp_path), on_output=sample)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    max_bytes = DEFAULT_RUN_MAX_BYTES
    grown = max(resident) - resident[0]
    assert grown < size // 4, f"{grown} bytes more resident after the first chunk"
    assert peak < size // 4, f"{peak} bytes allocated at the peak"
    path = result.combined.spill_path
    assert path is not None
    assert hashlib.sha256(Path(path).read_bytes()).digest() == hashlib.sha256(data).digest()
    spill_id = run_spill_id(result.idempotency_key)
    limits = {"max_lines": DEFAULT_RUN_MAX_LINES, "max_bytes": max_bytes}
    end = "[... exit code 0 ...]"
    assert_ended(result.combined, data, f"{spill_id}-combined", end, path, **limits)
    assert result.stdout == whole(data, f"{spill_id}-stdout", result.stdout.spill_path, **limits)
    assert result.combined.total_bytes == size


class BrokenSpill:
    """A run spill writer that fails at ``where`` (its files are a
    SpillDirectory's until then)."""

    def __init__(self, directory: Path, where: str) -> None:
        self.inner = SpillDirectory(directory)
        self.where = where

    def open(self, spill_id: str) -> Any:
        if self.where == "open":
            raise OSError(errno.ENOSPC, "No space left on device")
        return BrokenFile(self.inner.open(spill_id), self.where)


class BrokenFile:
    def __init__(self, inner: Any, where: str) -> None:
        self.inner = inner
        self.where = where

    def write(self, data: bytes) -> None:
        if self.where == "write":
            raise OSError(errno.ENOSPC, "No space left on device")
        self.inner.write(data)

    def commit(self) -> object:
        if self.where == "commit":
            raise OSError(errno.ENOSPC, "No space left on device")
        path = self.inner.commit()
        return 42 if self.where == "returns" else path

    def discard(self) -> None:
        self.inner.discard()


async def test_a_failing_spill_writer_never_loses_the_preview(tmp_path: Path) -> None:
    data = b"".join(b"%d\n" % i for i in range(1, 3001))

    def returns_int(spill_id: str, data: bytes) -> object:
        return 42

    not_a_path = bound(data, spill=returns_int, **LIMITS).spill_error
    assert not_a_path == "spill writer returned int instead of a path string"
    with refserver() as server:
        client = AsyncClient(server.url)
        try:
            computer = client.computers.get("run")
            for where, error in (
                ("open", ENOSPC),
                ("write", ENOSPC),
                ("commit", ENOSPC),
                ("returns", not_a_path),
            ):
                directory = tmp_path / where
                result = await computer.run(
                    ["seq", "1", "3000"], spill=BrokenSpill(directory, where), **LIMITS
                )
                spill_id = run_spill_id(result.idempotency_key)
                for preview, view in ((result.stdout, "stdout"), (result.combined, "combined")):
                    assert (preview.spill_error, preview.spill_path) == (error, None), where
                    shown = (
                        ended_text(data, f"{spill_id}-{view}", "[... exit code 0 ...]")
                        if view == "combined"
                        else whole(data, f"{spill_id}-{view}").text
                    )
                    assert preview.text == shown, where
                assert result.stderr.text == ""
                if where in ("open", "write"):
                    assert not directory.exists() or list(directory.iterdir()) == []
        finally:
            await client.aclose()


async def test_run_checks_arguments_before_any_request(client: AsyncClient, api: FakeApi) -> None:
    from dory_wire import InvalidArgument, InvalidLimits

    computer = client.computers.get("c1")
    with pytest.raises(InvalidLimits):
        await computer.run("ls", max_lines=1)
    with pytest.raises(InvalidLimits):
        await computer.run("ls", max_bytes=MIN_RUN_MAX_BYTES - 1)
    with pytest.raises(TypeError, match="max_lines"):
        await computer.run("ls", max_lines="40")  # type: ignore[arg-type]
    # The token limit: a run needs max_tokens >= MIN_RUN_MAX_BYTES, and a
    # tokenizer the build has (the core's rules, before any request).
    for max_tokens in (MIN_RUN_MAX_BYTES - 1, -1, 2**40):
        with pytest.raises(InvalidLimits, match="max_tokens"):
            await computer.run("ls", max_tokens=max_tokens)
    with pytest.raises(InvalidArgument) as tokenizer:
        await computer.run("ls", max_tokens=4000, tokenizer="gpt2")
    assert tokenizer.value.argument == "tokenizer"
    with pytest.raises(TypeError, match="max_tokens"):
        await computer.run("ls", max_tokens=1.5)  # type: ignore[arg-type]
    for key in ("", "a\nb", "é", "k" * 256):
        with pytest.raises(InvalidArgument) as bad_key:
            await computer.run("ls", idempotency_key=key)
        assert bad_key.value.argument == "idempotency_key"
    with pytest.raises(InvalidArgument, match="command"):
        await computer.run([])
    with pytest.raises(TypeError, match=r"^command must be a str or a sequence of str, not int$"):
        await computer.run(5)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"^command\[1\] must be a str, not int$"):
        await computer.run(["ls", 1])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="open"):
        await computer.run("ls", spill=lambda spill_id, data: "/tmp/x")  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument, match="timeout_seconds"):
        await computer.run("ls", timeout_seconds=0)
    with pytest.raises(InvalidArgument) as retries:
        await computer.run("ls", retries=-1)
    assert retries.value.argument == "retries"
    with pytest.raises(InvalidArgument) as policy:
        await computer.run("ls", gap_policy="ignore")  # type: ignore[arg-type]
    assert policy.value.argument == "gap_policy"
    with pytest.raises(TypeError, match="on_output"):
        await computer.run("ls", on_output=5)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="hint"):
        await computer.run("ls", hint=5)  # type: ignore[arg-type]
    assert api.requests == []  # nothing was sent, nothing started
