# The source of _sync.py, the synchronous client: after a change here, run
# python3 scripts/unasync.py (`make test` fails until it is run).
"""The asyncio client: :class:`AsyncClient` and the handles it gives out.

Every request is the core's (:class:`~dory_wire.Request`), and every read of
output is a core :class:`~dory_wire.Follower`: the follower says what to
send, what each answer means, when to reconnect, how long to wait and when
to give up; the client sends, reads, keeps the liveness clock and sleeps.

It runs on any event loop httpx supports (asyncio or trio).
"""

from __future__ import annotations

import contextlib
import random
import secrets
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Mapping
from types import TracebackType
from typing import TYPE_CHECKING, Any, Generic, Literal, Protocol, TypeVar, Union, overload

import anyio
import httpx

from .._core import (
    DEFAULT_BACKOFF_SECONDS,
    DEFAULT_LIVENESS_TIMEOUT_SECONDS,
    DEFAULT_MAX_BACKOFF_SECONDS,
    DEFAULT_RETRIES,
    DEFAULT_RUN_MAX_BYTES,
    DEFAULT_RUN_MAX_LINES,
    Continue,
    Cursor,
    Done,
    ExecResult,
    Follower,
    Identity,
    Reconnect,
    Request,
    Run,
    Transcript,
)
from .._errors import DoryWireError, NoAnswer
from .._preview import Keep
from .._stream import End, Event
from ._errors import StreamDisconnected, from_reconnect
from ._frames import Frame
from ._http import (
    DEFAULT_TIMEOUT,
    Timeout,
    base_url_of,
    build,
    default_headers,
    describe,
    never_connected,
    timeout_of,
)
from ._http import is_transport_error as _is_transport_error
from ._protocol import (
    Command,
    GapPolicy,
    checked_computer_id,
    end_of,
    exec_result_of,
    identity_of,
)
from ._run import AsyncShield, OnOutput, RunResult, RunSpill, _RunFiles, check_spill

if TYPE_CHECKING:
    from .._core import _RunStep

__all__ = [
    "AsyncClient",
    "AsyncComputer",
    "AsyncComputers",
    "AsyncOutputStream",
    "AsyncProcess",
    "AsyncProcesses",
    "AsyncSetup",
]

_READ_ONCE = "an output stream is read once: open another one from its offsets"
_CLOSED = "I/O operation on a closed output stream"

_Decision = Union[Done, Reconnect, Continue]
_Hook = Callable[[Reconnect], object]
"""A reconnect hook: called with the follower's record of each reconnect,
before the wait (what it returns is ignored; what it raises ends the read)."""


def _start(stdout_offset: int, stderr_offset: int, cursor: Cursor | None) -> Cursor:
    """Where a read starts: the wire's offsets, or the reader's own cursor
    (not both)."""
    if cursor is None:
        return Cursor(stdout_offset, stderr_offset)
    if stdout_offset or stderr_offset:
        raise TypeError("give the offsets or a cursor, not both")
    if not isinstance(cursor, Cursor):
        raise TypeError(f"cursor must be a Cursor, not {type(cursor).__name__}")
    return cursor


_Piece = TypeVar("_Piece")
_Outcome = TypeVar("_Outcome", covariant=True)


class _Machine(Protocol[_Piece, _Outcome]):
    """A sans-IO conversation of the core, driven alike whichever it is: a
    :class:`~dory_wire.Follower` (pieces: events; outcomes: decisions) or a
    :class:`~dory_wire.Run` (pieces: actions; outcomes: steps)."""

    def request(self) -> Request: ...
    def open(
        self,
        status: int,
        content_type: str | None = None,
        proc_id: str | None = None,
        retry_after: str | None = None,
    ) -> None: ...
    def feed(self, data: bytes) -> list[_Piece]: ...
    def finish(
        self, transport_error: str | None = None, jitter: float = 0.0
    ) -> tuple[list[_Piece], _Outcome]: ...
    def no_response(self, detail: str = "", jitter: float = 0.0) -> _Outcome: ...
    def not_connected(self, detail: str = "", jitter: float = 0.0) -> _Outcome: ...
    def wait_limit_seconds(self) -> float | None: ...
    def waited_seconds(self, elapsed: float) -> bool: ...


class AsyncExchange(Generic[_Piece, _Outcome]):
    """The I/O of one conversation of the core (a follower's or a run's):
    sends the request it gives with the client's transport, opens it with the
    answer's status and headers, feeds it the body piece by piece, keeps its
    wait clock (only the waits for the service count, never the consumer's
    time), and closes the response. What each answer means, what comes next
    and how long to wait are the machine's; what the pieces bring (events,
    actions) goes to ``deliver``, in order.
    """

    def __init__(
        self,
        client: AsyncClient,
        machine: _Machine[_Piece, _Outcome],
        liveness: float,
        deliver: Callable[[list[_Piece]], object],
    ) -> None:
        self._client = client
        self._machine = machine
        # The read timeout of a stream request (the core's clock decides).
        self._liveness = liveness
        self._deliver = deliver
        self._response: httpx.Response | None = None
        self._chunks: AsyncIterator[bytes] | None = None
        self._cause: BaseException | None = None

    async def _exchange(self) -> _Outcome | None:
        """One step of the conversation: sends the machine's next request,
        or reads one more piece of the answer. The machine's outcome once the
        answer ended (or none came), else ``None``. A core error closes the
        response; a ``StreamDisconnected`` or ``NoAnswer`` is caused by the
        transport's exception, when there was one."""
        step = self._send if self._response is None else self._pump
        try:
            return await step()
        except DoryWireError as error:
            await self._close_response()
            if isinstance(error, (StreamDisconnected, NoAnswer)) and error.__cause__ is None:
                error.__cause__ = self._cause
            raise

    async def _send(self) -> _Outcome | None:
        machine = self._machine
        request = self._client._build(machine.request(), self._liveness)
        self._cause = None
        limit = machine.wait_limit_seconds()
        began = time.monotonic()
        try:
            response = await self._client._http.send(request, stream=True)
        except Exception as exc:
            if not _is_transport_error(exc):
                raise
            self._cause = exc
            # A timeout of the transport waited its whole limit.
            waited = time.monotonic() - began
            if limit is not None and isinstance(exc, httpx.TimeoutException):
                waited = max(waited, limit)
            stalled = machine.waited_seconds(waited)
            if never_connected(exc):
                # The request never left: the core may send it again.
                return machine.not_connected(describe(exc, request), random.random())
            detail = "" if stalled else describe(exc, request)
            return machine.no_response(detail, random.random())
        self._response = response
        headers = response.headers
        machine.open(
            response.status_code,
            headers.get("content-type"),
            headers.get("ce-process-id"),
            headers.get("retry-after"),
        )
        self._chunks = response.aiter_bytes()
        return None

    async def _pump(self) -> _Outcome | None:
        machine = self._machine
        chunks = self._chunks
        if chunks is None:  # pragma: no cover - a response always has its chunks
            raise ValueError(_CLOSED)
        # The core's wait clock: only this wait counts, never the consumer's
        # time between pulls (docs/PROTOCOL.md, "The liveness clock").
        limit = machine.wait_limit_seconds()
        began = time.monotonic()
        try:
            chunk = await chunks.__anext__()
        except StopAsyncIteration:
            return await self._finish(None)
        except httpx.ReadTimeout as exc:
            # The socket waited at least the limit (its timer may fire a
            # little early on this clock): the core decides.
            waited = time.monotonic() - began
            stalled = machine.waited_seconds(waited if limit is None else max(waited, limit))
            return await self._finish(None if stalled else exc, cause=exc)
        except Exception as exc:
            if not _is_transport_error(exc):
                raise
            return await self._finish(exc)
        if machine.waited_seconds(time.monotonic() - began):
            # A trickle ran the clock out: this piece is read again from the
            # cursor by the next request, if the machine sends one.
            return await self._finish(None)
        self._feed(chunk)
        return None

    def _feed(self, chunk: bytes) -> None:
        self._deliver(self._machine.feed(chunk))

    async def _finish(
        self, transport_error: BaseException | None, *, cause: BaseException | None = None
    ) -> _Outcome:
        """The body ended (``transport_error``: how it broke): the machine's outcome."""
        self._cause = transport_error if cause is None else cause
        await self._close_response()
        detail = None if transport_error is None else describe(transport_error)
        try:
            pieces, outcome = self._machine.finish(detail, random.random())
        except DoryWireError as error:
            self._deliver(list(error.events))
            raise
        self._deliver(pieces)
        return outcome

    async def _close_response(self) -> None:
        chunks, self._chunks = self._chunks, None
        close = getattr(chunks, "aclose", None)  # httpx's body iterator is an async generator
        if close is not None:
            await close()
        response, self._response = self._response, None
        if response is not None:
            await response.aclose()


async def _wait(delay: float, record: Reconnect | None, hook: _Hook | None) -> None:
    """A wait the core decided: the reconnect hook with its record first,
    then the sleep."""
    if record is not None and hook is not None:
        hook(record)
    if delay > 0:
        await anyio.sleep(delay)


class AsyncOutputStream(AsyncExchange[Event, _Decision], AsyncIterator[Frame]):
    """The frames of a read; iterate it once (``async for frame in stream``).

    The first request is sent when iteration starts. Each :class:`Frame` is
    a core event; after it, :attr:`stdout_offset` and :attr:`stderr_offset`
    are the offsets consumed so far — save them to resume. The iteration
    ends after ``exit`` (or, for ``follow=False``, at the end of what exists
    now) and raises:

    - :class:`StreamDisconnected` when a response of
      :meth:`AsyncProcess.iter_output` or :meth:`AsyncSetup.iter_logs` (one
      response each) ends before ``exit`` (a cut body, a refused connection,
      a 503, a stall past the liveness timeout); it carries the cursor: read
      again from there. An exec stream instead follows its process as the
      core's follower decides, and raises it only when the follower gives
      up;
    - the core's errors as they are, never retried: ``OutputGap``,
      ``OutputExpired``, ``OffsetBeyondOutput``, ``ApiError``, protocol errors.

    :meth:`aclose` (or leaving the ``async with`` block) closes the response
    only; the process keeps running.
    """

    def __init__(
        self,
        client: AsyncClient,
        follower: Follower,
        *,
        reconnect: bool,
        on_reconnect: _Hook | None = None,
        transcript: Transcript | None = None,
    ) -> None:
        if on_reconnect is not None and not callable(on_reconnect):
            raise TypeError(f"on_reconnect must be a callable, not {type(on_reconnect).__name__}")
        super().__init__(
            client, follower, follower.options["liveness_timeout_seconds"], self._delivered
        )
        self._follower = follower
        self._reconnect = reconnect
        self._on_reconnect = on_reconnect
        # With a transcript, output goes straight into it (Follower.feed_into)
        # and no frame is queued: the one-call reads.
        self._transcript = transcript
        self._pending: deque[Event] = deque()
        self._error: BaseException | None = None
        self._end: End | None = None
        self._done = False
        self._closed = False
        self._iterated = False
        self._cursor = follower.cursor

    # -- iteration ----------------------------------------------------------------

    def __aiter__(self) -> AsyncOutputStream:
        # Read once, as in JavaScript: a second loop over a stream that has
        # ended would otherwise yield nothing, which reads like no output.
        if self._iterated:
            raise TypeError(_READ_ONCE)
        self._iterated = True
        return self

    async def __anext__(self) -> Frame:
        while not self._pending:
            if not await self._pull():
                raise StopAsyncIteration
        event = self._pending.popleft()
        # The offsets of the frames yielded, not of the chunk decoded.
        self._cursor = self._cursor.after(event) if self._pending else self._follower.cursor
        return Frame(event)

    async def _pull(self) -> bool:
        """One step of the read: false once there is nothing more. An error
        of the core comes after the events decoded before it."""
        if self._error is not None:
            error, self._error = self._error, None
            raise error
        if self._closed:
            raise ValueError(_CLOSED)
        if self._done:
            return False
        try:
            decision = await self._exchange()
            if decision is not None:
                await self._decided(decision)
        except DoryWireError as error:
            self._done = True
            await self._close_response()
            self._error = error
        except BaseException:
            await self.aclose()
            raise
        return True

    def _feed(self, chunk: bytes) -> None:
        if self._transcript is not None:
            self._follower.feed_into(chunk, self._transcript)
        else:
            self._pending.extend(self._follower.feed(chunk))

    def _delivered(self, events: list[Event]) -> None:
        if self._transcript is None:
            self._pending.extend(events)
        else:
            for event in events:
                self._transcript.push(event)

    async def _decided(self, decision: _Decision) -> None:
        self._end = end_of(decision)
        if isinstance(decision, Done):
            self._done = True
            if decision.exited and self._transcript is not None:
                self._transcript.finish()
        elif isinstance(decision, Reconnect):
            if not self._reconnect:
                raise from_reconnect(decision, self._cause)
            await _wait(decision.delay_seconds, decision, self._on_reconnect)
        # Continue: the next step sends the follower's next request.

    async def _drain(self) -> None:
        """Reads to the end (the transcript has every event)."""
        while await self._pull():
            pass

    # -- state ------------------------------------------------------------------------

    @property
    def stdout_offset(self) -> int:
        """The stdout offset consumed by the frames yielded so far."""
        return self._cursor.stdout

    @property
    def stderr_offset(self) -> int:
        """The stderr offset consumed by the frames yielded so far."""
        return self._cursor.stderr

    @property
    def cursor(self) -> Cursor:
        """Both consumed offsets as a :class:`~dory_wire.Cursor`."""
        return self._cursor

    @property
    def proc_id(self) -> str | None:
        """The process read from, or the one an exec stream announced."""
        return self._follower.proc_id

    @property
    def end(self) -> End | None:
        """How the last response ended (the core's ``Exited``,
        ``Disconnected`` or ``Document``), once it did; ``None`` before, when
        no answer came, or after an error."""
        return self._end

    # -- closing ------------------------------------------------------------------------

    async def aclose(self) -> None:
        """Closes the response (never the process). Idempotent."""
        self._closed = True
        self._pending.clear()
        self._error = None
        await self._close_response()

    async def __aenter__(self) -> AsyncOutputStream:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    def __repr__(self) -> str:
        return (
            f"<AsyncOutputStream proc_id={self.proc_id!r} "
            f"stdout_offset={self.stdout_offset} stderr_offset={self.stderr_offset}>"
        )


class AsyncClient:
    """An asynchronous client of the Dory API, on ``httpx.AsyncClient``.

    Arguments:
        base_url: the API's base URL; default: the ``DORY_URL`` environment
            variable.
        headers: headers sent with every request (e.g. ``Authorization``).
        timeout: connect, write and pool timeouts, and the read timeout of
            JSON answers (seconds or an ``httpx.Timeout``; default 30 s).
            Output streams read with the liveness timeout instead; a
            synchronous exec waits for the process.
        liveness_timeout_seconds: how long an output stream may go without a
            complete frame before it counts as stalled (default: the core's,
            30 s, twice the heartbeat interval).
        max_frame_bytes: the longest frame accepted (default: the core's).
        http_client: an ``httpx.AsyncClient`` to use instead of a new one (it
            is not closed by :meth:`aclose`).

    One client serves many streams at once. Use it as a context manager
    (``async with``), or call :meth:`aclose`.
    """

    def __init__(
        self,
        base_url: str | None = None,
        *,
        headers: Mapping[str, str] | None = None,
        timeout: Timeout = DEFAULT_TIMEOUT,
        liveness_timeout_seconds: float | None = None,
        max_frame_bytes: int | None = None,
        http_client: httpx.AsyncClient | None = None,
    ) -> None:
        self.base_url = base_url_of(base_url)
        self._timeout = timeout_of(timeout)
        self._liveness = liveness_timeout_seconds
        self._max_frame_bytes = max_frame_bytes
        self._owns_http = http_client is None
        self._http = http_client if http_client is not None else httpx.AsyncClient()
        self._headers = default_headers(headers)
        self.computers = AsyncComputers(self)
        """The computers: ``client.computers.get(computer_id)``."""

    # -- plumbing shared by the handles ---------------------------------------------

    def _build(self, request: Request, liveness: float | None = None) -> httpx.Request:
        return build(
            self._http,
            self.base_url,
            request,
            timeout=self._timeout,
            headers=self._headers,
            liveness_timeout_seconds=liveness,
        )

    def _options(self, liveness_timeout_seconds: float | None, **options: Any) -> dict[str, Any]:
        """A follower's options: the read's, and the client's liveness
        timeout and frame limit (the core's defaults where neither is set)."""
        liveness = (
            liveness_timeout_seconds if liveness_timeout_seconds is not None else self._liveness
        )
        if liveness is not None:
            options["liveness_timeout_seconds"] = liveness
        options["max_frame_bytes"] = self._max_frame_bytes
        return options

    def _answer_timeout(self) -> float | None:
        """How long each wait of a call's answer may last: the client's read
        timeout, else its liveness timeout (``None``: the core's default)."""
        return self._timeout.read if self._timeout.read is not None else self._liveness

    async def _document(self, request: Request) -> list[Event]:
        """Sends a request answered by one JSON document (the core's one-answer
        conversation: what is sent again, and when); its events."""
        # The client's answer timeout bounds each wait of a call.
        follower = Follower.call(request, **self._options(self._answer_timeout()))
        stream = AsyncOutputStream(self, follower, reconnect=True)
        events: list[Event] = []
        try:
            while await stream._pull():
                events.extend(stream._pending)
                stream._pending.clear()
        finally:
            await stream.aclose()
        return events

    async def _read(
        self, follower: Follower, transcript: Transcript | None, on_reconnect: _Hook | None
    ) -> Transcript:
        """Drives ``follower`` to its end, every byte into a transcript."""
        into = Transcript() if transcript is None else transcript
        stream = AsyncOutputStream(
            self, follower, reconnect=True, on_reconnect=on_reconnect, transcript=into
        )
        try:
            await stream._drain()
        finally:
            await stream.aclose()
        return into

    # -- lifecycle ----------------------------------------------------------------------

    async def aclose(self) -> None:
        """Closes the connection pool (unless it was given as ``http_client``)."""
        if self._owns_http:
            await self._http.aclose()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    def __repr__(self) -> str:
        return f"<AsyncClient {self.base_url}>"


class AsyncComputers:
    """The computers of the client (:attr:`AsyncClient.computers`)."""

    def __init__(self, client: AsyncClient) -> None:
        self._client = client

    def get(self, computer_id: str) -> AsyncComputer:
        """The computer ``computer_id``. Sends no request, so it is not a
        coroutine (as in the synchronous client and JavaScript): errors (an
        unknown computer is a 404 ``ApiError``) come with the first call; an
        id the core refuses raises here (``TypeError`` or ``InvalidArgument``)."""
        return AsyncComputer(self._client, checked_computer_id(computer_id))


class AsyncComputer:
    """One computer: its :attr:`processes`, :attr:`setup` logs and exec."""

    def __init__(self, client: AsyncClient, computer_id: str) -> None:
        self._client = client
        self.id = computer_id
        """The computer's id."""
        self.processes = AsyncProcesses(client, computer_id)
        """Start, find and kill processes."""
        self.setup = AsyncSetup(client, computer_id)
        """The setup command's logs."""

    async def exec(
        self,
        command: Command,
        *,
        timeout_seconds: float | None = None,
        idempotency_key: str | None = None,
    ) -> ExecResult | Identity:
        """Runs ``command`` and waits for its exit: the result (each stream
        cut at the server's limit, 1 MiB, flagged by ``*_truncated``).

        A keyed replay (an ``idempotency_key`` already used) starts nothing
        and answers the first process's :class:`~dory_wire.Identity`: read its
        output with :meth:`AsyncProcess.read_output` (the process:
        ``processes.get(identity.proc_id)``).
        """
        request = Request.exec(self.id, command, timeout_seconds, idempotency_key, stream=False)
        return exec_result_of(await self._client._document(request))

    def exec_stream(
        self,
        command: Command,
        *,
        timeout_seconds: float | None = None,
        idempotency_key: str | None = None,
        gap_policy: GapPolicy = "fail",
        retries: int = DEFAULT_RETRIES,
        backoff_seconds: float = DEFAULT_BACKOFF_SECONDS,
        max_backoff_seconds: float = DEFAULT_MAX_BACKOFF_SECONDS,
        jitter: bool = True,
        liveness_timeout_seconds: float | None = None,
        on_reconnect: Callable[[Reconnect], object] | None = None,
    ) -> AsyncOutputStream:
        """Runs ``command`` and streams its frames to its exit: ``started``
        (the process id, also :attr:`AsyncOutputStream.proc_id`), output,
        heartbeats, ``exit``.

        The command starts when iteration starts, and is never sent twice
        unless its ``idempotency_key`` makes that safe. The core's follower
        decides what a cut means: after the process was announced
        (``started`` or the ``CE-Process-Id`` header), the frames go on from
        the process's retained output at the consumed offsets, reconnecting
        like :meth:`AsyncProcess.read_output` (``on_reconnect`` is called with
        each :class:`~dory_wire.Reconnect` record); before, a keyed exec is
        sent again and one without a key raises :class:`StreamDisconnected`
        (``proc_id`` ``None``: nothing is known to read). A keyed replay
        answered by the first process's JSON identity yields one
        ``identity`` frame, then that process's output from the start.
        """
        follower = Follower.exec_stream(
            self.id,
            command,
            timeout_seconds=timeout_seconds,
            idempotency_key=idempotency_key,
            **self._client._options(
                liveness_timeout_seconds,
                gap_policy=gap_policy,
                retries=retries,
                backoff_seconds=backoff_seconds,
                max_backoff_seconds=max_backoff_seconds,
                jitter=jitter,
            ),
        )
        return AsyncOutputStream(self._client, follower, reconnect=True, on_reconnect=on_reconnect)

    async def run(
        self,
        command: Command,
        *,
        max_lines: int = DEFAULT_RUN_MAX_LINES,
        max_bytes: int = DEFAULT_RUN_MAX_BYTES,
        max_tokens: int | None = None,
        tokenizer: str | None = None,
        spill: RunSpill | None = None,
        idempotency_key: str | None = None,
        timeout_seconds: float | None = None,
        hint: str | None = None,
        on_output: OnOutput | None = None,
        kill_on_cancel: bool = False,
        keep: Keep = "defaults",
        terminal: bool = True,
        gap_policy: GapPolicy = "fail",
        retries: int = DEFAULT_RETRIES,
        backoff_seconds: float = DEFAULT_BACKOFF_SECONDS,
        max_backoff_seconds: float = DEFAULT_MAX_BACKOFF_SECONDS,
        jitter: bool = True,
        liveness_timeout_seconds: float | None = None,
        on_reconnect: Callable[[Reconnect], object] | None = None,
    ) -> RunResult:
        """Runs ``command`` and returns what an agent's model should see:
        bounded previews of stdout, of stderr and of both combined in arrival
        order (docs/run.md).

        The whole call is the core's :class:`~dory_wire.Run`: it says which
        request comes next, what each answer means, how long to wait, and
        what to do with the output; this call sends, reads, sleeps, and does
        what the run asks with ``spill`` and ``on_output``.

        1. Checks everything it can before any request: the limits
           (``max_lines >= 2``, ``max_bytes >= MIN_RUN_MAX_BYTES``, and
           ``max_tokens >= MIN_RUN_MAX_BYTES`` when set; ``tokenizer`` one
           of :data:`~dory_wire.TOKENIZERS`), the command, the key, the
           timeout and the follow options (the core's
           checks, the core's errors), and the shapes of ``spill``,
           ``on_output`` and ``on_reconnect``. Nothing is started when one
           fails.
        2. Starts the command as a background process with
           ``idempotency_key`` (default: a fresh ``"run-"`` + 32 hex digits),
           never with the truncating synchronous exec; a start whose answer
           was lost is sent again with its key (it starts nothing twice).
        3. Follows its output from offset 0 through reconnects (like
           :meth:`AsyncProcess.read_output`, with the same follow options;
           ``on_reconnect`` gets each :class:`~dory_wire.Reconnect` record
           before the wait); each new chunk goes, once, to the run's
           previews, to the spills of its stream and of the combined view
           (each opened with ``spill.open(spill_id)`` on the view's first
           byte), and to ``on_output(stream, data, text)`` (``text`` from one
           streaming UTF-8 decoder per stream; at the end, or at a lost
           range, a stream holding an incomplete character gets one more
           call with ``b""`` and its text). Memory stays in proportion to the
           limits, whatever the output's size.
        4. At the exit, each view that was cut has its spill committed and
           its notice names the path (with ``hint``); a view that fits has
           its spill discarded.

        ``keep`` and ``terminal`` are the previews' options of
        :func:`~dory_wire.bound`, on by default here: a model reads the
        previews, so the lines of a cut middle matching the default patterns
        (``DEFAULT_KEEP_PATTERNS``) are kept with their line numbers, and
        ``\\r`` redraws and escape sequences are rendered as a terminal shows
        them; the spill keeps the raw bytes, and line numbers are the raw
        bytes'. ``keep=None, terminal=False`` gives the raw text.

        ``max_tokens`` bounds each preview to that many tokens under
        ``tokenizer`` as well (``"o200k_base"`` when not named), notices
        included, as :func:`~dory_wire.bound` does; a ``tokenizer`` without
        ``max_tokens`` only counts. Each preview's ``tokens`` is its count
        (``None`` with neither).

        Calling it again with the same key re-attaches to the same process
        (the keyed start starts nothing) and returns an equal result: the
        spill ids are ``run_spill_id(key) + "-<view>"``.

        Spill failures never lose a preview: a writer that raises (``open``,
        ``write``, ``commit``) or whose ``commit`` returns no path gives that
        view a ``spill_error`` in the core's words, and nothing more is
        written to it. The writer is called synchronously, also here.

        Lost output raises ``OutputGap`` unless ``gap_policy="skip"``, which
        goes on and says the loss in each preview it belongs to (and in
        ``stdout_lost_bytes`` / ``stderr_lost_bytes``). The run's other
        errors (``NoAnswer`` for a start without an answer,
        ``StreamDisconnected`` after ``retries``, ``OutputExpired``,
        ``ApiError``, …) propagate; the open spill files are discarded.

        Cancellation closes the response, discards the spill files and, only
        with ``kill_on_cancel=True``, kills the process as the run says
        (shielded from the cancellation; cancelled while starting, the keyed
        start is sent again first to learn the process); a failed kill is
        not raised. The cancellation is re-raised, never a partial result.
        """
        options = self._client._options(
            liveness_timeout_seconds,
            gap_policy=gap_policy,
            retries=retries,
            backoff_seconds=backoff_seconds,
            max_backoff_seconds=max_backoff_seconds,
            jitter=jitter,
        )
        answer = self._client._answer_timeout()
        if answer is not None:
            options["answer_timeout_seconds"] = answer
        run = Run(
            self.id,
            command,
            random=secrets.token_bytes(16),
            max_lines=max_lines,
            max_bytes=max_bytes,
            max_tokens=max_tokens,
            tokenizer=tokenizer,
            idempotency_key=idempotency_key,
            timeout_seconds=timeout_seconds,
            hint=hint,
            kill_on_cancel=kill_on_cancel,
            spill=spill is not None,
            on_output=on_output is not None,
            keep=keep,
            terminal=terminal,
            **options,
        )
        checked_spill = check_spill(spill)
        for name, hook in (("on_output", on_output), ("on_reconnect", on_reconnect)):
            if hook is not None and not callable(hook):
                raise TypeError(f"{name} must be a callable, not {type(hook).__name__}")
        files = _RunFiles(run, checked_spill, on_output)
        liveness = options.get("liveness_timeout_seconds", DEFAULT_LIVENESS_TIMEOUT_SECONDS)
        exchange = AsyncExchange(self._client, run, liveness, files.do)
        try:
            step = await self._converse(exchange, on_reconnect)
        except BaseException as exc:
            await exchange._close_response()
            if not isinstance(exc, Exception):
                await self._cancelled(run, exchange, files)
            files.close()
            raise
        assert step[0] == "done"  # the commits were done with the last actions
        return RunResult(**run.result())

    @staticmethod
    async def _converse(
        exchange: AsyncExchange[Any, _RunStep],
        on_reconnect: _Hook | None,
    ) -> _RunStep:
        """Drives a run's conversation until it is done or cancelled: each
        request sent, each wait slept (the reconnect hook first)."""
        while True:
            step = await exchange._exchange()
            if step is None or step[0] == "send":
                continue
            if step[0] != "wait":
                return step
            await _wait(step[1], step[2], on_reconnect)

    @classmethod
    async def _cancelled(
        cls,
        run: Run,
        exchange: AsyncExchange[Any, _RunStep],
        files: _RunFiles,
    ) -> None:
        """A cancelled :meth:`run`: the run's discards, then, when it asks
        for one (``kill_on_cancel``), its kill conversation, shielded from the
        cancellation. A failure to kill is not raised: the cancellation is."""
        actions, step = run.cancel()
        files.do(actions)
        if step[0] == "send":
            with AsyncShield(), contextlib.suppress(Exception):
                await cls._converse(exchange, None)

    def __repr__(self) -> str:
        return f"<AsyncComputer {self.id!r}>"


class AsyncProcesses:
    """The processes of one computer."""

    def __init__(self, client: AsyncClient, computer_id: str) -> None:
        self._client = client
        self._computer_id = computer_id

    async def start(
        self,
        command: Command,
        *,
        timeout_seconds: float | None = None,
        idempotency_key: str | None = None,
    ) -> Identity:
        """Starts ``command`` in the background: its identity (``proc_id``,
        ``status``).

        ``timeout_seconds`` kills it at that deadline. With an
        ``idempotency_key`` already used, nothing starts: the answer is the
        first process's identity, so a start whose answer was lost can be
        sent again with the same key.
        """
        request = Request.start(self._computer_id, command, timeout_seconds, idempotency_key)
        return identity_of(await self._client._document(request))

    async def get(self, proc_id: str) -> AsyncProcess:
        """The process ``proc_id`` (asks for its identity: a 404 ``ApiError``
        when it is unknown)."""
        request = Request.get_process(self._computer_id, proc_id)
        identity = identity_of(await self._client._document(request))
        return AsyncProcess(self._client, self._computer_id, identity)

    async def kill(self, proc_id: str) -> Identity:
        """Kills the process (its whole process group); its identity after.
        Killing an exited process does nothing."""
        request = Request.kill(self._computer_id, proc_id)
        return identity_of(await self._client._document(request))


class AsyncProcess:
    """One process: read its retained output, kill it."""

    def __init__(self, client: AsyncClient, computer_id: str, identity: Identity) -> None:
        self._client = client
        self._computer_id = computer_id
        self.identity = identity
        """The identity answered by :meth:`AsyncProcesses.get`."""

    @property
    def proc_id(self) -> str:
        """The process id."""
        return self.identity.proc_id

    @property
    def status(self) -> Literal["running", "exited"]:
        """The status when the handle was made (``"running"`` or ``"exited"``)."""
        return self.identity.status

    # Only offsets: what saved offsets passed as ``**dict[str, int]`` match
    # (type checkers hold such a dict against every keyword parameter).
    @overload
    def iter_output(self, stdout_offset: int = 0, stderr_offset: int = 0) -> AsyncOutputStream: ...
    @overload
    def iter_output(
        self,
        stdout_offset: int = 0,
        stderr_offset: int = 0,
        *,
        cursor: Cursor | None = None,
        follow: bool = True,
        gap_policy: GapPolicy = "fail",
        liveness_timeout_seconds: float | None = None,
    ) -> AsyncOutputStream: ...
    def iter_output(
        self,
        stdout_offset: int = 0,
        stderr_offset: int = 0,
        *,
        cursor: Cursor | None = None,
        follow: bool = True,
        gap_policy: GapPolicy = "fail",
        liveness_timeout_seconds: float | None = None,
    ) -> AsyncOutputStream:
        """The retained output from these offsets, frame by frame (see
        :class:`AsyncOutputStream`): one response, no reconnect.

        ``follow=True`` goes on with live output until ``exit``;
        ``follow=False`` reads what exists now and ends (with ``exit`` only if
        the process has exited). ``gap_policy="skip"`` turns lost output into
        ``skipped`` frames with the exact lost ranges instead of
        ``OutputGap``.
        """
        follower = Follower.process_output(
            self._computer_id,
            self.proc_id,
            cursor=_start(stdout_offset, stderr_offset, cursor),
            **self._client._options(liveness_timeout_seconds, follow=follow, gap_policy=gap_policy),
        )
        return AsyncOutputStream(self._client, follower, reconnect=False)

    # Only offsets: what saved offsets passed as ``**dict[str, int]`` match
    # (type checkers hold such a dict against every keyword parameter).
    @overload
    async def read_output(self, stdout_offset: int = 0, stderr_offset: int = 0) -> Transcript: ...
    @overload
    async def read_output(
        self,
        stdout_offset: int = 0,
        stderr_offset: int = 0,
        *,
        cursor: Cursor | None = None,
        follow: bool = True,
        gap_policy: GapPolicy = "fail",
        retries: int = DEFAULT_RETRIES,
        backoff_seconds: float = DEFAULT_BACKOFF_SECONDS,
        max_backoff_seconds: float = DEFAULT_MAX_BACKOFF_SECONDS,
        jitter: bool = True,
        liveness_timeout_seconds: float | None = None,
        transcript: Transcript | None = None,
        on_reconnect: Callable[[Reconnect], object] | None = None,
    ) -> Transcript: ...
    async def read_output(
        self,
        stdout_offset: int = 0,
        stderr_offset: int = 0,
        *,
        cursor: Cursor | None = None,
        follow: bool = True,
        gap_policy: GapPolicy = "fail",
        retries: int = DEFAULT_RETRIES,
        backoff_seconds: float = DEFAULT_BACKOFF_SECONDS,
        max_backoff_seconds: float = DEFAULT_MAX_BACKOFF_SECONDS,
        jitter: bool = True,
        liveness_timeout_seconds: float | None = None,
        transcript: Transcript | None = None,
        on_reconnect: Callable[[Reconnect], object] | None = None,
    ) -> Transcript:
        """The whole output from these offsets, reconnecting as the core's
        follower decides.

        When a connection drops (or no answer comes, or a 503 / 429 refuses
        it), reconnects from the consumed offsets: at once if it made
        progress; else after a doubling wait from ``backoff_seconds`` to
        ``max_backoff_seconds`` (spread over its upper half when ``jitter``
        is on; a ``Retry-After`` honoured up to ``max_backoff_seconds``),
        until ``retries`` connections in a row brought nothing new — then
        :class:`StreamDisconnected` is raised. ``on_reconnect`` is called
        with each :class:`~dory_wire.Reconnect` record (attempt, reason,
        cursor, delay, …) before the wait. Never starts anything again.

        Returns a :class:`~dory_wire.Transcript`: ``bytes(stream)``,
        ``text(stream)``, ``exit`` (``None`` if a ``follow=False`` read ended
        before the exit). Missing output raises ``OutputGap`` unless
        ``gap_policy="skip"``, which goes on and records the exact lost
        ranges in ``transcript.skipped(stream)``. ``OutputExpired``,
        ``OffsetBeyondOutput`` and other error answers are raised at once.
        Pass ``transcript`` to keep what was read when an error is raised.
        """
        follower = Follower.process_output(
            self._computer_id,
            self.proc_id,
            cursor=_start(stdout_offset, stderr_offset, cursor),
            **self._client._options(
                liveness_timeout_seconds,
                follow=follow,
                gap_policy=gap_policy,
                retries=retries,
                backoff_seconds=backoff_seconds,
                max_backoff_seconds=max_backoff_seconds,
                jitter=jitter,
            ),
        )
        return await self._client._read(follower, transcript, on_reconnect)

    async def kill(self) -> Identity:
        """Kills the process; its identity after."""
        request = Request.kill(self._computer_id, self.proc_id)
        return identity_of(await self._client._document(request))

    def __repr__(self) -> str:
        return f"<AsyncProcess {self.proc_id!r} status={self.status!r}>"


class AsyncSetup:
    """The setup command's logs: one stream (stderr merged into stdout before
    offsets were assigned), reported as ``stdout`` frames with one offset."""

    def __init__(self, client: AsyncClient, computer_id: str) -> None:
        self._client = client
        self._computer_id = computer_id

    def iter_logs(
        self,
        offset: int = 0,
        *,
        follow: bool = True,
        gap_policy: GapPolicy = "fail",
        liveness_timeout_seconds: float | None = None,
    ) -> AsyncOutputStream:
        """The setup logs from ``offset``, frame by frame, one response;
        resume from the stream's ``stdout_offset``."""
        follower = Follower.setup_logs(
            self._computer_id,
            offset,
            **self._client._options(liveness_timeout_seconds, follow=follow, gap_policy=gap_policy),
        )
        return AsyncOutputStream(self._client, follower, reconnect=False)

    async def read_logs(
        self,
        offset: int = 0,
        *,
        follow: bool = True,
        gap_policy: GapPolicy = "fail",
        retries: int = DEFAULT_RETRIES,
        backoff_seconds: float = DEFAULT_BACKOFF_SECONDS,
        max_backoff_seconds: float = DEFAULT_MAX_BACKOFF_SECONDS,
        jitter: bool = True,
        liveness_timeout_seconds: float | None = None,
        transcript: Transcript | None = None,
        on_reconnect: Callable[[Reconnect], object] | None = None,
    ) -> Transcript:
        """The whole setup log from ``offset`` (in ``transcript.bytes("stdout")``),
        reconnecting like :meth:`AsyncProcess.read_output`."""
        follower = Follower.setup_logs(
            self._computer_id,
            offset,
            **self._client._options(
                liveness_timeout_seconds,
                follow=follow,
                gap_policy=gap_policy,
                retries=retries,
                backoff_seconds=backoff_seconds,
                max_backoff_seconds=max_backoff_seconds,
                jitter=jitter,
            ),
        )
        return await self._client._read(follower, transcript, on_reconnect)
