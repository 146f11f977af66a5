"""Frames: the core's events with the wire's field names.

An :class:`~dory_wire.client.OutputStream` yields one :class:`Frame` per event
of the core reader. Nothing is decoded here: the bytes are the core's, already
trimmed to what is new; ``data`` and ``encoding`` only re-express those exact
bytes the way the wire does (text when they are valid UTF-8, else base64),
computed on first access by the core's rule (``dory_wire._core._wire_form``).
"""

from __future__ import annotations

import builtins
from typing import Literal, Union

from .._core import (
    ExecResult,
    Exit,
    Heartbeat,
    Identity,
    Output,
    Skipped,
    Started,
    Unknown,
    _wire_form,
)
from .._stream import Event

__all__ = ["Frame", "FrameType"]

# Literal aliases are written as unions of single literals, which the type
# checkers and the stub check (mypy.stubtest) read the same way.
FrameType = Union[
    Literal["started"],
    Literal["stdout"],
    Literal["stderr"],
    Literal["heartbeat"],
    Literal["exit"],
    Literal["skipped"],
    Literal["unknown"],
    Literal["identity"],
    Literal["exec_result"],
]
"""The ``type`` of a :class:`Frame`: the wire's frame types, plus ``skipped``
(a range given up under the skip policy), ``unknown`` (a frame type no union
knows), ``identity`` and ``exec_result`` (a JSON document answer)."""

_StreamName = Union[Literal["stdout"], Literal["stderr"]]
_Encoding = Union[Literal["utf-8"], Literal["base64"]]


def _type_of(event: Event) -> FrameType:
    if isinstance(event, Output):
        return event.stream
    if isinstance(event, Heartbeat):
        return "heartbeat"
    if isinstance(event, Exit):
        return "exit"
    if isinstance(event, Skipped):
        return "skipped"
    if isinstance(event, Started):
        return "started"
    if isinstance(event, Identity):
        return "identity"
    if isinstance(event, ExecResult):
        return "exec_result"
    return "unknown"


class Frame:
    """One frame of an output stream, as the core delivered it.

    ``type`` says which; the fields that do not apply to a type are ``None``
    (``data`` is ``""`` and ``bytes`` is ``b""``). The core's event is
    :attr:`event`.

    For ``stdout`` / ``stderr`` frames:

    - :attr:`bytes` is the exact new output: the core trimmed what an earlier
      connection had already delivered, so a frame re-sent after a reconnect
      carries only the bytes not seen yet (and a frame with nothing new is not
      yielded at all);
    - :attr:`data` and :attr:`encoding` are those same bytes in the wire's
      form: the text with ``encoding == "utf-8"`` when they are valid UTF-8,
      else their padded standard base64 with ``encoding == "base64"``. So
      ``data.encode()`` or ``base64.b64decode(data)`` gives ``bytes`` back.
      The encoding describes this frame's bytes, not necessarily what the
      server sent: a trimmed chunk may start inside a character;
    - :attr:`offset` is the wire's ``offset``: the position in the stream's
      byte space at the *end* of the chunk. The chunk covers
      ``[offset - len(bytes), offset)`` (also :attr:`start`, :attr:`end`),
      and ``offset`` is the stream's consumed offset after this frame.
    """

    __slots__ = ("_data", "_encoding", "event", "type")

    type: FrameType
    event: Event

    def __init__(self, event: Event) -> None:
        self.event = event
        self.type = _type_of(event)
        self._data: str | None = None
        self._encoding: _Encoding | None = None

    # -- output ---------------------------------------------------------------

    @property
    def bytes(self) -> builtins.bytes:
        """The new output bytes of a ``stdout`` / ``stderr`` frame, else ``b""``."""
        event = self.event
        return event.data if isinstance(event, Output) else b""

    def _wire_form(self) -> tuple[str, _Encoding | None]:
        if self._data is None:
            event = self.event
            if not isinstance(event, Output):
                return "", None
            # The core's rule: the text when valid UTF-8, else base64.
            self._data, self._encoding = _wire_form(event.data)
        return self._data, self._encoding

    @property
    def data(self) -> str:
        """``bytes`` as the wire writes them: text or base64 (see
        :attr:`encoding`); ``""`` for frames without output."""
        return self._wire_form()[0]

    @property
    def encoding(self) -> _Encoding | None:
        """``"utf-8"`` or ``"base64"``: how :attr:`data` holds the bytes;
        ``None`` for frames without output."""
        return self._wire_form()[1]

    @property
    def offset(self) -> int | None:
        """The wire's ``offset`` of an output frame: the end of its chunk."""
        event = self.event
        return event.end if isinstance(event, Output) else None

    @property
    def stream(self) -> _StreamName | None:
        """``"stdout"`` or ``"stderr"`` for output and skipped frames."""
        event = self.event
        return event.stream if isinstance(event, (Output, Skipped)) else None

    @property
    def start(self) -> int | None:
        """Where the new bytes (or, for ``skipped``, the lost range) start."""
        event = self.event
        return event.start if isinstance(event, (Output, Skipped)) else None

    @property
    def end(self) -> int | None:
        """Where the new bytes (or, for ``skipped``, the lost range) end."""
        event = self.event
        return event.end if isinstance(event, (Output, Skipped)) else None

    # -- exit -------------------------------------------------------------------

    @property
    def exit_code(self) -> int | None:
        """The exit code of an ``exit`` (``None`` when killed or timed out)."""
        event = self.event
        return event.exit_code if isinstance(event, (Exit, ExecResult)) else None

    @property
    def timed_out(self) -> bool | None:
        """Whether the process hit its deadline (``exit`` frames)."""
        event = self.event
        return event.timed_out if isinstance(event, (Exit, ExecResult)) else None

    # -- identity -----------------------------------------------------------------

    @property
    def proc_id(self) -> str | None:
        """The process of a ``started``, ``identity`` or ``exec_result`` frame."""
        event = self.event
        if isinstance(event, (Started, Identity, ExecResult)):
            return event.proc_id
        return None

    @property
    def status(self) -> Literal["running", "exited"] | None:
        """The process status of an ``identity`` frame (a keyed replay)."""
        event = self.event
        return event.status if isinstance(event, Identity) else None

    @property
    def frame_type(self) -> str | None:
        """The wire's ``type`` of an ``unknown`` frame."""
        event = self.event
        return event.frame_type if isinstance(event, Unknown) else None

    def __repr__(self) -> str:
        if isinstance(self.event, Output):
            return (
                f"Frame(type={self.type!r}, data={self.data!r}, encoding={self.encoding!r}, "
                f"offset={self.offset!r})"
            )
        return f"Frame(type={self.type!r}, event={self.event!r})"
