"""The error that permits reconnecting: the core's :class:`StreamDisconnected`.

The class is the core package's own (``dory_wire.StreamDisconnected``, code
``"stream_disconnected"`` of the core's table), so ``except
dory_wire.StreamDisconnected`` catches what the client raises and what a
:class:`~dory_wire.Follower` raises alike; this module re-exports it and
keeps the client's helper that builds one from a transport error.
"""

from __future__ import annotations

from .._core import Cursor
from .._errors import DisconnectReason, StreamDisconnected

__all__ = ["DisconnectReason", "StreamDisconnected"]

_WHAT = {
    "end_of_body": "the response ended before exit",
    "gap": "a gap frame ended the response",
    "stalled": "no byte came within the liveness timeout",
    "no_response": "no response",
    "unavailable": "the service was unavailable",
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
        reason=reason,
        cursor=cursor,
        proc_id=proc_id,
    )
    err.__cause__ = cause
    return err
