"""Bounded previews of large output, with the full output spilled to a file.

:func:`bound` (sync writer) and :func:`abound` (async writer) drive the core's
spill handshake: the core decides whether the data must be cut and under which
id to save it, the writer saves it and returns the path, the core renders the
preview whose notice points at that path. A writer that raises or returns
something other than a path never escapes: the notice then names no file and
:attr:`Preview.spill_error` says why, in the core's words (the same texts as
the JavaScript package). :meth:`StreamingBounder.afinish` awaits its writer
here too (:func:`_afinish`).
"""

from __future__ import annotations

import inspect
import os
import secrets
import tempfile
from collections.abc import Awaitable, Sequence
from pathlib import Path
from typing import BinaryIO, Callable, Literal, Optional, Union

from ._core import Bounder, PendingSpill, Preview, _bound_unsaved, _spill_file_name

__all__ = [
    "AsyncSpillWriter",
    "Keep",
    "SpillDirectory",
    "SpillWriter",
    "Split",
    "abound",
    "bound",
    "new_spill_id",
]

Data = Union[str, bytes, bytearray, memoryview]
SpillWriter = Callable[[str, bytes], Optional[str]]
"""``spill(spill_id, data) -> path | None``: saves ``data``, returns where
(``None``: nothing saved, the plain notice without an error)."""
AsyncSpillWriter = Callable[[str, bytes], Union[Awaitable[Optional[str]], Optional[str]]]
"""An async (or sync) :data:`SpillWriter`."""

Keep = Union[Literal["defaults"], Sequence[str], None]
"""The ``keep`` argument: ``None`` (off), ``"defaults"``
(:data:`DEFAULT_KEEP_PATTERNS`) or a sequence of regular expressions."""

Split = Literal["even", "tail"]
"""The ``split`` argument: where a cut preview's budget goes, ``"even"``
(half to the head, half to the tail) or ``"tail"`` (an eighth to the head,
the rest to the tail: the shape of ``run``'s previews)."""

NoticeKind = Literal["omitted", "kept", "terminal", "stderr", "lost", "end"]
"""What a :class:`Notice` says (its ``kind``): the cut, the kept lines'
header, what terminal rendering removed, a run's stderr section, a run's
loss, how a run's process ended (the combined view's last line)."""


def new_spill_id() -> str:
    """A random spill id: 32 hex digits (``secrets.token_hex(16)``)."""
    return secrets.token_hex(16)


def _as_bytes(data: Data) -> bytes:
    if isinstance(data, str):
        return data.encode("utf-8")
    return bytes(data)


def _start(
    data: Data,
    max_lines: int,
    max_bytes: int,
    spill_id: str | None,
    writer: object,
    keep: Keep,
    terminal: bool,
    split: Split,
    max_tokens: int | None,
    tokenizer: str | None,
) -> Preview | PendingSpill:
    if not isinstance(data, (str, bytes, bytearray, memoryview)):
        raise TypeError(
            "bound() argument 'data' must be str, bytes, bytearray or memoryview, "
            f"not {type(data).__name__}"
        )
    if spill_id is None and writer is not None:
        # docs/preview.md: a binding's default spill id is random. A content-derived
        # id (the core's default) could be forced to collide by crafted output.
        spill_id = new_spill_id()
    bounder = Bounder(
        max_lines,
        max_bytes,
        keep=keep,
        terminal=terminal,
        split=split,
        max_tokens=max_tokens,
        tokenizer=tokenizer,
    )
    return bounder.bound(data, spill_id=spill_id)


def bound(
    data: Data,
    *,
    max_lines: int,
    max_bytes: int,
    spill: SpillWriter | None = None,
    spill_id: str | None = None,
    hint: str | None = None,
    keep: Keep = None,
    terminal: bool = False,
    split: Split = "even",
    max_tokens: int | None = None,
    tokenizer: str | None = None,
) -> Preview:
    """Bounds ``data`` to a preview of at most ``max_lines`` lines and
    ``max_bytes`` bytes and, with ``max_tokens``, at most that many tokens,
    notice included (see docs/preview.md).

    Data that fits comes back unchanged. Otherwise the preview is a head, one
    notice line and a tail; when ``spill`` is given it is called once as
    ``spill(spill_id, data_bytes)`` to save the full output and returns the
    path (or ``None``), which the notice then names (with ``hint``, e.g.
    which tool reads it).

    Args:
        data: ``str`` (bounded as its UTF-8 bytes) or bytes-like.
        max_lines: any count; a cut needs at least 1.
        max_bytes: any count; a cut needs at least ``MIN_MAX_BYTES`` (32).
        spill: a writer such as :class:`SpillDirectory`, or ``None``.
        spill_id: the id to save under (default with a writer: a random
            32-hex id from :func:`new_spill_id`).
        hint: an extra notice note, used only with a saved path.
        keep: lines of the omitted middle to keep, shown after the notice:
            ``None`` (default: none), ``"defaults"``
            (:data:`DEFAULT_KEEP_PATTERNS`) or a sequence of regular
            expressions (docs/preview.md, "Kept lines").
        terminal: render the text as a terminal shows it (redraws
            collapsed, escape sequences and control bytes removed).
        split: where a cut preview's budget goes: ``"even"`` (default:
            half to the head, half to the tail) or ``"tail"`` (an eighth to
            the head, the rest to the tail: ``run``'s shape; docs/preview.md,
            "The split").
        max_tokens: the most tokens the preview's text may encode to under
            ``tokenizer``, notice included: a third limit, and whichever
            binds first decides (``None``, the default: no token limit). Any
            count from 0 to 2**32 - 1, checked as ``max_bytes``; a cut needs
            at least 32.
        tokenizer: what counts the tokens, one of :data:`TOKENIZERS`
            (``"o200k_base"`` when ``max_tokens`` is given without it); given
            without ``max_tokens`` it only counts: :attr:`Preview.tokens`.

    Returns:
        A :class:`Preview`; ``spill_error`` says why a save was not used
        (the writer raised or returned something other than a path, or the
        path was refused); ``tokens`` its count with a tokenizer (else
        ``None``).

    Raises:
        InvalidArgument: a ``keep`` pattern the core refuses (argument
            ``keep``), an unknown ``tokenizer`` (argument ``tokenizer``).
        InvalidLimits: ``data`` must be cut and the limits leave no room for
            a cut (``max_lines`` 0, ``max_bytes`` or ``max_tokens`` below
            32), or a limit that is not a count from 0 to 2**32 - 1; also a
            ``ValueError``. Data that fits is returned whatever the limits.
        TypeError: ``data`` or an argument of the wrong type.

    Example::

        >>> p = bound("x\\n" * 1000, max_lines=5, max_bytes=400)
        >>> p.truncated, p.omitted_lines, p.omitted_range
        (True, 996, (3, 998))
        >>> print(p.text)
        x
        x
        [... 1992 bytes omitted: lines 3-998 of 1000 ...]
        x
        x
        <BLANKLINE>
    """
    if spill is None and spill_id is None:
        # Nothing to save: one crossing into the core (the hint is used only
        # with a saved path).
        return _bound_unsaved(
            data, max_lines, max_bytes, keep, terminal, split, max_tokens, tokenizer
        )
    bounded = _start(
        data, max_lines, max_bytes, spill_id, spill, keep, terminal, split, max_tokens, tokenizer
    )
    if isinstance(bounded, Preview):
        return bounded
    if spill is None:
        return bounded.render(hint=hint)
    try:
        path = spill(bounded.spill_id, _as_bytes(data))
    except Exception as exc:
        return bounded._render_writer(raised=exc, hint=hint)
    if inspect.isawaitable(path):
        # An async writer given to the sync API: never awaited, so refused.
        close = getattr(path, "close", None)
        if callable(close):
            close()
        return bounded._render_writer(use_instead="abound()", hint=hint)
    return bounded._render_writer(returned=path, hint=hint)


async def abound(
    data: Data,
    *,
    max_lines: int,
    max_bytes: int,
    spill: AsyncSpillWriter | None = None,
    spill_id: str | None = None,
    hint: str | None = None,
    keep: Keep = None,
    terminal: bool = False,
    split: Split = "even",
    max_tokens: int | None = None,
    tokenizer: str | None = None,
) -> Preview:
    """:func:`bound` with an async spill writer: ``await spill(spill_id, data)``
    must give the path (or ``None``). A sync writer is accepted too. A writer
    that raises (except on cancellation) never escapes: see
    :attr:`Preview.spill_error`.
    """
    bounded = _start(
        data, max_lines, max_bytes, spill_id, spill, keep, terminal, split, max_tokens, tokenizer
    )
    if isinstance(bounded, Preview):
        return bounded
    if spill is None:
        return bounded.render(hint=hint)
    try:
        result = spill(bounded.spill_id, _as_bytes(data))
        path = await result if inspect.isawaitable(result) else result
    except Exception as exc:
        return bounded._render_writer(raised=exc, hint=hint)
    return bounded._render_writer(returned=path, hint=hint)


async def _afinish(
    bounded: Preview | PendingSpill,
    spill: Callable[[str], Awaitable[str | None] | str | None] | None,
    hint: str | None,
) -> Preview:
    """The body of :meth:`StreamingBounder.afinish`, which has already ended
    the input: await the writer (``spill(spill_id)``), then render."""
    if isinstance(bounded, Preview):
        return bounded
    if spill is None:
        return bounded.render(hint=hint)
    try:
        result = spill(bounded.spill_id)
        path = await result if inspect.isawaitable(result) else result
    except Exception as exc:
        return bounded._render_writer(raised=exc, hint=hint)
    return bounded._render_writer(returned=path, hint=hint)


class _SpillFile:
    """One spill being written by :meth:`SpillDirectory.open`: a temporary
    file (mode 0600) in the directory, renamed to its final name on
    :meth:`commit`, removed on :meth:`discard`."""

    def __init__(self, directory: Path, path: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        # mkstemp creates the file with mode 0600, readable by its owner only.
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".spill-", suffix=".tmp")
        self._file: BinaryIO | None = os.fdopen(fd, "wb")
        self._tmp = Path(tmp)
        self.path = path
        """Where :meth:`commit` saves the spill."""

    def _open_file(self) -> BinaryIO:
        if self._file is None:
            raise ValueError(f"the spill {self.path.name} was already committed or discarded")
        return self._file

    def write(self, data: bytes | bytearray | memoryview) -> None:
        """Appends ``data``."""
        self._open_file().write(data)

    def commit(self) -> str:
        """Renames the written file to :attr:`path` (atomically: a reader
        sees the whole spill or none); returns its absolute path."""
        file = self._open_file()
        self._file = None
        try:
            file.close()
            os.replace(self._tmp, self.path)
        except BaseException:
            self._tmp.unlink(missing_ok=True)
            raise
        return str(self.path.resolve())

    def discard(self) -> None:
        """Removes the temporary file (nothing is saved). Idempotent."""
        file, self._file = self._file, None
        if file is not None:
            file.close()
            self._tmp.unlink(missing_ok=True)

    def __repr__(self) -> str:
        state = "open" if self._file is not None else "closed"
        return f"<spill file {str(self.path)!r} {state}>"


class SpillDirectory:
    """A spill writer that saves each spill as ``<directory>/<spill_id><suffix>``.

    The directory is created when needed; the file is written to a temporary
    name (mode 0600) and renamed, so a reader never sees a partial file.
    Usable with :func:`bound` and :func:`abound` (called with the whole
    data)::

        preview = bound(output, max_lines=200, max_bytes=16_384,
                        spill=SpillDirectory("/workspace/.tool-output"),
                        spill_id=new_spill_id())

    and, through :meth:`open`, with ``Computer.run`` (written as the output
    streams: the client's ``RunSpill``)::

        result = computer.run(["make", "test"],
                              spill=SpillDirectory("/workspace/.tool-output"))

    Ids that are not plain file names (``[A-Za-z0-9._-]``, not ``.`` or
    ``..``; e.g. with ``/``) are refused (the writer raises, so the preview
    reports it in ``spill_error``).
    """

    def __init__(self, directory: str | os.PathLike[str], *, suffix: str = ".txt") -> None:
        self.directory = Path(directory)
        self.suffix = suffix

    def path_for(self, spill_id: str) -> Path:
        """Where the spill ``spill_id`` is saved: the core's rule for a
        spill file's name (:class:`InvalidArgument`, a ``ValueError``, for
        an id or suffix that is not a plain file name)."""
        return self.directory / _spill_file_name(spill_id, self.suffix)

    def __call__(self, spill_id: str, data: bytes) -> str:
        """Saves ``data``; returns the absolute path."""
        path = self.path_for(spill_id)
        self.directory.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.directory, prefix=".spill-", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return str(path.resolve())

    def open(self, spill_id: str) -> _SpillFile:
        """A new spill file for ``spill_id``: ``write(data)`` as the output
        streams, then ``commit()`` (renamed to :meth:`path_for`, the absolute
        path returned) or ``discard()``. Raises ``ValueError`` for an id that
        is not a plain file name, ``OSError`` when the file cannot be made."""
        return _SpillFile(self.directory, self.path_for(spill_id))

    def __repr__(self) -> str:
        return f"SpillDirectory({str(self.directory)!r}, suffix={self.suffix!r})"
