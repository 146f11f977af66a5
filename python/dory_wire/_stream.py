"""Drive a :class:`Reader` from an iterable of body chunks.

Works with any HTTP client: ``httpx`` (``response.iter_bytes()`` /
``response.aiter_bytes()``), ``aiohttp`` (``response.content.iter_chunked(n)``),
``urllib3`` (``response.stream(n)``), ``requests``
(``response.iter_content(None)``) or a plain list of ``bytes``.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Iterable, Iterator
from typing import TYPE_CHECKING, Union

from ._core import (
    Disconnected,
    Document,
    ExecResult,
    Exit,
    Exited,
    Heartbeat,
    Identity,
    Output,
    Skipped,
    Started,
    Unknown,
)

if TYPE_CHECKING:
    from ._core import Reader

Event = Union[Started, Output, Skipped, Heartbeat, Exit, Unknown, Identity, ExecResult]
"""Any event a :class:`Reader` yields."""

End = Union[Exited, Disconnected, Document]
"""How a response ended: what :meth:`Reader.finish` returns."""

__all__ = ["AsyncEventIterator", "End", "Event", "EventIterator", "aiter_events", "iter_events"]

Chunk = Union[bytes, bytearray, memoryview]
"""A body chunk: what :meth:`Reader.feed` accepts."""

_NOT_DONE = "the events are not exhausted yet: iterate to the end first"


class _BodyEvents:
    """What both iterators share: the reader, the events decoded and not yet
    yielded, and the end once the body is over."""

    def __init__(self, reader: Reader) -> None:
        self._reader = reader
        self._pending: deque[Event] = deque()
        self._end: End | None = None
        self._done = False

    def _take(self, chunk: Chunk | None) -> None:
        """Feeds ``chunk``, or finishes the body at ``None``. A call that
        raises ends the iteration: the reader's errors are sticky, and a
        failing ``finish()`` must not be retried by a later step."""
        try:
            if chunk is None:
                self._done = True
                events, self._end = self._reader.finish()
            else:
                events = self._reader.feed(chunk)
        except BaseException:
            self._done = True
            raise
        self._pending.extend(events)

    @property
    def end(self) -> End:
        """How the response ended: :class:`Exited`, :class:`Disconnected`
        or :class:`Document`. Raises ``RuntimeError`` before the end."""
        if self._end is None:
            raise RuntimeError(_NOT_DONE)
        return self._end


class EventIterator(_BodyEvents, Iterator["Event"]):
    """The events of a response body, fed chunk by chunk to a reader.

    Iterate it to the end; then :attr:`end` holds how the response ended
    (the end :meth:`Reader.finish` returned), and ``end`` is also the
    iterator's return value for ``end = yield from iter_events(...)``.
    Errors of the stream (e.g. :class:`OutputGap`) are raised by the
    iteration, after every event that preceded them was yielded.
    """

    def __init__(self, reader: Reader, chunks: Iterable[Chunk]) -> None:
        super().__init__(reader)
        self._chunks = iter(chunks)

    def __iter__(self) -> EventIterator:
        return self

    def __next__(self) -> Event:
        while not self._pending:
            if self._done:
                raise StopIteration(self._end)
            self._take(next(self._chunks, None))
        return self._pending.popleft()


def iter_events(reader: Reader, chunks: Iterable[Chunk]) -> EventIterator:
    """Feed ``chunks`` (an iterable of ``bytes``) to an opened ``reader`` and
    yield its events; at the end call :meth:`Reader.finish`.

    Returns an :class:`EventIterator`; after the loop its ``end`` attribute
    holds the :class:`Exited` / :class:`Disconnected` / :class:`Document`.
    Liveness cannot be checked while a blocking read waits: give your HTTP
    client a read timeout instead (see :func:`aiter_events` for asyncio).

    Example::

        reader = Reader("process_output", cursor=saved_cursor)
        reader.open(resp.status_code, resp.headers.get("content-type"),
                    resp.headers.get("ce-process-id"))
        events = iter_events(reader, resp.iter_bytes())
        for event in events:
            ...
        print(events.end)
    """
    return EventIterator(reader, chunks)


class AsyncEventIterator(_BodyEvents, AsyncIterator["Event"]):
    """The events of a response body read from an async iterable of chunks.

    Iterate it with ``async for``; then :attr:`end` holds how the response
    ended. With ``liveness`` on (the default), a body that sends no byte for
    the reader's ``liveness_timeout_seconds`` ends the iteration with
    ``Disconnected(reason="stalled")`` (the pending read is cancelled; the
    caller still closes the response).
    """

    def __init__(
        self,
        reader: Reader,
        chunks: AsyncIterable[Chunk],
        *,
        liveness: bool = True,
    ) -> None:
        super().__init__(reader)
        self._chunks = chunks.__aiter__()
        self._liveness = liveness

    def __aiter__(self) -> AsyncEventIterator:
        return self

    async def __anext__(self) -> Event:
        while not self._pending:
            if self._done:
                raise StopAsyncIteration
            try:
                chunk = await self._next_chunk()
            except StopAsyncIteration:
                chunk = None
            except BaseException:
                self._done = True
                raise
            self._take(chunk)
        return self._pending.popleft()

    async def _next_chunk(self) -> Chunk | None:
        """The next chunk, ``None`` when the stream stalled.

        The read runs in the caller's task (so async generators that hold
        per-task state across ``yield``, such as anyio cancel scopes, keep
        working), under a deadline from the reader's clock.
        """
        if not self._liveness:
            return await self._chunks.__anext__()
        loop = asyncio.get_running_loop()
        # Arms the clock the first time, restarts it after new bytes.
        if self._reader.handle_timeout_seconds(loop.time()):
            return None
        deadline = self._reader.poll_timeout_seconds()
        if deadline is None:  # pragma: no cover - armed just above
            return await self._chunks.__anext__()
        try:
            return await _within(deadline, self._chunks.__anext__())
        except asyncio.TimeoutError:
            # The pending read was cancelled at the deadline. The loop may
            # fire a timer up to its clock resolution early: the deadline
            # counts as reached.
            stalled = self._reader.handle_timeout_seconds(max(loop.time(), deadline))
            if not stalled:  # pragma: no cover - only if bytes raced the timer
                raise
            return None


async def _within(deadline: float, read: Awaitable[Chunk]) -> Chunk:
    """Awaits ``read`` in the current task, cancelling it at ``deadline`` (on
    the loop's clock) with ``asyncio.TimeoutError``."""
    timeout_at = getattr(asyncio, "timeout_at", None)
    if timeout_at is not None:  # Python 3.11+: no extra task
        async with timeout_at(deadline):
            return await read
    loop = asyncio.get_running_loop()  # pragma: no cover - Python < 3.11
    return await asyncio.wait_for(read, max(0.0, deadline - loop.time()))  # pragma: no cover


def aiter_events(
    reader: Reader, chunks: AsyncIterable[Chunk], *, liveness: bool = True
) -> AsyncEventIterator:
    """Feed ``chunks`` (an async iterable of ``bytes``) to an opened
    ``reader`` and yield its events; at the end call
    :meth:`Reader.finish`.

    Returns an :class:`AsyncEventIterator`; after the loop its ``end``
    attribute holds the :class:`Exited` / :class:`Disconnected` /
    :class:`Document`. With ``liveness=True`` the reader's
    ``liveness_timeout_seconds`` is enforced on the event loop's clock: a silent
    stream ends with ``Disconnected(reason="stalled")``.

    Example::

        async with client.stream("GET", url) as resp:
            reader = Reader("process_output")
            reader.open(resp.status_code, resp.headers.get("content-type"),
                        resp.headers.get("ce-process-id"))
            events = aiter_events(reader, resp.aiter_bytes())
            async for event in events:
                ...
        print(events.end)
    """
    return AsyncEventIterator(reader, chunks, liveness=liveness)
