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
    ├── InvalidState (also ValueError)    code "invalid_state", kind "misuse"
    └── InvalidLimits (also ValueError)   code "invalid_limits", kind "limits"

``str(error)`` is the core's message, the same text in every language.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from ._core import ERROR_CODES

if TYPE_CHECKING:
    from ._core import Cursor

__all__ = [
    "AnswerError",
    "ApiError",
    "DoryWireError",
    "FrameTooLarge",
    "IdentityMismatch",
    "InvalidLimits",
    "InvalidState",
    "LossError",
    "MalformedFrame",
    "OffsetBeyondOutput",
    "OutputExpired",
    "OutputGap",
    "ProtocolError",
    "UnexpectedFrame",
    "UnsupportedContentType",
]


class DoryWireError(Exception):
    """Base class of every dory_wire error.

    The fields of an error's code are keyword arguments of its constructor
    (all required) and attributes of the instance.

    Attributes:
        code: the stable error code (``"output_gap"``, ``"malformed_frame"``, …).
        kind: ``"answer"``, ``"loss"``, ``"protocol"``, ``"misuse"`` or ``"limits"``.
        fields: the names of the code's fields, as in the core's table.
        events: events decoded by the failing call that it could not return
            (only :meth:`Reader.finish` can have any; usually empty).
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


class InvalidLimits(DoryWireError, ValueError):
    """Preview limits too small to hold the notice, or otherwise unusable
    (kind ``"limits"``).

    Attributes:
        reason: which limit is wrong and why.
    """

    reason: str


def _from_the_table() -> None:
    """Gives each class its ``code``, ``kind`` and ``fields`` from the core's
    table (a code without a class here fails the test suite, not the import)."""
    for code, name, kind, fields in ERROR_CODES:
        cls = globals().get(name)
        if isinstance(cls, type) and issubclass(cls, DoryWireError):
            cls.code, cls.kind, cls.fields = code, kind, fields


_from_the_table()
