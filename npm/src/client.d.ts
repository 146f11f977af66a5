// Type declarations of `dory-wire/client` (hand-written; checked by
// `tsc --strict` on test/types/client-usage.ts in the package's tests).
//
// The HTTP client of the Dory process API on the platform's `fetch`. It
// drives the core: every request is the core's (`Request`, a `Follower`'s
// `request()`), every read of output a core `Follower` (what each answer
// means, when to reconnect, how long to wait, when to give up); the client
// sends, feeds the answers back, runs the follower's clock and sleeps.

import type { Cursor, End, GapPolicy, Keep, Preview, Reconnect, RunResultJSON, Stream, Transcript } from "./index.js";

export {
  Transcript,
  DoryWireError,
  AnswerError,
  LossError,
  ProtocolError,
  ApiError,
  OffsetBeyondOutput,
  OutputGap,
  OutputExpired,
  StreamDisconnected,
  NoAnswer,
} from "./index.js";

// ------------------------------------------------------------------ client

/**
 * Init of a request, as far as the client fills it: the core's request's
 * method, its headers (lower-case names), then the client's `headers` where
 * it sets none of that name, and its JSON body (`content-type:
 * application/json`) when it has one, and `redirect: "manual"`: a redirect
 * is an answer, never followed.
 */
export interface FetchInit {
  method: string;
  headers: Record<string, string>;
  body?: Uint8Array<ArrayBuffer>;
  signal: AbortSignal;
  redirect: "manual";
}

/** A fetch response, as far as the client reads it. */
export interface FetchResponse {
  /** `"opaqueredirect"` in a browser for a redirect not followed (status 0). */
  type?: string;
  status: number;
  headers: { get(name: string): string | null };
  body: ReadableStream<Uint8Array> | null;
}

/**
 * A `fetch`: the platform's (the default) or any function of the same
 * contract. It is called with no receiver (`this` undefined), as Cloudflare
 * Workers' fetch requires.
 */
export type Fetch = (url: string, init: FetchInit) => Promise<FetchResponse>;

/** Options of `new Client()`. */
export interface ClientOptions {
  /**
   * The service's base URL (`http:` or `https:`); requests go to
   * `${baseUrl}/computers/{id}/...`. Default: the `DORY_URL` environment
   * variable (Node); without either, the constructor throws.
   */
  baseUrl?: string;
  /** The fetch to use (default `globalThis.fetch`): a test double, a custom agent. */
  fetch?: Fetch;
  /** Headers sent with every request (an `authorization`, say), except where the core's request sets one of the same name. */
  headers?: Record<string, string>;
  /**
   * How long a read waits for the response's headers, then for each
   * complete frame, in ms (default: the core's, `Follower.defaults.livenessTimeoutMs`,
   * 30000: twice the heartbeat interval); a read may override it. The clock
   * runs only while the client waits for the network. Then the core decides:
   * `no_response` or `stalled`.
   */
  livenessTimeoutMs?: number;
  /** The longest frame or JSON document accepted (default: the core's, `DEFAULT_MAX_FRAME_BYTES`). */
  maxFrameBytes?: number;
  /**
   * How many requests the client has in flight at once, at most (default
   * 100, like httpx's pool): more wait their turn, first come first served.
   * A request holds its place until its response body ended or was
   * cancelled (an output stream: until it ends or is closed).
   */
  maxConnections?: number;
}

/**
 * The connection to one Dory service. Every request is the core's and every
 * answer is decoded by the core: error answers throw the core's errors
 * (`ApiError` with the status for a 404, a proxy's non-JSON 502, ...), and
 * argument values the core refuses its `InvalidArgument`, naming the
 * argument. A request that fails in transport rejects with the `fetch`'s
 * own error, except on reads (`StreamDisconnected`).
 */
export class Client {
  /**
   * @throws {TypeError} no base URL (no `baseUrl` and no `DORY_URL`), no fetch, an unknown option, a wrong type
   * @throws {RangeError} a base URL that is not http(s), a `maxConnections` below 1
   * @throws {InvalidArgument} a `livenessTimeoutMs` or `maxFrameBytes` the core refuses (the core's error, from `dory-wire`)
   */
  constructor(options?: ClientOptions);
  /** A client of the service at `baseUrl`, like Python's `Client(url)`. */
  constructor(baseUrl: string, options?: Omit<ClientOptions, "baseUrl">);
  /** The computers of the service. */
  readonly computers: Computers;
  /** The base URL, without a trailing slash. */
  readonly baseUrl: string;
  /** The bound on requests in flight (`maxConnections`). */
  readonly maxConnections: number;
  /**
   * Aborts every request and stream in flight (they reject with an
   * `AbortError`) and makes later calls reject the same way. Idempotent.
   * Never kills a process.
   */
  close(): void;
}

/** The computers of the service. */
export interface Computers {
  /**
   * A computer by id, at once: makes no request (the protocol has no
   * computer resource), so `await` on it is optional. An id the core
   * refuses (empty) throws its `InvalidArgument` here.
   */
  get(id: string): Computer;
}

/** The command: an argv, or one shell line (run with `sh -c`). */
export type Command = string | readonly string[];

/**
 * Options of `processes.start`, `computer.exec` and `computer.execStream`:
 * the JS names (`timeoutMs`, `idempotencyKey`), or the wire's
 * (`timeout_seconds`, `idempotency_key`), documented aliases; not both
 * spellings of one option.
 */
export interface StartOptions {
  /** Kill the process group after this many ms, sent as `timeoutMs / 1000` seconds (the exit is then `{exit_code: null, timed_out: true}`). */
  timeoutMs?: number;
  /** A key that makes the start idempotent: a repeated start answers the same identity and starts nothing. */
  idempotencyKey?: string;
  /** `timeoutMs` in the wire's spelling and unit: seconds, sent as they are (an alias). */
  timeout_seconds?: number;
  /** `idempotencyKey` in the wire's spelling (an alias). */
  idempotency_key?: string;
}

/**
 * How the core's follower reconnects a read: the names, types and defaults
 * of `Follower.defaults` (`dory-wire`).
 */
export interface ReconnectOptions {
  /** Connections in a row without progress allowed before the last `StreamDisconnected` is thrown (default `Follower.defaults.retries`, 5). */
  retries?: number;
  /** The wait before the first reconnect without progress, in ms (default 250); it doubles each time. */
  backoffMs?: number;
  /** The longest wait, and the cap on a `Retry-After`, in ms (default 5000). */
  maxBackoffMs?: number;
  /** Spread each wait over `[base/2, base]` with `Math.random()` (default true); false: the exact doubling. */
  jitter?: boolean;
  /** Called with the core's record of each reconnect (attempt, failures, reason, cursor, delayMs, procId, detail), in order, before its wait. */
  onReconnect?: (record: Reconnect) => void;
}

/** Options of `execStream`. */
export interface ExecStreamOptions extends StartOptions, ReconnectOptions {
  /** `"fail"` (default): lost output throws `OutputGap`; `"skip"`: a `skipped` frame reports it. */
  gapPolicy?: GapPolicy;
  /** Overrides the client's `livenessTimeoutMs` for this stream. */
  livenessTimeoutMs?: number;
}

/** A process's identity: what a start, its keyed replay, a get or a kill answers. */
export interface ProcessIdentity {
  type: "identity";
  proc_id: string;
  status: "running" | "exited";
}

/** A synchronous exec's result; each stream is cut at the server's limit (1 MiB), flagged `*_truncated`. */
export interface ExecResult {
  type: "exec_result";
  proc_id: string;
  /** The exact bytes (decoded by the core from text or base64). */
  stdout: Uint8Array;
  stderr: Uint8Array;
  stdout_truncated: boolean;
  stderr_truncated: boolean;
  /** null when killed or timed out. */
  exit_code: number | null;
  timed_out: boolean;
}

/** One computer: its processes, its setup logs, exec. */
export interface Computer {
  /** The computer id. */
  readonly id: string;
  /** Start, get and kill background processes. */
  readonly processes: Processes;
  /** The setup command's logs. */
  readonly setup: Setup;
  /**
   * Synchronous exec: waits for the exit and answers the result. A keyed
   * replay answers the first run's identity instead (its output is retained:
   * `processes.get(proc_id)` then `readOutput()`); switch on `type`.
   */
  exec(command: Command, options?: StartOptions): Promise<ExecResult | ProcessIdentity>;
  /**
   * Streaming exec: a `started` frame, the output frames and `exit`,
   * followed to the exit as the core's follower decides. The command starts
   * when iteration starts and is never sent twice unless its
   * `idempotency_key` makes that safe: a stream cut after the process was
   * announced (`started`, or the `CE-Process-Id` header) goes on from the
   * process's retained output at the consumed offsets, reconnecting like
   * `readOutput` (`onReconnect` sees each record); one cut before, without a
   * key, throws `StreamDisconnected` (`proc_id` null). It also throws once
   * the reconnect budget is spent: then go on with
   * `processes.get(error.proc_id)` and `readOutput({ cursor: error.cursor })`.
   * A keyed replay (answered with a JSON identity) yields one `identity`
   * frame, then the first run's output.
   */
  execStream(command: Command, options?: ExecStreamOptions): OutputStream;
  /**
   * Runs `command` and returns what an agent's model should see
   * (docs/run.md): bounded previews of stdout, of stderr and of both
   * combined in the order they arrived, with exact counts and notices that
   * point at the full output, saved as it streamed.
   *
   * 1. Checks everything before any request: the limits
   *    (`RunBounder.checkLimits`), the command, the key, the timeout and the
   *    follow options (the core's checks and errors), and the shapes of
   *    `spill`, `hint`, `onOutput`, `onReconnect`, `killOnCancel` and
   *    `signal`. Nothing is started when one fails.
   * 2. Starts the command as a background process with `idempotencyKey`
   *    (default: a fresh `"run-"` + 32 hex digits), never with the
   *    truncating synchronous exec.
   * 3. Follows its output from offset 0 with the core's follower through
   *    reconnects (as `readOutput`); each new chunk goes, once, to the core's
   *    `RunBounder`, to the spills of its stream and of the combined view
   *    (each opened with `await spill.open(spillId)` on the view's first
   *    byte), and to `onOutput`.
   * 4. At the exit, each view that was cut has its spill committed and its
   *    notice names the path (then `hint`); a view that fits has its spill
   *    discarded.
   *
   * Calling it again with the same key re-attaches to the same process and
   * resolves to an equal result. A spill writer that throws (open, write,
   * commit) or whose commit returns no path string never loses a preview:
   * that view's `spillError` says why, in the core's words. Lost output
   * rejects with `OutputGap` unless `gapPolicy: "skip"`, which says the loss
   * in each preview it belongs to. Aborting `signal` closes the response,
   * discards the spills, kills the process only with `killOnCancel`, and
   * rejects with the signal's reason: never a partial result.
   */
  run(command: Command, options?: RunOptions): Promise<RunResult>;
}

// --------------------------------------------------------------------- run

/**
 * The options of `computer.run` (tests/api/surface.json, "run_options"),
 * the cancellation signal, and the read options of `readOutput` (but
 * `follow`: a run follows to the exit).
 */
export interface RunOptions extends ReconnectOptions {
  /** The most lines of each preview (default `DEFAULT_RUN_MAX_LINES`, 400; at least 2). */
  maxLines?: number;
  /** The most bytes of each preview (default `DEFAULT_RUN_MAX_BYTES`, 16384; at least `MIN_RUN_MAX_BYTES`, 80). */
  maxBytes?: number;
  /**
   * The most tokens of each preview, notices included, under `tokenizer`
   * (default none; at least `MIN_RUN_MAX_BYTES`, 80): a preview over it is
   * cut at a smaller byte budget; `Preview.tokens` holds each count.
   */
  maxTokens?: number | null;
  /**
   * What counts the tokens: one of `TOKENIZERS` (`"approx"` in this
   * package's build; default the core's `"o200k_base"`, which it lacks).
   * Given without `maxTokens` it only counts. Another name is the core's
   * `InvalidArgument` (argument `tokenizer`), before any request.
   */
  tokenizer?: string | null;
  /** Where each view is saved as it streams (e.g. a `SpillDirectory`); default none. */
  spill?: RunSpill | null;
  /** The key the start is sent with: the same key, the same process, never started twice (default a fresh `run-` key). */
  idempotencyKey?: string | null;
  /** The process's deadline in ms, sent as `timeoutMs / 1000` seconds (the exit is then `exitCode: null, timedOut: true`). */
  timeoutMs?: number | null;
  /** One line added to a notice after its path (e.g. which tool reads it). */
  hint?: string | null;
  /**
   * The live output: each chunk once (never twice after a reconnect, never
   * missing), as its exact bytes and as text from a streaming UTF-8 decoder
   * per stream (a character split across frames is decoded whole). A stream
   * whose bytes end (or reach a lost range) in an incomplete character gets
   * one more call with empty `data` and `"\uFFFD"`. A returned promise is
   * awaited; what it throws ends the call.
   */
  onOutput?: ((chunk: { stream: Stream; data: Uint8Array; text: string }) => void | Promise<void>) | null;
  /** Kill the process when `signal` aborts the call (default false: it keeps running). */
  killOnCancel?: boolean;
  /**
   * Lines of each view's omitted middle to keep, shown with their line
   * numbers in the raw output: `"defaults"` (the default: the patterns of
   * `DEFAULT_KEEP_PATTERNS`, since a model reads the previews), an array of
   * patterns, or `null` for none.
   */
  keep?: Keep;
  /** Render each preview as a terminal shows it (default true; the spill keeps the raw bytes; false: the raw text). */
  terminal?: boolean;
  /** Cancels the call: the promise rejects with the signal's reason. */
  signal?: AbortSignal | null;
  /** `"fail"` (default): lost output rejects with `OutputGap`; `"skip"`: the previews say the exact loss. */
  gapPolicy?: GapPolicy;
  /** Overrides the client's `livenessTimeoutMs`. */
  livenessTimeoutMs?: number;
}

/** The result of `computer.run` (docs/run.md, "The result"). */
export interface RunResult {
  /** The process that ran (the same one for every call with this key). */
  procId: string;
  /** The key the start was sent with: the caller's, or a fresh `run-` one. */
  idempotencyKey: string;
  /** The exit status; null when killed or timed out. */
  exitCode: number | null;
  /** Whether the process was killed at its `timeoutMs`. */
  timedOut: boolean;
  /** The preview of stdout alone. */
  stdout: Preview;
  /** The preview of stderr alone. */
  stderr: Preview;
  /**
   * The preview of both in arrival order (what `2>&1` gives), ending with a
   * line saying how the process ended (`[... exit code 1 ...]`, `[... timed
   * out after 30 s: killed, no exit code ...]`; a notice of kind `"end"`):
   * the one to show a model.
   */
  combined: Preview;
  /** Bytes of stdout that were not retained (skipped under `gapPolicy: "skip"`). */
  stdoutLostBytes: number;
  /** Bytes of stderr that were not retained. */
  stderrLostBytes: number;
  /**
   * The canonical JSON object (docs/schema/run-result.schema.json), what a
   * tool call can return as it is: `JSON.stringify(result)` gives the same
   * bytes as Python's `RunResult.to_json()` and Rust's `RunResult::to_json`.
   */
  toJSON(): RunResultJSON;
}

/**
 * What `run` saves each view's full output with, as it streams:
 * `open(spillId)` gives a file with `write(data)` (the view's bytes, in
 * order), `commit()` (saves them: the path the notice names) and
 * `discard()`. Each method may return a promise. `SpillDirectory` is one.
 */
export interface RunSpill {
  open(spillId: string):
    | { write(data: Uint8Array): unknown; commit(): string | Promise<string>; discard(): unknown }
    | Promise<{ write(data: Uint8Array): unknown; commit(): string | Promise<string>; discard(): unknown }>;
}

/**
 * A spill writer for `run` that saves each view as
 * `<directory>/<spillId><suffix>` (Node, Deno and Bun: it imports
 * `node:fs/promises` when a file is opened, so the module still loads in
 * browsers and Workers). Each view is written to a temporary file in the
 * directory, created with mode 0600, and renamed on commit, so no reader
 * sees a partial file. A spill id that is not a plain file name
 * (1 to 128 of `[A-Za-z0-9._-]`, not `.` or `..`: the core's rule, the same
 * in every client) is refused (the view's `spillError` says so).
 */
export class SpillDirectory implements RunSpill {
  /** @param options `suffix`: the file name's ending (default ".txt"; `[A-Za-z0-9._-]` only, else `InvalidArgument`) */
  constructor(directory: string, options?: { suffix?: string });
  readonly directory: string;
  readonly suffix: string;
  /** A new spill file: `write` as the output streams, then `commit()` (the absolute path) or `discard()`. */
  open(spillId: string): Promise<{ readonly path: string; write(data: Uint8Array): Promise<void>; commit(): Promise<string>; discard(): Promise<void> }>;
}

/** The background processes of a computer. */
export interface Processes {
  /** Starts a process; answers its identity (`status` `"running"`, or `"exited"` when already done). */
  start(command: Command, options?: StartOptions): Promise<ProcessIdentity>;
  /** A handle on a process; its identity is fetched (an unknown id throws `ApiError` 404). */
  get(procId: string): Promise<Process>;
  /** Kills the process group; answers the identity. Killing an exited process changes nothing. */
  kill(procId: string): Promise<ProcessIdentity>;
}

/** How to read an output stream. */
export interface StreamOptions {
  /**
   * true (default): follow until `exit`. false: what exists now; the read
   * ends where the output ends, with `exit` only if the process has finished
   * (a clean end without `exit` is then not a disconnection).
   */
  follow?: boolean;
  /** `"fail"` (default): lost output throws `OutputGap`; `"skip"`: a `skipped` frame reports the exact lost range. */
  gapPolicy?: GapPolicy;
  /** Overrides the client's `livenessTimeoutMs`. */
  livenessTimeoutMs?: number;
}

/**
 * Where to start reading a process's retained output (default 0, 0): the
 * wire's `stdout_offset` / `stderr_offset`, or a `cursor` (`{stdout,
 * stderr}`: a stream's, an error's, a reader's); both at once is a
 * `TypeError`.
 */
export type Offsets =
  | { stdout_offset?: number; stderr_offset?: number; cursor?: undefined }
  | { cursor: Partial<Cursor>; stdout_offset?: undefined; stderr_offset?: undefined };

/** How the one-call reads reconnect: as the core's follower decides, with its options. */
export interface ReadOptions extends StreamOptions, ReconnectOptions {
  /** Record into this transcript (to keep what was read when the read throws); default a new one. */
  transcript?: Transcript;
}

/** A process's output, frame by frame. */
export type OutputOptions = Offsets & StreamOptions;

/** A process's whole output in one call. */
export type ReadOutputOptions = Offsets & ReadOptions;

/** The setup log, frame by frame. */
export interface LogOptions extends StreamOptions {
  /** Bytes of the log already consumed (default 0). */
  offset?: number;
}

/** The whole setup log in one call. */
export interface ReadLogsOptions extends ReadOptions {
  /** Bytes of the log already consumed (default 0). */
  offset?: number;
}

/** One background process. */
export interface Process {
  /** The process id. */
  readonly procId: string;
  /** `procId` under the wire's name (an alias). */
  readonly proc_id: string;
  /** The status when the handle was made. */
  readonly status: "running" | "exited";
  /**
   * The retained output from per-stream byte offsets (or a `cursor`), frame
   * by frame: one response, no reconnect — where the core's follower would
   * reconnect, it throws `StreamDisconnected`. Then open another from the
   * stream's `stdout_offset` / `stderr_offset` (or `{ cursor: error.cursor }`).
   */
  iterOutput(options?: OutputOptions): OutputStream;
  /**
   * The documented reconnect loop in one call, driven by the core's
   * follower: reads from the offsets, reconnects from the consumed offsets
   * when a connection ends early, is refused or answers 503 / 429 (at once
   * after progress, else after a doubling backoff, within `retries`;
   * `Retry-After` honoured up to `maxBackoffMs`), never starting the command
   * again, and resolves with the whole output once `exit` was seen
   * (`transcript.exit`; with `follow: false`, where the output ends now).
   * `OutputGap` (under `"fail"`), `OutputExpired`, `OffsetBeyondOutput` and
   * other error answers reject as they are, never retried; so does the
   * core's `StreamDisconnected` once the budget is spent.
   */
  readOutput(options?: ReadOutputOptions): Promise<Transcript>;
  /** Kills the process group (closing a stream never does). */
  kill(): Promise<ProcessIdentity>;
}

/** The setup command's logs: stderr merged into stdout before offsets were assigned, one stream, one offset. */
export interface Setup {
  /** The setup log from `offset`, frame by frame; resume from the stream's `stdout_offset`. */
  iterLogs(options?: LogOptions): OutputStream;
  /** The whole setup log (the transcript's stdout), reconnecting like `Process.readOutput`. */
  readLogs(options?: ReadLogsOptions): Promise<Transcript>;
}

// ------------------------------------------------------------------ frames

/**
 * Output bytes, with the wire's field names. `data` and `encoding` are the
 * wire's form of exactly `bytes`: their text when they are valid UTF-8
 * (`encoding` `"utf-8"`), else padded standard base64 (`"base64"`), the rule
 * the server applies to each chunk — so for a chunk the reader did not trim
 * it is the frame's own string. `bytes` are the core's decoding, with any
 * overlap already consumed before a reconnect trimmed off:
 * `Buffer.from(data, encoding === "base64" ? "base64" : "utf8")` equals
 * `bytes`. `bytes` may be a view into a buffer shared by the frames of one
 * network read.
 */
export interface OutputFrame {
  type: Stream;
  data: string;
  encoding: "utf-8" | "base64";
  /** The wire's `offset`: the stream's byte offset at the end of this chunk, its consumed offset after this frame. */
  offset: number;
  /** The same as `type`. */
  stream: Stream;
  /** Where `bytes` start in the stream (`offset - bytes.length`). */
  start: number;
  /** Where `bytes` end (the same as `offset`). */
  end: number;
  bytes: Uint8Array;
}

/** The process finished: the last frame. */
export interface ExitFrame {
  type: "exit";
  /** null when killed or timed out. */
  exit_code: number | null;
  timed_out: boolean;
}

/** The first frame of an exec stream. */
export interface StartedFrame {
  type: "started";
  proc_id: string;
}

/** A keep-alive (every 15 s on followed output). */
export interface HeartbeatFrame {
  type: "heartbeat";
}

/** Output lost and skipped under the `"skip"` policy: the range `[start, end)` of `stream`. */
export interface SkippedFrame {
  type: "skipped";
  stream: Stream;
  start: number;
  end: number;
}

/** The identity answered to a keyed replay of a streaming exec (the first run's output follows). */
export type IdentityFrame = ProcessIdentity;

/** A frame type no union knows; it changes nothing. */
export interface UnknownFrame {
  type: "unknown";
  frame_type: string;
}

/** What an output stream yields; switch on `type`. */
export type Frame = OutputFrame | ExitFrame | StartedFrame | HeartbeatFrame | SkippedFrame | IdentityFrame | UnknownFrame;

/**
 * The frames of a read, and the consumed offsets after each. Iterate it
 * once (`for await`). `iterOutput` and `iterLogs` read one response; an
 * exec stream follows its process to the exit. It ends after `exit` (or,
 * read with `follow: false`, where the output ends now); any other ending
 * throws: `StreamDisconnected` (reconnect from the offsets), `OutputGap`,
 * `OutputExpired`, `OffsetBeyondOutput`, `ApiError`, a `ProtocolError`.
 */
export interface OutputStream extends AsyncIterable<Frame> {
  /** Bytes of stdout consumed, through the last frame delivered (also after an error). */
  readonly stdoutOffset: number;
  /** Bytes of stderr consumed, through the last frame delivered. */
  readonly stderrOffset: number;
  /** `stdoutOffset` under the wire's name (an alias). */
  readonly stdout_offset: number;
  /** `stderrOffset` under the wire's name (an alias). */
  readonly stderr_offset: number;
  /** The consumed offsets as a core `Cursor`. */
  readonly cursor: Cursor;
  /** The process id, once known (an exec stream learns it from `started`). */
  readonly procId: string | null;
  /** `procId` under the wire's name (an alias). */
  readonly proc_id: string | null;
  /** How the read ended (the core's `End`: `exited`, or `disconnected` with `end_of_body` for the end of a finite read) once it ended without throwing; null before. */
  readonly end: End | null;
  [Symbol.asyncIterator](): AsyncGenerator<Frame, void, undefined>;
  /** Ends the stream and releases its connection; a loop over it then ends. Never kills the process. */
  close(): Promise<void>;
}

// ------------------------------------------------------------------ errors

/** Why a response ended without `exit`. */
export type DisconnectReason =
  /** The body ended, or was cut (then `cause` is the transport's error: Node's `TypeError: terminated`). */
  | "end_of_body"
  /** A `gap` frame ended it (nothing lost, or the loss was reported under `"skip"`). */
  | "gap"
  /** No byte within the liveness timeout. */
  | "stalled"
  /** No response: reset or closed after connecting, or no headers within the liveness timeout. */
  | "no_response"
  /** The connection was never made: refused, DNS, connect timeout; sent again whatever the request. */
  | "not_connected"
  /** A transient refusal before any body (503, 429); `readOutput` retries it, honouring `Retry-After`. */
  | "unavailable";

// StreamDisconnected is the core's class (re-exported above from
// index.d.ts): one class for `dory-wire` and `dory-wire/client`, so
// `instanceof` holds whichever raised it. It carries `reason`, `cursor` and
// `procId`, and reads under the wire's names `stdout_offset`,
// `stderr_offset` and `proc_id`; `cause` is the transport's error.
