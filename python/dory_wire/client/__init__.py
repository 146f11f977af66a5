"""dory_wire.client: a thin HTTP client of the Dory API that drives the core.

Install with ``pip install 'dory-wire[client]'`` (it needs ``httpx``). Every
request is the core's (:class:`~dory_wire.Request`) and every read of output
is a core :class:`~dory_wire.Follower` — decoding, offsets, trimming of
re-sent bytes, gap detection, identity checks, liveness, and when to
reconnect, how long to wait and when to give up — so the client adds
sockets, a clock and sleeps, and nothing else::

    from dory_wire.client import Client

    with Client() as client:  # base URL: DORY_URL
        computer = client.computers.get("c1")
        started = computer.processes.start(["make", "test"], idempotency_key="k1")
        process = computer.processes.get(started.proc_id)
        transcript = process.read_output()  # reconnects as the core decides
        print(transcript.text("stdout"), transcript.exit)

For an agent, one call runs a command, follows it exactly and hands back
bounded previews of stdout, stderr and both combined, each view saved in
full as it streams (docs/run.md)::

    from dory_wire.client import Client, SpillDirectory

    with Client() as client:
        computer = client.computers.get("c1")
        result = computer.run(["make", "test"], spill=SpillDirectory("/workspace/.tool-output"))
        print(result.exit_code, result.combined.text)

Or frame by frame, saving the offsets after each frame, with
:meth:`Process.iter_output`; a connection that ends before ``exit`` raises
:class:`StreamDisconnected` carrying the offsets to resume from.

Names:

- :class:`Client` / :class:`AsyncClient`, and the handles they give out:
  :class:`Computer`, :class:`Processes`, :class:`Process`, :class:`Setup`
  (``Async…`` for the asyncio client);
- :class:`OutputStream` / :class:`AsyncOutputStream` (one response's
  :class:`Frame` objects);
- :meth:`Computer.run` / :meth:`AsyncComputer.run`, its :class:`RunResult`,
  the spill writer's shape :class:`RunSpill` and, re-exported from
  :mod:`dory_wire`, :class:`SpillDirectory`;
- :class:`StreamDisconnected` (reconnect), :class:`NoAnswer` (a start, get,
  kill or exec that got no answer) and, re-exported from
  :mod:`dory_wire`, the core's errors (never retried) and values.
"""

from __future__ import annotations

try:
    import httpx as _httpx  # noqa: F401
except ImportError:  # pragma: no cover - depends on the environment
    raise ImportError("dory_wire.client needs httpx: pip install 'dory-wire[client]'") from None

from .._core import Cursor, ExecResult, Identity, Transcript
from .._errors import (
    AnswerError,
    ApiError,
    DoryWireError,
    LossError,
    NoAnswer,
    OffsetBeyondOutput,
    OutputExpired,
    OutputGap,
    ProtocolError,
)
from .._preview import SpillDirectory
from ._async import (
    AsyncClient,
    AsyncComputer,
    AsyncComputers,
    AsyncOutputStream,
    AsyncProcess,
    AsyncProcesses,
    AsyncSetup,
)
from ._errors import DisconnectReason, StreamDisconnected
from ._frames import Frame, FrameType
from ._protocol import Command, GapPolicy
from ._run import RunResult, RunSpill
from ._sync import Client, Computer, Computers, OutputStream, Process, Processes, Setup

__all__ = [
    "AnswerError",
    "ApiError",
    "AsyncClient",
    "AsyncComputer",
    "AsyncComputers",
    "AsyncOutputStream",
    "AsyncProcess",
    "AsyncProcesses",
    "AsyncSetup",
    "Client",
    "Command",
    "Computer",
    "Computers",
    "Cursor",
    "DisconnectReason",
    "DoryWireError",
    "ExecResult",
    "Frame",
    "FrameType",
    "GapPolicy",
    "Identity",
    "LossError",
    "NoAnswer",
    "OffsetBeyondOutput",
    "OutputExpired",
    "OutputGap",
    "OutputStream",
    "Process",
    "Processes",
    "ProtocolError",
    "RunResult",
    "RunSpill",
    "Setup",
    "SpillDirectory",
    "StreamDisconnected",
    "Transcript",
]
