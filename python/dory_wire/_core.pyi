# Types of the native module (bindings/python). Checked against the built
# module by `python -m mypy.stubtest dory_wire` (scripts/test-python.sh).
import os
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Final, Literal, TypedDict, final

from typing_extensions import TypeAlias

from ._errors import StreamDisconnected

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
    "Bounder",
    "Continue",
    "Cursor",
    "Disconnected",
    "Document",
    "Done",
    "ExecResult",
    "Exit",
    "Exited",
    "Follower",
    "Heartbeat",
    "Identity",
    "Notice",
    "Output",
    "PendingSpill",
    "Preview",
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
    "Started",
    "StreamingBounder",
    "Transcript",
    "Unknown",
    "Utf8Decoder",
    "__version__",
    "count_tokens",
    "run_spill_id",
]
__version__: Final[str]
DEFAULT_MAX_FRAME_BYTES: Final[int]
DEFAULT_LIVENESS_TIMEOUT_SECONDS: Final[float]
DEFAULT_RETRIES: Final[int]
DEFAULT_BACKOFF_SECONDS: Final[float]
DEFAULT_MAX_BACKOFF_SECONDS: Final[float]
DEFAULT_RUN_MAX_LINES: Final[int]
DEFAULT_RUN_MAX_BYTES: Final[int]
MIN_RUN_MAX_BYTES: Final[int]
ERROR_CODES: Final[tuple[tuple[str, str, str, tuple[str, ...]], ...]]

_StreamName: TypeAlias = Literal["stdout", "stderr"]
_EndpointName: TypeAlias = Literal["exec", "process_output", "setup_logs", "document"]
_GapPolicyName: TypeAlias = Literal["fail", "skip"]
_BytesLike: TypeAlias = bytes | bytearray | memoryview
_CursorLike: TypeAlias = Cursor | Mapping[str, int] | None

@final
class Cursor:
    __match_args__ = ("stdout", "stderr")
    def __new__(cls, stdout: int | None = None, stderr: int | None = None) -> Cursor: ...
    @property
    def stdout(self) -> int: ...
    @property
    def stderr(self) -> int: ...
    def to_json(self) -> str: ...
    @staticmethod
    def from_json(json: str) -> Cursor: ...
    def to_dict(self) -> dict[str, int]: ...
    def after(self, event: _Event) -> Cursor:
        """The consumed offsets after ``event``, from these before it (the
        core's rule): an ``Output`` or ``Skipped`` moves its stream to its
        ``end``; other events move nothing."""
    def __getnewargs__(self) -> tuple[int, int]: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class ResumeState:
    @property
    def version(self) -> int: ...
    @property
    def proc_id(self) -> str | None: ...
    @property
    def cursor(self) -> Cursor: ...
    @property
    def exit_seen(self) -> bool: ...
    @property
    def exit_code(self) -> int | None: ...
    @property
    def timed_out(self) -> bool: ...
    def to_json(self) -> str: ...
    @staticmethod
    def from_json(json: str) -> ResumeState: ...
    def __eq__(self, other: object, /) -> bool: ...

# <generated from dory_wire::records by scripts/generate.sh: do not edit> records
@final
class Started:
    __match_args__ = ("proc_id",)
    def __new__(cls, proc_id: str) -> Started: ...
    @property
    def proc_id(self) -> str: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class Output:
    __match_args__ = ("stream", "data", "start", "end")
    def __new__(cls, stream: str, data: bytes, start: int, end: int) -> Output: ...
    @property
    def stream(self) -> _StreamName: ...
    @property
    def data(self) -> bytes: ...
    @property
    def start(self) -> int: ...
    @property
    def end(self) -> int: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class Skipped:
    __match_args__ = ("stream", "start", "end")
    def __new__(cls, stream: str, start: int, end: int) -> Skipped: ...
    @property
    def stream(self) -> _StreamName: ...
    @property
    def start(self) -> int: ...
    @property
    def end(self) -> int: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class Heartbeat:
    __match_args__ = ()
    def __new__(cls) -> Heartbeat: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class Exit:
    __match_args__ = ("exit_code", "timed_out")
    def __new__(cls, exit_code: int | None, timed_out: bool) -> Exit: ...
    @property
    def exit_code(self) -> int | None: ...
    @property
    def timed_out(self) -> bool: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class Unknown:
    __match_args__ = ("frame_type",)
    def __new__(cls, frame_type: str) -> Unknown: ...
    @property
    def frame_type(self) -> str: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class Identity:
    __match_args__ = ("proc_id", "status")
    def __new__(cls, proc_id: str, status: str) -> Identity: ...
    @property
    def proc_id(self) -> str: ...
    @property
    def status(self) -> Literal["running", "exited"]: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class ExecResult:
    __match_args__ = (
        "proc_id",
        "stdout",
        "stderr",
        "stdout_truncated",
        "stderr_truncated",
        "exit_code",
        "timed_out",
    )
    def __new__(
        cls,
        proc_id: str,
        stdout: bytes,
        stderr: bytes,
        stdout_truncated: bool,
        stderr_truncated: bool,
        exit_code: int | None,
        timed_out: bool,
    ) -> ExecResult: ...
    @property
    def proc_id(self) -> str: ...
    @property
    def stdout(self) -> bytes: ...
    @property
    def stderr(self) -> bytes: ...
    @property
    def stdout_truncated(self) -> bool: ...
    @property
    def stderr_truncated(self) -> bool: ...
    @property
    def exit_code(self) -> int | None: ...
    @property
    def timed_out(self) -> bool: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

_Event: TypeAlias = Started | Output | Skipped | Heartbeat | Exit | Unknown | Identity | ExecResult

@final
class Exited:
    __match_args__ = ("exit_code", "timed_out")
    def __new__(cls, exit_code: int | None, timed_out: bool) -> Exited: ...
    @property
    def exit_code(self) -> int | None: ...
    @property
    def timed_out(self) -> bool: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class Disconnected:
    __match_args__ = ("cursor", "reason")
    def __new__(cls, cursor: Cursor, reason: str) -> Disconnected: ...
    @property
    def cursor(self) -> Cursor: ...
    @property
    def reason(self) -> Literal["end_of_body", "gap", "stalled"]: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class Document:
    __match_args__ = ()
    def __new__(cls) -> Document: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

_End: TypeAlias = Exited | Disconnected | Document

# </generated> records

@final
class Reader:
    def __new__(
        cls,
        endpoint: _EndpointName,
        *,
        cursor: _CursorLike = None,
        gap_policy: _GapPolicyName = "fail",
        max_frame_bytes: int | None = None,
        liveness_timeout_seconds: float | None = None,
        strict: bool = False,
    ) -> Reader: ...
    @staticmethod
    def resume(
        endpoint: _EndpointName,
        state: ResumeState | str,
        *,
        gap_policy: _GapPolicyName = "fail",
        max_frame_bytes: int | None = None,
        liveness_timeout_seconds: float | None = None,
        strict: bool = False,
    ) -> Reader: ...
    def open(self, status: int, content_type: str | None, proc_id: str | None = None) -> None: ...
    def feed(self, data: _BytesLike) -> list[_Event]: ...
    def feed_into(self, data: _BytesLike, transcript: Transcript) -> list[_Event]: ...
    def finish(self) -> tuple[list[_Event], _End]: ...
    @property
    def cursor(self) -> Cursor: ...
    @property
    def proc_id(self) -> str | None: ...
    @property
    def endpoint(self) -> _EndpointName: ...
    @property
    def state(self) -> Literal["new", "open", "done", "failed"]: ...
    def resume_state(self) -> ResumeState: ...
    def poll_timeout_seconds(self) -> float | None: ...
    def handle_timeout_seconds(self, now: float) -> bool: ...

_Command: TypeAlias = str | Sequence[str]
_Reason: TypeAlias = Literal[
    "end_of_body", "gap", "stalled", "no_response", "not_connected", "unavailable"
]

@final
class Request:
    @staticmethod
    def base_url(url: str | None, /) -> str: ...
    @staticmethod
    def start(
        computer_id: str,
        command: _Command,
        timeout_seconds: float | None = None,
        idempotency_key: str | None = None,
    ) -> Request: ...
    @staticmethod
    def exec(
        computer_id: str,
        command: _Command,
        timeout_seconds: float | None = None,
        idempotency_key: str | None = None,
        stream: bool = False,
    ) -> Request: ...
    @staticmethod
    def get_process(computer_id: str, proc_id: str) -> Request: ...
    @staticmethod
    def kill(computer_id: str, proc_id: str) -> Request: ...
    @staticmethod
    def output(
        computer_id: str, proc_id: str, cursor: _CursorLike, follow: bool = True
    ) -> Request: ...
    @staticmethod
    def setup_logs(computer_id: str, offset: int = 0, follow: bool = True) -> Request: ...
    @property
    def method(self) -> Literal["GET", "POST"]: ...
    @property
    def path(self) -> str: ...
    @property
    def query(self) -> tuple[tuple[str, str], ...]: ...
    @property
    def headers(self) -> tuple[tuple[str, str], ...]: ...
    @property
    def body(self) -> bytes | None: ...
    @property
    def wait(self) -> Literal["default", "stream", "unbounded"]: ...
    @property
    def idempotent(self) -> bool: ...
    @property
    def target(self) -> str: ...
    def header(self, name: str) -> str | None: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

# <generated from dory_wire::records by scripts/generate.sh: do not edit> decisions
@final
class Done:
    __match_args__ = ("exited", "exit_code", "timed_out", "cursor", "proc_id")
    def __new__(
        cls,
        exited: bool,
        exit_code: int | None,
        timed_out: bool,
        cursor: Cursor,
        proc_id: str | None = None,
    ) -> Done: ...
    @property
    def exited(self) -> bool: ...
    @property
    def exit_code(self) -> int | None: ...
    @property
    def timed_out(self) -> bool: ...
    @property
    def cursor(self) -> Cursor: ...
    @property
    def proc_id(self) -> str | None: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class Reconnect:
    __match_args__ = (
        "attempt",
        "failures",
        "reason",
        "cursor",
        "delay_seconds",
        "proc_id",
        "detail",
    )
    def __new__(
        cls,
        attempt: int,
        failures: int,
        reason: str,
        cursor: Cursor,
        delay_seconds: float,
        proc_id: str | None,
        detail: str,
    ) -> Reconnect: ...
    @property
    def attempt(self) -> int: ...
    @property
    def failures(self) -> int: ...
    @property
    def reason(self) -> _Reason: ...
    @property
    def cursor(self) -> Cursor: ...
    @property
    def delay_seconds(self) -> float: ...
    @property
    def proc_id(self) -> str | None: ...
    @property
    def detail(self) -> str: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class Continue:
    __match_args__ = ()
    def __new__(cls) -> Continue: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

_Decision: TypeAlias = Done | Reconnect | Continue

# </generated> decisions

class _FollowOptions(TypedDict):
    follow: bool
    gap_policy: _GapPolicyName
    retries: int
    backoff_seconds: float
    max_backoff_seconds: float
    jitter: bool
    liveness_timeout_seconds: float
    max_frame_bytes: int
    strict: bool

# The options' defaults here are the core's (FollowOptions::default(), the
# DEFAULT_* constants); tests/test_follower.py checks that they agree.
@final
class Follower:
    @staticmethod
    def process_output(
        computer_id: str,
        proc_id: str,
        *,
        cursor: _CursorLike = None,
        follow: bool = True,
        gap_policy: _GapPolicyName = "fail",
        retries: int = 5,
        backoff_seconds: float = 0.25,
        max_backoff_seconds: float = 5.0,
        jitter: bool = True,
        liveness_timeout_seconds: float = 30.0,
        max_frame_bytes: int | None = None,
        strict: bool = False,
    ) -> Follower: ...
    @staticmethod
    def resume(
        computer_id: str,
        state: ResumeState | str,
        *,
        follow: bool = True,
        gap_policy: _GapPolicyName = "fail",
        retries: int = 5,
        backoff_seconds: float = 0.25,
        max_backoff_seconds: float = 5.0,
        jitter: bool = True,
        liveness_timeout_seconds: float = 30.0,
        max_frame_bytes: int | None = None,
        strict: bool = False,
    ) -> Follower: ...
    @staticmethod
    def setup_logs(
        computer_id: str,
        offset: int = 0,
        *,
        follow: bool = True,
        gap_policy: _GapPolicyName = "fail",
        retries: int = 5,
        backoff_seconds: float = 0.25,
        max_backoff_seconds: float = 5.0,
        jitter: bool = True,
        liveness_timeout_seconds: float = 30.0,
        max_frame_bytes: int | None = None,
        strict: bool = False,
    ) -> Follower: ...
    @staticmethod
    def exec_stream(
        computer_id: str,
        command: _Command,
        *,
        timeout_seconds: float | None = None,
        idempotency_key: str | None = None,
        follow: bool = True,
        gap_policy: _GapPolicyName = "fail",
        retries: int = 5,
        backoff_seconds: float = 0.25,
        max_backoff_seconds: float = 5.0,
        jitter: bool = True,
        liveness_timeout_seconds: float = 30.0,
        max_frame_bytes: int | None = None,
        strict: bool = False,
    ) -> Follower: ...
    @staticmethod
    def call(
        request: Request,
        *,
        follow: bool = True,
        gap_policy: _GapPolicyName = "fail",
        retries: int = 5,
        backoff_seconds: float = 0.25,
        max_backoff_seconds: float = 5.0,
        jitter: bool = True,
        liveness_timeout_seconds: float = 30.0,
        max_frame_bytes: int | None = None,
        strict: bool = False,
    ) -> Follower: ...
    def request(self) -> Request: ...
    def open(
        self,
        status: int,
        content_type: str | None = None,
        proc_id: str | None = None,
        retry_after: str | None = None,
    ) -> None: ...
    def feed(self, data: _BytesLike) -> list[_Event]: ...
    def feed_into(self, data: _BytesLike, transcript: Transcript) -> list[_Event]: ...
    def finish(
        self, transport_error: str | None = None, jitter: float = 0.0
    ) -> tuple[list[_Event], _Decision]: ...
    def no_response(self, detail: str = "", jitter: float = 0.0) -> _Decision: ...
    def not_connected(self, detail: str = "", jitter: float = 0.0) -> _Decision: ...
    def wait_limit_seconds(self) -> float | None: ...
    def waited_seconds(self, elapsed: float) -> bool: ...
    @property
    def cursor(self) -> Cursor: ...
    @property
    def proc_id(self) -> str | None: ...
    @property
    def state(self) -> Literal["ready", "sent", "body", "done", "failed"]: ...
    @property
    def attempts(self) -> int: ...
    @property
    def options(self) -> _FollowOptions: ...
    def resume_state(self) -> ResumeState: ...

MIN_MAX_BYTES: Final[int]
DEFAULT_KEEP_PATTERNS: Final[tuple[str, ...]]

class _RunPreset(TypedDict):
    keep: Literal["defaults"]
    terminal: bool
    split: Literal["even", "tail"]

RUN_PRESET: Final[_RunPreset]
TOKENIZERS: Final[tuple[str, ...]]

def count_tokens(text: str, tokenizer: str | None = None) -> int: ...

_SpillPath: TypeAlias = str | os.PathLike[str] | None

@final
class Preview:
    @property
    def text(self) -> str: ...
    @property
    def truncated(self) -> bool: ...
    @property
    def total_lines(self) -> int: ...
    @property
    def total_bytes(self) -> int: ...
    @property
    def head_bytes(self) -> int: ...
    @property
    def tail_bytes(self) -> int: ...
    @property
    def omitted_lines(self) -> int: ...
    @property
    def omitted_bytes(self) -> int: ...
    @property
    def omitted_range(self) -> tuple[int, int] | None: ...
    @property
    def spill_id(self) -> str | None: ...
    @property
    def spill_path(self) -> str | None: ...
    @property
    def spill_error(self) -> str | None: ...
    @property
    def tokens(self) -> int | None: ...
    @property
    def notices(self) -> list[Notice]: ...
    def to_json(self) -> str: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

_NoticeKind: TypeAlias = Literal["omitted", "kept", "terminal", "stderr", "lost", "end"]

@final
class Notice:
    @property
    def kind(self) -> _NoticeKind: ...
    @property
    def line(self) -> int: ...
    @property
    def text(self) -> str: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

def _run_result_json(result: object) -> str: ...
def _spill_file_name(spill_id: str, suffix: str, /) -> str: ...
def _bound_unsaved(
    data: str | bytes | bytearray | memoryview,
    max_lines: int,
    max_bytes: int,
    keep: str | Sequence[str] | None,
    terminal: bool,
    split: str,
    max_tokens: int | None,
    tokenizer: str | None,
    /,
) -> Preview: ...

@final
class PendingSpill:
    @property
    def spill_id(self) -> str: ...
    @property
    def total_bytes(self) -> int: ...
    @property
    def total_lines(self) -> int: ...
    def render(
        self,
        *,
        spill_path: str | None = None,
        spill_error: str | None = None,
        hint: str | None = None,
    ) -> Preview: ...
    def _render_writer(
        self,
        *,
        returned: object = None,
        raised: BaseException | None = None,
        use_instead: str | None = None,
        hint: str | None = None,
    ) -> Preview: ...

_Keep: TypeAlias = Literal["defaults"] | Sequence[str] | None
_Split: TypeAlias = Literal["even", "tail"]

@final
class Bounder:
    def __new__(
        cls,
        max_lines: int,
        max_bytes: int,
        *,
        keep: _Keep = None,
        terminal: bool = False,
        split: _Split = "even",
        max_tokens: int | None = None,
        tokenizer: str | None = None,
    ) -> Bounder: ...
    @property
    def max_lines(self) -> int: ...
    @property
    def max_bytes(self) -> int: ...
    def bound(
        self, data: str | _BytesLike, *, spill_id: str | None = None
    ) -> Preview | PendingSpill: ...

@final
class StreamingBounder:
    def __new__(
        cls,
        max_lines: int,
        max_bytes: int,
        *,
        spill_id: str | None = None,
        keep: _Keep = None,
        terminal: bool = False,
        split: _Split = "even",
        max_tokens: int | None = None,
        tokenizer: str | None = None,
    ) -> StreamingBounder: ...
    def push(self, data: str | _BytesLike) -> None: ...
    @property
    def total_bytes(self) -> int: ...
    @property
    def retained_bytes(self) -> int: ...
    def finish(
        self, spill: Callable[[str], _SpillPath] | None = None, hint: str | None = None
    ) -> Preview: ...
    def afinish(
        self,
        spill: Callable[[str], Awaitable[_SpillPath] | _SpillPath] | None = None,
        hint: str | None = None,
    ) -> Awaitable[Preview]: ...

_ViewName: TypeAlias = Literal["stdout", "stderr", "combined"]

def run_spill_id(idempotency_key: str) -> str: ...

@final
class RunBounder:
    def __new__(
        cls,
        max_lines: int,
        max_bytes: int,
        *,
        spill_id: str | None = None,
        keep: _Keep = None,
        terminal: bool = False,
        split: _Split = "even",
        max_tokens: int | None = None,
        tokenizer: str | None = None,
    ) -> RunBounder: ...
    @staticmethod
    def check_limits(
        max_lines: int,
        max_bytes: int,
        *,
        max_tokens: int | None = None,
        tokenizer: str | None = None,
    ) -> None: ...
    @property
    def max_lines(self) -> int: ...
    @property
    def max_bytes(self) -> int: ...
    def push(self, stream: _StreamName, data: str | _BytesLike) -> None: ...
    def lose(self, stream: _StreamName, start: int, end: int) -> None: ...
    def spill_id(self, view: _ViewName) -> str | None: ...
    def total_bytes(self, view: _ViewName) -> int: ...
    def lost_bytes(self, view: _ViewName) -> int: ...
    @property
    def retained_bytes(self) -> int: ...
    def finish(self) -> RunPending: ...

@final
class RunPending:
    def spill_id(self, view: _ViewName) -> str: ...
    def needs_spill(self, view: _ViewName) -> bool: ...
    def total_bytes(self, view: _ViewName) -> int: ...
    def lost(self, view: _ViewName) -> tuple[int, int]: ...
    def render(
        self,
        view: _ViewName,
        *,
        spill_path: str | None = None,
        spill_error: str | None = None,
        hint: str | None = None,
    ) -> Preview: ...
    def _render_writer(
        self,
        view: _ViewName,
        *,
        returned: object = None,
        raised: BaseException | None = None,
        use_instead: str | None = None,
        hint: str | None = None,
    ) -> Preview: ...

_RunStateName: TypeAlias = Literal[
    "starting", "following", "cancelling", "done", "finished", "cancelled", "failed"
]
_RunAction: TypeAlias = (
    tuple[Literal["open_spill"], _ViewName, str]
    | tuple[Literal["write_spill"], _ViewName, bytes]
    | tuple[Literal["output"], _StreamName, bytes, str]
    | tuple[Literal["commit_spill"], _ViewName]
    | tuple[Literal["discard_spill"], _ViewName]
)
_RunStep: TypeAlias = (
    tuple[Literal["send"]]
    | tuple[Literal["wait"], float, Reconnect | None]
    | tuple[Literal["done"]]
    | tuple[Literal["cancelled"]]
)

class _RunResultFields(TypedDict):
    proc_id: str
    idempotency_key: str
    exit_code: int | None
    timed_out: bool
    stdout: Preview
    stderr: Preview
    combined: Preview
    stdout_lost_bytes: int
    stderr_lost_bytes: int

# The defaults here are the core's (RunOptions::default(), FollowOptions::default());
# tests/test_run_machine.py checks that they agree.
@final
class Run:
    def __new__(
        cls,
        computer_id: str,
        command: _Command,
        *,
        random: _BytesLike,
        max_lines: int = 400,
        max_bytes: int = 16384,
        max_tokens: int | None = None,
        tokenizer: str | None = None,
        idempotency_key: str | None = None,
        timeout_seconds: float | None = None,
        hint: str | None = None,
        kill_on_cancel: bool = False,
        spill: bool = False,
        on_output: bool = False,
        answer_timeout_seconds: float = 30.0,
        keep: _Keep = "defaults",
        terminal: bool = True,
        follow: bool = True,
        gap_policy: _GapPolicyName = "fail",
        retries: int = 5,
        backoff_seconds: float = 0.25,
        max_backoff_seconds: float = 5.0,
        jitter: bool = True,
        liveness_timeout_seconds: float = 30.0,
        max_frame_bytes: int | None = None,
        strict: bool = False,
    ) -> Run: ...
    @property
    def idempotency_key(self) -> str: ...
    @property
    def proc_id(self) -> str | None: ...
    @property
    def state(self) -> _RunStateName: ...
    @property
    def cursor(self) -> Cursor: ...
    def spill_id(self, view: _ViewName) -> str: ...
    def request(self) -> Request: ...
    def open(
        self,
        status: int,
        content_type: str | None = None,
        proc_id: str | None = None,
        retry_after: str | None = None,
    ) -> None: ...
    def feed(self, data: _BytesLike) -> list[_RunAction]: ...
    def finish(
        self, transport_error: str | None = None, jitter: float = 0.0
    ) -> tuple[list[_RunAction], _RunStep]: ...
    def no_response(self, detail: str = "", jitter: float = 0.0) -> _RunStep: ...
    def not_connected(self, detail: str = "", jitter: float = 0.0) -> _RunStep: ...
    def wait_limit_seconds(self) -> float | None: ...
    def waited_seconds(self, elapsed: float) -> bool: ...
    def cancel(self) -> tuple[list[_RunAction], _RunStep]: ...
    def spill_failed(self, view: _ViewName, raised: BaseException) -> None: ...
    def spill_committed(
        self,
        view: _ViewName,
        *,
        returned: object = None,
        raised: BaseException | None = None,
        use_instead: str | None = None,
    ) -> None: ...
    def result(self) -> _RunResultFields: ...

@final
class Utf8Decoder:
    def __new__(cls) -> Utf8Decoder: ...
    def push(self, data: _BytesLike) -> str: ...
    def finish(self) -> str: ...
    @property
    def pending(self) -> int: ...

@final
class Transcript:
    def __new__(cls) -> Transcript: ...
    def push(self, event: _Event) -> None: ...
    def finish(self) -> None: ...
    def bytes(self, stream: _StreamName = "stdout") -> bytes: ...
    def text(self, stream: _StreamName = "stdout") -> str: ...
    def skipped(self, stream: _StreamName = "stdout") -> list[tuple[int, int]]: ...
    def is_complete(self, stream: _StreamName = "stdout") -> bool: ...
    @property
    def exit(self) -> tuple[int | None, bool] | None: ...

def _stream_disconnected(
    reason: str, cursor: Cursor, proc_id: str | None, detail: str = ...
) -> StreamDisconnected:
    """The core's ``stream_disconnected`` error for a disconnect that is not
    followed by a reconnect (its message is the core's)."""

def _wire_form(data: _BytesLike) -> tuple[str, Literal["utf-8", "base64"]]:
    """``data`` as the wire writes it (the core's rule): its text with
    ``"utf-8"`` when it is valid UTF-8, else its padded standard base64 with
    ``"base64"``."""

def _identity_answer(events: list[_Event]) -> Identity:
    """The identity a start, get or kill was answered by (the core's rule);
    else the core's ``UnexpectedFrame``."""

def _exec_answer(events: list[_Event]) -> ExecResult | Identity:
    """A synchronous exec's answer (the core's rule): its result, or a keyed
    replay's identity; else the core's ``UnexpectedFrame``."""

@final
class Searcher:
    def __new__(
        cls,
        pattern: str,
        *,
        context: int | None = None,
        max_lines: int | None = None,
        max_bytes: int | None = None,
        ignore_case: bool = False,
    ) -> Searcher: ...
    def push(self, data: _BytesLike) -> None: ...
    @property
    def buffered_bytes(self) -> int: ...
    def finish(self, path: str | None = None) -> SearchResult: ...

@final
class SearchResult:
    @property
    def text(self) -> str: ...
    @property
    def truncated(self) -> bool: ...
    @property
    def total_lines(self) -> int: ...
    @property
    def total_bytes(self) -> int: ...
    @property
    def matched_lines(self) -> int: ...
    @property
    def shown_lines(self) -> int: ...
    @property
    def omitted_lines(self) -> int: ...
    @property
    def partial_line(self) -> int | None: ...
    @property
    def long_lines(self) -> int: ...
    @property
    def first_long_line(self) -> int | None: ...
    @property
    def spill_path(self) -> str | None: ...
    @property
    def command(self) -> str | None: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...
