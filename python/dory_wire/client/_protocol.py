"""Conversions between the core's values and the client's, without I/O and
without decisions: the requests and what every answer means are the core's
(:class:`~dory_wire.Request`, :class:`~dory_wire.Follower`, the document
:class:`~dory_wire.Reader`); this module only names the client's argument
types and turns the core's results into what the client's calls return.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, Union

from .._core import (
    Continue,
    Disconnected,
    Document,
    Done,
    ExecResult,
    Exited,
    Identity,
    Reconnect,
    Request,
    _exec_answer,
    _identity_answer,
)
from .._stream import End, Event

__all__ = [
    "Command",
    "GapPolicy",
    "checked_computer_id",
    "end_of",
    "exec_result_of",
    "identity_of",
]

Command = Union[str, Sequence[str]]
"""A command: an argv list (run as is) or a shell line (run with ``sh -c``)."""

# (Unions of single literals: read alike by type checkers and mypy.stubtest.)
GapPolicy = Union[Literal["fail"], Literal["skip"]]
"""What to do when output is lost: raise ``OutputGap`` or skip it, reported."""


def checked_computer_id(computer_id: str) -> str:
    """``computer_id``, once the core accepts it as one (its request builder
    raises a ``TypeError`` or ``InvalidArgument`` naming ``computer_id``);
    builds a request to check it, sends none."""
    Request.setup_logs(computer_id)
    return computer_id


# -- JSON documents -------------------------------------------------------------


def identity_of(events: Sequence[Event]) -> Identity:
    """The identity the document answer carried: the core's rule (its
    ``UnexpectedFrame`` for any other answer)."""
    return _identity_answer(list(events))


def exec_result_of(events: Sequence[Event]) -> ExecResult | Identity:
    """A synchronous exec's answer: its result, or the identity of a keyed
    replay; the core's rule (its ``UnexpectedFrame`` for any other answer)."""
    return _exec_answer(list(events))


# -- decisions ----------------------------------------------------------------------


def end_of(decision: Done | Reconnect | Continue) -> End | None:
    """How the response behind the follower's ``decision`` ended, as the
    reader's :data:`~dory_wire.End` (an output stream's ``end``): ``Exited``
    for an exit; ``Disconnected`` for the end of a finite read
    (``"end_of_body"``) or a response cut short (the record's reason and
    cursor); ``Document`` for an answer that moved the read on (a keyed
    replay's identity); ``None`` when no body was read (no answer, a refusal)."""
    if isinstance(decision, Done):
        if decision.exited:
            return Exited(decision.exit_code, decision.timed_out)
        return Disconnected(decision.cursor, "end_of_body")
    if isinstance(decision, Reconnect):
        if decision.reason in ("end_of_body", "gap", "stalled"):
            return Disconnected(decision.cursor, decision.reason)
        return None
    return Document()
