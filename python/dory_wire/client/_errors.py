"""The error that permits reconnecting: the core's :class:`StreamDisconnected`.

The class is the core package's own (``dory_wire.StreamDisconnected``, code
``"stream_disconnected"`` of the core's table), so ``except
dory_wire.StreamDisconnected`` catches what the client raises and what a
:class:`~dory_wire.Follower` raises alike; this module re-exports it and
builds one from the follower's :class:`~dory_wire.Reconnect` record (a frame
iterator reads one response: where the follower would reconnect, it raises).
"""

from __future__ import annotations

from .._core import Cursor, Reconnect, _stream_disconnected
from .._errors import DisconnectReason, StreamDisconnected

__all__ = ["DisconnectReason", "StreamDisconnected"]


def disconnected(
    reason: DisconnectReason,
    cursor: Cursor,
    proc_id: str | None,
    cause: BaseException | None,
    detail: str | None = None,
) -> StreamDisconnected:
    """The core's :class:`StreamDisconnected` (its message, built by the
    core); ``detail`` (by default what ``cause`` says) in parentheses, and
    ``cause`` as its ``__cause__``."""
    if detail is None:
        detail = str(cause) if cause is not None else ""
    err = _stream_disconnected(reason, cursor, proc_id, detail)
    err.__cause__ = cause
    return err


def from_reconnect(record: Reconnect, cause: BaseException | None) -> StreamDisconnected:
    """The :class:`StreamDisconnected` of a reconnect the follower decided
    (its reason, cursor, process and detail), caused by the transport's
    exception ``cause`` when there was one."""
    return disconnected(record.reason, record.cursor, record.proc_id, cause, record.detail)
