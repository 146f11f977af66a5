"""The error that permits reconnecting: the core's :class:`StreamDisconnected`.

The class is the core package's own (``dory_wire.StreamDisconnected``, code
``"stream_disconnected"`` of the core's table), so ``except
dory_wire.StreamDisconnected`` catches what the client raises and what a
:class:`~dory_wire.Follower` raises alike; this module re-exports it and
builds one from the follower's :class:`~dory_wire.Reconnect` record (a frame
iterator reads one response: where the follower would reconnect, it raises).
"""

from __future__ import annotations

from .._core import Cursor, Reconnect
from .._errors import DisconnectReason, StreamDisconnected

__all__ = ["DisconnectReason", "StreamDisconnected"]

# The core's words (DisconnectReason::describe): test_client_async.py checks
# that every reason's message is the one the core's follower gives.
_WHAT = {
    "end_of_body": "the response ended before exit",
    "gap": "a gap frame ended the response",
    "stalled": "no complete frame came within the liveness timeout",
    "no_response": "no response",
    "unavailable": "the service was unavailable",
}


def disconnected(
    reason: DisconnectReason,
    cursor: Cursor,
    proc_id: str | None,
    cause: BaseException | None,
    detail: str | None = None,
) -> StreamDisconnected:
    """A :class:`StreamDisconnected` with the core's message; ``detail`` (by
    default what ``cause`` says) in parentheses, and ``cause`` as its
    ``__cause__``."""
    if detail is None:
        detail = str(cause) if cause is not None else ""
    said = f" ({detail})" if detail else ""
    err = StreamDisconnected(
        f"stream_disconnected: {_WHAT[reason]}{said}; resume from "
        f"stdout_offset {cursor.stdout}, stderr_offset {cursor.stderr}",
        reason=reason,
        cursor=cursor,
        proc_id=proc_id,
    )
    err.__cause__ = cause
    return err


def from_reconnect(record: Reconnect, cause: BaseException | None) -> StreamDisconnected:
    """The :class:`StreamDisconnected` of a reconnect the follower decided
    (its reason, cursor, process and detail), caused by the transport's
    exception ``cause`` when there was one."""
    return disconnected(record.reason, record.cursor, record.proc_id, cause, record.detail)
