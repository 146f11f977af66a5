# The source of test_client_sync.py, the same tests for the synchronous
# client: after a change here, run python3 scripts/unasync.py (`make test`
# fails until it is run).
"""dory_wire.client's AsyncClient against a scripted API: requests, frames,
offsets, every way a response can end, and the reconnecting read."""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncIterator

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
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

from dory_wire import Cursor, Disconnected, Exited, Output
from dory_wire.client import (
    ApiError,
    AsyncClient,
    AsyncProcess,
    DoryWireError,
    ExecResult,
    Frame,
    Identity,
    OffsetBeyondOutput,
    OutputExpired,
    OutputGap,
    StreamDisconnected,
    Transcript,
)
from dory_wire.client._protocol import Backoff

HELLO = b"hello\x00\xff"

pytestmark = pytest.mark.anyio


@pytest.fixture
def api() -> FakeApi:
    return FakeApi()


@pytest.fixture
async def client(api: FakeApi) -> AsyncIterator[AsyncClient]:
    async with (
        httpx.AsyncClient(transport=api.transport()) as http,
        AsyncClient(BASE, http_client=http) as c,
    ):
        yield c


async def process(client: AsyncClient, api: FakeApi, proc_id: str = "p_1") -> AsyncProcess:
    api.add(identity(proc_id))
    computer = await client.computers.get("c1")
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
    computer = await client.computers.get("c 1")
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
    computer = await client.computers.get("c1")
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
    computer = await client.computers.get("c1")
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
    computer = await client.computers.get("c1")
    with pytest.raises(IdentityMismatch):
        await collect(computer.exec_stream(["true"]))


async def test_a_keyed_exec_replay_yields_the_json_identity(
    client: AsyncClient,
    api: FakeApi,
) -> None:
    api.add(identity("p_9", "exited"))
    computer = await client.computers.get("c1")
    stream = computer.exec_stream(["true"], idempotency_key="used")
    frames = await collect(stream)
    assert [(f.type, f.proc_id, f.status) for f in frames] == [("identity", "p_9", "exited")]
    assert stream.proc_id == "p_9"


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
    computer = await client.computers.get("c1")
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


async def test_a_refused_connection_is_a_disconnect_without_response(
    client: AsyncClient, api: FakeApi
) -> None:
    proc = await process(client, api)
    api.add(Answer(refuse=httpx.ConnectError("[Errno 111] Connection refused")))
    stream = proc.iter_output(stdout_offset=5)
    with pytest.raises(StreamDisconnected) as info:
        await stream.__anext__()
    assert (info.value.reason, info.value.cursor) == ("no_response", Cursor(5, 0))
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
    client: AsyncClient, api: FakeApi, monkeypatch: pytest.MonkeyPatch
) -> None:
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    monkeypatch.setattr("dory_wire.client._async.anyio.sleep", sleep)
    proc = await process(client, api)
    api.add(Answer(pieces=[lines(out("stdout", b"ab", 2))], error=cut()))
    api.add(*(Answer(refuse=httpx.ConnectError("refused")) for _ in range(4)))
    kept = Transcript()
    with pytest.raises(StreamDisconnected) as info:
        await proc.read_output(
            retries=3,
            backoff_seconds=0.5,
            max_backoff_seconds=1.5,
            transcript=kept,
        )
    assert (info.value.reason, info.value.cursor) == ("no_response", Cursor(2, 0))
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
    assert seen == [("stalled", Cursor(0, 1)), ("no_response", Cursor(0, 1))]


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
    computer = await client.computers.get("c1")
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


def test_backoff_budget_counts_connections_without_progress() -> None:
    backoff = Backoff(2, 0.1, 0.3)
    assert [backoff.delay(False), backoff.delay(False)] == [0.1, 0.2]
    assert backoff.delay(True) == 0.0
    assert [backoff.delay(False), backoff.delay(False), backoff.delay(False)] == [0.1, 0.2, None]
    with pytest.raises(ValueError, match="retries"):
        Backoff(-1, 0, 0)


async def test_setup_logs_are_one_stream_from_one_offset(client: AsyncClient, api: FakeApi) -> None:
    computer = await client.computers.get("c1")
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
        "stream_disconnected: no byte came within the liveness timeout; "
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
        computer = await c.computers.get("c1")
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
        computer = await c.computers.get("c1")
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
