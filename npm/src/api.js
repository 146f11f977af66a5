// The public JavaScript API of dory-wire, over the low-level wasm-bindgen exports.
//
// This file is one function, `createApi(wasm, platform)`, with no import or
// export statement: build.mjs wraps the same text as CommonJS (Node) and as an
// ES module (browsers), so both builds run the very same code. The Node ES
// module entry re-exports the CommonJS one, so Node has one copy of every class.
//
// Everything protocol-related is decided by the Rust core; this layer checks
// argument types (TypeError / RangeError), turns the compact JSON that crosses
// the wasm boundary (numeric event records read in wasm memory, and compact
// JSON for the rare other events) into plain objects, and maps error objects
// to classes.

/* eslint-disable no-unused-vars */
function createApi(wasm, platform) {
  "use strict";

  const MAX_SAFE = Number.MAX_SAFE_INTEGER;
  /** The largest maxFrameBytes accepted (1 GiB; wasm32 has a 4 GiB address space). */
  const MAX_FRAME_BYTES_LIMIT = 1024 * 1024 * 1024;
  const DEFAULT_MAX_FRAME_BYTES = 16 * 1024 * 1024;
  const DEFAULT_LIVENESS_TIMEOUT_MS = 30000;
  const ENDPOINTS = ["exec", "process_output", "setup_logs", "document"];
  const GAP_POLICIES = ["fail", "skip"];
  const PROTOCOL_CODES = [
    "unsupported_content_type",
    "malformed_frame",
    "unexpected_frame",
    "identity_mismatch",
    "frame_too_large",
  ];

  // ---------------------------------------------------------------- errors

  // A registered symbol brands every error, so `instanceof` also works between
  // two copies of the package (two versions installed, or the browser build and
  // the Node build in one bundle): each class tests the brand and the code.
  const BRAND = Symbol.for("dory-wire.error");

  /** Base class of every error the library raises about the data it decodes. */
  class DoryWireError extends Error {
    /**
     * @param {string} message
     * @param {object} [fields] `code` and the fields of the kind
     */
    constructor(message, fields) {
      super(message);
      Object.defineProperty(this, BRAND, { value: true });
      Object.defineProperty(this, "name", {
        value: new.target.name,
        configurable: true,
        writable: true,
      });
      this.code = "dory_wire_error";
      if (fields) {
        for (const key of Object.keys(fields)) {
          if (key !== "message" && key !== "protocol") this[key] = fields[key];
        }
      }
    }
  }

  /** Output was lost (a hole, a `gap` frame, a 409) under the `fail` policy. */
  class OutputGap extends DoryWireError {}
  /** 410 `output_expired`: the retained output is gone. Terminal. */
  class OutputExpired extends DoryWireError {}
  /** 400 `offset_beyond_output`: the requested offsets are beyond the output. A client bug. */
  class OffsetBeyondOutput extends DoryWireError {}
  /** Any other error answer of the API. */
  class ApiError extends DoryWireError {}
  /** The wire broke the protocol; `code` tells how. */
  class ProtocolError extends DoryWireError {}

  function brandTest(test) {
    return {
      value(x) {
        return x !== null && typeof x === "object" && x[BRAND] === true && test(x);
      },
    };
  }
  Object.defineProperty(DoryWireError, Symbol.hasInstance, brandTest(() => true));
  Object.defineProperty(OutputGap, Symbol.hasInstance, brandTest((x) => x.code === "output_gap"));
  Object.defineProperty(OutputExpired, Symbol.hasInstance, brandTest((x) => x.code === "output_expired"));
  Object.defineProperty(
    OffsetBeyondOutput,
    Symbol.hasInstance,
    brandTest((x) => x.code === "offset_beyond_output"),
  );
  Object.defineProperty(ApiError, Symbol.hasInstance, brandTest((x) => x.code === "api_error"));
  Object.defineProperty(
    ProtocolError,
    Symbol.hasInstance,
    brandTest((x) => PROTOCOL_CODES.includes(x.code)),
  );

  /** Turns an error object that crossed the boundary into an Error. */
  function toError(obj) {
    const fields = Object.assign({}, obj);
    switch (obj.code) {
      case "range_error":
        return new RangeError(obj.message);
      case "output_gap":
        return new OutputGap(obj.message, fields);
      case "output_expired":
        return new OutputExpired(obj.message, fields);
      case "offset_beyond_output":
        return new OffsetBeyondOutput(obj.message, fields);
      case "api_error":
        return new ApiError(obj.message, fields);
      case "integer_out_of_range":
        fields.value = BigInt(obj.value);
        return new DoryWireError(obj.message, fields);
      default:
        if (obj.protocol || PROTOCOL_CODES.includes(obj.code)) {
          return new ProtocolError(obj.message, fields);
        }
        return new DoryWireError(obj.message, fields);
    }
  }

  /** Rethrows what a wasm export threw: error-object JSON strings become errors. */
  function rethrow(thrown) {
    if (typeof thrown === "string" && thrown.charCodeAt(0) === 123 /* { */) {
      let obj;
      try {
        obj = JSON.parse(thrown);
      } catch {
        throw new DoryWireError(thrown);
      }
      throw toError(obj);
    }
    throw thrown;
  }

  function misuse(reason) {
    return new DoryWireError(`invalid_state: ${reason}`, { code: "invalid_state", reason });
  }

  // ------------------------------------------------------- argument checks

  function describe(v) {
    if (v === null) return "null";
    if (Array.isArray(v)) return "an array";
    if (typeof v === "object") return v.constructor ? `a ${v.constructor.name}` : "an object";
    return `a ${typeof v}`;
  }

  function checkName(value, allowed, what) {
    if (typeof value !== "string") {
      throw new TypeError(`${what} must be a string (one of ${allowed.map((a) => `"${a}"`).join(", ")}), got ${describe(value)}`);
    }
    if (!allowed.includes(value)) {
      throw new RangeError(`unknown ${what} "${value}" (expected one of ${allowed.map((a) => `"${a}"`).join(", ")})`);
    }
    return value;
  }

  function checkInteger(value, what, min, max) {
    if (typeof value === "bigint") {
      if (value < BigInt(min) || value > BigInt(max)) {
        throw new RangeError(`${what} must be an integer from ${min} to ${max}, got ${value}`);
      }
      return Number(value);
    }
    if (typeof value !== "number") {
      throw new TypeError(`${what} must be a number, got ${describe(value)}`);
    }
    if (!Number.isInteger(value) || value < min || value > max) {
      throw new RangeError(`${what} must be an integer from ${min} to ${max}, got ${value}`);
    }
    return value;
  }

  function checkOptions(options, allowed, what) {
    if (options === undefined || options === null) return {};
    if (typeof options !== "object" || Array.isArray(options)) {
      throw new TypeError(`${what} must be an object, got ${describe(options)}`);
    }
    for (const key of Object.keys(options)) {
      if (!allowed.includes(key)) {
        throw new TypeError(`unknown ${what} "${key}" (expected ${allowed.join(", ")})`);
      }
    }
    return options;
  }

  /** Views bytes as a Uint8Array without copying; anything else is a TypeError. */
  function toBytes(value, what) {
    if (value instanceof Uint8Array) return value;
    if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
    if (value instanceof ArrayBuffer) return new Uint8Array(value);
    if (typeof value === "string") {
      throw new TypeError(`${what} takes bytes (a Uint8Array), not a string: encode text with new TextEncoder().encode(text)`);
    }
    throw new TypeError(`${what} takes bytes (a Uint8Array), got ${describe(value)}`);
  }

  const READER_OPTIONS = ["cursor", "gapPolicy", "maxFrameBytes", "livenessTimeoutMs", "strict"];

  function readerArgs(endpoint, options) {
    checkName(endpoint, ENDPOINTS, "endpoint");
    const o = checkOptions(options, READER_OPTIONS, "OutputReader option");
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

  // --------------------------------------------------------------- events

  /** Builds a non-output event from its compact array; its bytes start at `at` in `data`. */
  function otherEvent(e, data, at) {
    switch (e[0]) {
      case "skipped":
        return { type: "skipped", stream: e[1], from: e[2], to: e[3] };
      case "heartbeat":
        return { type: "heartbeat" };
      case "started":
        return { type: "started", procId: e[1] };
      case "exit":
        return { type: "exit", exitCode: e[1], timedOut: e[2] };
      case "unknown":
        return { type: "unknown", frameType: e[1] };
      case "identity":
        return { type: "identity", procId: e[1], status: e[2] };
      case "result":
        return {
          type: "result",
          procId: e[1],
          stdout: data.subarray(at, at + e[2]),
          stderr: data.subarray(at + e[2], at + e[2] + e[3]),
          stdoutTruncated: e[4],
          stderrTruncated: e[5],
          exitCode: e[6],
          timedOut: e[7],
        };
      default:
        throw new Error(`dory-wire: unknown event tag ${JSON.stringify(e[0])} (binding mismatch)`);
    }
  }

  const EMPTY = new Uint8Array(0);
  /** The module's WebAssembly.Memory (fetched on first use: the web build loads it in init()). */
  let memory = null;

  /**
   * Builds the event objects of the last `feed`/`finish` of `inner`, which
   * returned `n` (`records * 2 + hasSide`). Output events are read in place in
   * wasm memory: three f64 per event (tag 0 stdout, 1 stderr, 2 other; start;
   * end) and their bytes, copied out once; the other events are the arrays of
   * the side document, in order.
   */
  function buildEvents(inner, n, side) {
    const records = (n - (n % 2)) / 2;
    if (records === 0) return [];
    const metaPtr = inner.meta_ptr();
    const dataPtr = inner.data_ptr();
    const dataLen = inner.data_len();
    if (memory === null) memory = wasm.wasm_memory();
    // No wasm call below: the views stay valid (memory cannot grow meanwhile).
    const buffer = memory.buffer;
    const meta = new Float64Array(buffer, metaPtr, records * 3);
    const data = dataLen === 0 ? EMPTY : new Uint8Array(buffer, dataPtr, dataLen).slice();
    const own = data.buffer;
    const raw = side === null ? null : side.events;
    const events = new Array(records);
    let at = 0;
    let other = 0;
    for (let i = 0, j = 0; i < records; i++, j += 3) {
      const tag = meta[j];
      if (tag === 0 || tag === 1) {
        const start = meta[j + 1];
        const end = meta[j + 2];
        const len = end - start;
        events[i] = { type: tag === 0 ? "stdout" : "stderr", data: new Uint8Array(own, at, len), start, end };
        at += len;
      } else {
        const e = raw[other++];
        events[i] = otherEvent(e, data, at);
        if (e[0] === "result") at += e[2] + e[3];
      }
    }
    return events;
  }

  // --------------------------------------------------------------- reader

  /** Module-private token: lets `resume()` build a reader around an inner one. */
  const ADOPT = Symbol("adopt");

  /**
   * Decodes one HTTP response of the process-output protocol. Sans-IO: give it
   * the status and headers with `open`, the body bytes with `feed`, and the end
   * of the body with `finish`.
   */
  class OutputReader {
    #inner;
    #end = null;
    #freed = false;

    /**
     * @param {"exec"|"process_output"|"setup_logs"|"document"} endpoint
     * @param {object} [options] `{cursor, gapPolicy, maxFrameBytes, livenessTimeoutMs, strict}`
     */
    constructor(endpoint, options) {
      if (endpoint === ADOPT) {
        // Internal: OutputReader.resume() hands over an already built reader.
        this.#inner = options;
        return;
      }
      platform.ready();
      const a = readerArgs(endpoint, options);
      const cursor = checkCursor(a.cursor);
      try {
        this.#inner = new wasm.WasmReader(
          endpoint,
          cursor.stdout,
          cursor.stderr,
          a.gapPolicy,
          a.maxFrameBytes,
          a.liveness,
          a.strict,
        );
      } catch (e) {
        rethrow(e);
      }
    }

    /**
     * A reader that continues from a saved resume state (the object of
     * `resumeState()` or the string of `resumeStateJson()`).
     */
    static resume(endpoint, state, options) {
      platform.ready();
      const a = readerArgs(endpoint, options);
      if (a.cursor !== undefined) {
        throw new TypeError("OutputReader.resume() takes the cursor from the resume state; do not pass the cursor option");
      }
      let json;
      if (typeof state === "string") {
        json = state;
      } else if (state !== null && typeof state === "object") {
        json = JSON.stringify(state, (key, value) => {
          if (typeof value === "number" && !Number.isSafeInteger(value)) {
            throw new RangeError(`resume state field "${key}" must be a safe integer, got ${value}`);
          }
          return value;
        });
      } else {
        throw new TypeError(`resume state must be an object or a JSON string, got ${describe(state)}`);
      }
      let inner;
      try {
        inner = wasm.WasmReader.resume(endpoint, json, a.gapPolicy, a.maxFrameBytes, a.liveness, a.strict);
      } catch (e) {
        rethrow(e);
      }
      return new OutputReader(ADOPT, inner);
    }

    #live() {
      if (this.#freed) throw misuse("this OutputReader was freed");
      return this.#inner;
    }

    /**
     * Gives the response status, its Content-Type and its `CE-Process-Id`
     * header. Call once, before the first `feed`.
     */
    open(status, contentType, processId) {
      const inner = this.#live();
      checkInteger(status, "status", 100, 999);
      if (contentType === undefined || contentType === null) contentType = "";
      if (typeof contentType !== "string") {
        throw new TypeError(`contentType must be a string, got ${describe(contentType)}`);
      }
      if (processId !== undefined && processId !== null && typeof processId !== "string") {
        throw new TypeError(`processId must be a string, got ${describe(processId)}`);
      }
      const error = inner.open(status, contentType, processId ?? undefined);
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
     * Ends the body and returns how the response ended. Events completed by the
     * end (the event of a JSON document) are in the End's `events`.
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
      end.events = events;
      this.#end = end;
      return end;
    }

    /** The End returned by `finish()`, or null before it. */
    get end() {
      return this.#end;
    }

    /** The consumed offsets: where to resume from. */
    get cursor() {
      const c = JSON.parse(this.#live().cursor_json());
      if (c.error) throw toError(c.error);
      return c;
    }

    /** The process id, once known (from `started`, the header or a document). */
    get processId() {
      return this.#live().process_id() ?? null;
    }

    /** `"new"`, `"open"`, `"done"` or `"failed"`. */
    get state() {
      return this.#freed ? "freed" : this.#inner.state();
    }

    /**
     * The resume state as a plain object, in the language-neutral form shared
     * with Rust and Python (so its keys are snake_case).
     */
    resumeState() {
      return JSON.parse(this.#live().resume_state_json(), (key, value) => {
        if (typeof value === "number" && !Number.isSafeInteger(value)) {
          throw new DoryWireError(
            `integer_out_of_range: resume state field "${key}" is above Number.MAX_SAFE_INTEGER; use resumeStateJson()`,
            { code: "integer_out_of_range", field: key, value: undefined },
          );
        }
        return value;
      });
    }

    /** The resume state as a JSON string (exact, whatever the offsets). */
    resumeStateJson() {
      return this.#live().resume_state_json();
    }

    /**
     * The time (milliseconds on the clock given to `handleTimeout`) by which
     * the next byte must arrive, or null before the clock is armed.
     */
    pollTimeout() {
      return this.#live().poll_timeout_ms() ?? null;
    }

    /**
     * Tells the reader the time in milliseconds on the caller's monotonic
     * clock (e.g. `performance.now()`). The first call arms the liveness
     * clock. Returns true when the stream stalled: `finish()` then ends
     * `disconnected` with reason `stalled`.
     */
    handleTimeout(nowMs) {
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
    OutputReader.prototype[Symbol.dispose] = OutputReader.prototype.free;
  }

  /** The bytes of one chunk of a body, whatever the source gives. */
  function chunkBytes(chunk) {
    if (typeof chunk === "string") {
      throw new TypeError("the body yielded a string; readEvents() takes a body of bytes (Uint8Array chunks)");
    }
    return toBytes(chunk, "readEvents() body chunk");
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
  async function* readEvents(reader, body, options) {
    if (!(reader instanceof OutputReader)) {
      throw new TypeError(`readEvents() takes an OutputReader first, got ${describe(reader)}`);
    }
    const o = checkOptions(options, ["liveness", "now"], "readEvents option");
    const liveness = o.liveness !== false;
    const now = o.now === undefined ? nowDefault : o.now;
    if (typeof now !== "function") throw new TypeError("readEvents option now must be a function returning milliseconds");
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
      throw new TypeError(`readEvents() takes a ReadableStream, an async iterable or a Response, got ${describe(body)}`);
    }

    let done = false;
    try {
      if (liveness) reader.handleTimeout(now());
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
        if (liveness) reader.handleTimeout(now());
        for (const event of events) yield event;
      }
      const end = reader.finish();
      for (const event of end.events) yield event;
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
        const deadline = reader.pollTimeout();
        if (deadline === null) return;
        timer = setTimeout(() => {
          if (reader.handleTimeout(now())) resolve(STALLED);
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

  // ----------------------------------------------------------------- text

  /**
   * Incremental UTF-8 decoding that never splits a character (the core's
   * decoder: the same text as `TextDecoder` with `fatal: false`).
   */
  class Utf8Decoder {
    #inner;
    constructor() {
      platform.ready();
      this.#inner = new wasm.WasmUtf8Decoder();
    }
    /** Decodes the next piece; returns the text it completes. */
    push(chunk) {
      return this.#inner.push(toBytes(chunk, "Utf8Decoder.push()"));
    }
    /** Flushes an incomplete trailing character as U+FFFD. */
    finish() {
      return this.#inner.finish();
    }
    /** Releases the WebAssembly memory now (optional). */
    free() {
      this.#inner.free();
    }
  }

  /**
   * The size of the WebAssembly memory in bytes. For diagnostics: it grows
   * when readers or bounders are neither freed nor garbage-collected.
   */
  function memoryBytes() {
    platform.ready();
    return wasm.memory_bytes();
  }

  // ------------------------------------------------------------- exports

  const api = {
    init: platform.init,
    OutputReader,
    readEvents,
    Utf8Decoder,
    DoryWireError,
    OutputGap,
    OutputExpired,
    OffsetBeyondOutput,
    ApiError,
    ProtocolError,
    MAX_FRAME_BYTES_LIMIT,
    memoryBytes,
  };
  Object.assign(api, createPreviewApi({ wasm, platform, toBytes, toError, rethrow, checkInteger, checkOptions, describe, DoryWireError }));
  return api;
}
