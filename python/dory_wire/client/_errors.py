"""The one error the client adds to the core's: the stream ended too early."""

from __future__ import annotations

from typing import Literal, Union

from .._core import Cursor
from .._errors import DoryWireError

__all__ = ["DisconnectReason", "StreamDisconnected"]

# (A union of single literals: read alike by type checkers and mypy.stubtest.)
DisconnectReason = Union[
    Literal["end_of_body"], Literal["gap"], Literal["stalled"], Literal["no_response"]
]
"""Why a stream ended without ``exit`` (see :class:`StreamDisconnected`)."""


class StreamDisconnected(DoryWireError):
    """A response ended before ``exit``: reconnect from :attr:`cursor`.

    The output is still there (the server retains it); only this connection
    is gone. Read it again with the same process's ``iter_output`` /
    ``read_output`` from ``stdout_offset`` and ``stderr_offset``; never start
    the command again. The transport error behind it, if any (an
    ``httpx.RemoteProtocolError`` for a cut body, an ``httpx.ConnectError``
    for a refused connection, …), is the exception's ``__cause__``.

    Unlike the core's errors this code is the client's own (the core sees
    bytes, not connections): code ``"stream_disconnected"``, kind
    ``"transport"``.

    Attributes:
        cursor: the consumed offsets (a :class:`~dory_wire.Cursor`): where to
            resume from.
        reason: ``"end_of_body"`` (the body ended or was cut before
            ``exit``), ``"gap"`` (a ``gap`` frame that, under the skip
            policy or losing nothing, only means "reconnect"), ``"stalled"``
            (no byte within the liveness timeout) or ``"no_response"`` (no
            answer at all: connection refused or reset, a timeout before the
            headers).
        proc_id: the process whose output was read, or the one an exec
            stream announced (``started`` or its header); ``None`` for setup
            logs and for an exec stream that broke before announcing it.
    """

    code = "stream_disconnected"
    kind = "transport"
    fields = ("cursor", "reason", "proc_id")
    cursor: Cursor
    reason: DisconnectReason
    proc_id: str | None

    @property
    def stdout_offset(self) -> int:
        """The consumed stdout offset (``cursor.stdout``)."""
        return self.cursor.stdout

    @property
    def stderr_offset(self) -> int:
        """The consumed stderr offset (``cursor.stderr``)."""
        return self.cursor.stderr


_WHAT = {
    "end_of_body": "the response ended before exit",
    "gap": "a gap frame ended the response",
    "stalled": "no byte came within the liveness timeout",
    "no_response": "no response",
}


def disconnected(
    reason: DisconnectReason, cursor: Cursor, proc_id: str | None, cause: BaseException | None
) -> StreamDisconnected:
    """A :class:`StreamDisconnected` caused by ``cause`` (the same message as
    the JavaScript client's)."""
    detail = f" ({cause})" if cause is not None and str(cause) else ""
    err = StreamDisconnected(
        f"stream_disconnected: {_WHAT[reason]}{detail}; resume from "
        f"stdout_offset {cursor.stdout}, stderr_offset {cursor.stderr}",
        cursor=cursor,
        reason=reason,
        proc_id=proc_id,
    )
    err.__cause__ = cause
    return err
