// The reader of one HTTP response (`Reader`) and the loop that drives it
// over a body (`iterEvents`), with the liveness deadline on the platform's
// timers.

import { ready, wasm } from "#platform";
import { checkInteger, checkName, checkOptions, describe, MAX_SAFE, resumeJson, toBytes } from "./args.js";
import { DEFAULT_LIVENESS_TIMEOUT_MS, DEFAULT_MAX_FRAME_BYTES, MAX_FRAME_BYTES_LIMIT } from "./constants.js";
import { misuse, rethrow, toError } from "./errors.js";
import { buildEvents } from "./events.js";
import { Transcript, transcriptInner } from "./transcript.js";

const ENDPOINTS = ["exec", "process_output", "setup_logs", "document"];
const GAP_POLICIES = ["fail", "skip"];

const READER_OPTIONS = ["cursor", "gapPolicy", "maxFrameBytes", "livenessTimeoutMs", "strict"];

function readerArgs(endpoint, options) {
  checkName(endpoint, ENDPOINTS, "endpoint");
  const o = checkOptions(options, READER_OPTIONS, "Reader option");
  const gapPolicy = o.gapPolicy === undefined ? "fail" : checkName(o.gapPolicy, GAP_POLICIES, "gapPolicy");
  const maxFrameBytes =
    o.maxFrameBytes === undefined
      ? DEFAULT_MAX_FRAME_BYTES
      : checkInteger(o.maxFrameBytes, "maxFrameBytes", 1, MAX_FRAME_BYTES_LIMIT);
  let liveness = DEFAULT_LIVENESS_TIMEOUT_MS;
  if (o.livenessTimeoutMs !== undefined) {
    liveness = o.livenessTimeoutMs;
    if (typeof liveness !== "number") {
      throw new TypeError(`livenessTimeoutMs must be a number, got ${describe(liveness)}`);
    }
    if (!Number.isFinite(liveness) || liveness < 0 || liveness > MAX_SAFE) {
      throw new RangeError(`livenessTimeoutMs must be a finite number of milliseconds >= 0, got ${liveness}`);
    }
  }
  if (o.strict !== undefined && typeof o.strict !== "boolean") {
    throw new TypeError(`strict must be a boolean, got ${describe(o.strict)}`);
  }
  return { gapPolicy, maxFrameBytes, liveness, strict: o.strict === true, cursor: o.cursor };
}

function checkCursor(cursor) {
  if (cursor === undefined || cursor === null) return { stdout: 0, stderr: 0 };
  if (typeof cursor !== "object") throw new TypeError(`cursor must be an object {stdout, stderr}, got ${describe(cursor)}`);
  return {
    stdout: cursor.stdout === undefined ? 0 : checkInteger(cursor.stdout, "cursor.stdout", 0, MAX_SAFE),
    stderr: cursor.stderr === undefined ? 0 : checkInteger(cursor.stderr, "cursor.stderr", 0, MAX_SAFE),
  };
}


/** Module-private token: lets `resume()` build a reader around an inner one. */
const ADOPT = Symbol("adopt");

/**
 * Decodes one HTTP response of the process-output protocol. Sans-IO: give it
 * the status and headers with `open`, the body bytes with `feed`, and the end
 * of the body with `finish`.
 */
export class Reader {
  #inner;
  #end = null;
  #freed = false;

  /**
   * @param {"exec"|"process_output"|"setup_logs"|"document"} endpoint
   * @param {object} [options] `{cursor, gapPolicy, maxFrameBytes, livenessTimeoutMs, strict}`
   */
  constructor(endpoint, options) {
    if (endpoint === ADOPT) {
      // Internal: Reader.resume() hands over an already built reader.
      this.#inner = options;
      return;
    }
    ready();
    const a = readerArgs(endpoint, options);
    const cursor = checkCursor(a.cursor);
    try {
      this.#inner = new wasm.WasmReader(endpoint, cursor.stdout, cursor.stderr, a.gapPolicy, a.maxFrameBytes, a.liveness, a.strict);
    } catch (e) {
      rethrow(e);
    }
  }

  /**
   * A reader that continues from a saved resume state: the object of
   * `resumeState()` or the string of `resumeStateJson()` (possibly written
   * by the Rust or Python package).
   */
  static resume(endpoint, state, options) {
    ready();
    const a = readerArgs(endpoint, options);
    if (a.cursor !== undefined) {
      throw new TypeError("Reader.resume() takes the cursor from the resume state; do not pass the cursor option");
    }
    const json = resumeJson(state);
    let inner;
    try {
      inner = wasm.WasmReader.resume(endpoint, json, a.gapPolicy, a.maxFrameBytes, a.liveness, a.strict);
    } catch (e) {
      rethrow(e);
    }
    return new Reader(ADOPT, inner);
  }

  #live() {
    if (this.#freed) throw misuse("this Reader was freed");
    return this.#inner;
  }

  /**
   * Gives the response status, its Content-Type and its `CE-Process-Id`
   * header. Call once, before the first `feed`.
   */
  open(status, contentType, procId) {
    const inner = this.#live();
    // The range is the core's (an invalid_argument error from open).
    if (typeof status === "bigint") status = Number(status);
    else if (typeof status !== "number") throw new TypeError(`status must be a number, got ${describe(status)}`);
    if (contentType === undefined || contentType === null) contentType = "";
    if (typeof contentType !== "string") {
      throw new TypeError(`contentType must be a string, got ${describe(contentType)}`);
    }
    if (procId !== undefined && procId !== null && typeof procId !== "string") {
      throw new TypeError(`procId must be a string, got ${describe(procId)}`);
    }
    const error = inner.open(status, contentType, procId ?? undefined);
    if (error !== "") throw toError(JSON.parse(error));
  }

  /**
   * Feeds the next piece of the body, split anywhere, and returns the events
   * it completed. When an error follows events in the same piece, those
   * events are returned and the (sticky) error is thrown by the next call.
   */
  feed(chunk) {
    const inner = this.#live();
    const bytes = toBytes(chunk, "feed()");
    const n = inner.feed(bytes);
    const side = n % 2 === 1 ? JSON.parse(inner.take_side()) : null;
    const events = buildEvents(inner, n, side);
    if (side !== null && side.error !== null && events.length === 0) throw toError(side.error);
    return events;
  }

  /**
   * Feeds like `feed`, but output bytes go into `transcript` (inside
   * WebAssembly memory, with no object per frame). Returns the other events
   * it completed, which are also recorded in the transcript.
   */
  feedInto(chunk, transcript) {
    const inner = this.#live();
    const bytes = toBytes(chunk, "feedInto()");
    if (!(transcript instanceof Transcript)) {
      throw new TypeError(`feedInto() takes a Transcript second, got ${describe(transcript)}`);
    }
    const n = inner.feed_into(bytes, transcriptInner(transcript));
    const side = n % 2 === 1 ? JSON.parse(inner.take_side()) : null;
    const events = buildEvents(inner, n, side);
    if (side !== null && side.error !== null && events.length === 0) throw toError(side.error);
    return events;
  }

  /**
   * Ends the body. Returns `[events, end]`: the events completed by the end
   * (a JSON document's, a `skipped` for a 409 under the skip policy), and
   * how the response ended.
   */
  finish() {
    const inner = this.#live();
    const n = inner.finish();
    const result = JSON.parse(inner.take_side());
    const events = buildEvents(inner, n, result);
    if (result.error !== null) {
      const error = toError(result.error);
      if (events.length > 0) error.events = events;
      throw error;
    }
    const end = result.end;
    if (end.type !== "exited" && end.type !== "disconnected" && end.type !== "document") {
      throw new Error(`dory-wire: unknown end ${JSON.stringify(end.type)} (binding mismatch)`);
    }
    this.#end = end;
    return [events, end];
  }

  /** The End returned by `finish()`, or null before it (handy after an `iterEvents` loop). */
  get end() {
    return this.#end;
  }

  /** The consumed offsets: where to resume from. */
  get cursor() {
    const c = JSON.parse(this.#live().cursor_json());
    if (c.error) throw toError(c.error);
    return c;
  }

  /** The process id, once known (from `started`, the header, the resume state or a document). */
  get procId() {
    return this.#live().proc_id() ?? null;
  }

  /** `"new"`, `"open"`, `"done"`, `"failed"` or `"freed"`. */
  get state() {
    return this.#freed ? "freed" : this.#inner.state();
  }

  /** The resume state as a plain camelCase object (`Reader.resume` takes it back). */
  resumeState() {
    const state = JSON.parse(this.#live().resume_state_js());
    if (state.error) throw toError(state.error);
    return state;
  }

  /** The resume state as the language-neutral JSON shared with Rust and Python (snake_case; exact whatever the offsets). */
  resumeStateJson() {
    return this.#live().resume_state_json();
  }

  /**
   * The time (milliseconds on the clock given to `handleTimeoutMs`) by which
   * the next byte must arrive, or null before the clock is armed.
   */
  pollTimeoutMs() {
    return this.#live().poll_timeout_ms() ?? null;
  }

  /**
   * Tells the reader the time in milliseconds on the caller's monotonic
   * clock (e.g. `performance.now()`). The first call arms the liveness
   * clock. Returns true when the stream stalled: `finish()` then ends
   * `disconnected` with reason `stalled`.
   */
  handleTimeoutMs(nowMs) {
    const inner = this.#live();
    if (typeof nowMs !== "number") throw new TypeError(`nowMs must be a number, got ${describe(nowMs)}`);
    if (!Number.isFinite(nowMs) || nowMs < 0) {
      throw new RangeError(`nowMs must be a finite number >= 0, got ${nowMs}`);
    }
    try {
      return inner.handle_timeout(nowMs);
    } catch (e) {
      rethrow(e);
    }
  }

  /**
   * Releases the reader's WebAssembly memory now. Optional: a reader that is
   * garbage-collected is released too. Any later call throws.
   */
  free() {
    if (!this.#freed) {
      this.#freed = true;
      const inner = this.#inner;
      this.#inner = undefined;
      if (inner) inner.free();
    }
  }
}
if (typeof Symbol.dispose === "symbol") {
  Reader.prototype[Symbol.dispose] = Reader.prototype.free;
}

/** The bytes of one chunk of a body, whatever the source gives. */
function chunkBytes(chunk) {
  if (typeof chunk === "string") {
    throw new TypeError("the body yielded a string; iterEvents() takes a body of bytes (Uint8Array chunks)");
  }
  return toBytes(chunk, "iterEvents() body chunk");
}

function isResponse(x) {
  return (
    x !== null &&
    typeof x === "object" &&
    typeof x.status === "number" &&
    x.headers !== null &&
    typeof x.headers === "object" &&
    typeof x.headers.get === "function" &&
    "body" in x
  );
}

function nowDefault() {
  return typeof performance !== "undefined" ? performance.now() : Date.now();
}

/**
 * Drives `reader` over a body: a `ReadableStream<Uint8Array>` (a fetch body),
 * any async or sync iterable of Uint8Array chunks, or a fetch `Response`
 * (then `open` is called from its status and headers when not done yet).
 * Yields every event, then finishes the reader; the End is the generator's
 * return value and, after the loop, `reader.end`.
 */
export async function* iterEvents(reader, body, options) {
  if (!(reader instanceof Reader)) {
    throw new TypeError(`iterEvents() takes a Reader first, got ${describe(reader)}`);
  }
  const o = checkOptions(options, ["liveness", "now"], "iterEvents option");
  const liveness = o.liveness !== false;
  const now = o.now === undefined ? nowDefault : o.now;
  if (typeof now !== "function") throw new TypeError("iterEvents option now must be a function returning milliseconds");
  if (isResponse(body)) {
    if (reader.state === "new") {
      reader.open(body.status, body.headers.get("content-type") ?? "", body.headers.get("ce-process-id") ?? undefined);
    }
    body = body.body;
    if (body === null) body = [];
  }
  let next;
  let close;
  if (body !== null && typeof body === "object" && typeof body.getReader === "function") {
    const r = body.getReader();
    next = () => r.read();
    close = (done) => {
      if (done) r.releaseLock();
      else r.cancel().catch(() => {});
    };
  } else if (body !== null && body !== undefined && typeof body[Symbol.asyncIterator] === "function") {
    const it = body[Symbol.asyncIterator]();
    next = () => it.next();
    close = (done) => {
      if (!done && typeof it.return === "function") Promise.resolve(it.return()).catch(() => {});
    };
  } else if (body !== null && body !== undefined && typeof body[Symbol.iterator] === "function" && typeof body !== "string") {
    const it = body[Symbol.iterator]();
    next = () => Promise.resolve(it.next());
    close = (done) => {
      if (!done && typeof it.return === "function") it.return();
    };
  } else {
    throw new TypeError(`iterEvents() takes a ReadableStream, an async iterable or a Response, got ${describe(body)}`);
  }

  let done = false;
  try {
    if (liveness) reader.handleTimeoutMs(now());
    for (;;) {
      let step;
      if (liveness) {
        step = await withDeadline(next(), reader, now);
        if (step === STALLED) break;
      } else {
        step = await next();
      }
      if (step.done) {
        done = true;
        break;
      }
      const events = reader.feed(chunkBytes(step.value));
      if (liveness) reader.handleTimeoutMs(now());
      for (const event of events) yield event;
    }
    const [events, end] = reader.finish();
    for (const event of events) yield event;
    return end;
  } finally {
    close(done);
  }
}

const STALLED = Symbol("stalled");

/** Races a read against the reader's liveness deadline. */
function withDeadline(read, reader, now) {
  return new Promise((resolve, reject) => {
    let timer;
    const arm = () => {
      const deadline = reader.pollTimeoutMs();
      if (deadline === null) return;
      timer = setTimeout(() => {
        if (reader.handleTimeoutMs(now())) resolve(STALLED);
        else arm();
      }, Math.max(0, Math.ceil(deadline - now())));
    };
    arm();
    read.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e) => {
        clearTimeout(timer);
        reject(e);
      },
    );
  });
}
