"""What the client does with requests and responses, without doing any I/O.

The synchronous and the asyncio client share everything here; they only add
the sockets. Decoding is the core's: every response body goes through a
:class:`~dory_wire.Reader`, and this module only decides what its ends mean
for a connection (reconnect or not) — invariants:

- a body that ends or breaks before ``exit`` is a :class:`StreamDisconnected`
  carrying the reader's consumed cursor, unless it is the normal end of a
  ``follow=false`` read;
- the core's own errors (``OutputGap``, ``OutputExpired``,
  ``OffsetBeyondOutput``, ``ApiError``, protocol errors) are raised as they
  are, after the events that preceded them;
- a transport error never hides a core error already found in the bytes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Union
from urllib.parse import quote

from .._core import Cursor, Disconnected, ExecResult, Identity, Reader, Transcript
from .._errors import DoryWireError, UnexpectedFrame
from .._stream import End, Event
from ._errors import StreamDisconnected, disconnected

__all__ = [
    "Backoff",
    "Command",
    "GapPolicy",
    "OutputResponse",
    "RequestSpec",
    "exec_request",
    "exec_result_of",
    "identity_of",
    "identity_request",
    "kill_request",
    "output_request",
    "setup_logs_request",
    "start_request",
]

Command = Union[str, Sequence[str]]
"""A command: an argv list (run as is) or a shell line (run with ``sh -c``)."""

# (Unions of single literals: read alike by type checkers and mypy.stubtest.)
GapPolicy = Union[Literal["fail"], Literal["skip"]]
"""What to do when output is lost: raise ``OutputGap`` or skip it, reported."""


NDJSON = "application/x-ndjson"
JSON = "application/json"

Wait = Union[Literal["default"], Literal["stream"], Literal["unbounded"]]
"""How long to wait for a response: the client's timeouts, the output
stream's (read timeout = the liveness timeout) or no read timeout (a
synchronous exec waits for the process)."""


@dataclass(frozen=True)
class RequestSpec:
    """One HTTP request, independent of the HTTP library."""

    method: Literal["GET", "POST"]
    path: str
    params: Mapping[str, str] = field(default_factory=dict)
    headers: Mapping[str, str] = field(default_factory=dict)
    json: Any = None
    wait: Wait = "default"


def _segment(value: str) -> str:
    return quote(value, safe="")


def _computer(computer_id: str) -> str:
    return f"/computers/{_segment(computer_id)}"


def _start_body(command: Command, timeout_seconds: float | None) -> dict[str, Any]:
    body: dict[str, Any] = {"command": command if isinstance(command, str) else list(command)}
    if timeout_seconds is not None:
        body["timeout_seconds"] = timeout_seconds
    return body


def _key_header(idempotency_key: str | None) -> dict[str, str]:
    return {} if idempotency_key is None else {"Idempotency-Key": idempotency_key}


def start_request(
    computer_id: str, command: Command, timeout_seconds: float | None, idempotency_key: str | None
) -> RequestSpec:
    """``POST /computers/{id}/processes``: start in the background."""
    return RequestSpec(
        "POST",
        f"{_computer(computer_id)}/processes",
        headers={"Accept": JSON, **_key_header(idempotency_key)},
        json=_start_body(command, timeout_seconds),
    )


def exec_request(
    computer_id: str,
    command: Command,
    timeout_seconds: float | None,
    idempotency_key: str | None,
    *,
    stream: bool,
) -> RequestSpec:
    """``POST /computers/{id}/exec``, streaming (NDJSON) or synchronous (JSON)."""
    return RequestSpec(
        "POST",
        f"{_computer(computer_id)}/exec",
        headers={"Accept": NDJSON if stream else JSON, **_key_header(idempotency_key)},
        json=_start_body(command, timeout_seconds),
        wait="stream" if stream else "unbounded",
    )


def identity_request(computer_id: str, proc_id: str) -> RequestSpec:
    """``GET /computers/{id}/processes/{proc_id}``: the process's identity."""
    return RequestSpec(
        "GET", f"{_computer(computer_id)}/processes/{_segment(proc_id)}", headers={"Accept": JSON}
    )


def kill_request(computer_id: str, proc_id: str) -> RequestSpec:
    """``POST /computers/{id}/processes/{proc_id}/kill``."""
    return RequestSpec(
        "POST",
        f"{_computer(computer_id)}/processes/{_segment(proc_id)}/kill",
        headers={"Accept": JSON},
    )


def _flag(follow: bool) -> str:
    return "true" if follow else "false"


def output_request(computer_id: str, proc_id: str, cursor: Cursor, follow: bool) -> RequestSpec:
    """``GET .../processes/{proc_id}/output`` from the offsets of ``cursor``."""
    return RequestSpec(
        "GET",
        f"{_computer(computer_id)}/processes/{_segment(proc_id)}/output",
        params={
            "stdout_offset": str(cursor.stdout),
            "stderr_offset": str(cursor.stderr),
            "follow": _flag(follow),
        },
        headers={"Accept": NDJSON},
        wait="stream",
    )


def setup_logs_request(computer_id: str, cursor: Cursor, follow: bool) -> RequestSpec:
    """``GET /computers/{id}/setup/logs`` from ``cursor.stdout`` (one merged stream)."""
    return RequestSpec(
        "GET",
        f"{_computer(computer_id)}/setup/logs",
        params={"offset": str(cursor.stdout), "follow": _flag(follow)},
        headers={"Accept": NDJSON},
        wait="stream",
    )


# -- JSON documents -------------------------------------------------------------


def _document(events: Sequence[Event]) -> Identity | ExecResult | None:
    for event in events:
        if isinstance(event, (Identity, ExecResult)):
            return event
    return None


def _not_a(expected: str, got: object) -> UnexpectedFrame:
    found = "result" if isinstance(got, ExecResult) else "no document"
    reason = f"expected {expected}, got {found}"
    return UnexpectedFrame(
        f"unexpected_frame: {reason}", line=0, frame_type=found.replace(" ", "_"), reason=reason
    )


def identity_of(events: Sequence[Event]) -> Identity:
    """The identity the document answer carried (``UnexpectedFrame`` if not one)."""
    document = _document(events)
    if not isinstance(document, Identity):
        raise _not_a("a process identity", document)
    return document


def exec_result_of(events: Sequence[Event]) -> ExecResult | Identity:
    """A synchronous exec's answer: its result, or the identity of a keyed replay."""
    document = _document(events)
    if document is None:
        raise _not_a("an exec result", document)
    return document


# -- output responses -------------------------------------------------------------


class OutputResponse:
    """One NDJSON output response (exec stream, process output, setup logs)
    through one core :class:`~dory_wire.Reader`.

    Call :meth:`open` with the status and headers (or :meth:`no_response` if
    none came), :meth:`arm` before each read, :meth:`feed` with each chunk,
    :meth:`read_timed_out` when a read timed out, and :meth:`close` when the
    body ended, cleanly or not. With a ``transcript``, output goes straight
    into it (``Reader.feed_into``) and only the other events are returned.
    """

    def __init__(
        self,
        endpoint: Literal["exec", "process_output", "setup_logs"],
        cursor: Cursor,
        *,
        follow: bool,
        gap_policy: GapPolicy,
        max_frame_bytes: int | None,
        liveness_timeout_seconds: float | None,
        transcript: Transcript | None = None,
        proc_id: str | None = None,
    ) -> None:
        self._proc_id = proc_id
        self.reader = Reader(
            endpoint,
            cursor=cursor,
            gap_policy=gap_policy,
            max_frame_bytes=max_frame_bytes,
            liveness_timeout_seconds=liveness_timeout_seconds,
        )
        self.follow = follow
        self.transcript = transcript
        self.status = 0
        self.end: End | None = None

    @property
    def proc_id(self) -> str | None:
        """The process: as the response announced it, else as the caller knew it."""
        return self.reader.proc_id or self._proc_id

    def no_response(self, error: BaseException) -> StreamDisconnected:
        """The disconnect to raise when no response came at all."""
        return disconnected("no_response", self.reader.cursor, self.proc_id, error)

    def open(self, status: int, content_type: str | None, proc_id: str | None) -> None:
        """The response's status and headers (raises what the core finds wrong)."""
        self.status = status
        self.reader.open(status, content_type, proc_id)

    def arm(self, now: float) -> bool:
        """Before a read: arms (or restarts) the liveness clock at ``now``;
        true when the stream already stalled."""
        return self.reader.handle_timeout_seconds(now)

    def read_timed_out(self, now: float) -> bool:
        """A read waited the whole liveness timeout without a byte: true when
        the core agrees the stream stalled (then :meth:`close` ends it
        ``stalled``). The transport's timer may fire a little before the
        deadline on ``now``'s clock: having waited, the deadline counts as
        reached."""
        deadline = self.reader.poll_timeout_seconds()
        if deadline is None:
            return False
        return self.reader.handle_timeout_seconds(max(now, deadline))

    def feed(self, chunk: bytes) -> list[Event]:
        """A body chunk's events (raises the core's error when it decoded nothing)."""
        if self.transcript is not None:
            return self.reader.feed_into(chunk, self.transcript)
        return self.reader.feed(chunk)

    def close(
        self, transport_error: BaseException | None
    ) -> tuple[list[Event], BaseException | None]:
        """The body ended: cleanly (``transport_error`` is ``None``) or broken.

        Returns the last events and the exception to raise after them
        (``None`` when the response ended normally: ``exit``, a JSON
        document, or the end of a ``follow=false`` read). Sets :attr:`end`.
        """
        reader = self.reader
        already_failed = reader.state == "failed"
        if transport_error is not None and not already_failed and not 200 <= self.status < 300:
            # An error answer cut short: ask again rather than misread it.
            return [], self._disconnected("end_of_body", transport_error)
        try:
            events, end = reader.finish()
        except DoryWireError as err:
            events = list(err.events)
            self._record(events)
            if transport_error is not None and not already_failed:
                # A 2xx JSON document cut short: only the cut is wrong.
                return events, self._disconnected("end_of_body", transport_error)
            return events, err
        self._record(events)
        self.end = end
        if isinstance(end, Disconnected):
            if end.reason == "end_of_body" and transport_error is None and not self.follow:
                return events, None  # a finite read ends with what exists now
            return events, self._disconnected(end.reason, transport_error)
        return events, None

    def _record(self, events: list[Event]) -> None:
        if self.transcript is not None:
            for event in events:
                self.transcript.push(event)

    def _disconnected(
        self,
        reason: Literal["end_of_body", "gap", "stalled"],
        cause: BaseException | None,
    ) -> StreamDisconnected:
        return disconnected(reason, self.reader.cursor, self.proc_id, cause)


# -- reconnecting ---------------------------------------------------------------


class Backoff:
    """When to reconnect after a :class:`StreamDisconnected`.

    A connection that moved the cursor resets the budget and is followed at
    once; ``retries`` connections in a row that bring nothing new are
    allowed, waiting ``base_seconds`` then twice as long each time (at most
    ``max_seconds``).
    """

    def __init__(self, retries: int, base_seconds: float, max_seconds: float) -> None:
        if retries < 0:
            raise ValueError(f"retries must be >= 0, not {retries}")
        if base_seconds < 0 or max_seconds < 0:
            raise ValueError("backoff durations must be >= 0")
        self.retries = retries
        self.base_seconds = base_seconds
        self.max_seconds = max_seconds
        self.failures = 0

    def delay(self, progressed: bool) -> float | None:
        """Seconds to wait before reconnecting, or ``None`` when the budget is spent."""
        if progressed:
            self.failures = 0
            return 0.0
        self.failures += 1
        if self.failures > self.retries:
            return None
        return min(self.max_seconds, self.base_seconds * 2.0 ** (self.failures - 1))
