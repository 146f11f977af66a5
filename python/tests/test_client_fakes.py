"""(No tests here.) A scripted Dory API on ``httpx.MockTransport`` for the client's unit tests.

Each test queues the answers of the next requests (status, headers, body
pieces, and how the body ends: cleanly, cut by a transport error, or not at
all); :class:`FakeApi` records every request it received.
"""

from __future__ import annotations

import base64
import json
import time
from collections import deque
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import Any

import anyio
import httpx

BASE = "http://dory.test"
NDJSON = "application/x-ndjson"
JSON = "application/json"


def out(stream: str, data: bytes, offset: int) -> dict[str, Any]:
    """An output frame as the server writes it: text when UTF-8, else base64."""
    try:
        return {"type": stream, "data": data.decode("utf-8"), "offset": offset}
    except UnicodeDecodeError:
        text = base64.b64encode(data).decode("ascii")
        return {"type": stream, "data": text, "encoding": "base64", "offset": offset}


def lines(*frames: dict[str, Any]) -> bytes:
    return b"".join(json.dumps(f).encode() + b"\n" for f in frames)


EXIT_0 = {"type": "exit", "exit_code": 0, "timed_out": False}


@dataclass
class Answer:
    """One scripted response.

    ``pieces`` are sent in order, each after ``delay`` seconds (a trickle);
    then the body ends cleanly, or with ``error`` raised by the transport (a
    cut body, a read timeout). With ``refuse`` set, the request itself fails
    with that error (no response).
    """

    status: int = 200
    content_type: str | None = NDJSON
    pieces: list[bytes] = field(default_factory=list)
    error: Exception | None = None
    refuse: Exception | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


class _Body(httpx.SyncByteStream, httpx.AsyncByteStream):
    def __init__(self, answer: Answer, api: FakeApi) -> None:
        self.answer = answer
        self.api = api

    def __iter__(self) -> Iterator[bytes]:
        for piece in self.answer.pieces:
            if self.answer.delay:
                time.sleep(self.answer.delay)
            yield piece
        if self.answer.error is not None:
            raise self.answer.error

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for piece in self.answer.pieces:
            if self.answer.delay:
                await anyio.sleep(self.answer.delay)
            yield piece
        if self.answer.error is not None:
            raise self.answer.error

    def close(self) -> None:
        self.api.closed += 1

    async def aclose(self) -> None:
        self.api.closed += 1


class FakeApi:
    """Answers requests from a queue; ``requests`` holds what was asked."""

    def __init__(self, *answers: Answer) -> None:
        self.answers: deque[Answer] = deque(answers)
        self.requests: list[httpx.Request] = []
        self.closed = 0

    def add(self, *answers: Answer) -> None:
        self.answers.extend(answers)

    def handle(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if not self.answers:
            raise AssertionError(f"unexpected request {request.method} {request.url}")
        answer = self.answers.popleft()
        if answer.refuse is not None:
            raise answer.refuse
        headers = dict(answer.headers)
        if answer.content_type is not None:
            headers["content-type"] = answer.content_type
        return httpx.Response(answer.status, headers=headers, stream=_Body(answer, self))

    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self.handle)

    def paths(self) -> list[str]:
        return [f"{r.method} {r.url.raw_path.split(b'?')[0].decode()}" for r in self.requests]

    def query(self, index: int) -> dict[str, str]:
        return dict(self.requests[index].url.params)


def identity(proc_id: str, status: str = "running") -> Answer:
    body = json.dumps({"proc_id": proc_id, "status": status}).encode()
    return Answer(content_type=JSON, pieces=[body])


def error(status: int, doc: dict[str, Any]) -> Answer:
    return Answer(status=status, content_type=JSON, pieces=[json.dumps(doc).encode()])


def cut(message: str = "peer closed connection without sending complete message body") -> Exception:
    return httpx.RemoteProtocolError(message)
