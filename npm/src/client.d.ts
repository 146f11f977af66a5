// Type declarations of `dory-wire/client` (hand-written; checked by
// `tsc --strict` on test/types/client-usage.ts in the package's tests).
//
// The HTTP client of the Dory process API on the platform's `fetch`. Every
// response is decoded by the core's `Reader`; this module adds the requests,
// the reconnect rules and the liveness timers.

import type { Cursor, End, GapPolicy, Stream, StreamDisconnected, Transcript } from "./index.js";

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
} from "./index.js";

// ------------------------------------------------------------------ client

/** Init of a request, as far as the client fills it. */
export interface FetchInit {
  method: string;
  headers: Record<string, string>;
  body?: string;
  signal: AbortSignal;
}

/** A fetch response, as far as the client reads it. */
export interface FetchResponse {
  status: number;
  headers: { get(name: string): string | null };
  body: ReadableStream<Uint8Array> | null;
}

/** A `fetch`: the platform's (the default) or any function of the same contract. */
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
  /** Headers sent with every request (an `authorization`, say). */
  headers?: Record<string, string>;
  /**
   * How long a stream may go without a byte, in ms, waiting for the
   * response's headers included (default `DEFAULT_LIVENESS_TIMEOUT_MS`,
   * 30000: twice the heartbeat interval). Then it ends with
   * `StreamDisconnected` (reason `stalled`).
   */
  livenessTimeoutMs?: number;
  /** The longest frame or JSON document accepted (default `DEFAULT_MAX_FRAME_BYTES`). */
  maxFrameBytes?: number;
}

/**
 * The connection to one Dory service. Every method is async and decodes the
 * answer with the core: error answers throw the core's errors (`ApiError`
 * with the status for a 404, a proxy's non-JSON 502, ...). A request that
 * fails in transport rejects with the `fetch`'s own error, except on streams
 * (`StreamDisconnected`).
 */
export class Client {
  /**
   * @throws {TypeError} no base URL (no `baseUrl` and no `DORY_URL`), no fetch, an unknown option
   * @throws {RangeError} a base URL that is not http(s), an option out of range
   */
  constructor(options?: ClientOptions);
  /** The computers of the service. */
  readonly computers: Computers;
  /** The base URL, without a trailing slash. */
  readonly baseUrl: string;
  /**
   * Aborts every request and stream in flight (they reject with an
   * `AbortError`) and makes later calls reject the same way. Idempotent.
   * Never kills a process.
   */
  close(): void;
}

/** The computers of the service. */
export interface Computers {
  /** A computer by id. Makes no request (the protocol has no computer resource). */
  get(id: string): Promise<Computer>;
}

/** The command: an argv, or one shell line (run with `sh -c`). */
export type Command = string | readonly string[];

/** Options of `processes.start` and `computer.exec`. */
export interface StartOptions {
  /** Kill the process group after this many seconds (the exit is then `{exit_code: null, timed_out: true}`). */
  timeout_seconds?: number;
  /** A key that makes the start idempotent: a repeated start answers the same identity and starts nothing. */
  idempotency_key?: string;
}

/** Options of `execStream`. */
export interface ExecStreamOptions extends StartOptions {
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
   * Streaming exec: a `started` frame, the output frames and `exit`. The
   * command starts when iteration starts. On `StreamDisconnected`, go on with
   * `processes.get(error.proc_id)` and `iterOutput(error)` / `readOutput(error)`
   * (the error carries `stdout_offset` and `stderr_offset`): never exec again.
   * A keyed replay (answered with a JSON identity) yields one `identity`
   * frame and ends.
   */
  execStream(command: Command, options?: ExecStreamOptions): OutputStream;
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

/** Where to start reading a process's retained output (the consumed offsets, default 0). */
export interface Offsets {
  stdout_offset?: number;
  stderr_offset?: number;
}

/** How the one-call reads reconnect. */
export interface ReadOptions extends StreamOptions {
  /**
   * How many reconnects in a row may make no progress (no new byte, no
   * skipped range) before the last `StreamDisconnected` is thrown (default
   * 5). A connection that made progress resets the count.
   */
  retries?: number;
  /** The first wait before a reconnect without progress, in ms (default 250); it doubles each time, with jitter. */
  backoffMs?: number;
  /** The longest wait, in ms (default 5000). */
  maxBackoffMs?: number;
  /** Record into this transcript (to keep what was read when the read throws); default a new one. */
  transcript?: Transcript;
  /** Called with each disconnection before reconnecting (its `reason` and offsets). */
  onReconnect?: (error: StreamDisconnected) => void;
}

/** A process's output, frame by frame. */
export interface OutputOptions extends Offsets, StreamOptions {}

/** A process's whole output in one call. */
export interface ReadOutputOptions extends Offsets, ReadOptions {}

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
  readonly proc_id: string;
  /** The status when the handle was made. */
  readonly status: "running" | "exited";
  /**
   * The retained output from per-stream byte offsets, frame by frame: one
   * connection, no reconnect. After `StreamDisconnected`, open another from
   * the stream's `stdout_offset` / `stderr_offset`.
   */
  iterOutput(options?: OutputOptions): OutputStream;
  /**
   * The documented reconnect loop in one call: reads from the offsets,
   * reconnects from the consumed offsets on `StreamDisconnected` (at once
   * after progress, else with a doubling backoff, within `retries`), never
   * starting the command again, and resolves with the whole output once
   * `exit` was seen (`transcript.exit`; with `follow: false`, where the
   * output ends now). `OutputGap` (under `"fail"`), `OutputExpired`,
   * `OffsetBeyondOutput` and other error answers reject as they are, never
   * retried; so does the last `StreamDisconnected` once the budget is spent.
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

/** The identity answered to a keyed replay of a streaming exec (the stream then ends). */
export type IdentityFrame = ProcessIdentity;

/** A frame type no union knows; it changes nothing. */
export interface UnknownFrame {
  type: "unknown";
  frame_type: string;
}

/** What an output stream yields; switch on `type`. */
export type Frame = OutputFrame | ExitFrame | StartedFrame | HeartbeatFrame | SkippedFrame | IdentityFrame | UnknownFrame;

/**
 * The frames of one output request, and the consumed offsets after each.
 * Iterate it once (`for await`). It ends after `exit` (or, read with
 * `follow: false`, where the output ends now; or after the `identity` of a
 * keyed replay); any other ending throws:
 * `StreamDisconnected` (reconnect from the offsets), `OutputGap`,
 * `OutputExpired`, `OffsetBeyondOutput`, `ApiError`, a `ProtocolError`.
 */
export interface OutputStream extends AsyncIterable<Frame> {
  /** Bytes of stdout consumed, through the last frame delivered (also after an error). */
  readonly stdout_offset: number;
  /** Bytes of stderr consumed, through the last frame delivered. */
  readonly stderr_offset: number;
  /** The consumed offsets as a core `Cursor`. */
  readonly cursor: Cursor;
  /** The process id, once known (an exec stream learns it from `started`). */
  readonly proc_id: string | null;
  /** How the response ended (the core's `End`) once it ended without throwing; null before. */
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
  /** No response: refused, reset, DNS, or no headers within the liveness timeout. */
  | "no_response"
  /** A transient refusal before any body (503, 429): the core's follower reports it. */
  | "unavailable";

// StreamDisconnected is the core's class (re-exported above from
// index.d.ts): one class for `dory-wire` and `dory-wire/client`, so
// `instanceof` holds whichever raised it. It carries `reason`, `cursor` and
// `procId`, and reads under the wire's names `stdout_offset`,
// `stderr_offset` and `proc_id`; `cause` is the transport's error.
