"""dory_wire: decode the Dory process-output protocol (sans-IO).

The decoder is the Rust core shared with the other SDKs; this package only
converts types. Feed it the bytes of an HTTP response, get typed events::

    from dory_wire import Reader, iter_events

    reader = Reader("exec")
    reader.open(200, "application/x-ndjson")
    events = iter_events(reader, [b'{"type":"started","proc_id":"p_1"}\\n'])
    for event in events:
        print(event)
    print(events.end)

Main names (the same in Rust and JavaScript):

- :class:`Reader`, :class:`Cursor`, :class:`ResumeState`;
- events :class:`Started`, :class:`Output`, :class:`Skipped`,
  :class:`Heartbeat`, :class:`Exit`, :class:`Unknown`, :class:`Identity`,
  :class:`ExecResult` (the :data:`Event` union);
- ends :class:`Exited`, :class:`Disconnected`, :class:`Document` (the
  :data:`End` union);
- :class:`Transcript` (per-stream bytes, text and skipped ranges) and
  :class:`Utf8Decoder` (incremental UTF-8 that never splits a character);
- :func:`iter_events` / :func:`aiter_events` to drive a reader from an
  (async) iterable of chunks;
- :class:`Follower`, a whole read across responses (which request to send,
  when to reconnect, how long to wait, when to give up), its decisions
  :class:`Done`, :class:`Reconnect`, :class:`Continue` (the :data:`Decision`
  union), and :class:`Request`, every call of the Dory API as a value;
- previews: :func:`bound` / :func:`abound` (with a spill writer such as
  :class:`SpillDirectory`), :class:`StreamingBounder`, :class:`Preview`;
  a token budget on any of them (``max_tokens``, ``tokenizer``) and
  :func:`count_tokens`, the bounders' own counter (:data:`TOKENIZERS`);
  a run's three views (stdout, stderr, both in arrival order):
  :class:`RunBounder`, :class:`RunPending`, :func:`run_spill_id`;
- searching a spill (the matching lines of a saved output, bounded):
  :func:`search_file`, :class:`Searcher`, :class:`SearchResult`;
- :class:`Run`, the agent call ``run`` as one sans-IO conversation (the
  keyed start, the output from offset 0, the spill and output-hook actions,
  a cancel's kill, the result);
- exceptions: :class:`DoryWireError` and its subclasses, one per code of
  :data:`ERROR_CODES` (see ``dory_wire._errors``).
"""

from __future__ import annotations

from ._core import (
    DEFAULT_BACKOFF_SECONDS,
    DEFAULT_KEEP_PATTERNS,
    DEFAULT_LIVENESS_TIMEOUT_SECONDS,
    DEFAULT_MAX_BACKOFF_SECONDS,
    DEFAULT_MAX_FRAME_BYTES,
    DEFAULT_RETRIES,
    DEFAULT_RUN_MAX_BYTES,
    DEFAULT_RUN_MAX_LINES,
    ERROR_CODES,
    MIN_MAX_BYTES,
    MIN_RUN_MAX_BYTES,
    RUN_PRESET,
    TOKENIZERS,
    Bounder,
    Continue,
    Cursor,
    Disconnected,
    Document,
    Done,
    ExecResult,
    Exit,
    Exited,
    Follower,
    Heartbeat,
    Identity,
    Notice,
    Output,
    PendingSpill,
    Preview,
    Reader,
    Reconnect,
    Request,
    ResumeState,
    Run,
    RunBounder,
    RunPending,
    Searcher,
    SearchResult,
    Skipped,
    Started,
    StreamingBounder,
    Transcript,
    Unknown,
    Utf8Decoder,
    __version__,
    count_tokens,
    run_spill_id,
)
from ._errors import (
    AnswerError,
    ApiError,
    DoryWireError,
    FrameTooLarge,
    IdentityMismatch,
    InvalidArgument,
    InvalidLimits,
    InvalidState,
    LossError,
    MalformedFrame,
    NoAnswer,
    OffsetBeyondOutput,
    OutputExpired,
    OutputGap,
    ProtocolError,
    StreamDisconnected,
    UnexpectedFrame,
    UnsupportedContentType,
)
from ._follow import Decision
from ._preview import (
    AsyncSpillWriter,
    Keep,
    NoticeKind,
    SpillDirectory,
    SpillWriter,
    Split,
    abound,
    bound,
    new_spill_id,
)
from ._search import search_file
from ._stream import (
    AsyncEventIterator,
    End,
    Event,
    EventIterator,
    aiter_events,
    iter_events,
)

__all__ = [
    "DEFAULT_BACKOFF_SECONDS",
    "DEFAULT_KEEP_PATTERNS",
    "DEFAULT_LIVENESS_TIMEOUT_SECONDS",
    "DEFAULT_MAX_BACKOFF_SECONDS",
    "DEFAULT_MAX_FRAME_BYTES",
    "DEFAULT_RETRIES",
    "DEFAULT_RUN_MAX_BYTES",
    "DEFAULT_RUN_MAX_LINES",
    "ERROR_CODES",
    "MIN_MAX_BYTES",
    "MIN_RUN_MAX_BYTES",
    "RUN_PRESET",
    "TOKENIZERS",
    "AnswerError",
    "ApiError",
    "AsyncEventIterator",
    "AsyncSpillWriter",
    "Bounder",
    "Continue",
    "Cursor",
    "Decision",
    "Disconnected",
    "Document",
    "Done",
    "DoryWireError",
    "End",
    "Event",
    "EventIterator",
    "ExecResult",
    "Exit",
    "Exited",
    "Follower",
    "FrameTooLarge",
    "Heartbeat",
    "Identity",
    "IdentityMismatch",
    "InvalidArgument",
    "InvalidLimits",
    "InvalidState",
    "Keep",
    "LossError",
    "MalformedFrame",
    "NoAnswer",
    "Notice",
    "NoticeKind",
    "OffsetBeyondOutput",
    "Output",
    "OutputExpired",
    "OutputGap",
    "PendingSpill",
    "Preview",
    "ProtocolError",
    "Reader",
    "Reconnect",
    "Request",
    "ResumeState",
    "Run",
    "RunBounder",
    "RunPending",
    "SearchResult",
    "Searcher",
    "Skipped",
    "SpillDirectory",
    "SpillWriter",
    "Split",
    "Started",
    "StreamDisconnected",
    "StreamingBounder",
    "Transcript",
    "UnexpectedFrame",
    "Unknown",
    "UnsupportedContentType",
    "Utf8Decoder",
    "__version__",
    "abound",
    "aiter_events",
    "bound",
    "count_tokens",
    "iter_events",
    "new_spill_id",
    "run_spill_id",
    "search_file",
]
