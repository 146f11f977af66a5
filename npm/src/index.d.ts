// Type declarations of the npm package `dory-wire` (hand-written; checked by
// `tsc --noEmit` on test/types/usage.ts, and against tests/api/surface.json
// and the core's error table, in the package's tests).

/**
 * Loads the WebAssembly module. In a browser, await it once before anything
 * else (later calls return the same promise); `input` optionally says where
 * the `.wasm` file is (by default the one next to the module). In Node the
 * module loads synchronously on import/require and `init()` does nothing.
 */
export function init(input?: InitInput): Promise<void>;

/**
 * Where the browser build finds its `.wasm`: a URL (string or `URL`), a
 * `Response`, the bytes, or a compiled `WebAssembly.Module` (typed as `object`
 * so the declarations need no DOM library).
 */
export type InitInput = string | URL | Response | ArrayBuffer | ArrayBufferView | object;

/** Which request a response answers (it selects the frame union). */
export type Endpoint = "exec" | "process_output" | "setup_logs" | "document";

/** What to do when output is missing: throw `OutputGap` (default) or report `skipped` and go on. */
export type GapPolicy = "fail" | "skip";

/** One of the two output streams (setup logs have one combined stream, reported as stdout). */
export type Stream = "stdout" | "stderr";

/** Per-stream consumed byte offsets: where output has been delivered up to. */
export interface Cursor {
  /** Bytes of stdout consumed (for setup logs: of the combined log). */
  stdout: number;
  /** Bytes of stderr consumed. */
  stderr: number;
}

/** Options of a `Reader`. */
export interface ReaderOptions {
  /** Where to start (default zeros). Each offset a safe integer >= 0. Not allowed with `Reader.resume`. */
  cursor?: Partial<Cursor>;
  /** Default `"fail"`. */
  gapPolicy?: GapPolicy;
  /** The longest line or JSON document accepted, 1 to `MAX_FRAME_BYTES_LIMIT` (default `DEFAULT_MAX_FRAME_BYTES`). */
  maxFrameBytes?: number;
  /** How long a followed stream may go without a byte, in ms (default `DEFAULT_LIVENESS_TIMEOUT_MS`). */
  livenessTimeoutMs?: number;
  /** Reject unknown frame types (`unexpected_frame`) instead of reporting `unknown` events. Default false. */
  strict?: boolean;
}

// <generated from dory_wire::records by scripts/generate.sh: do not edit> records
/** The exec stream's first frame: the process now exists under this id. */
export interface Started {
  type: "started";
  /** The process id. */
  procId: string;
}
/**
 * New output bytes of one stream, offsets [start, end) of its byte space; overlap with what was
 * already consumed is trimmed.
 */
export interface Output {
  type: "output";
  /** Which stream. */
  stream: Stream;
  /** The bytes, exact (not necessarily valid UTF-8; a chunk may split a character). */
  data: Uint8Array;
  /** Offset of the first byte in the stream's byte space. */
  start: number;
  /** Offset just past the last byte (start + the length of data). */
  end: number;
}
/** Output lost and skipped under the skip gap policy: offsets [start, end) of one stream. */
export interface Skipped {
  type: "skipped";
  /** Which stream lost bytes. */
  stream: Stream;
  /** First lost offset. */
  start: number;
  /** Offset just past the last lost byte. */
  end: number;
}
/** A keep-alive frame: the stream is alive, nothing new. */
export interface Heartbeat {
  type: "heartbeat";
}
/** The process finished; the last frame of the stream. */
export interface Exit {
  type: "exit";
  /** The exit code; `null` when the process was killed or timed out. */
  exitCode: number | null;
  /** Whether the process hit its deadline. */
  timedOut: boolean;
}
/** A frame whose type no union knows; it changes no state. */
export interface Unknown {
  type: "unknown";
  /** The frame's type. */
  frameType: string;
}
/** A JSON identity document: the answer to a process start, its keyed replay, or a kill. */
export interface Identity {
  type: "identity";
  /** The process id. */
  procId: string;
  /** Running or exited. */
  status: "running" | "exited";
}
/** A JSON result document: the answer to a synchronous exec. */
export interface ExecResult {
  type: "exec_result";
  /** The process id. */
  procId: string;
  /** Standard output bytes. */
  stdout: Uint8Array;
  /** Standard error bytes. */
  stderr: Uint8Array;
  /** Whether stdout was cut at the synchronous limit (1 MiB). */
  stdoutTruncated: boolean;
  /** Whether stderr was cut at the synchronous limit (1 MiB). */
  stderrTruncated: boolean;
  /** The exit code; `null` when the process was killed or timed out. */
  exitCode: number | null;
  /** Whether the process hit its deadline. */
  timedOut: boolean;
}
/** What a reader yields; switch on `type`. */
export type Event = Started | Output | Skipped | Heartbeat | Exit | Unknown | Identity | ExecResult;

/** The response ended with an exit frame: the output is complete. */
export interface Exited {
  type: "exited";
  /** The exit code; `null` when the process was killed or timed out. */
  exitCode: number | null;
  /** Whether the process hit its deadline. */
  timedOut: boolean;
}
/**
 * The stream ended without exit: reconnect to process output from cursor. Never start the command
 * again to recreate lost output.
 */
export interface Disconnected {
  type: "disconnected";
  /** Where to resume from. */
  cursor: Cursor;
  /**
   * Why it ended: end_of_body (a partial last line was discarded), gap (every loss was skipped) or
   * stalled (no complete frame within the liveness timeout).
   */
  reason: "end_of_body" | "gap" | "stalled";
}
/** A JSON document was decoded: its identity or exec_result event came with this end. */
export interface Document {
  type: "document";
}
/** How a response ended. It never carries events: `finish()` returns them beside it. */
export type End = Exited | Disconnected | Document;

// </generated> records

/**
 * Everything needed to resume reading a process's output, as `resumeState()`
 * gives it. `resumeStateJson()` gives the same state as the language-neutral
 * JSON shared with the Rust and Python packages (snake_case keys).
 */
export interface ResumeState {
  version: number;
  procId: string | null;
  cursor: Cursor;
  exitSeen: boolean;
  exitCode: number | null;
  timedOut: boolean;
}

/** Where a reader is in its life. */
export type ReaderState = "new" | "open" | "done" | "failed" | "freed";

/**
 * Decodes one HTTP response of the process-output protocol. Sans-IO: give it
 * the status and headers with `open`, the body bytes with `feed` (or
 * `feedInto`), the end of the body with `finish`. One reader per response;
 * reconnect with a new reader from `cursor` (or `resumeState()`).
 *
 * Errors are sticky: once a call has thrown a `DoryWireError`, every later
 * call throws the same error. When an error follows events within one `feed`,
 * that call returns the events and the next call (`feed` or `finish`) throws.
 */
export class Reader {
  /**
   * @throws {RangeError} unknown endpoint or gap policy, or an option out of range
   * @throws {TypeError} an option of the wrong type, or an unknown option
   */
  constructor(endpoint: Endpoint, options?: ReaderOptions);
  /**
   * A reader that continues from a saved resume state: the object of
   * `resumeState()` or the string of `resumeStateJson()` (possibly from
   * another language).
   * @throws {InvalidState} a bad or unsupported state
   */
  static resume(endpoint: Endpoint, state: ResumeState | string, options?: Omit<ReaderOptions, "cursor">): Reader;
  /**
   * Gives the response's status, Content-Type and `CE-Process-Id` header.
   * Call once, before `feed`. Error answers (non-2xx) are decoded from the
   * body: `feed` it, and `finish` throws the mapped error.
   * @throws {UnsupportedContentType} for a 2xx that is neither NDJSON nor JSON
   */
  open(status: number, contentType: string | null | undefined, procId?: string | null): void;
  /**
   * Feeds the next piece of the body (split anywhere) and returns the events
   * it completed, in order.
   * @throws {TypeError} when `chunk` is not bytes (a string, say)
   * @throws {DoryWireError} a decoding error, or `InvalidState` for a feed before `open` or after `finish`;
   *   `IntegerOutOfRange` when an offset or exit code is above `Number.MAX_SAFE_INTEGER` (never rounded)
   */
  feed(chunk: Uint8Array | ArrayBufferView | ArrayBuffer): Event[];
  /**
   * Feeds like `feed`, but output bytes go into `transcript`, inside
   * WebAssembly memory (no object per frame). Returns the other events it
   * completed; they are recorded in the transcript too.
   */
  feedInto(chunk: Uint8Array | ArrayBufferView | ArrayBuffer, transcript: Transcript): Event[];
  /**
   * Ends the body. Returns the events completed by the end (a JSON
   * document's event, a `skipped` for a 409 under the skip policy) and how
   * the response ended.
   * @throws {DoryWireError} the error that ended decoding (e.g. an `ApiError` for an error answer), or
   *   `InvalidState` when called twice
   */
  finish(): [Event[], End];
  /** The End returned by `finish()`, or null before it (e.g. after an `iterEvents` loop). */
  readonly end: End | null;
  /** The consumed offsets: where to resume from. */
  readonly cursor: Cursor;
  /** The process id, once known (from `started`, the header, the resume state or a document). */
  readonly procId: string | null;
  /** Where the reader is in its life. */
  readonly state: ReaderState;
  /** The resume state as a plain object. @throws {IntegerOutOfRange} for offsets above 2^53 − 1 */
  resumeState(): ResumeState;
  /** The resume state as the language-neutral JSON (snake_case keys), exact whatever the offsets. */
  resumeStateJson(): string;
  /**
   * The time, in ms on the clock given to `handleTimeoutMs`, by which the
   * next byte must arrive; null until the clock is armed by `handleTimeoutMs`.
   */
  pollTimeoutMs(): number | null;
  /**
   * Tells the reader the time in ms on the caller's monotonic clock (e.g.
   * `performance.now()`). The first call arms the liveness clock; bytes fed
   * since the previous call restart it. Returns true when the stream stalled:
   * stop reading, and `finish()` ends `disconnected` with reason `stalled`.
   */
  handleTimeoutMs(nowMs: number): boolean;
  /** Releases the reader's WebAssembly memory now. Optional (garbage collection does it too); later calls throw. */
  free(): void;
}

/**
 * A consumer's record of a process's output: each stream's bytes, its text
 * view and its skipped ranges, and the exit. Fill it with
 * `reader.feedInto(chunk, transcript)` or `push(event)`. The stream argument
 * of the views defaults to `"stdout"`.
 */
export class Transcript {
  constructor();
  /** Records an event: `output`, `skipped` and `exit` change the transcript; other events are ignored. */
  push(event: Event): void;
  /** Ends both text views: an incomplete last character becomes U+FFFD. */
  finish(): void;
  /** A copy of the delivered bytes of `stream`, in order (skipped ranges are absent). */
  bytes(stream?: Stream): Uint8Array;
  /**
   * The text view of `stream`: UTF-8 (U+FFFD for invalid bytes), never
   * splitting a character; a skipped range shows as a line
   * `[dory-wire: bytes A..B were lost]`.
   */
  text(stream?: Stream): string;
  /** The skipped ranges `[start, end)` of `stream`, in order. */
  skipped(stream?: Stream): Array<[number, number]>;
  /** True when nothing of `stream` was skipped: its bytes are the stream, exactly. */
  isComplete(stream?: Stream): boolean;
  /** The exit, once an `exit` event was recorded. */
  readonly exit: { exitCode: number | null; timedOut: boolean } | null;
  /** Releases the WebAssembly memory now. Optional (garbage collection does it too); later calls throw. */
  free(): void;
}

/** A fetch `Response`, as far as `iterEvents` uses it. */
export interface ResponseLike {
  status: number;
  headers: { get(name: string): string | null };
  body: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array> | null;
}

/** Options of `iterEvents`. */
export interface IterEventsOptions {
  /**
   * Enforce the reader's liveness timeout with timers (default true): a body
   * that sends no byte for `livenessTimeoutMs` is cancelled and the End is
   * `disconnected` with reason `stalled`.
   */
  liveness?: boolean;
  /** The monotonic clock in ms (default `performance.now`). */
  now?: () => number;
}

/**
 * Drives `reader` over a body and yields its events: a
 * `ReadableStream<Uint8Array>` (a fetch body), any async or sync iterable of
 * Uint8Array chunks, or a fetch `Response` (then `reader.open` is called from
 * its status, Content-Type and CE-Process-Id unless already done). After the
 * last event the reader is finished: the End is the generator's return value,
 * and `reader.end` once a `for await` loop is over. Errors are thrown from
 * the loop; breaking out of it cancels the body.
 */
export function iterEvents(
  reader: Reader,
  body: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array> | Iterable<Uint8Array> | ResponseLike,
  options?: IterEventsOptions,
): AsyncGenerator<Event, End, undefined>;

// ---------------------------------------------------------------- follower

/** A command: a shell line (run with `sh -c`) or an argv (the program, then its arguments). */
export type Command = string | readonly string[];

/** An HTTP method. */
export type Method = "GET" | "POST";

/**
 * How long a client waits for a request's answer: its own timeouts
 * (`"default"`, a JSON document answers soon), the liveness timeout between
 * frames (`"stream"`), or no read timeout (`"unbounded"`: a synchronous exec
 * answers when the process exits).
 */
export type Wait = "default" | "stream" | "unbounded";

/**
 * One HTTP request of the Dory API, built by the core, independent of the
 * HTTP library: send `method` to the base URL + `target` with `headers`
 * (add your own, e.g. `Authorization`, where the request sets no header of
 * the same name) and `body` (`Content-Type: application/json` when there is
 * one). A plain frozen object.
 */
export interface Request {
  readonly method: Method;
  /** The path, every id percent-encoded as one segment; no query. */
  readonly path: string;
  /** The query parameters, in order (values need no escaping). */
  readonly query: ReadonlyArray<readonly [string, string]>;
  /** The headers this request sets (`Accept`, `Idempotency-Key`). */
  readonly headers: Readonly<Record<string, string>>;
  /** The JSON body, if any (its own buffer: a `fetch` body as it is). */
  readonly body: Uint8Array<ArrayBuffer> | null;
  /** How long to wait for the answer. */
  readonly wait: Wait;
  /** Whether sending it again cannot start anything twice (reads, and keyed starts and execs). */
  readonly idempotent: boolean;
  /** The path and the query: what goes after the base URL. */
  readonly target: string;
}

/**
 * The request builders, one per call of the Dory API. A wrong argument type
 * is a `TypeError` naming it; a value no request can be built from (an empty
 * id or command, a timeout that is not a positive number of seconds, an
 * idempotency key that cannot be a header value, an offset that is not a
 * safe integer >= 0) is the core's `InvalidArgument`.
 */
export const Request: {
  /**
   * The API's base URL as every client takes it (the core's rule): an absolute
   * `http://` or `https://` URL with a host, without spaces, a query or a
   * fragment, returned without its trailing `/`; `InvalidArgument` (argument
   * `baseUrl`) otherwise, `undefined` and `""` included.
   */
  baseUrl(url: string | undefined | null): string;
  /** `POST /computers/{id}/processes`: starts `command` in the background (answered by its identity). */
  start(computerId: string, command: Command, options?: { timeoutMs?: number | null; idempotencyKey?: string | null }): Request;
  /** `POST /computers/{id}/exec`: runs `command`; `stream: true` asks for its frames, else (default) its result when it exits. */
  exec(computerId: string, command: Command, options?: { timeoutMs?: number | null; idempotencyKey?: string | null; stream?: boolean }): Request;
  /** `GET /computers/{id}/processes/{procId}`: the process's identity. */
  getProcess(computerId: string, procId: string): Request;
  /** `POST /computers/{id}/processes/{procId}/kill`: answered by the identity after. */
  kill(computerId: string, procId: string): Request;
  /** `GET /computers/{id}/processes/{procId}/output` from `cursor` (default zeros), followed until exit when `follow` (default `Follower.defaults.follow`). */
  output(computerId: string, procId: string, cursor?: Partial<Cursor> | null, follow?: boolean): Request;
  /** `GET /computers/{id}/setup/logs` from `offset` (default 0), followed when `follow` (default `Follower.defaults.follow`). */
  setupLogs(computerId: string, offset?: number, follow?: boolean): Request;
};

/**
 * The policy of a `Follower`. Every option left out takes the core's default
 * (`Follower.defaults`). A wrong type is a `TypeError`; a value out of range
 * is `InvalidArgument` naming the option.
 */
export interface FollowOptions {
  /** Follow until exit (default true), or read what exists now (false: a clean end of the body ends the read). */
  follow?: boolean;
  /** What to do when output is lost (default `"fail"`). */
  gapPolicy?: GapPolicy;
  /** Connections in a row without progress allowed before giving up (default `DEFAULT_RETRIES`, 5). */
  retries?: number;
  /** The wait before the first reconnect without progress, in ms (default `DEFAULT_BACKOFF_MS`, 250). */
  backoffMs?: number;
  /** The longest wait, and the cap on `Retry-After`, in ms (default `DEFAULT_MAX_BACKOFF_MS`, 5000). */
  maxBackoffMs?: number;
  /** Spread each wait over `[base/2, base]` by the jitter value of `finish`/`noResponse` (default true). */
  jitter?: boolean;
  /** How long to wait for the headers, then for each complete frame, in ms (default `DEFAULT_LIVENESS_TIMEOUT_MS`). */
  livenessTimeoutMs?: number;
  /** The longest frame accepted, 1 to `MAX_FRAME_BYTES_LIMIT` (default `DEFAULT_MAX_FRAME_BYTES`). */
  maxFrameBytes?: number;
  /** Reject unknown frame types (default false). */
  strict?: boolean;
}

/** Where a follower is in its conversation (`"freed"` after `free()`). */
export type FollowerState = "ready" | "sent" | "body" | "done" | "failed" | "freed";

// <generated from dory_wire::records by scripts/generate.sh: do not edit> decisions
/**
 * The read is over: exited when exit was seen (with its exit code and whether it timed out), else
 * the normal end of a read that does not follow.
 */
export interface Done {
  type: "done";
  /** Whether exit was seen (false for the normal end of a read that does not follow). */
  exited: boolean;
  /** The exit code; `null` when killed, timed out, or not exited. */
  exitCode: number | null;
  /** Whether the process hit its deadline. */
  timedOut: boolean;
  /** The consumed offsets. */
  cursor: Cursor;
  /** The process, once known (never for setup logs). */
  procId: string | null;
}
/**
 * The connection ended before the output did: report the record (what a reconnect hook receives),
 * wait delay, then send the follower's next request (it resumes from cursor).
 */
export interface Reconnect {
  type: "reconnect";
  /** 1 for the first reconnect of this read, 2 for the second, and so on. */
  attempt: number;
  /**
   * Connections in a row that brought nothing new, this one included (0 after progress: no wait);
   * never more than retries.
   */
  failures: number;
  /** Why the connection ended. */
  reason: "end_of_body" | "gap" | "stalled" | "no_response" | "not_connected" | "unavailable";
  /** Where the next request resumes from. */
  cursor: Cursor;
  /** How long to wait before sending the next request. In milliseconds. */
  delayMs: number;
  /** The process, once known. */
  procId: string | null;
  /** What the transport (or the refusal) said; empty when nothing. */
  detail: string;
}
/**
 * The answer moved the read on without a disconnect (an exec answered by its keyed replay's
 * identity continues on the process's output): send the follower's next request now.
 */
export interface Continue {
  type: "continue";
}
/** What a follower decided when a response ended; switch on `type`. */
export type Decision = Done | Reconnect | Continue;

// </generated> decisions

/**
 * A whole read of retained output — a process's output, the setup logs, or
 * an exec stream continued on its process's output — across responses,
 * sans IO. The core decides which request to send, what each answer means,
 * when to reconnect, how long to wait first and when to give up; you do the
 * HTTP, the sleeping and the clock:
 *
 * ```js
 * const follower = Follower.processOutput("c1", "p1");
 * for (;;) {
 *   const r = follower.request();
 *   const response = await fetch(base + r.target, { method: r.method, headers: r.headers, body: r.body });
 *   follower.open(response.status, response.headers.get("content-type"), response.headers.get("ce-process-id"), response.headers.get("retry-after"));
 *   for await (const chunk of response.body) for (const e of follower.feed(chunk)) use(e);
 *   const [events, decision] = follower.finish();
 *   for (const e of events) use(e);
 *   if (decision.type === "done") break;
 *   if (decision.type === "reconnect") await sleep(decision.delayMs);
 * }
 * ```
 *
 * Errors are sticky: once a call has thrown a `DoryWireError` from the core,
 * every later call throws it again (`InvalidState` for a call out of order;
 * `StreamDisconnected` when the reconnect budget is spent; loss, answers and
 * protocol errors as they are, never retried). A `TypeError` (a wrong
 * argument type) and an `InvalidArgument` about a value the binding could
 * not convert (a status, a time) change nothing.
 */
export class Follower {
  private constructor();
  /** The core's default options (`FollowOptions::default()`), in JS names and units; frozen. */
  static readonly defaults: Readonly<Required<FollowOptions>>;
  /** Follows the output of process `procId` of `computerId`, from `options.cursor` (default zeros). */
  static processOutput(computerId: string, procId: string, options?: FollowOptions & { cursor?: Partial<Cursor> | null }): Follower;
  /**
   * Follows a process's output from a saved resume state (the object of
   * `resumeState()` or the string of `resumeStateJson()`, of a Reader or a
   * Follower, possibly from another language), which must name its process.
   */
  static resume(computerId: string, state: ResumeState | string, options?: FollowOptions): Follower;
  /** Follows the setup command's logs of `computerId` from `options.offset` (default 0). */
  static setupLogs(computerId: string, options?: FollowOptions & { offset?: number }): Follower;
  /**
   * Runs `command` as an exec stream and follows it to its exit: a stream
   * that broke after announcing its process continues on that process's
   * output; the command is never sent twice unless `idempotencyKey` makes
   * that safe.
   */
  static execStream(
    computerId: string,
    command: Command,
    options?: FollowOptions & { timeoutMs?: number | null; idempotencyKey?: string | null },
  ): Follower;
  /**
   * Drives a one-answer call — a request of `Request.start`, `Request.exec`
   * (without `stream`), `Request.getProcess` or `Request.kill` — to its
   * answer: its one event, then `done`. No response, a cut answer, no answer
   * within the liveness timeout, a 503 or 429: sent again within the budget
   * only when the request is idempotent (a get, a kill, a keyed start or
   * exec); otherwise, and once the budget is spent, `NoAnswer`.
   * @throws {TypeError} a request not built by `Request` (or an exec stream)
   */
  static call(request: Request, options?: FollowOptions): Follower;
  /** The next request to send: first, and after each `reconnect` (once its delay passed) or `continue`. */
  request(): Request;
  /**
   * The answer's status, `Content-Type`, `CE-Process-Id` and `Retry-After`
   * headers (null or undefined when absent). Once per request, before its body.
   * @throws {InvalidArgument} a status that is not an integer from 100 to 599, the core's range (the follower is unchanged)
   */
  open(status: number, contentType?: string | null, procId?: string | null, retryAfter?: string | null): void;
  /** Feeds the next piece of the body (split anywhere) and returns the events it completed, as `Reader.feed`. */
  feed(chunk: Uint8Array | ArrayBufferView | ArrayBuffer): Event[];
  /** Feeds like `feed`, the output bytes going into `transcript` (as `Reader.feedInto`). */
  feedInto(chunk: Uint8Array | ArrayBufferView | ArrayBuffer, transcript: Transcript): Event[];
  /**
   * The body ended: cleanly (no `transportError`) or broken (what the
   * transport said, or the Error it threw). `jitter` is a random value in
   * [0, 1] for the delay (default `Math.random()`; ignored with `jitter:
   * false`). Returns the events completed by the end and the decision.
   */
  finish(transportError?: string | Error | null, jitter?: number): [Event[], Decision];
  /**
   * No response came: the connection was reset or closed after it was made,
   * or no headers within `waitLimitMs()` (`waitedMs()` returned true).
   * `detail` is what the transport said. Returns the decision.
   */
  noResponse(detail?: string | Error | null, jitter?: number): Decision;
  /**
   * The connection was never made (refused, the name lookup failed, the
   * connect timed out): the request never left the machine, so it is sent
   * again whatever it is (an unkeyed start or exec too), within the budget
   * and backoff of any reconnect (reason `not_connected`). `detail` is what
   * the transport said. Returns the decision.
   */
  notConnected(detail?: string | Error | null, jitter?: number): Decision;
  /**
   * The longest the next wait for the service (for the headers, then for
   * more of the body) may last, in ms; null: no limit. Wait at most this
   * long, then report the wait with `waitedMs`: the follower keeps its own
   * wait clock, so the consumer's time between reads never counts.
   */
  waitLimitMs(): number | null;
  /**
   * One wait for the service took `elapsedMs`, whether or not anything came.
   * True when the liveness timeout is spent: abort, then `noResponse()` (no
   * headers yet) or `finish()` without a transport error (a body).
   */
  waitedMs(elapsedMs: number): boolean;
  /** The consumed offsets: where the read resumes from. */
  readonly cursor: Cursor;
  /** The process, once known. */
  readonly procId: string | null;
  /** Where the follower is in its conversation. */
  readonly state: FollowerState;
  /** Reconnects decided so far. */
  readonly attempts: number;
  /** The options of this follower: the core's defaults with the ones given. */
  readonly options: Readonly<Required<FollowOptions>>;
  /** The state to save to resume this read later (`Follower.resume` takes it back). */
  resumeState(): ResumeState;
  /** The resume state as the language-neutral JSON (snake_case keys). */
  resumeStateJson(): string;
  /** Releases the follower's WebAssembly memory now. Optional (garbage collection does it too); later calls throw. */
  free(): void;
}

/** Incremental UTF-8 decoding that never splits a character (U+FFFD for invalid bytes). */
export class Utf8Decoder {
  constructor();
  /** Decodes the next piece; returns the text it completes. */
  push(chunk: Uint8Array | ArrayBufferView | ArrayBuffer): string;
  /** Flushes an incomplete trailing character as U+FFFD. */
  finish(): string;
  /** Releases the WebAssembly memory now (optional). */
  free(): void;
}

/**
 * The wire's form of output bytes (the core's rule, what a client's frame
 * shows as `data` and `encoding`): their text with `"utf-8"` when they are
 * valid UTF-8 (the empty chunk included), else their padded standard base64
 * with `"base64"`.
 */
export function wireForm(bytes: Uint8Array | ArrayBufferView | ArrayBuffer): { data: string; encoding: "utf-8" | "base64" };

/**
 * The consumed offsets after `event`, from `cursor` before it (the core's
 * rule): an `output` or a `skipped` event moves its stream to its `end`;
 * other events move nothing. Returns a new cursor.
 */
export function cursorAfter(cursor: Cursor, event: Event): Cursor;

/**
 * The identity a start, get or kill was answered by, from the events of its
 * document answer (the core's rule); any other answer throws the core's
 * `UnexpectedFrame` (`line` 0; `frameType` the document's type, e.g.
 * `"exec_result"`, or `"none"` when there is no document).
 */
export function identityAnswer(events: readonly Event[]): Identity;

/**
 * A synchronous exec's answer, from the events of its document answer (the
 * core's rule): its `exec_result`, or a keyed replay's `identity`; any other
 * answer throws the core's `UnexpectedFrame` (`frameType` `"none"` when
 * there is no document).
 */
export function execAnswer(events: readonly Event[]): ExecResult | Identity;

/**
 * The size of the WebAssembly memory in bytes. For diagnostics: it grows when
 * readers or bounders are neither freed nor garbage-collected (it never shrinks).
 */
export function memoryBytes(): number;

/** The default `maxFrameBytes`: 16 MiB (the core's). */
export const DEFAULT_MAX_FRAME_BYTES: number;
/** The default `livenessTimeoutMs`: 30000 (the core's, twice the heartbeat interval). */
export const DEFAULT_LIVENESS_TIMEOUT_MS: number;
/** The default `retries` of a `Follower`: 5 connections in a row without progress (the core's). */
export const DEFAULT_RETRIES: number;
/** The default `backoffMs` of a `Follower`: 250 (the core's). */
export const DEFAULT_BACKOFF_MS: number;
/** The default `maxBackoffMs` of a `Follower`, also the cap on `Retry-After`: 5000 (the core's). */
export const DEFAULT_MAX_BACKOFF_MS: number;
/** The largest `maxFrameBytes` accepted: 2^30 bytes (WebAssembly memory is 32-bit). */
export const MAX_FRAME_BYTES_LIMIT: number;
/** The smallest `maxBytes` with which a preview can cut input that does not fit (the core's: 32). */
export const MIN_MAX_BYTES: number;

// ------------------------------------------------------------------ errors

/**
 * The family of an error code: what went wrong, so what the caller can do.
 * `"transport"`: the connection ended before the output did and may not be
 * retried further (`StreamDisconnected`).
 */
export type ErrorKind = "answer" | "loss" | "protocol" | "misuse" | "limits" | "transport";

/**
 * The table of error codes: the core's (`dory_wire::ERROR_CODES`), then this
 * package's `integer_out_of_range`. Each row names the class raised for the
 * code, its kind, and its fields as the error's (camelCase) properties.
 */
export const ERROR_CODES: ReadonlyArray<{
  readonly code: string;
  readonly class: string;
  readonly kind: ErrorKind;
  readonly fields: readonly string[];
}>;

/** The constructor argument of the error classes: the fields of the code (and `code`, for a base class). */
export interface DoryWireErrorFields {
  code?: string;
  [field: string]: unknown;
}

/**
 * Base class of every error about decoded data and API misuse: one class per
 * code of `ERROR_CODES`, under `AnswerError`, `LossError` and `ProtocolError`
 * by kind (`InvalidState`, `InvalidLimits` and `IntegerOutOfRange` derive
 * from it directly). `code` is a stable string, the same in Rust, Python and
 * JS; the message is the core's text. `instanceof` works across the ESM and
 * CommonJS entry points and across copies of the package (it tests a
 * registered brand and the code).
 */
export class DoryWireError extends Error {
  constructor(message: string, fields?: DoryWireErrorFields);
  /** The stable error code. */
  code: string;
  /** The family of the code (null for a base class built without a known code). */
  kind: ErrorKind | null;
  /** Events completed by `finish()` before it failed (rare). */
  events?: Event[];
}

/** The server answered with an error. */
export class AnswerError extends DoryWireError {
  kind: "answer";
}
/** Output is gone. */
export class LossError extends DoryWireError {
  kind: "loss";
}
/** The wire broke the protocol; `code` tells how. */
export class ProtocolError extends DoryWireError {
  kind: "protocol";
}

/** Any other error answer of the API. */
export class ApiError extends AnswerError {
  code: "api_error";
  /** The HTTP status. */
  status: number;
  /** The body's `error` code, when the body was a JSON error document. */
  apiCode: string | null;
  /** The body's `message`, or a description of the body. */
  serverMessage: string;
}
/** 400 `offset_beyond_output`: the requested offsets are beyond the output. A client bug: never reset to zero. */
export class OffsetBeyondOutput extends AnswerError {
  code: "offset_beyond_output";
  /** The server's message. */
  serverMessage: string;
}
/** Output was lost (a hole, a `gap` frame, a 409) under the `fail` policy. Resume from `earliest` to skip it knowingly. */
export class OutputGap extends LossError {
  code: "output_gap";
  /** The first stream that lost bytes (stdout before stderr). */
  stream: Stream;
  /** The offsets consumed when the gap was found. */
  consumed: Cursor;
  /** The earliest offsets still available, per stream. */
  earliest: Cursor;
}
/** 410 `output_expired`: the retained output is gone. Terminal. */
export class OutputExpired extends LossError {
  code: "output_expired";
  /** The server's message. */
  serverMessage: string;
}
/** A 2xx whose Content-Type is neither NDJSON nor JSON: never guessed. */
export class UnsupportedContentType extends ProtocolError {
  code: "unsupported_content_type";
  /** The Content-Type as given (empty when absent). */
  contentType: string;
}
/** A line or document that is not a valid frame. */
export class MalformedFrame extends ProtocolError {
  code: "malformed_frame";
  /** 1-based line in the body (0 for a JSON document). */
  line: number;
  /** What was wrong. */
  reason: string;
}
/** A valid frame that may not appear here. */
export class UnexpectedFrame extends ProtocolError {
  code: "unexpected_frame";
  /** 1-based line in the body. */
  line: number;
  /** The frame's type. */
  frameType: string;
  /** Why it is unexpected here. */
  reason: string;
}
/** The `started` frame's `proc_id` differs from the `CE-Process-Id` header (or the resume state's). */
export class IdentityMismatch extends ProtocolError {
  code: "identity_mismatch";
  /** The process id expected. */
  expected: string;
  /** The process id the body announced. */
  found: string;
}
/** A line (or JSON document) grew beyond `maxFrameBytes`. */
export class FrameTooLarge extends ProtocolError {
  code: "frame_too_large";
  /** The limit exceeded, in bytes. */
  limit: number;
}
/** The API was used out of order (`feed` before `open`, after `finish`, on a freed reader, …). */
export class InvalidState extends DoryWireError {
  code: "invalid_state";
  kind: "misuse";
  /** What was done out of order. */
  reason: string;
}
/**
 * Preview limits that leave no room for a cut (`maxLines` 0, or `maxBytes`
 * or `maxTokens` below `MIN_MAX_BYTES`) when the input does not fit, or a
 * limit that is not a whole number from 0 to 2^32 - 1.
 */
export class InvalidLimits extends DoryWireError {
  code: "invalid_limits";
  kind: "limits";
  /** Which limit is wrong and why. */
  reason: string;
}
/**
 * An argument no request or follower can be built from (an empty id or
 * command, a timeout that is not a positive number of seconds, an
 * idempotency key that cannot be a header value, an option out of range, a
 * jitter outside [0, 1]). Argument types are checked first, with `TypeError`.
 */
export class InvalidArgument extends DoryWireError {
  code: "invalid_argument";
  kind: "misuse";
  /**
   * The argument's name: the core's (`computer_id`, `command`,
   * `timeout_seconds`, `jitter`, …) or, for a value the binding converts, the
   * JS option's (`backoffMs`, `cursor.stdout`, `status`, …). The same field
   * in every language.
   */
  argument: string;
  /** What is wrong with it. */
  reason: string;
}
/**
 * A one-answer call (a start, a get, a kill, a synchronous exec) got no
 * answer — the connection could not be made, was reset or cut, or nothing
 * came within the liveness timeout — and the request may not be sent again
 * (a start or exec without an idempotency key that may have reached the
 * service: a second send could run the command twice) or its reconnect
 * budget is spent. When `reached` is false no attempt ever connected: the
 * request cannot have taken effect. Otherwise it may have: send a keyed
 * start again with the same key to learn its process. `dory-wire/client`
 * raises the same class.
 */
export class NoAnswer extends DoryWireError {
  code: "no_answer";
  kind: "transport";
  /** Why the last attempt ended (`end_of_body`: the answer was cut short; `stalled`: nothing within the liveness timeout). */
  reason: "end_of_body" | "stalled" | "no_response" | "not_connected" | "unavailable";
  /** `"GET"` or `"POST"`. */
  method: string;
  /** The request's path and query. */
  target: string;
  /** How many times the request was sent (or tried, when it never connected). */
  attempts: number;
  /** What the transport said; `""` when nothing. */
  detail: string;
  /** Whether some attempt may have reached the service (false: none connected, so it cannot have taken effect). */
  reached: boolean;
  /** The transport's error, when the HTTP client had one. */
  cause?: unknown;
}
/**
 * A read gave up: the connection ended before the output did and the
 * reconnect budget is spent, or the request may not be sent again (an exec
 * without an idempotency key that broke before announcing its process). The
 * output is still retained: read it again from `cursor`; never start the
 * command again. `dory-wire/client` raises the same class (one class for
 * both entry points), which also reads under the wire's names
 * (`stdout_offset`, `stderr_offset`, `proc_id`).
 */
export class StreamDisconnected extends DoryWireError {
  /** The error of a reconnect's record for a caller that does not reconnect (a one-response iterator): the core's message, the record's reason, cursor and process; `cause`, the transport's error. */
  static fromReconnect(record: Reconnect, cause?: unknown): StreamDisconnected;
  code: "stream_disconnected";
  kind: "transport";
  /** Why the last connection ended. */
  reason: "end_of_body" | "gap" | "stalled" | "no_response" | "not_connected" | "unavailable";
  /** The consumed offsets: where to resume from. */
  cursor: Cursor;
  /** The process whose output was read, once known. */
  procId: string | null;
  /** What the transport (or the refusal) said; `""` when nothing. */
  detail: string;
  /** `cursor.stdout`. */
  readonly stdout_offset: number;
  /** `cursor.stderr`. */
  readonly stderr_offset: number;
  /** `procId`, under the wire's name. */
  proc_id: string | null;
  /** The transport's error, when the HTTP client had one. */
  cause?: unknown;
}
/** An offset or exit code above `Number.MAX_SAFE_INTEGER`: JavaScript never rounds it. */
export class IntegerOutOfRange extends DoryWireError {
  code: "integer_out_of_range";
  kind: "limits";
  /** Which value. */
  field: string;
  /** The exact value, when known. */
  value: bigint;
}

// ------------------------------------------------------------------ preview

/** A bounded preview with exact accounting. Counts add up: `headBytes + omittedBytes + tailBytes === totalBytes`. */
export interface Preview {
  /** The preview: within the limits (`maxLines`, `maxBytes` and, when given, `maxTokens`), notice included. */
  text: string;
  /** Whether anything was cut (then `text` holds exactly one notice line). */
  truncated: boolean;
  /** Lines of the input (a final run without `\n` counts). */
  totalLines: number;
  /** Bytes of the input. */
  totalBytes: number;
  /** Input bytes shown before the notice (all of them when not truncated). */
  headBytes: number;
  /** Input bytes shown after the notice. */
  tailBytes: number;
  /** Input lines with at least one byte not shown. */
  omittedLines: number;
  /** Input bytes not shown. */
  omittedBytes: number;
  /** First and last omitted line, 1-based and inclusive; null when nothing was cut. */
  omittedRange: [number, number] | null;
  /** The id the full output was to be saved under, when a spill was needed. */
  spillId: string | null;
  /** The path the notice points at (only when it does). */
  spillPath: string | null;
  /**
   * Why the notice does not point at a saved file when a save was tried, in
   * the core's words (the same as Python's): `spill writer failed: Error: …`,
   * `spill writer returned number instead of a path string`, `spill writer is
   * asynchronous: use boundAsync()`, `spill path is empty`, `spill path too
   * long: …`, or the caller's reason.
   */
  spillError: string | null;
  /**
   * The notice lines the bounder wrote into `text`, in the order they appear
   * (empty for input that fits unchanged): the cut's notice, the kept-lines
   * header, the terminal line, a run's stderr header and loss line, and a
   * finished run's end line (its combined view: how the process ended).
   */
  notices: Notice[];
  /**
   * How many tokens `text` encodes to under the token limit's tokenizer,
   * counted in full (`countTokens(text, tokenizer)`; at most `maxTokens`);
   * null when neither `maxTokens` nor `tokenizer` was given.
   */
  tokens: number | null;
  /**
   * The canonical JSON object (docs/schema/preview.schema.json): the core's
   * `Preview::to_json` parsed, snake_case, so `JSON.stringify(preview)` gives
   * the same bytes as Python's `Preview.to_json()` and Rust's `to_json`.
   */
  toJSON(): PreviewJSON;
}

/** What a notice line of a preview says (docs/preview.md, "The notices"). */
export type NoticeKind = "omitted" | "kept" | "terminal" | "stderr" | "lost" | "end";

/** One notice line of a preview. */
export interface Notice {
  /** `omitted` (the cut), `kept` (the kept-lines header), `terminal` (the rendering line), `stderr` (a run's stderr header) or `lost` (a run's loss line). */
  kind: NoticeKind;
  /** Its 1-based line number in the preview's `text`. */
  line: number;
  /** The line itself, without its `\n`. */
  text: string;
}

/** A preview's canonical JSON object (`preview.toJSON()`; docs/schema/preview.schema.json). */
export interface PreviewJSON {
  text: string;
  truncated: boolean;
  total_lines: number;
  total_bytes: number;
  head_bytes: number;
  tail_bytes: number;
  omitted_lines: number;
  omitted_bytes: number;
  omitted_range: { first: number; last: number } | null;
  spill_id: string | null;
  spill_path: string | null;
  spill_error: string | null;
  notices: Notice[];
  tokens: number | null;
}

/** A run result's canonical JSON object (`result.toJSON()`; docs/schema/run-result.schema.json). */
export interface RunResultJSON {
  proc_id: string;
  idempotency_key: string;
  exit_code: number | null;
  timed_out: boolean;
  stdout: PreviewJSON;
  stderr: PreviewJSON;
  combined: PreviewJSON;
  stdout_lost_bytes: number;
  stderr_lost_bytes: number;
}

/** A synchronous spill writer: saves `data` under `spillId` and returns the path, or null to save nothing. */
export type SpillWriter = (spillId: string, data: Uint8Array) => string | null | undefined;
/** An asynchronous spill writer. */
export type AsyncSpillWriter = (spillId: string, data: Uint8Array) => string | null | undefined | Promise<string | null | undefined>;

/** The `keep` option: lines of the omitted middle to keep (docs/preview.md, "Kept lines"). */
export type Keep = null | "defaults" | readonly string[];

/** The default keep patterns (`keep: "defaults"`), the core's `Keep::DEFAULT_PATTERNS`. */
export const DEFAULT_KEEP_PATTERNS: readonly string[];

/**
 * `run`'s preview shape for any tool output, as the options of `bound()`,
 * `StreamingBounder` and `RunBounder` (the core's `Bounder::run_preset`):
 * `bound(data, { maxLines, maxBytes, ...RUN_PRESET })`.
 */
export const RUN_PRESET: Readonly<{ keep: "defaults"; terminal: true; split: "tail" }>;

/** Where a cut preview's budget goes: `"even"` (half to the head, half to the tail) or `"tail"` (an eighth to the head, the rest to the tail: the shape of `run`'s previews). */
export type Split = "even" | "tail";

/**
 * The options of every bounder beside `maxLines` and `maxBytes`
 * (tests/api/surface.json, "preview_options"): the token limit
 * (`maxTokens`, `tokenizer`: none by default), `keep`, `terminal` and
 * `split` (off, off and `"even"` by default).
 */
export interface PreviewRenderOptions {
  /**
   * Most tokens of the preview, notices included, under `tokenizer`: a
   * third limit, whichever binds first decides (default none). A preview
   * over it is cut at a smaller byte budget, the largest whose preview
   * fits; `Preview.tokens` holds the count. Without `tokenizer`, the core's
   * default tokenizer (`"o200k_base"`), which this package's build lacks:
   * name one of `TOKENIZERS` (`"approx"`).
   * @throws {InvalidLimits} a number that is not a whole number from 0 to 2^32 - 1 (as `maxBytes`); below `MIN_MAX_BYTES` (32) when the input must be cut
   */
  maxTokens?: number | null;
  /**
   * What counts the tokens: one of `TOKENIZERS` (`"approx"` in this build;
   * `"o200k_base"` and `"cl100k_base"` where the exact encodings are built
   * in). Given without `maxTokens` it only counts (`Preview.tokens`).
   * @throws {InvalidArgument} (argument `tokenizer`) another name, or one this build lacks
   */
  tokenizer?: string | null;
  /**
   * Lines matching these regular expressions (`"defaults"`:
   * `DEFAULT_KEEP_PATTERNS`) are kept from the omitted middle, in a section
   * after the notice. Default null: none.
   * @throws {InvalidArgument} (argument `keep`) a pattern the core refuses
   */
  keep?: Keep;
  /** Renders the preview as a terminal shows it: redraws collapsed, escapes and controls removed. Default false. */
  terminal?: boolean;
  /**
   * Where a cut preview's budget goes (default `"even"`; `"tail"` is `run`'s shape).
   * @throws {InvalidArgument} (argument `split`) another string
   */
  split?: Split;
}

/** Options of `bound`. */
export interface BoundOptions<W> extends PreviewRenderOptions {
  /** Most lines of the preview, notice included (any count; a cut needs >= 1). */
  maxLines: number;
  /** Most bytes of the preview, notice included (any count; a cut needs >= `MIN_MAX_BYTES`). */
  maxBytes: number;
  /** Saves the full output when it must be cut. Its errors never escape: see `Preview.spillError`. */
  spill?: W | null;
  /** The spill id to save under (default with a writer: a random 32-hex id). */
  spillId?: string | null;
  /** One line added to the notice after the path (e.g. which tool reads it). */
  hint?: string | null;
}

/**
 * Bounds `data` (bytes, or text as its UTF-8 bytes) to a head + tail preview
 * within `maxLines` and `maxBytes`, notice included. Data that fits comes back
 * unchanged, whatever the limits. A writer that throws or returns a non-string never escapes.
 * @throws {DoryWireError} `invalid_limits` when `data` must be cut and the limits leave no room for a cut
 * @throws {InvalidLimits} a limit that is not a whole number from 0 to 2^32 - 1 (the core's range, as in Python); {TypeError} a wrong argument type
 */
export function bound(data: Uint8Array | string, options: BoundOptions<SpillWriter>): Preview;
/** `bound` with a writer that may return a promise; a rejection is reported in `spillError`. */
export function boundAsync(data: Uint8Array | string, options: BoundOptions<AsyncSpillWriter>): Promise<Preview>;

/**
 * The names of the tokenizers this build counts with (the core's
 * `tokenizers()`): `["approx"]` in this package, whose `.wasm` leaves out
 * the exact encodings' vocabularies (`"o200k_base"`, `"cl100k_base"`).
 */
export const TOKENIZERS: readonly string[];

/**
 * How many tokens `text` encodes to under `tokenizer`: the counter a token
 * limit uses, so `countTokens(preview.text, tokenizer) === preview.tokens`.
 * Default: the core's default tokenizer (`"o200k_base"`), which this build
 * lacks.
 * @throws {InvalidArgument} (argument `tokenizer`) a name this build lacks; {TypeError} `text` is not a string
 */
export function countTokens(text: string, tokenizer?: string | null): number;

/** Options of `StreamingBounder.finish`. */
export interface FinishOptions<W> {
  /** Returns the path where the caller saved the pushed chunks (or null). */
  spill?: W | null;
  /** One line added to the notice after the path. */
  hint?: string | null;
}

/**
 * Bounds data given in chunks in memory proportional to the limits, with the
 * same result as `bound` over the concatenated chunks. To spill, write each
 * chunk yourself as you push it (name the file after `spillId`, or rename it
 * when `finish` gives you the id), then return its path from `spill`.
 */
export class StreamingBounder {
  /** @throws {InvalidLimits}/{TypeError} as for `bound` (any whole limits from 0 to 2^32 - 1 are accepted) */
  constructor(options: { maxLines: number; maxBytes: number; spillId?: string | null } & PreviewRenderOptions);
  /** Feeds the next chunk. @throws {DoryWireError} `invalid_state` after `finish` */
  push(chunk: Uint8Array | string): void;
  /** Bytes pushed so far. */
  readonly totalBytes: number;
  /** Bytes of buffer held: bounded by the limits. */
  readonly retainedBytes: number;
  /**
   * Ends the input and returns the preview; `spill(spillId)` returns the path
   * of the saved chunks (or null). @throws {DoryWireError} `invalid_state` when
   * called twice, `invalid_limits` as for `bound`
   */
  finish(options?: FinishOptions<(spillId: string) => string | null | undefined>): Preview;
  /** `finish` with a writer that may return a promise. */
  finishAsync(options?: FinishOptions<(spillId: string) => string | null | undefined | Promise<string | null | undefined>>): Promise<Preview>;
  /** Releases the WebAssembly memory now (optional). */
  free(): void;
}

// ------------------------------------------------------------------- search

/** Options of a search (the run's limits by default, checked as a run checks them). */
export interface SearchOptions {
  /** Lines of context before and after each matching line (`grep -C`); below `maxLines`. Default 0. */
  context?: number;
  /** The most lines of the text, notice included (at least 2). Default 400. */
  maxLines?: number;
  /** The most bytes of the text, notice included (at least 80). Default 16384. */
  maxBytes?: number;
  /** Match letters of either case (`grep -i`). Default false. */
  ignoreCase?: boolean;
}

/** The matching lines of a search, bounded, with exact counts. */
export interface SearchResult {
  /** `N:text` for a matching line, `N-text` for context, `--` between groups, then the notice when one is needed. */
  text: string;
  /** Whether a line of the full `grep` output is not shown, or shown in part. */
  truncated: boolean;
  /** Lines of the input (a final run without `\n` counts as a line). */
  totalLines: number;
  /** Bytes of the input. */
  totalBytes: number;
  /** Lines that matched, shown or not. */
  matchedLines: number;
  /** Matching lines shown, whole or in part. */
  shownLines: number;
  /** Matching lines not shown. */
  omittedLines: number;
  /** The line shown in part, 1-based. */
  partialLine: number | null;
  /** Lines longer than 65536 bytes, matched on their first 65536 bytes only. */
  longLines: number;
  /** The first such line, 1-based. */
  firstLongLine: number | null;
  /** The path given to `finish`. */
  spillPath: string | null;
  /** `grep -n -E 'PATTERN' PATH`, listing every match, when a path was given. */
  command: string | null;
}

/**
 * Searches a saved output (a spill) for a pattern, from chunks of any size, in
 * memory bounded by the limits.
 */
export class Searcher {
  /** @throws {DoryWireError} `invalid_argument` (argument `pattern` or `context`), `invalid_limits` */
  constructor(pattern: string, options?: SearchOptions);
  /** Feeds the next bytes. @throws {DoryWireError} `invalid_state` after `finish` */
  push(chunk: Uint8Array): void;
  /** Bytes held: bounded by the options. */
  readonly bufferedBytes: number;
  /** Ends the input; `path` is where the output is saved (the notice's grep command reads it). */
  finish(path?: string | null): SearchResult;
  /** Releases the WebAssembly memory now (optional). */
  free(): void;
}

/** Options of `searchChunks`: a search's, and the path the output is saved at. */
export interface SearchChunksOptions extends SearchOptions {
  /** Where the output is saved: the notice's grep command reads it. */
  path?: string | null;
}

/** Searches an (async) iterable of Uint8Array chunks, e.g. `fs.createReadStream(path)`. */
export function searchChunks(
  chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  pattern: string,
  options?: SearchChunksOptions,
): Promise<SearchResult>;

// ---------------------------------------------------------------------- run

/** One of a run's three views: each stream alone, or both in the order they arrived (what `2>&1` gives). */
export type View = "stdout" | "stderr" | "combined";

/** The default `maxLines` of a run's previews (every client's `run` uses it): 400. */
export const DEFAULT_RUN_MAX_LINES: number;
/** The default `maxBytes` of a run's previews: 16384, a model-sized result. */
export const DEFAULT_RUN_MAX_BYTES: number;
/** The least `maxBytes` a run accepts (`RunBounder.checkLimits`): 80. */
export const MIN_RUN_MAX_BYTES: number;

/**
 * The spill id a run keyed by `idempotencyKey` uses: `run-` and 32 hex
 * digits derived from the key, so a second call with the same key names the
 * same files and renders the same previews. Each view's spill is
 * `<id>-stdout`, `<id>-stderr` and `<id>-combined`.
 */
export function runSpillId(idempotencyKey: string): string;

/**
 * Bounds a run's output as it arrives (docs/preview.md, "A run's three
 * views"): a preview of stdout, of stderr and of both combined in arrival
 * order, each within `maxLines` and `maxBytes`, in memory proportional to
 * the limits whatever the output's size.
 *
 * - Streaming equals whole: without losses, each view's preview is exactly
 *   `bound()` of that view's bytes with the same limits and spill id,
 *   however the output was split.
 * - Lost output is said: a range given to `lose` (a `skipped` event under
 *   gap policy `"skip"`) ends the preview of every view it belongs to with a
 *   line `[... N bytes lost: stdout offsets A-B were not retained ...]`.
 * - The end of stderr is never lost to stdout: when the combined cut would
 *   hide stderr's last byte, a quarter of the budget shows stderr's last lines.
 *
 * Write each chunk to the spills of its stream and of `"combined"` as you
 * push it, then render each view of the `RunPending` with what saving did.
 */
export class RunBounder {
  /**
   * `spillId` names the views' spills `<spillId>-<view>` (default: derived
   * from each view's content, known at `finish`). Any integer limits are
   * accepted here; `RunBounder.checkLimits` says whether they suit any run.
   * @throws {InvalidLimits}/{TypeError} a limit that is not a whole number from 0 to 2^32 - 1, a wrong argument type
   */
  constructor(options: { maxLines: number; maxBytes: number; spillId?: string | null } & PreviewRenderOptions);
  /**
   * Whether these limits can be honoured for any output of a run; `tokens`,
   * the token limit's options as a bounder takes them.
   * @throws {InvalidLimits} when `maxLines < 2`, `maxBytes < MIN_RUN_MAX_BYTES` or `maxTokens < MIN_RUN_MAX_BYTES`
   * @throws {InvalidArgument} (argument `tokenizer`) a tokenizer this build lacks
   */
  static checkLimits(maxLines: number, maxBytes: number, tokens?: { maxTokens?: number | null; tokenizer?: string | null } | null): void;
  /** Feeds the next bytes of `stream` (text as its UTF-8 bytes), in arrival order. @throws {InvalidState} after `finish` */
  push(stream: Stream, data: Uint8Array | string): void;
  /** Records that `stream` lost offsets `[start, end)` (safe integers or bigints); an empty or inverted range records nothing. */
  lose(stream: Stream, start: number | bigint, end: number | bigint): void;
  /** The id `view`'s spill is saved under, or null when no `spillId` was given. */
  spillId(view: View): string | null;
  /** Bytes of `view` pushed so far. */
  totalBytes(view: View): number;
  /** Bytes of `view` recorded as lost so far. */
  lostBytes(view: View): number;
  /** Bytes of buffer held: bounded by the limits, whatever was pushed; 0 once finished. */
  readonly retainedBytes: number;
  /**
   * Ends the output. @throws {InvalidState} when called twice; {InvalidLimits}
   * when a view must be cut, or a loss said, and the limits leave no room for it
   */
  finish(): RunPending;
  /** Releases the WebAssembly memory now (optional). */
  free(): void;
}

/** A finished run, waiting for each view's spill outcome (`RunBounder.finish()` makes it). */
export class RunPending {
  private constructor();
  /** The id to save `view`'s full bytes under. */
  spillId(view: View): string;
  /** Whether `view` is cut, so that its preview points at a spill (else its spill can be discarded). */
  needsSpill(view: View): boolean;
  /** Bytes of `view` (lost bytes not included). */
  totalBytes(view: View): number;
  /** Bytes of `view` that were lost, and in how many ranges. */
  lost(view: View): { bytes: number; ranges: number };
  /**
   * Renders `view` (the outcome is ignored when the view is not cut):
   * `spillPath` when its bytes were saved there (the notice names it, then
   * `hint`), `spillError` when saving failed (your reason, in
   * `Preview.spillError`; the notice names no file), neither when nothing
   * was saved. The text is the view bounded as by `bound()`, then (combined)
   * the stderr section, then the loss line.
   */
  render(view: View, options?: { spillPath?: string | null; spillError?: string | null; hint?: string | null }): Preview;
  /**
   * Renders `view` for what a spill writer did, with the core's texts as
   * `bound()` reports them: `returned` (a path string; null or undefined:
   * nothing saved; anything else: `spill writer returned X instead of a
   * path string`) or `threw` (`spill writer failed: Error: …`).
   */
  renderWriter(view: View, outcome: { returned?: unknown; threw?: unknown; hint?: string | null }): Preview;
  /** Releases the WebAssembly memory now (optional). */
  free(): void;
}

/**
 * What `new Run(...)` is given: the random bytes of a fresh key, the
 * previews' limits, the start's key and deadline, what a cancel does,
 * which of the caller's sinks exist, and the follow options (those of a
 * `Follower`; `follow` must be true). The names and defaults are those of
 * every client's `run` (docs/run.md).
 */
export interface RunMachineOptions extends FollowOptions {
  /** 16 bytes from a secure source (`crypto.getRandomValues(new Uint8Array(16))`): the fresh `run-` key when no `idempotencyKey` is given. Required. */
  random: Uint8Array | ArrayBufferView | ArrayBuffer;
  /** The most lines of each preview (default `DEFAULT_RUN_MAX_LINES`, 400). */
  maxLines?: number | null;
  /** The most bytes of each preview (default `DEFAULT_RUN_MAX_BYTES`, 16384). */
  maxBytes?: number | null;
  /** The most tokens of each preview under `tokenizer` (default none; at least `MIN_RUN_MAX_BYTES`, 80), as a bounder's `maxTokens`. */
  maxTokens?: number | null;
  /** What counts each preview's tokens, as a bounder's `tokenizer` (one of `TOKENIZERS`; alone, it only counts). */
  tokenizer?: string | null;
  /** The start's key (default: the fresh `run-` key made of `random`). */
  idempotencyKey?: string | null;
  /** The process's deadline in ms (default: none), sent as `timeoutMs / 1000` seconds. */
  timeoutMs?: number | null;
  /** The hint after the notice's command in a cut preview (default: none). */
  hint?: string | null;
  /** On a cancel, kill the process (default false). */
  killOnCancel?: boolean | null;
  /** Whether the caller saves the views' output (default false: no spill action, a cut preview names no file). */
  spill?: boolean | null;
  /** Whether the caller has a live output hook (default false: no `output` action). */
  onOutput?: boolean | null;
  /** The longest each wait of the start's and the kill's answer may last, in ms (default 30000). */
  answerTimeoutMs?: number | null;
  /** Lines of each view's omitted middle to keep, as a bounder's `keep` (default `"defaults"`: a model reads the previews; `null`: none). */
  keep?: Keep;
  /** Render each preview as a terminal shows it, as a bounder's `terminal` (default true; the spill keeps the raw bytes). */
  terminal?: boolean;
}

/** One thing a `Run` asks its client to do, in order; switch on `type`. */
export type RunAction =
  /** Open `view`'s spill file, saved under `spillId`: its bytes follow. Once per view, before its first byte. */
  | { type: "openSpill"; view: View; spillId: string }
  /** Append `data` to `view`'s spill file. */
  | { type: "writeSpill"; view: View; data: Uint8Array }
  /** Call the live output hook: the chunk's exact bytes and its text (at the end, or before a lost range, an incomplete character: empty bytes and U+FFFD). */
  | { type: "output"; stream: Stream; data: Uint8Array; text: string }
  /** Save `view`'s spill file (it was cut), then report it with `spillCommitted`. */
  | { type: "commitSpill"; view: View }
  /** Drop `view`'s spill file (its preview holds every byte, or the call was cancelled). */
  | { type: "discardSpill"; view: View };

/** What a `Run` decided when an answer ended (or on a cancel); switch on `type`. */
export type RunStep =
  /** Send `run.request()` now. */
  | { type: "send" }
  /** Wait `delayMs`, then send `run.request()`; `reconnect` is the output read's record (for a reconnect hook), null when a call (the start, the kill) is sent again. */
  | { type: "wait"; delayMs: number; reconnect: Reconnect | null }
  /** The output is complete: do the commits given (report each with `spillCommitted`), then take `result()`. */
  | { type: "done" }
  /** The run was cancelled: nothing more is sent, and there is no result. */
  | { type: "cancelled" };

/** Where a `Run` is (`"freed"` after `free()`). */
export type RunState = "starting" | "following" | "cancelling" | "done" | "finished" | "cancelled" | "failed" | "freed";

/**
 * The agent call `run` as one conversation, sans IO (docs/run.md, "The
 * conversation"): the keyed start (sent again safely when its answer is
 * lost), the process's output from offset 0 through reconnects, the views'
 * spills and the live output hook, a cancel's kill, and the result. Drive
 * it as a `Follower` and do what it says:
 *
 * ```js
 * const run = new Run("c1", "make", { random: crypto.getRandomValues(new Uint8Array(16)), spill: true, onOutput: true });
 * for (;;) {
 *   const r = run.request();
 *   const response = await fetch(base + r.target, { method: r.method, headers: r.headers, body: r.body });
 *   run.open(response.status, response.headers.get("content-type"), response.headers.get("ce-process-id"), response.headers.get("retry-after"));
 *   for await (const chunk of response.body) act(run.feed(chunk));
 *   const { actions, step } = run.finish();
 *   act(actions);
 *   if (step.type === "done") break;
 *   if (step.type === "wait") await sleep(step.delayMs);
 * }
 * const result = run.result();
 * ```
 *
 * Errors are sticky, and thrown as a `Follower` throws them.
 */
export class Run {
  /**
   * The file name a spill writer saves `spillId`'s output under: the core's
   * one rule for every client (the id 1 to 128 of `[A-Za-z0-9._-]`, not `.`
   * or `..`; the suffix of the same characters).
   * @throws {InvalidArgument} argument `spillId` or `suffix`
   */
  static spillFileName(spillId: string, suffix: string): string;
  /**
   * A run of `command` on `computerId`, checked whole before any request.
   * @throws {TypeError} a wrong type, or no `random`
   * @throws {InvalidArgument} a value the core refuses (naming the option)
   * @throws {InvalidLimits} limits no run can honour
   */
  constructor(computerId: string, command: Command, options: RunMachineOptions);
  /** The next request to send: first, and after a `send` or `wait` step (once its delay passed). */
  request(): Request;
  /** The answer's status and headers, as `Follower.open` takes them. */
  open(status: number, contentType?: string | null, procId?: string | null, retryAfter?: string | null): void;
  /** Feeds the next piece of the body (split anywhere); returns the actions it brought, in order. */
  feed(chunk: Uint8Array | ArrayBufferView | ArrayBuffer): RunAction[];
  /** The body ended: cleanly or broken. Returns its actions and the step; an error carries the actions before it as `actions`. */
  finish(transportError?: string | Error | null, jitter?: number): { actions: RunAction[]; step: RunStep };
  /** No response came (reset, closed, or no headers within `waitLimitMs()`); returns the step. */
  noResponse(detail?: string | Error | null, jitter?: number): RunStep;
  /** The connection was never made (refused, the name lookup failed): sent again within the budget; returns the step. */
  notConnected(detail?: string | Error | null, jitter?: number): RunStep;
  /** The caller cancelled: the open spills' discards, then `send` for the kill's conversation (with `killOnCancel`) or `cancelled`. */
  cancel(): { actions: RunAction[]; step: RunStep };
  /** The longest the next wait for the service may last, in ms; null: no limit. */
  waitLimitMs(): number | null;
  /** One wait for the service took `elapsedMs`; true when the liveness timeout is spent. */
  waited(elapsedMs: number): boolean;
  /** `view`'s spill writer threw `error` (opening or writing): nothing more is written to it. */
  spillFailed(view: View, error: unknown): void;
  /** What a `commitSpill` of `view` gave: what the commit returned (a path string, or nothing), or what it threw. */
  spillCommitted(view: View, outcome: { returned?: unknown; threw?: unknown }): void;
  /** The result, once `done` was given and the commits reported. Taken once. */
  result(): {
    procId: string;
    idempotencyKey: string;
    exitCode: number | null;
    timedOut: boolean;
    stdout: Preview;
    stderr: Preview;
    combined: Preview;
    stdoutLostBytes: number;
    stderrLostBytes: number;
    /** The canonical JSON object: `JSON.stringify(result)` gives the core's `RunResult::to_json` bytes. */
    toJSON(): RunResultJSON;
  };
  /** The name `view`'s spill is saved under (`<run spill id>-<view>`). */
  spillId(view: View): string;
  /** The key the start is sent with. */
  readonly idempotencyKey: string;
  /** The process, once the start answered. */
  readonly procId: string | null;
  /** The offsets of the output consumed so far. */
  readonly cursor: Cursor;
  /** Where the run is. */
  readonly state: RunState;
  /** Releases the run's WebAssembly memory now (optional; garbage collection does it too). Later calls throw. */
  free(): void;
}
