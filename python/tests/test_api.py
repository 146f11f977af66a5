"""The Python surface: value classes, cursors and resume states, errors,
the deferred-error rule, liveness, documentation."""

from __future__ import annotations

import inspect
import json
import pickle
import pydoc
import sys
import threading
from typing import Any

import pytest

import dory_wire as dw

NDJSON = "application/x-ndjson"


def frame(kind: str, data: str, offset: int) -> bytes:
    return f'{{"type":"{kind}","data":"{data}","offset":{offset}}}\n'.encode()


EXIT0 = b'{"type":"exit","exit_code":0,"timed_out":false}\n'

VALUES: list[Any] = [
    dw.Started("p_1"),
    dw.Output("stdout", b"\x00\xffhi", 3, 7),
    dw.Skipped("stderr", 5, 120),
    dw.Heartbeat(),
    dw.Exit(None, True),
    dw.Exit(-9, False),
    dw.Unknown("progress"),
    dw.Identity("p_1", "running"),
    dw.ExecResult("p_1", b"out", b"err", False, True, 0, False),
    dw.Cursor(5, 6),
    dw.Exited(0, False),
    dw.Disconnected(dw.Cursor(1, 2), "gap"),
    dw.Document(),
]


@pytest.mark.parametrize("value", VALUES, ids=lambda v: type(v).__name__)
def test_value_classes(value: Any) -> None:
    namespace = {name: getattr(dw, name) for name in dw.__all__}
    again = eval(repr(value), namespace)
    assert again == value
    assert hash(again) == hash(value)
    assert value != object()
    assert len({value, again}) == 1
    for field in type(value).__match_args__:
        getattr(value, field)
    with pytest.raises(AttributeError):
        value.anything = 1


def test_equality_is_by_value_and_type() -> None:
    assert dw.Output("stdout", b"a", 0, 1) != dw.Output("stdout", b"b", 0, 1)
    assert dw.Output("stdout", b"a", 0, 1) != dw.Output("stderr", b"a", 0, 1)
    assert dw.Exit(0, False) != dw.Exited(0, False)
    assert dw.Heartbeat() == dw.Heartbeat()


def test_match_args() -> None:
    assert dw.Output.__match_args__ == ("stream", "data", "start", "end")
    assert dw.Skipped.__match_args__ == ("stream", "start", "end")
    assert dw.Cursor.__match_args__ == ("stdout", "stderr")
    assert dw.Disconnected.__match_args__ == ("cursor", "reason")
    assert dw.Exited.__match_args__ == ("exit_code", "timed_out")
    assert dw.Document.__match_args__ == ()


def test_cursor_round_trips() -> None:
    cursor = dw.Cursor(stdout=2**64 - 1, stderr=7)
    assert dw.Cursor.from_json(cursor.to_json()) == cursor
    assert cursor.to_dict() == {"stdout": 2**64 - 1, "stderr": 7}
    assert pickle.loads(pickle.dumps(cursor)) == cursor
    assert dw.Cursor() == dw.Cursor(0, 0)
    reader = dw.Reader("process_output", cursor={"stderr": 4})
    assert reader.cursor == dw.Cursor(0, 4)
    assert dw.Reader("process_output", cursor=cursor).cursor == cursor


def test_resume_state_round_trip_and_resume() -> None:
    reader = dw.Reader("exec")
    reader.open(200, NDJSON, "p_1")
    events = reader.feed(b'{"type":"started","proc_id":"p_1"}\n' + frame("stdout", "hello", 5))
    assert events == [dw.Started("p_1"), dw.Output("stdout", b"hello", 0, 5)]
    assert reader.proc_id == "p_1"
    assert reader.finish() == ([], dw.Disconnected(dw.Cursor(5, 0), "end_of_body"))
    state = reader.resume_state()
    assert state.proc_id == "p_1"
    assert state.cursor == dw.Cursor(5, 0)
    assert not state.exit_seen
    assert dw.ResumeState.from_json(state.to_json()) == state
    assert "proc_id='p_1'" in repr(state)

    # Reconnect to process output from the saved state: overlap is trimmed.
    for saved in (state, state.to_json()):
        again = dw.Reader.resume("process_output", saved)
        again.open(200, NDJSON, "p_1")
        assert again.cursor == dw.Cursor(5, 0)
        got = again.feed(frame("stdout", "hello world", 11) + EXIT0)
        assert got == [dw.Output("stdout", b" world", 5, 11), dw.Exit(0, False)]
        assert again.finish() == ([], dw.Exited(0, False))
        assert again.resume_state().exit_seen


def test_resume_state_json_is_neutral_and_reads_the_older_key() -> None:
    old = (
        '{"version":1,"process_id":"p_1","cursor":{"stdout":3,"stderr":0},'
        '"exit_seen":false,"exit_code":null,"timed_out":false}'
    )
    state = dw.ResumeState.from_json(old)
    assert (state.proc_id, state.cursor) == ("p_1", dw.Cursor(3, 0))
    saved = json.loads(state.to_json())
    assert saved["proc_id"] == "p_1"
    assert "process_id" not in saved


def test_deferred_error_rule() -> None:
    reader = dw.Reader("process_output")
    reader.open(200, NDJSON)
    events = reader.feed(frame("stdout", "ok", 2) + b"not json\n" + frame("stdout", "x", 3))
    # The events before the error come back; the error waits for the next call.
    assert events == [dw.Output("stdout", b"ok", 0, 2)]
    assert reader.state == "failed"
    with pytest.raises(dw.MalformedFrame) as first:
        reader.feed(b"")
    assert first.value.line == 2
    assert first.value.code == "malformed_frame"
    assert first.value.kind == "protocol"
    assert isinstance(first.value, dw.ProtocolError)
    # Sticky: the same error again, from feed and finish.
    with pytest.raises(dw.MalformedFrame) as again:
        reader.finish()
    assert str(again.value) == str(first.value)
    assert reader.cursor == dw.Cursor(2, 0)


def test_error_without_events_raises_at_once() -> None:
    reader = dw.Reader("process_output")
    reader.open(200, NDJSON)
    with pytest.raises(dw.MalformedFrame):
        reader.feed(b"[]\n")


def test_output_gap_fields_and_pickle() -> None:
    reader = dw.Reader("process_output", cursor={"stdout": 3})
    reader.open(200, NDJSON)
    with pytest.raises(dw.OutputGap) as info:
        reader.feed(frame("stdout", "xy", 12))
    err = info.value
    assert err.code == "output_gap"
    assert err.stream == "stdout"
    assert err.consumed == dw.Cursor(3, 0)
    assert err.earliest == dw.Cursor(10, 0)
    assert "output_gap" in str(err)
    copy = pickle.loads(pickle.dumps(err))
    assert type(copy) is dw.OutputGap
    assert (copy.stream, copy.consumed, copy.earliest) == (err.stream, err.consumed, err.earliest)
    assert str(copy) == str(err)


def test_gap_skip_policy() -> None:
    reader = dw.Reader("process_output", gap_policy="skip")
    reader.open(200, NDJSON)
    assert reader.feed(frame("stdout", "xy", 12)) == [
        dw.Skipped("stdout", 0, 10),
        dw.Output("stdout", b"xy", 10, 12),
    ]


def test_api_error_fields() -> None:
    reader = dw.Reader("process_output")
    reader.open(404, "application/json")
    reader.feed(b'{"error":"process_not_found","message":"no such process"}')
    with pytest.raises(dw.ApiError) as info:
        reader.finish()
    err = info.value
    assert (err.status, err.api_code, err.server_message) == (
        404,
        "process_not_found",
        "no such process",
    )
    assert (err.code, err.kind) == ("api_error", "answer")
    assert isinstance(err, dw.AnswerError)


def test_expired_and_beyond_output() -> None:
    for status, body, cls, message in (
        (410, b'{"error":"output_expired","message":"gone"}', dw.OutputExpired, "gone"),
        (400, b'{"error":"offset_beyond_output","message":"far"}', dw.OffsetBeyondOutput, "far"),
    ):
        reader = dw.Reader("process_output")
        reader.open(status, "application/json")
        reader.feed(body)
        with pytest.raises(cls) as info:
            reader.finish()
        assert info.value.server_message == message


def test_unsupported_content_type_at_open() -> None:
    reader = dw.Reader("exec")
    with pytest.raises(dw.UnsupportedContentType) as info:
        reader.open(200, "text/html")
    assert info.value.content_type == "text/html"
    with pytest.raises(dw.UnsupportedContentType):
        dw.Reader("exec").open(200, None)


def test_document_event_comes_from_finish() -> None:
    reader = dw.Reader("document")
    reader.open(201, "application/json")
    assert reader.feed(b'{"proc_id":"p_9","status":"running"}') == []
    assert reader.finish() == ([dw.Identity("p_9", "running")], dw.Document())
    assert reader.proc_id == "p_9"


def test_byte_inputs_of_every_kind() -> None:
    body = frame("stdout", "abcdef", 6)
    for data in (body, bytearray(body), memoryview(body), memoryview(body + b"..")[: len(body)]):
        reader = dw.Reader("process_output")
        reader.open(200, NDJSON)
        assert reader.feed(data) == [dw.Output("stdout", b"abcdef", 0, 6)]
    # A strided view is copied in logical order.
    strided = memoryview(bytes(b for c in body for b in (c, 0)))[::2]
    reader = dw.Reader("process_output")
    reader.open(200, NDJSON)
    assert reader.feed(strided) == [dw.Output("stdout", b"abcdef", 0, 6)]


def test_large_feeds_in_threads() -> None:
    # Large chunks are decoded without the GIL: readers in threads must
    # still each see exactly their own stream.
    chunk = "x" * 1000
    body = b"".join(frame("stdout", chunk, 1000 * (i + 1)) for i in range(200)) + EXIT0
    results: dict[int, Any] = {}

    def run(n: int) -> None:
        reader = dw.Reader("process_output")
        reader.open(200, NDJSON)
        events = reader.feed(body)
        data = b"".join(e.data for e in events if isinstance(e, dw.Output))
        results[n] = (data, reader.finish())

    threads = [threading.Thread(target=run, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 4
    for data, end in results.values():
        assert data == chunk.encode() * 200
        assert end == ([], dw.Exited(0, False))


def test_liveness_on_a_caller_clock() -> None:
    reader = dw.Reader("process_output", liveness_timeout_seconds=5)
    reader.open(200, NDJSON)
    assert reader.poll_timeout_seconds() is None
    assert not reader.handle_timeout_seconds(100.0)  # arms the clock
    assert reader.poll_timeout_seconds() == pytest.approx(105.0)
    assert not reader.handle_timeout_seconds(104.0)
    reader.feed(b'{"type":"heartbeat"}\n')
    assert not reader.handle_timeout_seconds(104.5)  # bytes arrived: restart at 104.5
    assert reader.poll_timeout_seconds() == pytest.approx(109.5)
    assert reader.handle_timeout_seconds(109.5)
    events, end = reader.finish()
    assert events == []
    assert isinstance(end, dw.Disconnected)
    assert end.reason == "stalled"


def test_default_constants() -> None:
    assert dw.DEFAULT_MAX_FRAME_BYTES == 16 * 1024 * 1024
    assert dw.DEFAULT_LIVENESS_TIMEOUT_SECONDS == 30.0
    assert dw.MIN_MAX_BYTES >= 1


def test_max_frame_bytes() -> None:
    reader = dw.Reader("process_output", max_frame_bytes=10)
    reader.open(200, NDJSON)
    with pytest.raises(dw.FrameTooLarge) as info:
        reader.feed(b"x" * 11)
    assert info.value.limit == 10


def test_reader_repr_and_state() -> None:
    reader = dw.Reader("setup_logs")
    assert reader.state == "new"
    assert reader.endpoint == "setup_logs"
    assert repr(reader) == (
        "<Reader endpoint='setup_logs' state='new' cursor=Cursor(stdout=0, stderr=0)>"
    )
    reader.open(200, NDJSON)
    assert reader.state == "open"
    reader.finish()
    assert reader.state == "done"


def test_help_shows_real_docs() -> None:
    reader_doc = pydoc.render_doc(dw.Reader)
    assert "Decodes one HTTP response" in reader_doc
    assert "gap_policy='fail'" in reader_doc
    assert "handle_timeout_seconds" in reader_doc
    bound_doc = pydoc.render_doc(dw.bound)
    assert "max_lines" in bound_doc
    assert "spill" in bound_doc
    assert "notice" in bound_doc
    if sys.version_info >= (3, 10):  # abi3 classes carry no signature before 3.10
        signature = inspect.signature(dw.Reader)
        assert signature.parameters["gap_policy"].default == "fail"
        assert signature.parameters["cursor"].kind is inspect.Parameter.KEYWORD_ONLY


def test_every_public_name_is_documented() -> None:
    missing = []
    for name in dw.__all__:
        obj = getattr(dw, name)
        if not (inspect.isclass(obj) or inspect.isfunction(obj) or inspect.isbuiltin(obj)):
            continue
        if not (obj.__doc__ or "").strip():
            missing.append(name)
        if inspect.isclass(obj):
            for attr, member in vars(obj).items():
                if attr.startswith("_") or (
                    not callable(member)
                    and not isinstance(member, (property, type(dw.Cursor.stdout)))
                ):
                    continue
                if not (getattr(member, "__doc__", None) or "").strip():
                    missing.append(f"{name}.{attr}")
    assert not missing, f"undocumented: {missing}"


def test_transcript() -> None:
    transcript = dw.Transcript()
    for event in [
        dw.Started("p_1"),
        dw.Output("stdout", b"caf\xc3", 0, 4),
        dw.Heartbeat(),
        dw.Output("stdout", b"\xa9\n", 4, 6),
        dw.Skipped("stdout", 6, 10),
        dw.Output("stdout", b"end", 10, 13),
        dw.Output("stderr", b"\xff", 0, 1),
        dw.Exit(1, False),
    ]:
        transcript.push(event)
    assert transcript.bytes() == b"caf\xc3\xa9\nend"
    assert transcript.bytes("stderr") == b"\xff"
    assert transcript.skipped() == [(6, 10)]
    assert not transcript.is_complete()
    assert transcript.is_complete("stderr")
    assert transcript.text() == "café\n[dory-wire: bytes 6..10 were lost]\nend"
    assert transcript.text("stderr") == "\ufffd"
    assert transcript.exit == (1, False)
    with pytest.raises(ValueError, match="unknown stream"):
        transcript.text("stdin")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="'event' must be an event"):
        transcript.push(b"bytes")  # type: ignore[arg-type]


def test_transcript_finish_flushes_a_partial_character() -> None:
    transcript = dw.Transcript()
    transcript.push(dw.Output("stdout", b"ok \xe6\xbc", 0, 5))
    assert transcript.text() == "ok "
    transcript.finish()
    assert transcript.text() == "ok \ufffd"


def test_utf8_decoder() -> None:
    decoder = dw.Utf8Decoder()
    assert decoder.push(b"caf\xc3") == "caf"
    assert decoder.pending == 1
    assert decoder.push(bytearray(b"\xa9!")) == "é!"
    assert decoder.push(memoryview(b"\xf0\x9f")) == ""
    assert decoder.finish() == "\ufffd"
    assert decoder.pending == 0
    with pytest.raises(TypeError, match=r"push\(\) argument 'data'"):
        decoder.push("text")  # type: ignore[arg-type]


def test_docstring_examples() -> None:
    import doctest

    from dory_wire import _preview

    result = doctest.testmod(_preview, raise_on_error=False)
    assert result.attempted > 0
    assert result.failed == 0


def test_strict_mode_rejects_unknown_frames() -> None:
    body = b'{"type":"progress","percent":5}\n'
    lenient = dw.Reader("process_output")
    lenient.open(200, NDJSON)
    assert lenient.feed(body) == [dw.Unknown("progress")]
    strict = dw.Reader("process_output", strict=True)
    strict.open(200, NDJSON)
    with pytest.raises(dw.UnexpectedFrame) as info:
        strict.feed(body)
    assert info.value.frame_type == "progress"
    assert info.value.line == 1
