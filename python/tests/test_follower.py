"""`Follower`, `Request` and the decisions: the binding of the core's
follower and request builders. The conversation itself is the core's and is
pinned by the conversation vectors (test_vectors.py); here: the defaults are
the core's, misuse and wrong arguments are clear errors, and a reconnect
loop driven by hand behaves as documented."""

from __future__ import annotations

import ast
import json
import math
import pickle
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from vectors import conversation_problems, converse, load_vectors

import dory_wire as dw
import dory_wire.client

NDJSON = "application/x-ndjson"
STUB = Path(dw.__file__).parent / "_core.pyi"
CONSTRUCTORS = ("process_output", "resume", "setup_logs", "exec_stream")
OPTION_NAMES = (
    "follow",
    "gap_policy",
    "retries",
    "backoff_seconds",
    "max_backoff_seconds",
    "jitter",
    "liveness_timeout_seconds",
    "max_frame_bytes",
    "strict",
)


def frame(stream: str, data: str, offset: int) -> bytes:
    return json.dumps({"type": stream, "data": data, "offset": offset}).encode() + b"\n"


EXIT0 = b'{"type":"exit","exit_code":0,"timed_out":false}\n'
STARTED = b'{"type":"started","proc_id":"p1"}\n'


def follower(**options: Any) -> dw.Follower:
    return dw.Follower.process_output("c1", "p1", **options)


def every_constructor(**options: Any) -> Iterator[dw.Follower]:
    state = dw.ResumeState.from_json(
        '{"version":1,"proc_id":"p1","cursor":{"stdout":0,"stderr":0},'
        '"exit_seen":false,"exit_code":null,"timed_out":false}'
    )
    yield dw.Follower.process_output("c1", "p1", **options)
    yield dw.Follower.resume("c1", state, **options)
    yield dw.Follower.setup_logs("c1", **options)
    yield dw.Follower.exec_stream("c1", "true", **options)


# ---- the defaults are the core's


def stub_defaults() -> dict[str, dict[str, Any]]:
    """The keyword defaults of the Follower constructors in _core.pyi."""
    tree = ast.parse(STUB.read_text(encoding="utf-8"))
    (cls,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Follower"]
    out = {}
    for node in cls.body:
        if isinstance(node, ast.FunctionDef) and node.name in CONSTRUCTORS:
            a = node.args
            out[node.name] = {
                arg.arg: ast.literal_eval(default)
                for arg, default in zip(a.kwonlyargs, a.kw_defaults)
                if default is not None and arg.arg in OPTION_NAMES
            }
    return out


def test_the_stub_defaults_are_the_cores() -> None:
    core = follower().options  # FollowOptions::default(), as the core has it
    assert list(core) == list(OPTION_NAMES)
    stub = stub_defaults()
    assert sorted(stub) == sorted(CONSTRUCTORS)
    for name, defaults in stub.items():
        assert list(defaults) == list(OPTION_NAMES), f"{name}: the stub's options"
        expected = dict(core, max_frame_bytes=None)  # None: the core's limit
        assert defaults == expected, f"Follower.{name} in _core.pyi"
    # The constants are the core's too, and the options' defaults.
    assert core["retries"] == dw.DEFAULT_RETRIES
    assert core["backoff_seconds"] == dw.DEFAULT_BACKOFF_SECONDS
    assert core["max_backoff_seconds"] == dw.DEFAULT_MAX_BACKOFF_SECONDS
    assert core["liveness_timeout_seconds"] == dw.DEFAULT_LIVENESS_TIMEOUT_SECONDS
    assert core["max_frame_bytes"] == dw.DEFAULT_MAX_FRAME_BYTES
    assert isinstance(dw.DEFAULT_RETRIES, int)
    assert isinstance(dw.DEFAULT_BACKOFF_SECONDS, float)
    for built in every_constructor():
        assert built.options == core


def test_options_are_taken_and_shown() -> None:
    given = {
        "follow": False,
        "gap_policy": "skip",
        "retries": 0,
        "backoff_seconds": 0,
        "max_backoff_seconds": 1.5,
        "jitter": False,
        "liveness_timeout_seconds": 2,
        "max_frame_bytes": 64,
        "strict": True,
    }
    for built in every_constructor(**given):
        assert built.options == given
        assert isinstance(built.options["backoff_seconds"], float)
    assert follower(max_frame_bytes=None).options["max_frame_bytes"] == dw.DEFAULT_MAX_FRAME_BYTES


# ---- misuse: InvalidState, sticky


def drive(f: dw.Follower, body: bytes, *, status: int = 200) -> Any:
    f.request()
    f.open(status, NDJSON, "p1")
    events = f.feed(body)
    more, decision = f.finish()
    return events + more, decision


OUT_OF_ORDER = {
    "feed before request": lambda f: f.feed(b"x"),
    "open before request": lambda f: f.open(200, NDJSON),
    "finish before request": lambda f: f.finish(),
    "no_response before request": lambda f: f.no_response("refused"),
    "request twice": lambda f: (f.request(), f.request()),
    "feed before open": lambda f: (f.request(), f.feed(b"x")),
    "finish before open": lambda f: (f.request(), f.finish()),
    "open twice": lambda f: (f.request(), f.open(200, NDJSON), f.open(200, NDJSON)),
    "no_response after open": lambda f: (f.request(), f.open(200, NDJSON), f.no_response()),
    "request after open": lambda f: (f.request(), f.open(200, NDJSON), f.request()),
    "request after done": lambda f: (drive(f, EXIT0), f.request()),
}


@pytest.mark.parametrize("misuse", list(OUT_OF_ORDER), ids=list(OUT_OF_ORDER))
def test_out_of_order_calls_are_invalid_state_and_sticky(misuse: str) -> None:
    f = follower()
    with pytest.raises(dw.InvalidState) as info:
        OUT_OF_ORDER[misuse](f)
    err = info.value
    assert (err.code, err.kind) == ("invalid_state", "misuse")
    assert isinstance(err, ValueError)
    assert f.state == "failed"
    # Every later call raises the same error.
    for later in (f.request, lambda: f.feed(b"{}\n"), f.finish, lambda: f.open(200, NDJSON)):
        with pytest.raises(dw.InvalidState) as again:
            later()
        assert str(again.value) == str(err)
    assert f.state == "failed"


def test_invalid_state_messages_say_what_was_out_of_order() -> None:
    f = follower()
    with pytest.raises(dw.InvalidState, match="open before request"):
        f.open(200, NDJSON)
    f = follower()
    drive(f, EXIT0)
    assert f.state == "done"
    with pytest.raises(dw.InvalidState, match="after the read was done"):
        f.request()


def test_the_states() -> None:
    f = follower()
    assert f.state == "ready"
    f.request()
    assert f.state == "sent"
    f.open(200, NDJSON)
    assert f.state == "body"
    f.feed(frame("stdout", "a", 1))
    assert f.finish()[1].reason == "end_of_body"  # type: ignore[union-attr]
    assert (f.state, f.attempts) == ("ready", 1)
    assert drive(f, EXIT0)[1] == dw.Done(True, 0, False, dw.Cursor(1, 0), "p1")
    assert f.state == "done"


def test_an_error_keeps_what_was_decoded_and_is_raised_next() -> None:
    # The deferred-error rule of Reader.feed: the events come back, the
    # error is the next call's.
    f = follower()
    f.request()
    f.open(200, NDJSON)
    gap = b'{"type":"gap","earliest_stdout_offset":9,"earliest_stderr_offset":0}\n'
    events = f.feed(frame("stdout", "ab", 2) + gap)
    assert events == [dw.Output("stdout", b"ab", 0, 2)]
    assert f.state == "failed"
    assert f.cursor == dw.Cursor(2, 0)
    with pytest.raises(dw.OutputGap) as info:
        f.finish()
    assert info.value.consumed == dw.Cursor(2, 0)
    with pytest.raises(dw.OutputGap):
        f.request()


# ---- arguments: a wrong type is a TypeError naming it, a wrong value InvalidArgument

TYPE_ERRORS: dict[str, tuple[Any, str]] = {
    "computer_id": (
        lambda: dw.Follower.process_output(1, "p"),
        "computer_id must be a str, not int",
    ),
    "proc_id": (
        lambda: dw.Follower.process_output("c", None),
        "proc_id must be a str, not NoneType",
    ),
    "command int": (
        lambda: dw.Follower.exec_stream("c", 5),
        "command must be a str or a sequence of str, not int",
    ),
    "command bytes": (
        lambda: dw.Request.start("c", b"ls"),
        "command must be a str or a sequence of str, not bytes",
    ),
    "command dict": (
        lambda: dw.Request.exec("c", {"a": 1}),
        "command must be a str or a sequence of str, not dict",
    ),
    "command item": (
        lambda: dw.Request.start("c", ["ls", 3]),
        r"command\[1\] must be a str, not int",
    ),
    "timeout_seconds": (
        lambda: dw.Request.start("c", "ls", "30"),
        "timeout_seconds must be a float, not str",
    ),
    "timeout_seconds bool": (
        lambda: dw.Follower.exec_stream("c", "ls", timeout_seconds=True),
        "timeout_seconds must be a float, not bool",
    ),
    "idempotency_key": (
        lambda: dw.Request.exec("c", "ls", idempotency_key=7),
        "idempotency_key must be a str, not int",
    ),
    "stream": (lambda: dw.Request.exec("c", "ls", stream=1), "stream must be a bool, not int"),
    "follow": (lambda: follower(follow="yes"), "follow must be a bool, not str"),
    "retries": (lambda: follower(retries="5"), "retries must be an int, not str"),
    "retries bool": (lambda: follower(retries=True), "retries must be an int, not bool"),
    "backoff_seconds": (lambda: follower(backoff_seconds="1"), "backoff_seconds must be a float"),
    "gap_policy": (lambda: follower(gap_policy=0), "gap_policy must be a str, not int"),
    "max_frame_bytes": (lambda: follower(max_frame_bytes=1.5), "max_frame_bytes must be an int"),
    "unknown option": (
        lambda: follower(retry=3),
        r"process_output\(\) got an unexpected keyword argument 'retry'",
    ),
    "state": (lambda: dw.Follower.resume("c", {}), "state must be a ResumeState or a str"),
    "cursor": (lambda: follower(cursor=[1, 2]), "argument 'cursor' must be a Cursor"),
    "setup offset": (lambda: dw.Follower.setup_logs("c", "0"), "offset must be an int, not str"),
    "output follow": (
        lambda: dw.Request.output("c", "p", None, follow=1),
        "follow must be a bool, not int",
    ),
    "header name": (lambda: dw.Request.kill("c", "p").header(1), "name must be a str, not int"),
}


@pytest.mark.parametrize("case", list(TYPE_ERRORS), ids=list(TYPE_ERRORS))
def test_a_wrong_type_is_a_type_error_naming_the_argument(case: str) -> None:
    call, message = TYPE_ERRORS[case]
    with pytest.raises(TypeError, match=message):
        call()


def test_type_errors_of_calls_are_not_sticky() -> None:
    f = follower()
    with pytest.raises(TypeError, match="status"):
        f.request() and f.open("200", NDJSON)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="content_type must be a str, not bytes"):
        f.open(200, NDJSON.encode())  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="retry_after must be a str, not int"):
        f.open(200, NDJSON, None, 5)  # type: ignore[arg-type]
    f.open(200, NDJSON, "p1", None)
    with pytest.raises(TypeError, match=r"feed\(\) argument 'data' must be bytes"):
        f.feed("text")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="transcript"):
        f.feed_into(b"", [])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="transport_error must be a str, not ConnectionError"):
        f.finish(ConnectionError("reset"))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="jitter must be a float, not str"):
        f.finish(None, "0.5")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="'elapsed' must be float"):
        f.waited_seconds("1")  # type: ignore[arg-type]
    assert f.state == "body"
    assert f.feed(EXIT0) == [dw.Exit(0, False)]
    assert f.finish()[1] == dw.Done(True, 0, False, dw.Cursor(0, 0), "p1")


VALUE_ERRORS: dict[str, tuple[Any, str]] = {
    "empty computer_id": (lambda: dw.Follower.process_output("", "p"), "computer_id"),
    "empty proc_id": (lambda: dw.Request.get_process("c", ""), "proc_id"),
    "empty command": (lambda: dw.Follower.exec_stream("c", ""), "command"),
    "empty argv": (lambda: dw.Request.start("c", []), "command"),
    "empty program": (lambda: dw.Request.start("c", ("", "x")), "command"),
    "zero timeout": (lambda: dw.Request.start("c", "ls", 0), "timeout_seconds"),
    "negative timeout": (lambda: dw.Request.exec("c", "ls", -1.0), "timeout_seconds"),
    "nan timeout": (
        lambda: dw.Follower.exec_stream("c", "ls", timeout_seconds=math.nan),
        "timeout_seconds",
    ),
    "key with a newline": (lambda: dw.Request.start("c", "ls", None, "a\nb"), "idempotency_key"),
    "empty key": (
        lambda: dw.Follower.exec_stream("c", "ls", idempotency_key=""),
        "idempotency_key",
    ),
    "negative retries": (lambda: follower(retries=-1), "retries"),
    "huge retries": (lambda: follower(retries=2**32), "retries"),
    "negative backoff": (lambda: follower(backoff_seconds=-0.5), "backoff_seconds"),
    "nan backoff": (lambda: follower(max_backoff_seconds=math.nan), "max_backoff_seconds"),
    "zero liveness": (lambda: follower(liveness_timeout_seconds=0), "liveness_timeout_seconds"),
    "zero frame limit": (lambda: follower(max_frame_bytes=0), "max_frame_bytes"),
    "gap policy": (lambda: follower(gap_policy="ignore"), "gap_policy"),
    "negative offset": (lambda: dw.Follower.setup_logs("c", -1), "offset"),
    "state without a process": (
        lambda: dw.Follower.resume("c", dw.Reader("process_output").resume_state()),
        "state",
    ),
}


@pytest.mark.parametrize("case", list(VALUE_ERRORS), ids=list(VALUE_ERRORS))
def test_a_wrong_value_is_invalid_argument(case: str) -> None:
    call, name = VALUE_ERRORS[case]
    with pytest.raises(dw.InvalidArgument) as info:
        call()
    err = info.value
    assert isinstance(err, ValueError)
    assert (err.code, err.kind, err.argument) == ("invalid_argument", "misuse", name)
    assert str(err).startswith(f"invalid_argument: {name}: ")
    assert err.reason in str(err)


def test_a_jitter_out_of_range_is_the_cores_invalid_argument_and_sticky() -> None:
    f = follower()
    f.request()
    with pytest.raises(dw.InvalidArgument) as info:
        f.no_response("refused", 1.5)
    assert info.value.argument == "jitter"
    assert f.state == "failed"
    with pytest.raises(dw.InvalidArgument):
        f.request()


# ---- a reconnect loop driven by hand


class Server:
    """Scripted answers: (status, content type, CE-Process-Id, body, broken,
    Retry-After) or an exception for no answer at all."""

    def __init__(self, script: list[Any]) -> None:
        self.script = list(script)
        self.requests: list[dw.Request] = []

    def send(self, request: dw.Request) -> Any:
        self.requests.append(request)
        answer = self.script.pop(0)
        if isinstance(answer, BaseException):
            raise answer
        return answer


def read_all(f: dw.Follower, server: Server, jitter: float = 0.0) -> tuple[Any, ...]:
    """The documented loop: returns the transcript, the sleeps and the end."""
    transcript = dw.Transcript()
    slept: list[float] = []
    hooks: list[dw.Reconnect] = []
    while True:
        request = f.request()
        try:
            status, content_type, proc_id, body, broken, retry_after = server.send(request)
        except ConnectionError as error:
            decision = f.no_response(str(error), jitter)
        else:
            f.open(status, content_type, proc_id, retry_after)
            for i in range(0, len(body), 7):
                f.feed_into(body[i : i + 7], transcript)
            events, decision = f.finish(broken, jitter)
            for event in events:
                transcript.push(event)
        if isinstance(decision, dw.Done):
            return transcript, slept, hooks, decision
        if isinstance(decision, dw.Reconnect):
            hooks.append(decision)
            slept.append(decision.delay_seconds)


def ok(body: bytes, *, broken: str | None = None, proc_id: str | None = "p1") -> tuple[Any, ...]:
    return (200, NDJSON, proc_id, body, broken, None)


def test_a_reconnect_loop_by_hand() -> None:
    server = Server(
        [
            ok(frame("stdout", "hel", 3) + b'{"type":"std', broken="connection reset"),
            ConnectionError("connection refused"),
            (503, "application/json", None, b'{"error":"busy"}', None, "1"),
            ok(frame("stdout", "hello", 5) + frame("stderr", "!", 1) + EXIT0),
        ]
    )
    f = follower(jitter=False)
    transcript, slept, hooks, done = read_all(f, server)
    assert transcript.bytes("stdout") == b"hello"
    assert transcript.bytes("stderr") == b"!"
    assert done == dw.Done(True, 0, False, dw.Cursor(5, 1), "p1")
    assert [r.target.split("?")[1] for r in server.requests] == [
        "stdout_offset=0&stderr_offset=0&follow=true",
        "stdout_offset=3&stderr_offset=0&follow=true",
        "stdout_offset=3&stderr_offset=0&follow=true",
        "stdout_offset=3&stderr_offset=0&follow=true",
    ]
    # Progress: at once; then the backoff doubles (250 ms, then 500 ms,
    # raised to the 1 s Retry-After).
    assert slept == [0.0, 0.25, 1.0]
    assert [(h.attempt, h.failures, h.reason) for h in hooks] == [
        (1, 0, "end_of_body"),
        (2, 1, "no_response"),
        (3, 2, "unavailable"),
    ]
    assert hooks[0].detail == "connection reset"
    assert hooks[1].detail == "connection refused"
    assert hooks[2].detail == "HTTP 503"
    assert f.attempts == 3


def test_a_spent_budget_is_stream_disconnected_then_resumed_elsewhere() -> None:
    server = Server([ok(frame("stdout", "ab", 2)), ok(b""), ok(b""), ok(b"")])
    f = follower(retries=2, backoff_seconds=0.1, max_backoff_seconds=0.15)
    with pytest.raises(dw.StreamDisconnected) as info:
        read_all(f, server, jitter=1.0)
    err = info.value
    assert (err.code, err.kind, err.reason, err.proc_id) == (
        "stream_disconnected",
        "transport",
        "end_of_body",
        "p1",
    )
    assert err.cursor == dw.Cursor(2, 0)
    assert (err.stdout_offset, err.stderr_offset) == (2, 0)
    assert "resume from stdout_offset 2, stderr_offset 0" in str(err)
    assert not isinstance(err, ValueError)
    assert f.state == "failed"
    # The read resumes from the saved state, in another follower.
    saved = f.resume_state().to_json()
    again = dw.Follower.resume("c1", saved)
    assert again.cursor == dw.Cursor(2, 0)
    transcript, _, _, done = read_all(again, Server([ok(frame("stdout", "abc", 3) + EXIT0)]))
    assert transcript.bytes("stdout") == b"c"
    assert done.exit_code == 0


def test_jitter_spreads_the_wait_over_its_upper_half() -> None:
    waits = []
    for jitter in (0.0, 0.5, 1.0):
        f = follower()
        f.request()
        decision = f.no_response("refused", jitter)
        assert isinstance(decision, dw.Reconnect)
        waits.append(decision.delay_seconds)
    assert waits == [0.125, 0.1875, 0.25]


def test_an_exec_stream_continues_on_its_process_output() -> None:
    server = Server(
        [
            ok(STARTED + frame("stdout", "hi", 2), broken="reset", proc_id=None),
            ok(frame("stdout", "hi!", 3) + EXIT0),
        ]
    )
    f = dw.Follower.exec_stream("c1", ["echo", "hi!"], timeout_seconds=30)
    transcript, slept, _, done = read_all(f, server)
    first, second = server.requests
    assert (first.method, first.path, first.idempotent) == ("POST", "/computers/c1/exec", False)
    assert json.loads(first.body or b"") == {"command": ["echo", "hi!"], "timeout_seconds": 30}
    assert (second.method, second.target) == (
        "GET",
        "/computers/c1/processes/p1/output?stdout_offset=2&stderr_offset=0&follow=true",
    )
    assert slept == [0.0]
    assert transcript.bytes("stdout") == b"hi!"
    assert done.proc_id == "p1"


def test_an_exec_without_a_key_is_never_sent_twice() -> None:
    f = dw.Follower.exec_stream("c1", "make")
    f.request()
    with pytest.raises(dw.StreamDisconnected) as info:
        f.no_response("connection reset")
    assert (info.value.reason, info.value.proc_id) == ("no_response", None)


def test_a_409_skipped_comes_from_finish_and_goes_into_the_transcript() -> None:
    f = follower(gap_policy="skip", jitter=False)
    f.request()
    f.open(409, "application/json")
    body = b'{"error":"output_gap","earliest_stdout_offset":5,"earliest_stderr_offset":0}'
    transcript = dw.Transcript()
    assert f.feed_into(body, transcript) == []
    events, decision = f.finish()
    assert events == [dw.Skipped("stdout", 0, 5)]
    assert isinstance(decision, dw.Reconnect)
    assert (decision.reason, decision.cursor, decision.delay_seconds) == (
        "gap",
        dw.Cursor(5, 0),
        0.0,
    )


def test_liveness_of_the_headers_and_of_the_body() -> None:
    f = follower(liveness_timeout_seconds=4)
    f.request()
    assert f.wait_limit_seconds() == 4.0
    assert not f.waited_seconds(3)
    assert f.wait_limit_seconds() == 1.0
    assert f.waited_seconds(1)
    decision = f.no_response()
    assert isinstance(decision, dw.Reconnect)
    assert decision.detail == "no headers within the liveness timeout"
    f.request()
    f.open(200, NDJSON)
    assert not f.waited_seconds(3)
    f.feed(b'{"type":"heartbeat"}\n{"type":"stdout","data":"x"')  # a frame, then part of one
    assert f.wait_limit_seconds() == 4.0  # the heartbeat restarts the clock
    assert not f.waited_seconds(3.5)
    assert f.wait_limit_seconds() == 0.5
    assert f.waited_seconds(0.5)
    _, decision = f.finish()
    assert isinstance(decision, dw.Reconnect)
    assert decision.reason == "stalled"


def test_a_finite_read_is_done_at_the_end_of_its_body() -> None:
    f = dw.Follower.setup_logs("c1", 4, follow=False)
    request = f.request()
    assert request.target == "/computers/c1/setup/logs?offset=4&follow=false"
    f.open(200, NDJSON)
    assert f.feed(frame("stdout", "ok\n", 7)) == [dw.Output("stdout", b"ok\n", 4, 7)]
    _, decision = f.finish()
    assert decision == dw.Done(False, None, False, dw.Cursor(7, 0), None)


# ---- Request


def test_request_builders() -> None:
    r = dw.Request.output("c 1", "p/2", {"stdout": 5}, follow=False)
    assert (r.method, r.path, r.wait, r.idempotent, r.body) == (
        "GET",
        "/computers/c%201/processes/p%2F2/output",
        "stream",
        True,
        None,
    )
    assert r.query == (("stdout_offset", "5"), ("stderr_offset", "0"), ("follow", "false"))
    assert r.target == r.path + "?stdout_offset=5&stderr_offset=0&follow=false"
    assert r.headers == (("Accept", NDJSON),)
    assert r.header("ACCEPT") == NDJSON
    assert r.header("Idempotency-Key") is None
    assert dw.Request.output("c", "p", None) == dw.Request.output("c", "p", dw.Cursor(), True)

    start = dw.Request.start("c1", "echo hi", 0.5, "key-1")
    assert (start.method, start.path, start.wait, start.idempotent) == (
        "POST",
        "/computers/c1/processes",
        "default",
        True,
    )
    assert start.body == b'{"command":"echo hi","timeout_seconds":0.5}'
    assert dict(start.headers) == {"Accept": "application/json", "Idempotency-Key": "key-1"}
    assert dw.Request.start("c1", ("echo", "hi")) == dw.Request.start("c1", ["echo", "hi"])

    sync = dw.Request.exec("c1", ["ls"])
    assert (sync.wait, sync.idempotent, sync.header("accept")) == (
        "unbounded",
        False,
        "application/json",
    )
    assert dw.Request.exec("c1", ["ls"], stream=True).wait == "stream"
    assert dw.Request.get_process("c1", "p1").target == "/computers/c1/processes/p1"
    kill = dw.Request.kill("c1", "p1")
    assert (kill.method, kill.path, kill.idempotent) == (
        "POST",
        "/computers/c1/processes/p1/kill",
        True,
    )
    assert dw.Request.setup_logs("c1").target == "/computers/c1/setup/logs?offset=0&follow=true"


def test_requests_are_frozen_values() -> None:
    a = dw.Request.start("c1", "ls", None, "k")
    b = dw.Request.start("c1", "ls", None, "k")
    assert a == b
    assert hash(a) == hash(b)
    assert a != dw.Request.start("c1", "ls")
    assert a != object()
    assert len({a, b}) == 1
    assert repr(a) == (
        "Request(method='POST', path='/computers/c1/processes', query=(), "
        "headers=(('Accept', 'application/json'), ('Idempotency-Key', 'k')), "
        "body=b'{\"command\":\"ls\"}', wait='default', idempotent=True)"
    )
    with pytest.raises(AttributeError):
        a.method = "GET"  # type: ignore[misc]
    with pytest.raises(TypeError):
        dw.Request()  # type: ignore[call-arg]


# ---- the decisions and the errors


DECISIONS: list[Any] = [
    dw.Done(True, 0, False, dw.Cursor(5, 1), "p1"),
    dw.Done(False, None, False, dw.Cursor(), None),
    dw.Reconnect(2, 1, "no_response", dw.Cursor(3, 0), 0.25, None, "connection refused"),
    dw.Continue(),
]


@pytest.mark.parametrize("value", DECISIONS, ids=lambda v: type(v).__name__)
def test_decisions_are_frozen_values(value: Any) -> None:
    namespace = {name: getattr(dw, name) for name in dw.__all__}
    again = eval(repr(value), namespace)
    assert again == value
    assert hash(again) == hash(value)
    assert value != object()
    for field in type(value).__match_args__:
        getattr(value, field)
    with pytest.raises(AttributeError):
        value.anything = 1


def test_decisions_match() -> None:
    assert dw.Done.__match_args__ == ("exited", "exit_code", "timed_out", "cursor", "proc_id")
    assert dw.Reconnect.__match_args__ == (
        "attempt",
        "failures",
        "reason",
        "cursor",
        "delay_seconds",
        "proc_id",
        "detail",
    )
    assert dw.Continue() != dw.Done(True, 0, False, dw.Cursor(), None)


def test_stream_disconnected_is_one_class() -> None:
    assert dory_wire.client.StreamDisconnected is dw.StreamDisconnected
    from dory_wire.client._errors import disconnected

    cause = ConnectionResetError("reset by peer")
    err = disconnected("stalled", dw.Cursor(1, 2), "p1", cause)
    assert type(err) is dw.StreamDisconnected
    assert (err.reason, err.cursor, err.proc_id, err.__cause__) == (
        "stalled",
        dw.Cursor(1, 2),
        "p1",
        cause,
    )
    assert (err.stdout_offset, err.stderr_offset) == (1, 2)
    copy = pickle.loads(pickle.dumps(err))
    assert (type(copy), copy.cursor, str(copy)) == (dw.StreamDisconnected, err.cursor, str(err))


# ---- the conversation runner can fail


def test_the_conversation_runner_finds_disagreements() -> None:
    vectors = {v["name"]: v for _, v in load_vectors() if v["kind"] == "conversation"}
    vector = json.loads(json.dumps(vectors["conversation-cut-mid-frame-overlap-trimmed"]))
    run = converse(vector, lambda n: [])
    assert conversation_problems(vector, run) == []
    vector["exchanges"][0]["request"]["target"] += "x"
    vector["exchanges"][0]["decision"]["delay_ms"] = 1
    vector["exchanges"][1]["decision"]["type"] = "reconnect"
    vector["expect"]["stdout"] = "nope"
    problems = conversation_problems(vector, run)
    assert [p.split(":")[0] for p in problems] == [
        "request 0",
        "decision 0",
        "decision 1",
        "the last decision must be done or error, not reconnect",
        "stdout",
    ]
