"""The exceptions raised by dory_wire.

Every exception is a :class:`DoryWireError` with a stable ``code`` string, the
same in Rust, Python and JavaScript. Fields are keyword arguments of the
constructors and attributes of the instances; ``str(error)`` is a complete
message.

Hierarchy::

    DoryWireError (Exception)
    ├── OutputGap                 code "output_gap"
    ├── OutputExpired             code "output_expired"
    ├── OffsetBeyondOutput        code "offset_beyond_output"
    ├── ApiError                  code "api_error"
    ├── ProtocolError             the stream itself is wrong
    │   ├── UnsupportedContentType    code "unsupported_content_type"
    │   ├── MalformedFrame            code "malformed_frame"
    │   ├── UnexpectedFrame           code "unexpected_frame"
    │   ├── IdentityMismatch          code "identity_mismatch"
    │   └── FrameTooLarge             code "frame_too_large"
    ├── InvalidLimits (also ValueError)   code "invalid_limits"
    └── InvalidState  (also ValueError)   code "invalid_state"

``InvalidState`` (the API used out of order: ``feed`` before ``open`` or after
``finish``, a bad resume state) subclasses ``ValueError`` like Python's own
"I/O operation on closed file".
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._core import Cursor

__all__ = [
    "ApiError",
    "DoryWireError",
    "FrameTooLarge",
    "IdentityMismatch",
    "InvalidLimits",
    "InvalidState",
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

    Attributes:
        code: the stable error code (``"output_gap"``, ``"malformed_frame"``, …).
        events: events decoded by the failing call that it could not return
            (only :meth:`OutputReader.finish` can have any; usually empty).
    """

    code: str = "dory_wire_error"
    events: tuple[Any, ...] = ()

    def __init__(
        self, text: str = "", /, *, code: str | None = None, events: tuple[Any, ...] = ()
    ) -> None:
        super().__init__(text)
        if code is not None:
            self.code = code
        if events:
            self.events = tuple(events)

    @property
    def is_protocol_error(self) -> bool:
        """True when the wire itself is wrong (a :class:`ProtocolError`)."""
        return isinstance(self, ProtocolError)


class OutputGap(DoryWireError):
    """Output that was asked for (or that the stream skipped over) is gone.

    Raised under ``gap_policy="fail"`` (the default) for a hole between
    frames, a ``gap`` frame or a 409 ``output_gap`` answer. To accept the
    loss, reconnect from ``earliest`` (or use ``gap_policy="skip"``).

    Attributes:
        stream: the first stream (``"stdout"`` before ``"stderr"``) that lost bytes.
        consumed: the offsets consumed when the gap was found.
        earliest: the earliest offsets still available.
    """

    code = "output_gap"

    def __init__(
        self,
        text: str = "",
        /,
        *,
        stream: str = "stdout",
        consumed: Cursor | None = None,
        earliest: Cursor | None = None,
        events: tuple[Any, ...] = (),
    ) -> None:
        super().__init__(text, events=events)
        self.stream = stream
        self.consumed = consumed
        self.earliest = earliest


class OutputExpired(DoryWireError):
    """410 ``output_expired``: the retained output is gone (an hour after exit).

    Terminal: retrying cannot help.

    Attributes:
        message: the server's message.
    """

    code = "output_expired"

    def __init__(
        self, text: str = "", /, *, message: str = "", events: tuple[Any, ...] = ()
    ) -> None:
        super().__init__(text, events=events)
        self.message = message


class OffsetBeyondOutput(DoryWireError):
    """400 ``offset_beyond_output``: the offsets asked for are beyond the output.

    A client bug (a cursor from another process?); never reset to zero.

    Attributes:
        message: the server's message.
    """

    code = "offset_beyond_output"

    def __init__(
        self, text: str = "", /, *, message: str = "", events: tuple[Any, ...] = ()
    ) -> None:
        super().__init__(text, events=events)
        self.message = message


class ApiError(DoryWireError):
    """Any other error answer from the API.

    Attributes:
        status: the HTTP status.
        api_code: the body's ``error`` string, or ``None`` when the body was
            not a JSON error document (e.g. a proxy's HTML page).
        message: the body's ``message``, or a description of the body.
    """

    code = "api_error"

    def __init__(
        self,
        text: str = "",
        /,
        *,
        status: int = 0,
        api_code: str | None = None,
        message: str = "",
        events: tuple[Any, ...] = (),
    ) -> None:
        super().__init__(text, events=events)
        self.status = status
        self.api_code = api_code
        self.message = message


class ProtocolError(DoryWireError):
    """The response violates the protocol; ``code`` tells how.

    One of :class:`UnsupportedContentType`, :class:`MalformedFrame`,
    :class:`UnexpectedFrame`, :class:`IdentityMismatch`,
    :class:`FrameTooLarge`.
    """

    code = "protocol_error"


class UnsupportedContentType(ProtocolError):
    """A 2xx answer whose Content-Type is neither NDJSON nor JSON.

    Attributes:
        content_type: the Content-Type as given (empty when absent).
    """

    code = "unsupported_content_type"

    def __init__(
        self, text: str = "", /, *, content_type: str = "", events: tuple[Any, ...] = ()
    ) -> None:
        super().__init__(text, events=events)
        self.content_type = content_type


class MalformedFrame(ProtocolError):
    """A line or document that is not a valid frame.

    Attributes:
        line: 1-based line number in the body (0 for a JSON document).
        reason: what was wrong.
    """

    code = "malformed_frame"

    def __init__(
        self, text: str = "", /, *, line: int = 0, reason: str = "", events: tuple[Any, ...] = ()
    ) -> None:
        super().__init__(text, events=events)
        self.line = line
        self.reason = reason


class UnexpectedFrame(ProtocolError):
    """A valid frame that may not appear here (e.g. after ``exit``).

    Attributes:
        line: 1-based line number in the body.
        frame_type: the frame's ``type``.
        reason: why it is unexpected here.
    """

    code = "unexpected_frame"

    def __init__(
        self,
        text: str = "",
        /,
        *,
        line: int = 0,
        frame_type: str = "",
        reason: str = "",
        events: tuple[Any, ...] = (),
    ) -> None:
        super().__init__(text, events=events)
        self.line = line
        self.frame_type = frame_type
        self.reason = reason


class IdentityMismatch(ProtocolError):
    """The stream announced another process than the one expected.

    Attributes:
        expected: the process id expected (header or resume state).
        found: the process id the body announced.
    """

    code = "identity_mismatch"

    def __init__(
        self,
        text: str = "",
        /,
        *,
        expected: str = "",
        found: str = "",
        events: tuple[Any, ...] = (),
    ) -> None:
        super().__init__(text, events=events)
        self.expected = expected
        self.found = found


class FrameTooLarge(ProtocolError):
    """A line (or JSON document) grew beyond ``max_frame_bytes``.

    Attributes:
        limit: the limit that was exceeded, in bytes.
    """

    code = "frame_too_large"

    def __init__(self, text: str = "", /, *, limit: int = 0, events: tuple[Any, ...] = ()) -> None:
        super().__init__(text, events=events)
        self.limit = limit


class InvalidLimits(DoryWireError, ValueError):
    """Preview limits too small to hold the notice, or otherwise unusable.

    Attributes:
        reason: which limit is wrong and why.
    """

    code = "invalid_limits"

    def __init__(
        self, text: str = "", /, *, reason: str = "", events: tuple[Any, ...] = ()
    ) -> None:
        super().__init__(text, events=events)
        self.reason = reason


class InvalidState(DoryWireError, ValueError):
    """The API was used out of order, or a resume state is invalid.

    E.g. ``feed`` before ``open``, ``feed`` or ``finish`` after ``finish``.

    Attributes:
        reason: what was done out of order.
    """

    code = "invalid_state"

    def __init__(
        self, text: str = "", /, *, reason: str = "", events: tuple[Any, ...] = ()
    ) -> None:
        super().__init__(text, events=events)
        self.reason = reason
