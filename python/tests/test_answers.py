"""Protocol facts the clients take from the core, not re-derive: the wire's
form of output bytes, the cursor after an event, and what a document answer
means (the same wrong answer is the same error as in the JS and Rust
clients: code, frame_type, reason)."""

from __future__ import annotations

import base64
import json

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_client_fakes import BASE, JSON, Answer, FakeApi

from dory_wire import (
    Cursor,
    ExecResult,
    Exit,
    Heartbeat,
    Identity,
    Output,
    Skipped,
    UnexpectedFrame,
)
from dory_wire._core import _exec_answer, _identity_answer, _wire_form
from dory_wire.client import AsyncClient, Client, Frame

RESULT = {
    "proc_id": "p_1",
    "stdout": "hi\n",
    "stderr": "",
    "stdout_truncated": False,
    "stderr_truncated": False,
    "exit_code": 0,
    "timed_out": False,
}


def fields(error: UnexpectedFrame) -> tuple[str, int, str, str]:
    return (error.code, error.line, error.frame_type, error.reason)


# -- a frame's wire form ------------------------------------------------------------


def test_the_wire_form_is_the_cores_text_or_base64() -> None:
    assert _wire_form(b"h\xc3\xa9llo") == ("h\u00e9llo", "utf-8")
    assert _wire_form(b"hello\x00\xff") == ("aGVsbG8A/w==", "base64")
    assert _wire_form(b"") == ("", "utf-8")
    assert _wire_form(bytearray(b"\xc0\x80")) == ("wIA=", "base64")
    with pytest.raises(TypeError):
        _wire_form("text")  # type: ignore[arg-type]


@given(st.binary(max_size=64))
def test_the_wire_form_round_trips(data: bytes) -> None:
    text, encoding = _wire_form(data)
    back = text.encode() if encoding == "utf-8" else base64.b64decode(text, validate=True)
    assert back == data
    assert (encoding == "utf-8") == _is_utf8(data)


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def test_frames_without_output_have_no_encoding() -> None:
    output = Frame(Output("stdout", b"\xff", 0, 1))
    assert (output.data, output.encoding) == ("/w==", "base64")
    empty = Frame(Output("stdout", b"", 1, 1))
    assert (empty.data, empty.encoding) == ("", "utf-8")
    for event in (Heartbeat(), Exit(0, False), Skipped("stderr", 0, 5)):
        assert (Frame(event).data, Frame(event).encoding) == ("", None)


# -- the cursor after an event ----------------------------------------------------------


def test_the_cursor_after_an_event_is_the_cores() -> None:
    cursor = Cursor(3, 4)
    assert cursor.after(Output("stdout", b"ab", 3, 5)) == Cursor(5, 4)
    assert cursor.after(Skipped("stderr", 4, 90)) == Cursor(3, 90)
    assert cursor.after(Exit(0, False)) == cursor
    assert cursor.after(Identity("p_1", "running")) == cursor
    with pytest.raises(TypeError, match="after"):
        cursor.after("stdout")  # type: ignore[arg-type]


# -- what a document answer means ---------------------------------------------------------


def test_the_documents_of_an_answer() -> None:
    identity = Identity("p_1", "running")
    result = ExecResult("p_1", b"hi\n", b"", False, False, 0, False)
    assert _identity_answer([identity]) is identity
    assert _exec_answer([result]) is result
    assert _exec_answer([identity]) is identity
    with pytest.raises(UnexpectedFrame) as caught:
        _identity_answer([result])
    assert fields(caught.value) == (
        "unexpected_frame",
        0,
        "exec_result",
        "expected a process identity, got exec_result",
    )


def test_an_exec_answered_by_no_document_is_the_cores_unexpected_frame() -> None:
    # Over HTTP the reader refuses an answer without a document first; the
    # rule itself is the core's, the same in every client.
    with pytest.raises(UnexpectedFrame) as caught:
        _exec_answer([])
    assert fields(caught.value) == (
        "unexpected_frame",
        0,
        "none",
        "expected an exec result, got no document",
    )


def test_a_start_answered_by_an_exec_result_is_the_cores_unexpected_frame() -> None:
    api = FakeApi(Answer(content_type=JSON, pieces=[json.dumps(RESULT).encode()]))
    with (
        httpx.Client(transport=api.transport()) as http,
        Client(BASE, http_client=http) as client,
        pytest.raises(UnexpectedFrame) as caught,
    ):
        client.computers.get("c1").processes.start("echo hi")
    assert fields(caught.value) == (
        "unexpected_frame",
        0,
        "exec_result",
        "expected a process identity, got exec_result",
    )


@pytest.mark.anyio
async def test_an_async_exec_answered_by_an_identity_is_a_replay() -> None:
    body = json.dumps({"proc_id": "p_1", "status": "exited"}).encode()
    api = FakeApi(Answer(content_type=JSON, pieces=[body]))
    async with (
        httpx.AsyncClient(transport=api.transport()) as http,
        AsyncClient(BASE, http_client=http) as client,
    ):
        computer = client.computers.get("c1")
        answer = await computer.exec("true", idempotency_key="k")
    assert answer == Identity("p_1", "exited")
