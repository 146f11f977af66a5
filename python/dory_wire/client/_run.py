"""The parts of ``run`` (docs/run.md) that do no network I/O, shared by the
asyncio and the synchronous client: the result, the spill writer's shape,
and :class:`_RunSink`, which hands each event of the follower to the core's
:class:`~dory_wire.RunBounder`, to the views' spills and to ``on_output``,
then renders the three previews. Every decision (what each view shows, the
loss line, the spill error texts) is the core's.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from types import TracebackType
from typing import Literal, Protocol, Union

import anyio

from .._core import Exit, Output, Preview, RunBounder, RunPending, Skipped, Utf8Decoder
from .._stream import Event

__all__ = [
    "AsyncShield",
    "OnOutput",
    "RunResult",
    "RunSpill",
    "RunSpillFile",
    "Shield",
    "check_spill",
]

# Unions of single literals, read alike by type checkers and mypy.stubtest.
_Stream = Union[Literal["stdout"], Literal["stderr"]]
_View = Union[Literal["stdout"], Literal["stderr"], Literal["combined"]]
_VIEWS: tuple[_View, ...] = ("stdout", "stderr", "combined")

OnOutput = Callable[[_Stream, bytes, str], object]
"""``on_output(stream, data, text)``: each new chunk once, as its exact bytes
and as the text a per-stream streaming UTF-8 decoder gives for them (what it
returns is ignored; what it raises ends the call)."""


class RunSpillFile(Protocol):
    """One view's spill file, as :meth:`RunSpill.open` gives it."""

    def write(self, data: bytes) -> object:
        """Appends ``data`` (the view's next bytes, in order)."""
        ...

    def commit(self) -> str | os.PathLike[str]:
        """Saves what was written; the path it is saved at (named by the
        view's notice)."""
        ...

    def discard(self) -> object:
        """Drops what was written (the view fits, or the call failed)."""
        ...


class RunSpill(Protocol):
    """What ``run`` saves each view's full output with, as it streams
    (docs/run.md, "Spilling as it streams"): ``open(spill_id)`` gives a file
    with ``write(data)``, ``commit()`` (the saved path) and ``discard()``.
    :class:`~dory_wire.SpillDirectory` is one. It is called synchronously,
    also by ``AsyncComputer.run``.

    A writer that raises (on ``open``, ``write`` or ``commit``) or whose
    ``commit`` returns something other than a path never loses the preview:
    that view's :attr:`~dory_wire.Preview.spill_error` says why, in the
    core's words, and its notice names no file.
    """

    def open(self, spill_id: str) -> RunSpillFile:
        """A new spill file for the view saved under ``spill_id``."""
        ...


def check_spill(spill: object) -> RunSpill | None:
    """``spill`` when it has the shape of a :class:`RunSpill` (or is
    ``None``); a ``TypeError`` otherwise, before any request."""
    if spill is None:
        return None
    if not callable(getattr(spill, "open", None)):
        raise TypeError(
            "spill must have an open(spill_id) method giving a file with write, commit "
            f"and discard (e.g. SpillDirectory), not {type(spill).__name__}"
        )
    return spill  # type: ignore[return-value]


@dataclass(frozen=True)
class RunResult:
    """The result of ``run`` (docs/run.md, "The result").

    ``combined`` is the view to show a model: stdout and stderr in the order
    they arrived. Each :class:`~dory_wire.Preview` is exactly what the core's
    :class:`~dory_wire.RunBounder` renders; a view that was cut names its
    saved spill (``spill_path``) or says why not (``spill_error``).
    """

    proc_id: str
    """The process that ran (the same one for every call with this key)."""
    idempotency_key: str
    """The key the start was sent with: the caller's, or a fresh ``run-`` one."""
    exit_code: int | None
    """The exit status; ``None`` when killed or timed out."""
    timed_out: bool
    """Whether the process was killed at its ``timeout_seconds``."""
    stdout: Preview
    """The preview of stdout alone."""
    stderr: Preview
    """The preview of stderr alone."""
    combined: Preview
    """The preview of both, in arrival order (what ``2>&1`` gives)."""
    stdout_lost_bytes: int
    """Bytes of stdout that were not retained (skipped under ``gap_policy="skip"``)."""
    stderr_lost_bytes: int
    """Bytes of stderr that were not retained."""


class _ViewSpill:
    """One view's spill: opened on the view's first byte; after a failure,
    written no more and remembered for the preview."""

    def __init__(self) -> None:
        self.file: RunSpillFile | None = None
        self.error: Exception | None = None

    def write(self, spill: RunSpill, spill_id: str, data: bytes) -> None:
        if self.error is not None:
            return
        try:
            if self.file is None:
                self.file = spill.open(spill_id)
            self.file.write(data)
        except Exception as exc:
            self.error = exc
            self.discard()

    def discard(self) -> None:
        file, self.file = self.file, None
        if file is not None:
            # The file is given up either way.
            with contextlib.suppress(Exception):
                file.discard()


class _RunSink:
    """Where ``run`` sends the follower's events: the run bounder, the spill
    of each view, and ``on_output``."""

    def __init__(
        self,
        max_lines: int,
        max_bytes: int,
        spill_id: str,
        spill: RunSpill | None,
        on_output: OnOutput | None,
        hint: str | None,
    ) -> None:
        self.bounder = RunBounder(max_lines, max_bytes, spill_id=spill_id)
        self._spill = spill
        self._on_output = on_output
        self._hint = hint
        self._files = {view: _ViewSpill() for view in _VIEWS}
        self._decoders = {"stdout": Utf8Decoder(), "stderr": Utf8Decoder()}
        self.exit: tuple[int | None, bool] | None = None

    def feed(self, event: Event) -> None:
        """One event of the follower, in order."""
        if isinstance(event, Output):
            stream: _Stream = event.stream
            data = event.data
            self.bounder.push(stream, data)
            if self._spill is not None:
                for view in (stream, "combined"):
                    spill_id = self.bounder.spill_id(view)
                    assert spill_id is not None  # the bounder was given one
                    self._files[view].write(self._spill, spill_id, data)
            if self._on_output is not None:
                self._on_output(stream, data, self._decoders[stream].push(data))
        elif isinstance(event, Skipped):
            self.bounder.lose(event.stream, event.start, event.end)
            # Bytes on either side of a gap are not one text.
            self._flush(event.stream)
        elif isinstance(event, Exit):
            self.exit = (event.exit_code, event.timed_out)

    def _flush(self, stream: _Stream) -> None:
        rest = self._decoders[stream].finish()
        if rest and self._on_output is not None:
            self._on_output(stream, b"", rest)

    def discard(self) -> None:
        """Drops every spill file (the call failed or was cancelled)."""
        for spill in self._files.values():
            spill.discard()

    def finish(
        self, proc_id: str, idempotency_key: str, exit_code: int | None, timed_out: bool
    ) -> RunResult:
        """Ends the output: the last text of each stream to ``on_output``,
        each view committed (cut) or discarded (fits), then rendered."""
        for stream in ("stdout", "stderr"):
            self._flush(stream)
        pending = self.bounder.finish()
        previews = {view: self._render(pending, view) for view in _VIEWS}
        return RunResult(
            proc_id=proc_id,
            idempotency_key=idempotency_key,
            exit_code=exit_code,
            timed_out=timed_out,
            stdout=previews["stdout"],
            stderr=previews["stderr"],
            combined=previews["combined"],
            stdout_lost_bytes=pending.lost("stdout")[0],
            stderr_lost_bytes=pending.lost("stderr")[0],
        )

    def _render(self, pending: RunPending, view: _View) -> Preview:
        spill = self._files[view]
        hint = self._hint
        if spill.error is not None:
            return pending._render_writer(view, raised=spill.error, hint=hint)
        if not pending.needs_spill(view) or spill.file is None:
            spill.discard()
            return pending.render(view, hint=hint)
        file, spill.file = spill.file, None
        try:
            path = file.commit()
        except Exception as exc:
            return pending._render_writer(view, raised=exc, hint=hint)
        return pending._render_writer(view, returned=path, hint=hint)


class AsyncShield:
    """Shields the kill of a cancelled ``AsyncComputer.run`` from the
    cancellation (an anyio cancel scope, which also holds under trio)."""

    def __init__(self) -> None:
        self._scope = anyio.CancelScope(shield=True)

    def __enter__(self) -> None:
        self._scope.__enter__()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool | None:
        return self._scope.__exit__(exc_type, exc, tb)


class Shield:
    """What :class:`AsyncShield` is for ``Computer.run``: nothing to shield
    from (a ``KeyboardInterrupt`` is not delivered twice)."""

    def __enter__(self) -> None:
        return None

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        return None
