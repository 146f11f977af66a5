# The source of _sync.py, the synchronous client: after a change here, run
# python3 scripts/unasync.py (`make test` fails until it is run).
"""The asyncio client: :class:`AsyncClient` and the handles it gives out.

It runs on any event loop httpx supports (asyncio or trio).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Mapping
from types import TracebackType
from typing import Literal, overload

import anyio
import httpx

from .._core import Cursor, ExecResult, Identity, Output, Reader, Skipped, Transcript
from .._errors import DoryWireError
from .._stream import End, Event
from ._errors import StreamDisconnected
from ._frames import Frame
from ._http import DEFAULT_TIMEOUT, Timeout, base_url_of, build, default_headers, timeout_of
from ._http import is_transport_error as _is_transport_error
from ._protocol import (
    Backoff,
    Command,
    GapPolicy,
    OutputResponse,
    RequestSpec,
    exec_request,
    exec_result_of,
    identity_of,
    identity_request,
    kill_request,
    output_request,
    setup_logs_request,
    start_request,
)

__all__ = [
    "AsyncClient",
    "AsyncComputer",
    "AsyncComputers",
    "AsyncOutputStream",
    "AsyncProcess",
    "AsyncProcesses",
    "AsyncSetup",
]

_CLOSED = "I/O operation on a closed output stream"


class AsyncOutputStream(AsyncIterator[Frame]):
    """The frames of one output response; iterate it once (``async for frame in stream``).

    The request is sent when iteration starts. Each :class:`Frame` is a core
    event; after it, :attr:`stdout_offset` and :attr:`stderr_offset` are the
    offsets consumed so far — save them to resume. The iteration ends after
    ``exit`` (or, for ``follow=False``, at the end of what exists now) and
    raises:

    - :class:`StreamDisconnected` when the response ends or breaks before
      ``exit`` (a cut body, a refused connection, a stall past the liveness
      timeout); it carries the cursor: read again from there;
    - the core's errors as they are, never retried: ``OutputGap``,
      ``OutputExpired``, ``OffsetBeyondOutput``, ``ApiError``, protocol errors.

    :meth:`aclose` (or leaving the ``async with`` block) closes the response
    only; the process keeps running.
    """

    def __init__(
        self, http: httpx.AsyncClient, request: httpx.Request, response: OutputResponse
    ) -> None:
        self._http = http
        self._request = request
        self._decoding = response
        self._response: httpx.Response | None = None
        self._chunks: AsyncIterator[bytes] | None = None
        self._opened = False
        self._pending: deque[Event] = deque()
        self._error: BaseException | None = None
        self._done = False
        self._closed = False
        cursor = response.reader.cursor
        self._stdout_offset = cursor.stdout
        self._stderr_offset = cursor.stderr

    # -- iteration ----------------------------------------------------------------

    def __aiter__(self) -> AsyncOutputStream:
        return self

    async def __anext__(self) -> Frame:
        while not self._pending:
            if not await self._pull():
                raise StopAsyncIteration
        event = self._pending.popleft()
        self._advance(event)
        return Frame(event)

    def _advance(self, event: Event) -> None:
        # An output or skipped event ends where its stream's consumed offset now is.
        if isinstance(event, (Output, Skipped)):
            if event.stream == "stdout":
                self._stdout_offset = event.end
            else:
                self._stderr_offset = event.end

    async def _pull(self) -> bool:
        """Moves the response on: events into the queue, or the end (false
        once there is nothing more)."""
        if self._error is not None:
            error, self._error = self._error, None
            raise error
        if self._closed:
            raise ValueError(_CLOSED)
        if self._done:
            return False
        if not self._opened:
            self._opened = True
            await self._open()
            return True
        chunks = self._chunks
        if chunks is None:  # pragma: no cover - closed streams stop above
            raise ValueError(_CLOSED)
        decoding = self._decoding
        if decoding.arm(time.monotonic()):
            await self._end(None)
            return True
        try:
            chunk = await chunks.__anext__()
        except StopAsyncIteration:
            await self._end(None)
            return True
        except httpx.ReadTimeout as exc:
            decoding.read_timed_out(time.monotonic())
            await self._end(exc)
            return True
        except Exception as exc:
            if not _is_transport_error(exc):
                await self.aclose()
                raise
            await self._end(exc)
            return True
        except BaseException:
            await self.aclose()
            raise
        try:
            self._pending.extend(decoding.feed(chunk))
        except DoryWireError:
            self._done = True
            await self._close_response()
            raise
        return True

    async def _open(self) -> None:
        try:
            response = await self._http.send(self._request, stream=True)
        except Exception as exc:
            if not _is_transport_error(exc):
                raise
            self._done = True
            self._error = self._decoding.no_response(exc)
            return
        self._response = response
        try:
            self._decoding.open(
                response.status_code,
                response.headers.get("content-type"),
                response.headers.get("ce-process-id"),
            )
        except BaseException:
            self._done = True
            await self._close_response()
            raise
        self._chunks = response.aiter_bytes()

    async def _end(self, transport_error: BaseException | None) -> None:
        self._done = True
        await self._close_response()
        events, self._error = self._decoding.close(transport_error)
        self._pending.extend(events)

    async def _drain(self) -> None:
        """Reads the whole response, discarding the events (the transcript
        of the response's reader has them)."""
        while await self._pull():
            self._pending.clear()

    # -- state ------------------------------------------------------------------------

    @property
    def stdout_offset(self) -> int:
        """The stdout offset consumed by the frames yielded so far."""
        return self._stdout_offset

    @property
    def stderr_offset(self) -> int:
        """The stderr offset consumed by the frames yielded so far."""
        return self._stderr_offset

    @property
    def cursor(self) -> Cursor:
        """Both consumed offsets as a :class:`~dory_wire.Cursor`."""
        return Cursor(self._stdout_offset, self._stderr_offset)

    @property
    def proc_id(self) -> str | None:
        """The process read from, or the one an exec stream announced."""
        return self._decoding.proc_id

    @property
    def end(self) -> End | None:
        """How the response ended (the core's ``Exited``, ``Disconnected`` or
        ``Document``), once it did; ``None`` before, or after an error."""
        return self._decoding.end

    # -- closing ------------------------------------------------------------------------

    async def aclose(self) -> None:
        """Closes the response (never the process). Idempotent."""
        self._closed = True
        self._pending.clear()
        self._error = None
        await self._close_response()

    async def _close_response(self) -> None:
        chunks, self._chunks = self._chunks, None
        close = getattr(chunks, "aclose", None)  # httpx's body iterator is an async generator
        if close is not None:
            await close()
        response, self._response = self._response, None
        if response is not None:
            await response.aclose()

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
            f"<AsyncOutputStream {self._request.method} {self._request.url.path} "
            f"stdout_offset={self._stdout_offset} stderr_offset={self._stderr_offset}>"
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
        liveness_timeout_seconds: how long an output stream may stay silent
            before it counts as stalled (default: the core's, 30 s, twice the
            heartbeat interval).
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
        """The computers: ``await client.computers.get(computer_id)``."""

    # -- plumbing shared by the handles ---------------------------------------------

    def _request(self, spec: RequestSpec, liveness: float | None = None) -> httpx.Request:
        request = build(self._http, self.base_url, spec, self._timeout, liveness)
        own = {name.lower() for name in spec.headers}
        request.headers.update({k: v for k, v in self._headers.items() if k.lower() not in own})
        return request

    async def _document(self, spec: RequestSpec) -> list[Event]:
        """Sends a request answered by one JSON document; its events."""
        reader = Reader("document", max_frame_bytes=self._max_frame_bytes)
        response = await self._http.send(self._request(spec), stream=True)
        try:
            reader.open(
                response.status_code,
                response.headers.get("content-type"),
                response.headers.get("ce-process-id"),
            )
            async for chunk in response.aiter_bytes():
                reader.feed(chunk)
        finally:
            await response.aclose()
        events, _end = reader.finish()
        return events

    def _stream(
        self,
        endpoint: Literal["exec", "process_output", "setup_logs"],
        spec: RequestSpec,
        cursor: Cursor,
        *,
        follow: bool,
        gap_policy: GapPolicy,
        liveness_timeout_seconds: float | None,
        transcript: Transcript | None = None,
        proc_id: str | None = None,
    ) -> AsyncOutputStream:
        liveness = (
            liveness_timeout_seconds if liveness_timeout_seconds is not None else self._liveness
        )
        response = OutputResponse(
            endpoint,
            cursor,
            follow=follow,
            gap_policy=gap_policy,
            max_frame_bytes=self._max_frame_bytes,
            liveness_timeout_seconds=liveness,
            transcript=transcript,
            proc_id=proc_id,
        )
        return AsyncOutputStream(self._http, self._request(spec, liveness), response)

    async def _follow(
        self,
        endpoint: Literal["process_output", "setup_logs"],
        spec_of: Callable[[Cursor], RequestSpec],
        cursor: Cursor,
        *,
        follow: bool,
        gap_policy: GapPolicy,
        retries: int,
        backoff_seconds: float,
        max_backoff_seconds: float,
        liveness_timeout_seconds: float | None,
        transcript: Transcript | None,
        proc_id: str | None = None,
    ) -> Transcript:
        """Reads output into a transcript, reconnecting from the cursor."""
        backoff = Backoff(retries, backoff_seconds, max_backoff_seconds)
        into = Transcript() if transcript is None else transcript
        while True:
            stream = self._stream(
                endpoint,
                spec_of(cursor),
                cursor,
                follow=follow,
                gap_policy=gap_policy,
                liveness_timeout_seconds=liveness_timeout_seconds,
                transcript=into,
                proc_id=proc_id,
            )
            try:
                await stream._drain()
            except StreamDisconnected as err:
                delay = backoff.delay(err.cursor != cursor)
                cursor = err.cursor
                if delay is None:
                    raise
            else:
                break
            finally:
                await stream.aclose()
            if delay:
                await anyio.sleep(delay)
        if into.exit is not None:
            into.finish()
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

    async def get(self, computer_id: str) -> AsyncComputer:
        """The computer ``computer_id``. Sends no request: errors (an unknown
        computer is a 404 ``ApiError``) come with the first call."""
        return AsyncComputer(self._client, computer_id)


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
        spec = exec_request(self.id, command, timeout_seconds, idempotency_key, stream=False)
        return exec_result_of(await self._client._document(spec))

    def exec_stream(
        self,
        command: Command,
        *,
        timeout_seconds: float | None = None,
        idempotency_key: str | None = None,
        gap_policy: GapPolicy = "fail",
        liveness_timeout_seconds: float | None = None,
    ) -> AsyncOutputStream:
        """Runs ``command`` and streams its frames: ``started`` (the process
        id, also :attr:`AsyncOutputStream.proc_id`), output, heartbeats, ``exit``.

        The command starts when iteration starts. If the stream breaks,
        :class:`StreamDisconnected` carries ``proc_id`` and the cursor: go on
        with :meth:`AsyncProcess.iter_output` from there (the process:
        ``processes.get(err.proc_id)``) — never exec again. A keyed replay
        yields one ``identity`` frame instead.
        """
        spec = exec_request(self.id, command, timeout_seconds, idempotency_key, stream=True)
        return self._client._stream(
            "exec",
            spec,
            Cursor(0, 0),
            follow=True,
            gap_policy=gap_policy,
            liveness_timeout_seconds=liveness_timeout_seconds,
        )

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
        spec = start_request(self._computer_id, command, timeout_seconds, idempotency_key)
        return identity_of(await self._client._document(spec))

    async def get(self, proc_id: str) -> AsyncProcess:
        """The process ``proc_id`` (asks for its identity: a 404 ``ApiError``
        when it is unknown)."""
        spec = identity_request(self._computer_id, proc_id)
        identity = identity_of(await self._client._document(spec))
        return AsyncProcess(self._client, self._computer_id, identity)

    async def kill(self, proc_id: str) -> Identity:
        """Kills the process (its whole process group); its identity after.
        Killing an exited process does nothing."""
        return identity_of(await self._client._document(kill_request(self._computer_id, proc_id)))


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
        follow: bool = True,
        gap_policy: GapPolicy = "fail",
        liveness_timeout_seconds: float | None = None,
    ) -> AsyncOutputStream: ...
    def iter_output(
        self,
        stdout_offset: int = 0,
        stderr_offset: int = 0,
        *,
        follow: bool = True,
        gap_policy: GapPolicy = "fail",
        liveness_timeout_seconds: float | None = None,
    ) -> AsyncOutputStream:
        """The retained output from these offsets, frame by frame (see
        :class:`AsyncOutputStream`): one connection, no reconnect.

        ``follow=True`` goes on with live output until ``exit``;
        ``follow=False`` reads what exists now and ends (with ``exit`` only if
        the process has exited). ``gap_policy="skip"`` turns lost output into
        ``skipped`` frames with the exact lost ranges instead of
        ``OutputGap``.
        """
        cursor = Cursor(stdout_offset, stderr_offset)
        return self._client._stream(
            "process_output",
            output_request(self._computer_id, self.proc_id, cursor, follow),
            cursor,
            follow=follow,
            gap_policy=gap_policy,
            liveness_timeout_seconds=liveness_timeout_seconds,
            proc_id=self.proc_id,
        )

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
        follow: bool = True,
        gap_policy: GapPolicy = "fail",
        retries: int = 5,
        backoff_seconds: float = 0.25,
        max_backoff_seconds: float = 5.0,
        liveness_timeout_seconds: float | None = None,
        transcript: Transcript | None = None,
    ) -> Transcript: ...
    async def read_output(
        self,
        stdout_offset: int = 0,
        stderr_offset: int = 0,
        *,
        follow: bool = True,
        gap_policy: GapPolicy = "fail",
        retries: int = 5,
        backoff_seconds: float = 0.25,
        max_backoff_seconds: float = 5.0,
        liveness_timeout_seconds: float | None = None,
        transcript: Transcript | None = None,
    ) -> Transcript:
        """The whole output from these offsets, reconnecting as needed.

        Follows the output; when the connection drops, reconnects from the
        consumed offsets (at once if it made progress; after ``retries``
        connections in a row without a new byte, with a doubling wait from
        ``backoff_seconds`` to ``max_backoff_seconds``, the last
        :class:`StreamDisconnected` is raised). Never starts anything again.

        Returns a :class:`~dory_wire.Transcript`: ``bytes(stream)``,
        ``text(stream)``, ``exit`` (``None`` if a ``follow=False`` read ended
        before the exit). Missing output raises ``OutputGap`` unless
        ``gap_policy="skip"``, which goes on and records the exact lost
        ranges in ``transcript.skipped(stream)``. ``OutputExpired`` and
        ``OffsetBeyondOutput`` are raised at once. Pass ``transcript`` to keep
        what was read when an error is raised.
        """
        return await self._client._follow(
            "process_output",
            lambda cursor: output_request(self._computer_id, self.proc_id, cursor, follow),
            Cursor(stdout_offset, stderr_offset),
            follow=follow,
            gap_policy=gap_policy,
            retries=retries,
            backoff_seconds=backoff_seconds,
            max_backoff_seconds=max_backoff_seconds,
            liveness_timeout_seconds=liveness_timeout_seconds,
            transcript=transcript,
            proc_id=self.proc_id,
        )

    async def kill(self) -> Identity:
        """Kills the process; its identity after."""
        spec = kill_request(self._computer_id, self.proc_id)
        return identity_of(await self._client._document(spec))

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
        """The setup logs from ``offset``, frame by frame; resume from the
        stream's ``stdout_offset``."""
        cursor = Cursor(offset, 0)
        return self._client._stream(
            "setup_logs",
            setup_logs_request(self._computer_id, cursor, follow),
            cursor,
            follow=follow,
            gap_policy=gap_policy,
            liveness_timeout_seconds=liveness_timeout_seconds,
        )

    async def read_logs(
        self,
        offset: int = 0,
        *,
        follow: bool = True,
        gap_policy: GapPolicy = "fail",
        retries: int = 5,
        backoff_seconds: float = 0.25,
        max_backoff_seconds: float = 5.0,
        liveness_timeout_seconds: float | None = None,
        transcript: Transcript | None = None,
    ) -> Transcript:
        """The whole setup log from ``offset`` (in ``transcript.bytes("stdout")``),
        reconnecting like :meth:`AsyncProcess.read_output`."""
        return await self._client._follow(
            "setup_logs",
            lambda cursor: setup_logs_request(self._computer_id, cursor, follow),
            Cursor(offset, 0),
            follow=follow,
            gap_policy=gap_policy,
            retries=retries,
            backoff_seconds=backoff_seconds,
            max_backoff_seconds=max_backoff_seconds,
            liveness_timeout_seconds=liveness_timeout_seconds,
            transcript=transcript,
        )
