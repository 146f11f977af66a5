"""The exceptions raised by dory_wire.

The table of error codes is the Rust core's (:data:`ERROR_CODES`): each code
names its class, its kind and its fields. The classes are declared here with
their place in the hierarchy and the types of their fields, for type checkers
and readers; their ``code``, ``kind`` and ``fields`` come from the core's table
(the test suite checks that every code has its class, with those fields). The
native module picks the class by the core's class name and passes the core's
fields as keyword arguments.

Hierarchy::

    DoryWireError (Exception)
    ├── AnswerError               kind "answer": the server answered with an error
    │   ├── ApiError                  code "api_error"
    │   └── OffsetBeyondOutput        code "offset_beyond_output"
    ├── LossError                 kind "loss": output is gone
    │   ├── OutputGap                 code "output_gap"
    │   └── OutputExpired             code "output_expired"
    ├── ProtocolError             kind "protocol": the wire broke the protocol
    │   ├── UnsupportedContentType    code "unsupported_content_type"
    │   ├── MalformedFrame            code "malformed_frame"
    │   ├── UnexpectedFrame           code "unexpected_frame"
    │   ├── IdentityMismatch          code "identity_mismatch"
    │   └── FrameTooLarge             code "frame_too_large"
    ├── InvalidState (also ValueError)      code "invalid_state", kind "misuse"
    ├── InvalidArgument (also ValueError)   code "invalid_argument", kind "misuse"
    ├── InvalidLimits (also ValueError)     code "invalid_limits", kind "limits"
    ├── StreamDisconnected                  code "stream_disconnected", kind "transport":
    │                                       reconnect from its offsets
    └── NoAnswer                            code "no_answer", kind "transport": a start,
                                            get, kill or exec got no answer

``str(error)`` is the core's message, the same text in every language.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Literal, Union

from ._core import ERROR_CODES

if TYPE_CHECKING:
    from ._core import Cursor

__all__ = [
    "AnswerError",
    "ApiError",
    "DoryWireError",
    "FrameTooLarge",
    "IdentityMismatch",
    "InvalidArgument",
    "InvalidLimits",
    "InvalidState",
    "LossError",
    "MalformedFrame",
    "NoAnswer",
    "OffsetBeyondOutput",
    "OutputExpired",
    "OutputGap",
    "ProtocolError",
    "StreamDisconnected",
    "UnexpectedFrame",
    "UnsupportedContentType",
]

# (A union of single literals: read alike by type checkers and mypy.stubtest.)
DisconnectReason = Union[
    Literal["end_of_body"],
    Literal["gap"],
    Literal["stalled"],
    Literal["no_response"],
    Literal["not_connected"],
    Literal["unavailable"],
]
"""Why a connection ended before the output did (see :class:`StreamDisconnected`)."""


class DoryWireError(Exception):
    """Base class of every dory_wire error.

    The fields of an error's code are keyword arguments of its constructor
    (all required) and attributes of the instance.

    Attributes:
        code: the stable error code (``"output_gap"``, ``"malformed_frame"``, …).
        kind: ``"answer"``, ``"loss"``, ``"protocol"``, ``"misuse"``, ``"limits"``
            or ``"transport"``.
        fields: the names of the code's fields, as in the core's table.
        events: events decoded by the failing call that it could not return
            (only :meth:`Reader.finish` and :meth:`Follower.finish` can have
            any; usually empty).
    """

    code: ClassVar[str]
    kind: ClassVar[str]
    fields: ClassVar[tuple[str, ...]] = ()
    events: tuple[Any, ...]

    def __init__(self, message: str, /, *, events: tuple[Any, ...] = (), **fields: Any) -> None:
        super().__init__(message)
        wrong = sorted(set(fields) ^ set(self.fields))
        if wrong:
            raise TypeError(
                f"{type(self).__name__}() takes the fields {list(self.fields)}, not {wrong}"
            )
        self.__dict__.update(fields)
        self.events = tuple(events)

    def __reduce__(self) -> tuple[Any, ...]:
        # The keyword fields are not in ``args``: rebuild from the attributes.
        state = {name: getattr(self, name) for name in self.fields}
        return (_rebuild, (type(self), str(self), self.events, state))


def _rebuild(
    cls: type[DoryWireError], message: str, events: tuple[Any, ...], fields: dict[str, Any]
) -> DoryWireError:
    """Unpickles an error (see :meth:`DoryWireError.__reduce__`)."""
    return cls(message, events=events, **fields)


class AnswerError(DoryWireError):
    """The server answered with an error (kind ``"answer"``)."""

    kind = "answer"


class LossError(DoryWireError):
    """Output that was asked for is gone (kind ``"loss"``)."""

    kind = "loss"


class ProtocolError(DoryWireError):
    """The response violates the protocol (kind ``"protocol"``); ``code`` tells how."""

    kind = "protocol"


class ApiError(AnswerError):
    """Any other error answer from the API.

    Attributes:
        status: the HTTP status.
        api_code: the body's ``error`` string, or ``None`` when the body was
            not a JSON error document (e.g. a proxy's HTML page).
        server_message: the body's ``message``, or a description of the body.
    """

    status: int
    api_code: str | None
    server_message: str


class OffsetBeyondOutput(AnswerError):
    """400 ``offset_beyond_output``: the offsets asked for are beyond the output.

    A client bug (a cursor from another process?); never reset to zero.

    Attributes:
        server_message: the server's message.
    """

    server_message: str


class OutputGap(LossError):
    """Output that was asked for (or that the stream skipped over) is gone.

    Raised under ``gap_policy="fail"`` (the default) for a hole between
    frames, a ``gap`` frame or a 409 ``output_gap`` answer. To accept the
    loss, reconnect from ``earliest`` (or use ``gap_policy="skip"``).

    Attributes:
        stream: the first stream (``"stdout"`` before ``"stderr"``) that lost bytes.
        consumed: the offsets consumed when the gap was found.
        earliest: the earliest offsets still available.
    """

    stream: str
    consumed: Cursor
    earliest: Cursor


class OutputExpired(LossError):
    """410 ``output_expired``: the retained output is gone (an hour after exit).

    Terminal: retrying cannot help.

    Attributes:
        server_message: the server's message.
    """

    server_message: str


class UnsupportedContentType(ProtocolError):
    """A 2xx answer whose Content-Type is neither NDJSON nor JSON.

    Attributes:
        content_type: the Content-Type as given (empty when absent).
    """

    content_type: str


class MalformedFrame(ProtocolError):
    """A line or document that is not a valid frame.

    Attributes:
        line: 1-based line number in the body (0 for a JSON document).
        reason: what was wrong.
    """

    line: int
    reason: str


class UnexpectedFrame(ProtocolError):
    """A valid frame that may not appear here (e.g. after ``exit``).

    Attributes:
        line: 1-based line number in the body.
        frame_type: the frame's ``type``.
        reason: why it is unexpected here.
    """

    line: int
    frame_type: str
    reason: str


class IdentityMismatch(ProtocolError):
    """The stream announced another process than the one expected.

    Attributes:
        expected: the process id expected (header or resume state).
        found: the process id the body announced.
    """

    expected: str
    found: str


class FrameTooLarge(ProtocolError):
    """A line (or JSON document) grew beyond ``max_frame_bytes``.

    Attributes:
        limit: the limit that was exceeded, in bytes.
    """

    limit: int


class InvalidState(DoryWireError, ValueError):
    """The API was used out of order, or a resume state is invalid (kind ``"misuse"``).

    E.g. ``feed`` before ``open``, ``feed`` or ``finish`` after ``finish``:
    a ``ValueError`` like Python's own "I/O operation on closed file".

    Attributes:
        reason: what was done out of order.
    """

    reason: str


class InvalidArgument(DoryWireError, ValueError):
    """An argument a request or a follower cannot be built from (kind ``"misuse"``).

    E.g. an empty ``computer_id`` or command, a ``timeout_seconds`` that is
    not a positive number, an ``idempotency_key`` that cannot be a header
    value, a follow option out of range, a ``jitter`` outside ``[0, 1]``. A
    ``ValueError``; a wrong *type* is a ``TypeError`` instead.

    Attributes:
        argument: the argument, named as in the API (``"computer_id"``,
            ``"command"``, …; the same field in every language).
        reason: what is wrong with it.
    """

    argument: str
    reason: str


class InvalidLimits(DoryWireError, ValueError):
    """Preview limits too small to hold the notice, or otherwise unusable
    (kind ``"limits"``).

    Attributes:
        reason: which limit is wrong and why.
    """

    reason: str


class StreamDisconnected(DoryWireError):
    """A response ended before ``exit``: reconnect from :attr:`cursor`.

    The output is still there (the server retains it); only this connection
    is gone. Read it again with the same process's ``iter_output`` /
    ``read_output`` (or :meth:`Follower.resume`) from ``stdout_offset`` and
    ``stderr_offset``; never start the command again. The transport error
    behind it, if any (an ``httpx.RemoteProtocolError`` for a cut body, an
    ``httpx.ConnectError`` for a refused connection, …), is the exception's
    ``__cause__`` when the HTTP client raised it.

    Raised by :class:`Follower` when its reconnect budget is spent, or when
    an exec without an idempotency key broke before announcing its process
    (sending it again could run the command twice), and by the HTTP clients
    (``dory_wire.client``) when a stream ends early: code
    ``"stream_disconnected"``, kind ``"transport"`` (a connection, not the
    bytes, went wrong). The only error that permits reconnecting.

    Attributes:
        reason: ``"end_of_body"`` (the body ended or was cut before
            ``exit``), ``"gap"`` (a ``gap`` frame that, under the skip
            policy or losing nothing, only means "reconnect"), ``"stalled"``
            (no complete frame within the liveness timeout), ``"no_response"``
            (no answer at all: the connection reset or closed, a timeout
            before the headers), ``"not_connected"`` (the connection was
            never made: refused, the name lookup failed) or
            ``"unavailable"`` (a 503 or 429 refusal).
        cursor: the consumed offsets (a :class:`~dory_wire.Cursor`): where to
            resume from.
        proc_id: the process whose output was read, or the one an exec
            stream announced (``started`` or its header); ``None`` for setup
            logs and for an exec stream that broke before announcing it.
        detail: what the transport (or the refusal) said; ``""`` when
            nothing.
    """

    reason: DisconnectReason
    cursor: Cursor
    proc_id: str | None
    detail: str

    @property
    def stdout_offset(self) -> int:
        """The consumed stdout offset (``cursor.stdout``)."""
        return self.cursor.stdout

    @property
    def stderr_offset(self) -> int:
        """The consumed stderr offset (``cursor.stderr``)."""
        return self.cursor.stderr


class NoAnswer(DoryWireError):
    """A one-answer call (a start, a get, a kill, a synchronous exec) got no
    answer: the connection could not be made, was reset or cut, or nothing
    came within the liveness timeout; and the request may not be sent again
    (a start or exec without an idempotency key that may have reached the
    service: a second send could run the command twice) or its reconnect
    budget is spent.

    When ``reached`` is false no attempt ever connected: the request cannot
    have taken effect and may be sent again. Otherwise it may have taken
    effect: send a keyed start or exec again with the same key to learn its
    process; look an unkeyed one up before starting it again. Code ``"no_answer"``, kind
    ``"transport"``; the transport's own exception, when the HTTP client
    raised one, is the ``__cause__``.

    Attributes:
        reason: why the last attempt ended: ``"no_response"``,
            ``"not_connected"`` (the connection was never made),
            ``"end_of_body"`` (the answer was cut short), ``"stalled"`` (no
            answer within the liveness timeout) or ``"unavailable"``.
        method: ``"GET"`` or ``"POST"``.
        target: the request's path and query.
        attempts: how many times the request was sent (or tried, when it
            never connected).
        detail: what the transport said; ``""`` when nothing.
        reached: whether some attempt may have reached the service
            (``False``: every attempt failed to connect, so the request
            cannot have taken effect).
    """

    reason: DisconnectReason
    method: str
    target: str
    attempts: int
    detail: str
    reached: bool


def _from_the_table() -> None:
    """Gives each class its ``code``, ``kind`` and ``fields`` from the core's
    table (a code without a class here fails the test suite, not the import)."""
    for code, name, kind, fields in ERROR_CODES:
        cls = globals().get(name)
        if isinstance(cls, type) and issubclass(cls, DoryWireError):
            cls.code, cls.kind, cls.fields = code, kind, fields


_from_the_table()
