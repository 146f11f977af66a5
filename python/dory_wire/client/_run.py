"""The parts of ``run`` (docs/run.md) that do no network I/O, shared by the
asyncio and the synchronous client: the result, the spill writer's shape,
and :class:`_RunFiles`, which does the actions of the core's
:class:`~dory_wire.Run` (the views' spill files, the output hook). Every
decision (what is sent, what each answer means, what goes to which spill,
what each view shows, the spill error texts) is the run's.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Literal, Protocol, Union

import anyio

from .._core import Preview, Run, _run_result_json

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
    """The preview of both, in arrival order (what ``2>&1`` gives), ending
    with a line saying how the process ended (``[... exit code 1 ...]``,
    ``[... timed out after 30 s: killed, no exit code ...]``; a notice of
    kind ``"end"``): the one to show a model."""
    stdout_lost_bytes: int
    """Bytes of stdout that were not retained (skipped under ``gap_policy="skip"``)."""
    stderr_lost_bytes: int
    """Bytes of stderr that were not retained."""

    def to_json(self) -> str:
        """The result as one canonical JSON object, what a tool call can
        return as it is: the core's bytes, the same in every language
        (``proc_id``, ``idempotency_key``, ``exit_code``, ``timed_out``, the
        three previews as :meth:`~dory_wire.Preview.to_json` writes them,
        ``stdout_lost_bytes``, ``stderr_lost_bytes``; integers exact). The
        JSON Schema: ``docs/schema/run-result.schema.json`` (docs/run.md,
        "Returning a result from a tool call")."""
        return _run_result_json(self)


class _RunFiles:
    """What a :class:`~dory_wire.Run`'s actions ask the client to do, done
    with the caller's ``spill`` writer and ``on_output`` hook: each view's
    spill file (opened, written, committed, discarded as the run says) and
    each chunk to the hook. A writer that raises is reported to the run after
    the batch (:meth:`~dory_wire.Run.spill_failed`), and nothing more is
    written to its view; a commit's outcome is reported as it comes. What
    goes where, and when, is the run's."""

    def __init__(self, run: Run, spill: RunSpill | None, on_output: OnOutput | None) -> None:
        self._run = run
        self._spill = spill
        self._on_output = on_output
        self._files: dict[_View, RunSpillFile] = {}
        self._failed: list[tuple[_View, Exception]] = []

    def do(self, actions: Sequence[tuple[Any, ...]]) -> None:
        """Does a batch of the run's actions, in order."""
        files = self._files
        for action in actions:
            kind = action[0]
            if kind == "write_spill":
                file = files.get(action[1])
                if file is not None:
                    try:
                        file.write(action[2])
                    except Exception as exc:
                        self._fail(action[1], exc)
            elif kind == "output":
                assert self._on_output is not None  # the run was told there is a hook
                self._on_output(action[1], action[2], action[3])
            elif kind == "open_spill":
                assert self._spill is not None  # the run was told there is a writer
                try:
                    files[action[1]] = self._spill.open(action[2])
                except Exception as exc:
                    self._failed.append((action[1], exc))
            elif kind == "commit_spill":
                self._commit(action[1])
            elif kind == "discard_spill":
                self._discard(files.pop(action[1], None))
        failed, self._failed = self._failed, []
        for view, error in failed:
            self._run.spill_failed(view, error)

    def _fail(self, view: _View, exc: Exception) -> None:
        self._discard(self._files.pop(view, None))
        self._failed.append((view, exc))

    def _commit(self, view: _View) -> None:
        file = self._files.pop(view)
        try:
            path = file.commit()
        except Exception as exc:
            self._run.spill_committed(view, raised=exc)
        else:
            self._run.spill_committed(view, returned=path)

    @staticmethod
    def _discard(file: RunSpillFile | None) -> None:
        if file is not None:
            # The file is given up either way.
            with contextlib.suppress(Exception):
                file.discard()

    def close(self) -> None:
        """Drops every file still open (the call failed or was cancelled)."""
        files, self._files = self._files, {}
        for file in files.values():
            self._discard(file)


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
