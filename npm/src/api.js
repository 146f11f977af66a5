// The public JavaScript API of dory-wire, over the low-level wasm-bindgen exports.
//
// This file is one function, `createApi(wasm, platform, core)`, with no import
// or export statement: build.mjs wraps the same text as CommonJS (Node) and as
// an ES module (browsers), so both builds run the very same code. The Node ES
// module entry re-exports the CommonJS one, so Node has one copy of every class.
//
// `core` is the wasm module's `core_tables_json()`: the core's error table,
// the base class of each error kind and the core's constants. Node reads it
// from the module when loaded; the browser build, which cannot call the module
// before `init()`, carries the same document, written by build.mjs from the
// very same .wasm file.
//
// `platform` is what differs between the builds: `ready()` (the browser
// build throws until `init()` has loaded the module), `init()`,
// `randomBytes(n)`, and `copyOut(view)`, which copies bytes out of wasm
// memory into a plain Uint8Array (Node: into memory that is not zero-filled
// first).
//
// Everything protocol-related is decided by the Rust core; this layer checks
// argument types (TypeError / RangeError), turns what crosses the wasm
// boundary (numeric event records read in wasm memory, and compact JSON for
// the rare other events) into plain objects, and maps error objects to the
// classes built from the core's table.

/* eslint-disable no-unused-vars */
function createApi(wasm, platform, core) {
  "use strict";

  const MAX_SAFE = Number.MAX_SAFE_INTEGER;
  const { DEFAULT_MAX_FRAME_BYTES, DEFAULT_LIVENESS_TIMEOUT_MS, MAX_FRAME_BYTES_LIMIT, MIN_MAX_BYTES } = core.constants;
  /** The core's follow options (`FollowOptions::default()`), in JS names and units. */
  const FOLLOW_DEFAULTS = Object.freeze({ ...core.followDefaults });
  const { retries: DEFAULT_RETRIES, backoffMs: DEFAULT_BACKOFF_MS, maxBackoffMs: DEFAULT_MAX_BACKOFF_MS } = FOLLOW_DEFAULTS;
  const ENDPOINTS = ["exec", "process_output", "setup_logs", "document"];
  const GAP_POLICIES = ["fail", "skip"];
  const STREAMS = ["stdout", "stderr"];

  // ---------------------------------------------------------------- errors

  /** `server_message` → `serverMessage`: the core's field names in JS case. */
  function camel(name) {
    return name.replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase());
  }

  // A registered symbol brands every error, so `instanceof` also works between
  // two copies of the package (two versions installed, or the browser build and
  // the Node build in one bundle): each class tests the brand and the code.
  const BRAND = Symbol.for("dory-wire.error");

  /** The table row of each error class (`{code, class, kind, fields}`), by class. */
  const ROW = new Map();

  /** Base class of every error the library raises about the data it decodes or its use. */
  class DoryWireError extends Error {
    /**
     * @param {string} message
     * @param {object} [fields] the fields of the code (camelCase); `code` for a base class
     */
    constructor(message, fields) {
      super(message);
      Object.defineProperty(this, BRAND, { value: true });
      if (fields && fields.cause !== undefined) {
        // As Error's own `cause` option: not enumerable, not one of the code's fields.
        Object.defineProperty(this, "cause", { value: fields.cause, configurable: true, writable: true });
      }
      Object.defineProperty(this, "name", { value: new.target.name, configurable: true, writable: true });
      const row = ROW.get(new.target) ?? BY_CODE.get(fields?.code);
      this.code = row ? row.code : (fields?.code ?? "dory_wire_error");
      this.kind = row ? row.kind : (KIND_OF_BASE.get(new.target) ?? null);
      if (fields) {
        for (const key of Object.keys(fields)) {
          if (key !== "code" && key !== "kind" && key !== "message" && key !== "cause") this[key] = fields[key];
        }
      }
    }
  }

  /** The base class of each kind (null: the kind's classes derive from DoryWireError). */
  const BASES = {};
  const KIND_OF_BASE = new Map();
  for (const { kind, base } of core.kinds) {
    if (base !== null && BASES[base] === undefined) {
      // `{ [base]: class … }[base]` gives the class its name.
      BASES[base] = { [base]: class extends DoryWireError {} }[base];
      KIND_OF_BASE.set(BASES[base], kind);
    }
  }
  const BASE_OF_KIND = new Map(core.kinds.map(({ kind, base }) => [kind, base === null ? DoryWireError : BASES[base]]));

  /** One class per code: the core's table, then the codes of this binding. */
  const ERROR_CODES = Object.freeze(
    [...core.errorCodes, ...core.bindingErrorCodes].map((r) =>
      Object.freeze({ code: r.code, class: r.class, kind: r.kind, fields: Object.freeze(r.fields.map(camel)) }),
    ),
  );
  const BY_CODE = new Map(ERROR_CODES.map((row) => [row.code, row]));
  const CLASSES = {};
  for (const row of ERROR_CODES) {
    const Base = BASE_OF_KIND.get(row.kind) ?? DoryWireError;
    const cls = { [row.class]: class extends Base {} }[row.class];
    ROW.set(cls, row);
    CLASSES[row.class] = cls;
  }

  // `instanceof`: the prototype chain, or (an error of another copy of the
  // package) the brand and a code of the class.
  const nativeInstanceOf = Function.prototype[Symbol.hasInstance];
  function brandCheck(cls, codes) {
    Object.defineProperty(cls, Symbol.hasInstance, {
      value(x) {
        if (nativeInstanceOf.call(this, x)) return true;
        return x !== null && typeof x === "object" && x[BRAND] === true && (codes === null || codes.has(x.code));
      },
    });
  }
  brandCheck(DoryWireError, null);
  for (const [name, base] of Object.entries(BASES)) {
    const kind = KIND_OF_BASE.get(base);
    brandCheck(base, new Set(ERROR_CODES.filter((r) => r.kind === kind).map((r) => r.code)));
    void name;
  }
  for (const row of ERROR_CODES) brandCheck(CLASSES[row.class], new Set([row.code]));

  // StreamDisconnected (the core's `stream_disconnected`, which the HTTP
  // client raises too: one class for both entry points) also answers to the
  // wire's names the documented programs read: `stdout_offset` and
  // `stderr_offset` (its cursor's), and `proc_id` (its `procId`).
  if (CLASSES.StreamDisconnected !== undefined) {
    const Disconnected = CLASSES.StreamDisconnected;
    // The error of a reconnect record, for a caller that does not reconnect
    // (a one-response iterator): the core's message, the record's fields.
    Object.defineProperty(Disconnected, "fromReconnect", {
      value: function fromReconnect(record, cause) {
        const { stdout, stderr } = record.cursor;
        const message = wasm.stream_disconnected_message(record.reason, BigInt(stdout), BigInt(stderr), record.detail ?? "");
        if (message === undefined || message === null) throw new TypeError(`not a disconnect reason: ${String(record.reason)}`);
        const fields = { reason: record.reason, cursor: { stdout, stderr }, procId: record.procId ?? null, detail: record.detail ?? "" };
        if (cause !== undefined) fields.cause = cause;
        return new Disconnected(message, fields);
      },
      configurable: true,
      writable: true,
    });
    Object.defineProperties(Disconnected.prototype, {
      stdout_offset: {
        get() {
          return this.cursor?.stdout;
        },
        configurable: true,
      },
      stderr_offset: {
        get() {
          return this.cursor?.stderr;
        },
        configurable: true,
      },
      proc_id: {
        get() {
          return this.procId ?? null;
        },
        set(value) {
          this.procId = value;
        },
        configurable: true,
      },
    });
  }

  /**
   * Turns an error object that crossed the boundary (`code`, `message` and
   * the fields under their core names) into an instance of its class.
   */
  function toError(obj) {
    if (obj.code === "range_error") return new RangeError(obj.message);
    const row = BY_CODE.get(obj.code);
    const fields = {};
    for (const key of Object.keys(obj)) {
      if (key !== "code" && key !== "message") fields[camel(key)] = obj[key];
    }
    if (obj.code === "integer_out_of_range" && typeof obj.value === "string") fields.value = BigInt(obj.value);
    if (row === undefined) {
      // A code this layer does not know (a binding mismatch): keep it visible.
      fields.code = obj.code;
      return new DoryWireError(obj.message, fields);
    }
    return new CLASSES[row.class](obj.message, fields);
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
    return new CLASSES.InvalidState(`invalid_state: ${reason}`, { reason });
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

  /** The record tag of a stream name (0 stdout, 1 stderr); the default is stdout. */
  function streamTag(stream, what) {
    if (stream === undefined) return 0;
    return checkName(stream, STREAMS, what) === "stdout" ? 0 : 1;
  }

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

  /** The keys of the JS resume state and of its language-neutral JSON form. */
  const RESUME_KEYS = [
    ["version", "version"],
    ["procId", "proc_id"],
    ["cursor", "cursor"],
    ["exitSeen", "exit_seen"],
    ["exitCode", "exit_code"],
    ["timedOut", "timed_out"],
  ];

  /** The neutral JSON of a resume state given as `resumeState()`'s object or as JSON text. */
  function resumeJson(state) {
    if (typeof state === "string") return state;
    if (state === null || typeof state !== "object" || Array.isArray(state)) {
      throw new TypeError(`resume state must be the object of resumeState() or the string of resumeStateJson(), got ${describe(state)}`);
    }
    const known = new Map(RESUME_KEYS);
    const neutral = {};
    for (const key of Object.keys(state)) {
      const to = known.get(key);
      if (to === undefined) {
        throw new TypeError(
          `unknown resume state key "${key}" (expected ${RESUME_KEYS.map(([k]) => k).join(", ")}; the snake_case form is the string of resumeStateJson())`,
        );
      }
      neutral[to] = state[key];
    }
    return JSON.stringify(neutral, (key, value) => {
      if (typeof value === "bigint") return value <= BigInt(MAX_SAFE) ? Number(value) : value.toString();
      if (typeof value === "number" && !Number.isSafeInteger(value)) {
        throw new RangeError(`resume state field "${key}" must be a safe integer, got ${value}`);
      }
      return value;
    });
  }

  // --------------------------------------------------------------- events

  /** Builds a non-output event from its compact array; its bytes start at `at` in `data`. */
  function otherEvent(e, data, at) {
    switch (e[0]) {
      case "skipped":
        return { type: "skipped", stream: e[1], start: e[2], end: e[3] };
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
      case "exec_result":
        return {
          type: "exec_result",
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
    const data = dataLen === 0 ? EMPTY : platform.copyOut(new Uint8Array(buffer, dataPtr, dataLen));
    const own = data.buffer;
    const base = data.byteOffset;
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
        events[i] = { type: "output", stream: tag === 0 ? "stdout" : "stderr", data: new Uint8Array(own, base + at, len), start, end };
        at += len;
      } else {
        const e = raw[other++];
        events[i] = otherEvent(e, data, at);
        if (e[0] === "exec_result") at += e[2] + e[3];
      }
    }
    return events;
  }

  // ----------------------------------------------------------- transcript

  /** Module-private access to a Transcript's wasm object (set by its static block). */
  let transcriptInner;

  /**
   * A consumer's record of a process's output: each stream's bytes, its text
   * view and its skipped ranges, and the exit. Fill it with
   * `reader.feedInto(chunk, transcript)` (output bytes stay in WebAssembly
   * memory: no object per frame) or `push(event)`.
   */
  class Transcript {
    #inner;
    #freed = false;

    static {
      transcriptInner = (t) => {
        if (t.#freed) throw misuse("this Transcript was freed");
        return t.#inner;
      };
    }

    constructor() {
      platform.ready();
      this.#inner = new wasm.WasmTranscript();
    }

    #live() {
      if (this.#freed) throw misuse("this Transcript was freed");
      return this.#inner;
    }

    /**
     * Records an event: `output`, `skipped` and `exit` change the transcript;
     * the other events are accepted and ignored.
     */
    push(event) {
      const inner = this.#live();
      if (event === null || typeof event !== "object" || typeof event.type !== "string") {
        throw new TypeError(`Transcript.push() takes an event (an object with a type), got ${describe(event)}`);
      }
      switch (event.type) {
        case "output": {
          const tag = streamTag(event.stream, "event.stream");
          const data = toBytes(event.data, "Transcript.push() output data");
          const start = checkInteger(event.start, "event.start", 0, MAX_SAFE);
          const end = checkInteger(event.end, "event.end", 0, MAX_SAFE);
          if (end - start !== data.length) {
            throw new RangeError(`output event: end - start (${end - start}) must be the length of data (${data.length})`);
          }
          inner.push_output(tag, data, start, end);
          return;
        }
        case "skipped": {
          const tag = streamTag(event.stream, "event.stream");
          const start = checkInteger(event.start, "event.start", 0, MAX_SAFE);
          const end = checkInteger(event.end, "event.end", start, MAX_SAFE);
          inner.push_skipped(tag, start, end);
          return;
        }
        case "exit": {
          const code = event.exitCode;
          if (code !== null && code !== undefined) checkInteger(code, "event.exitCode", -MAX_SAFE, MAX_SAFE);
          if (typeof event.timedOut !== "boolean") throw new TypeError(`event.timedOut must be a boolean, got ${describe(event.timedOut)}`);
          inner.push_exit(code ?? undefined, event.timedOut);
          return;
        }
        case "started":
        case "heartbeat":
        case "unknown":
        case "identity":
        case "exec_result":
          return;
        default:
          throw new TypeError(`Transcript.push() takes an event, got type "${event.type}"`);
      }
    }

    /** Ends both text views: an incomplete last character becomes U+FFFD. */
    finish() {
      this.#live().finish();
    }

    /** A copy of the delivered bytes of `stream` (default stdout), in order; skipped ranges are absent. */
    bytes(stream) {
      const inner = this.#live();
      const tag = streamTag(stream, "stream");
      const len = inner.byte_length(tag);
      if (len === 0) return new Uint8Array(0);
      const ptr = inner.bytes_ptr(tag);
      if (memory === null) memory = wasm.wasm_memory();
      // One copy, straight out of wasm memory (no wasm call in between).
      return platform.copyOut(new Uint8Array(memory.buffer, ptr, len));
    }

    /**
     * The text view of `stream` so far: UTF-8 (U+FFFD for invalid bytes),
     * never splitting a character; a skipped range shows as a line
     * `[dory-wire: bytes A..B were lost]`.
     */
    text(stream) {
      return this.#live().text(streamTag(stream, "stream"));
    }

    /** The skipped ranges `[start, end)` of `stream`, in order. */
    skipped(stream) {
      const ranges = JSON.parse(this.#live().skipped_json(streamTag(stream, "stream")));
      if (!Array.isArray(ranges)) throw toError(ranges.error);
      return ranges;
    }

    /** True when nothing of `stream` was skipped: its bytes are the stream, exactly. */
    isComplete(stream) {
      return this.#live().is_complete(streamTag(stream, "stream"));
    }

    /** `{exitCode, timedOut}` once an `exit` was recorded, else null. */
    get exit() {
      const exit = JSON.parse(this.#live().exit_json());
      if (exit !== null && exit.error) throw toError(exit.error);
      return exit;
    }

    /** Releases the WebAssembly memory now (optional; also done on garbage collection). Later calls throw. */
    free() {
      if (!this.#freed) {
        this.#freed = true;
        const inner = this.#inner;
        this.#inner = undefined;
        inner.free();
      }
    }
  }
  if (typeof Symbol.dispose === "symbol") {
    Transcript.prototype[Symbol.dispose] = Transcript.prototype.free;
  }

  // --------------------------------------------------------------- reader

  /** Module-private token: lets `resume()` build a reader around an inner one. */
  const ADOPT = Symbol("adopt");

  /**
   * Decodes one HTTP response of the process-output protocol. Sans-IO: give it
   * the status and headers with `open`, the body bytes with `feed`, and the end
   * of the body with `finish`.
   */
  class Reader {
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
      platform.ready();
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
      platform.ready();
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
      checkInteger(status, "status", 100, 999);
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
  async function* iterEvents(reader, body, options) {
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

  // ------------------------------------------------------------- follower

  // The follower's option names, and the type of each, are those of the
  // core's defaults (`core.followDefaults`): nothing about them is typed
  // again here. Their values are converted by the core's binding, which
  // refuses a value with no conversion as `invalid_argument`.
  const FOLLOW_OPTIONS = Object.keys(FOLLOW_DEFAULTS);

  /** A string argument; anything else is a TypeError naming it. */
  function checkString(value, what) {
    if (typeof value !== "string") throw new TypeError(`${what} must be a string, got ${describe(value)}`);
    return value;
  }

  /** An optional string argument (undefined or null: absent). */
  function optionalString(value, what) {
    if (value === undefined || value === null) return undefined;
    return checkString(value, what);
  }

  /** A number argument (a bigint is taken as its number); its value is the core's to check. */
  function checkNumber(value, what) {
    if (typeof value === "bigint") return Number(value);
    if (typeof value !== "number") throw new TypeError(`${what} must be a number, got ${describe(value)}`);
    return value;
  }

  /** An optional number argument (undefined or null: absent). */
  function optionalNumber(value, what) {
    if (value === undefined || value === null) return undefined;
    return checkNumber(value, what);
  }

  function checkBoolean(value, what) {
    if (typeof value !== "boolean") throw new TypeError(`${what} must be a boolean, got ${describe(value)}`);
    return value;
  }

  /** A command: a shell line (a string) or an argv (an array of strings), as JSON for the core. */
  function commandJson(command) {
    const ok = typeof command === "string" || (Array.isArray(command) && command.every((a) => typeof a === "string"));
    if (!ok) {
      throw new TypeError(`command must be a string (a shell line) or an array of strings (an argv), got ${describe(command)}`);
    }
    return JSON.stringify(command);
  }

  /** `{stdout, stderr}` offsets as two numbers (absent ones are 0); their values are the core's to check. */
  function cursorArgs(cursor, what) {
    if (cursor === undefined || cursor === null) return [0, 0];
    if (typeof cursor !== "object" || Array.isArray(cursor)) {
      throw new TypeError(`${what} must be an object {stdout, stderr}, got ${describe(cursor)}`);
    }
    return [
      cursor.stdout === undefined ? 0 : checkNumber(cursor.stdout, `${what}.stdout`),
      cursor.stderr === undefined ? 0 : checkNumber(cursor.stderr, `${what}.stderr`),
    ];
  }

  /** What the transport said: a string, or an Error's message; undefined or null: nothing went wrong. */
  function transportDetail(value, what) {
    if (value === undefined || value === null) return undefined;
    if (typeof value === "string") return value;
    if (value instanceof Error || (typeof value === "object" && typeof value.message === "string")) {
      return value.message === "" ? String(value.name ?? "Error") : value.message;
    }
    throw new TypeError(`${what} must be a string or an Error, got ${describe(value)}`);
  }

  /** The caller's random value in [0, 1] for a delay; by default Math.random(). */
  function jitterArg(jitter) {
    if (jitter === undefined || jitter === null) return Math.random();
    return checkNumber(jitter, "jitter");
  }

  /**
   * The core's options for the given follow options: each one given is
   * checked for the type of its default (TypeError) and converted by the
   * core's binding (InvalidArgument for a value it cannot take). Consumed by
   * the follower's constructor.
   */
  function followOptions(o) {
    const options = new wasm.WasmFollowOptions();
    try {
      for (const name of FOLLOW_OPTIONS) {
        const value = o[name];
        if (value === undefined) continue;
        const type = typeof FOLLOW_DEFAULTS[name];
        let error;
        if (type === "boolean") {
          error = options.set_bool(name, checkBoolean(value, name));
        } else if (type === "number") {
          error = options.set_number(name, checkNumber(value, name));
        } else {
          error = options.set_string(name, checkString(value, name));
        }
        if (error !== "") throw toError(JSON.parse(error));
      }
    } catch (e) {
      options.free();
      throw e;
    }
    return options;
  }

  /** A request that crossed as JSON, as a plain frozen object (its body bytes a Uint8Array). */
  function requestObject(json) {
    const r = JSON.parse(json);
    return Object.freeze({
      method: r.method,
      path: r.path,
      query: Object.freeze(r.query.map((pair) => Object.freeze(pair))),
      headers: Object.freeze(r.headers),
      body: r.body === null ? null : new TextEncoder().encode(r.body),
      wait: r.wait,
      idempotent: r.idempotent,
      target: r.target,
    });
  }

  /** Calls a wasm export that returns request JSON or throws an error-object JSON string. */
  function built(call) {
    let json;
    try {
      json = call();
    } catch (e) {
      rethrow(e);
    }
    return requestObject(json);
  }

  /** A decision that crossed as JSON (its keys already the JS ones). */
  function decisionObject(d) {
    if (d === null || (d.type !== "done" && d.type !== "reconnect" && d.type !== "continue")) {
      throw new Error(`dory-wire: unknown decision ${JSON.stringify(d)} (binding mismatch)`);
    }
    return d;
  }

  /**
   * The requests of the Dory API as values, built by the core: `{method,
   * path, query, headers, body, wait, idempotent, target}`, to send with any
   * HTTP client (`fetch(base + r.target, {method: r.method, headers:
   * r.headers, body: r.body})`). Ids are percent-encoded path segments.
   */
  const Request = Object.freeze({
    /** `POST /computers/{id}/processes`: starts `command` in the background. */
    start(computerId, command, options) {
      platform.ready();
      checkString(computerId, "computerId");
      const cmd = commandJson(command);
      const o = checkOptions(options, ["timeoutSeconds", "idempotencyKey"], "Request.start option");
      const timeout = optionalNumber(o.timeoutSeconds, "timeoutSeconds");
      const key = optionalString(o.idempotencyKey, "idempotencyKey");
      return built(() => wasm.request_start(computerId, cmd, timeout, key));
    },
    /** `POST /computers/{id}/exec`: runs `command`; `stream: true` asks for its frames, else its result. */
    exec(computerId, command, options) {
      platform.ready();
      checkString(computerId, "computerId");
      const cmd = commandJson(command);
      const o = checkOptions(options, ["timeoutSeconds", "idempotencyKey", "stream"], "Request.exec option");
      const timeout = optionalNumber(o.timeoutSeconds, "timeoutSeconds");
      const key = optionalString(o.idempotencyKey, "idempotencyKey");
      const stream = o.stream === undefined ? false : checkBoolean(o.stream, "stream");
      return built(() => wasm.request_exec(computerId, cmd, timeout, key, stream));
    },
    /** `GET /computers/{id}/processes/{procId}`: the process's identity. */
    getProcess(computerId, procId) {
      platform.ready();
      checkString(computerId, "computerId");
      checkString(procId, "procId");
      return built(() => wasm.request_get_process(computerId, procId));
    },
    /** `POST /computers/{id}/processes/{procId}/kill`. */
    kill(computerId, procId) {
      platform.ready();
      checkString(computerId, "computerId");
      checkString(procId, "procId");
      return built(() => wasm.request_kill(computerId, procId));
    },
    /** `GET …/processes/{procId}/output` from `cursor` (default zeros), followed until exit when `follow` (default the core's). */
    output(computerId, procId, cursor, follow) {
      platform.ready();
      checkString(computerId, "computerId");
      checkString(procId, "procId");
      const [stdout, stderr] = cursorArgs(cursor, "cursor");
      const f = follow === undefined ? FOLLOW_DEFAULTS.follow : checkBoolean(follow, "follow");
      return built(() => wasm.request_output(computerId, procId, stdout, stderr, f));
    },
    /** `GET /computers/{id}/setup/logs` from `offset` (default 0), followed when `follow` (default the core's). */
    setupLogs(computerId, offset, follow) {
      platform.ready();
      checkString(computerId, "computerId");
      const at = offset === undefined ? 0 : checkNumber(offset, "offset");
      const f = follow === undefined ? FOLLOW_DEFAULTS.follow : checkBoolean(follow, "follow");
      return built(() => wasm.request_setup_logs(computerId, at, f));
    },
  });

  /**
   * A whole read of retained output — a process's output, the setup logs,
   * or an exec stream continued on its process's output — across responses,
   * sans IO: the core decides which request to send, what each answer
   * means, when to reconnect, how long to wait first and when to give up.
   * Build one with `Follower.processOutput`, `Follower.resume`,
   * `Follower.setupLogs` or `Follower.execStream`, then loop: `request()`,
   * send it, `open(...)` with the answer's status and headers, `feed(chunk)`
   * its body, and `finish()` (or `noResponse()`), which returns the decision.
   */
  class Follower {
    #inner;
    #freed = false;

    /** @private Use the static constructors. */
    constructor(token, inner) {
      if (token !== ADOPT) {
        throw new TypeError("use Follower.processOutput(), Follower.resume(), Follower.setupLogs() or Follower.execStream()");
      }
      this.#inner = inner;
    }

    static #build(make, options) {
      let inner;
      try {
        inner = make(followOptions(options));
      } catch (e) {
        rethrow(e);
      }
      return new Follower(ADOPT, inner);
    }

    /** Follows the output of process `procId` of `computerId`, from `options.cursor` (default zeros). */
    static processOutput(computerId, procId, options) {
      platform.ready();
      checkString(computerId, "computerId");
      checkString(procId, "procId");
      const o = checkOptions(options, ["cursor", ...FOLLOW_OPTIONS], "Follower option");
      const [stdout, stderr] = cursorArgs(o.cursor, "cursor");
      return Follower.#build((opts) => wasm.WasmFollower.process_output(computerId, procId, stdout, stderr, opts), o);
    }

    /**
     * Follows a process's output from a saved resume state (the object of
     * `resumeState()` or the string of `resumeStateJson()`, of a Reader or a
     * Follower, possibly written by Rust or Python), which must name its process.
     */
    static resume(computerId, state, options) {
      platform.ready();
      checkString(computerId, "computerId");
      const json = resumeJson(state);
      const o = checkOptions(options, FOLLOW_OPTIONS, "Follower option");
      return Follower.#build((opts) => wasm.WasmFollower.resume(computerId, json, opts), o);
    }

    /** Follows the setup command's logs of `computerId` from `options.offset` (default 0). */
    static setupLogs(computerId, options) {
      platform.ready();
      checkString(computerId, "computerId");
      const o = checkOptions(options, ["offset", ...FOLLOW_OPTIONS], "Follower option");
      const offset = o.offset === undefined ? 0 : checkNumber(o.offset, "offset");
      return Follower.#build((opts) => wasm.WasmFollower.setup_logs(computerId, offset, opts), o);
    }

    /**
     * Runs `command` as an exec stream and follows it to its exit; the
     * command is never sent twice unless `idempotencyKey` makes that safe.
     */
    static execStream(computerId, command, options) {
      platform.ready();
      checkString(computerId, "computerId");
      const cmd = commandJson(command);
      const o = checkOptions(options, ["timeoutSeconds", "idempotencyKey", ...FOLLOW_OPTIONS], "Follower option");
      const timeout = optionalNumber(o.timeoutSeconds, "timeoutSeconds");
      const key = optionalString(o.idempotencyKey, "idempotencyKey");
      return Follower.#build((opts) => wasm.WasmFollower.exec_stream(computerId, cmd, timeout, key, opts), o);
    }

    #live() {
      if (this.#freed) throw misuse("this Follower was freed");
      return this.#inner;
    }

    /** The next request to send: first, and after each `reconnect` (once its delay passed) or `continue`. */
    request() {
      const inner = this.#live();
      return built(() => inner.request());
    }

    /** The answer's status, Content-Type, `CE-Process-Id` and `Retry-After` headers. Once per request. */
    open(status, contentType, procId, retryAfter) {
      const inner = this.#live();
      const code = checkNumber(status, "status");
      const type = optionalString(contentType, "contentType") ?? "";
      const id = optionalString(procId, "procId");
      const retry = optionalString(retryAfter, "retryAfter");
      const error = inner.open(code, type, id, retry);
      if (error !== "") throw toError(JSON.parse(error));
    }

    /**
     * Feeds the next piece of the body, split anywhere, and returns the events
     * it completed (the same events as `Reader.feed`). When an error follows
     * events in the same piece, those events are returned and the (sticky)
     * error is thrown by the next call.
     */
    feed(chunk) {
      const inner = this.#live();
      const n = inner.feed(toBytes(chunk, "feed()"));
      const side = n % 2 === 1 ? JSON.parse(inner.take_side()) : null;
      const events = buildEvents(inner, n, side);
      if (side !== null && side.error !== null && events.length === 0) throw toError(side.error);
      return events;
    }

    /** Feeds like `feed`, the output bytes going into `transcript` (as `Reader.feedInto`). */
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
     * The body ended: cleanly (no `transportError`) or broken (`transportError`:
     * what the transport said, a string or the Error it threw). `jitter` is a
     * random value in [0, 1] for the delay (default `Math.random()`; ignored
     * with the `jitter` option off). Returns `[events, decision]`.
     */
    finish(transportError, jitter) {
      const inner = this.#live();
      const detail = transportDetail(transportError, "transportError");
      const j = jitterArg(jitter);
      const n = inner.finish(detail, j);
      const result = JSON.parse(inner.take_side());
      const events = buildEvents(inner, n, result);
      if (result.error !== null) {
        const error = toError(result.error);
        if (events.length > 0) error.events = events;
        throw error;
      }
      return [events, decisionObject(result.decision)];
    }

    /**
     * No response came: the connection was refused or reset, or no headers
     * came by `pollTimeoutMs()`. `detail` is what the transport said (a string
     * or its Error). Returns the decision.
     */
    noResponse(detail, jitter) {
      const inner = this.#live();
      const text = transportDetail(detail, "detail") ?? "";
      const j = jitterArg(jitter);
      let json;
      try {
        json = inner.no_response(text, j);
      } catch (e) {
        rethrow(e);
      }
      return decisionObject(JSON.parse(json));
    }

    /**
     * The time (ms on the clock given to `handleTimeoutMs`) by which the
     * headers, then each complete frame, must arrive; null when none applies
     * yet (call `handleTimeoutMs` once to arm it).
     */
    pollTimeoutMs() {
      return this.#live().poll_timeout_ms() ?? null;
    }

    /**
     * Tells the follower the time in ms on the caller's monotonic clock; the
     * first call after a request or an open arms the clock. True when the
     * wait is over: abort, then `noResponse()` (no headers yet) or `finish()`
     * (a body: it ends `stalled`).
     */
    handleTimeoutMs(nowMs) {
      const inner = this.#live();
      const now = checkNumber(nowMs, "nowMs");
      try {
        return inner.handle_timeout(now);
      } catch (e) {
        rethrow(e);
      }
    }

    /** The consumed offsets: where the read resumes from. */
    get cursor() {
      const c = JSON.parse(this.#live().cursor_json());
      if (c.error) throw toError(c.error);
      return c;
    }

    /** The process, once known. */
    get procId() {
      return this.#live().proc_id() ?? null;
    }

    /** `"ready"`, `"sent"`, `"body"`, `"done"`, `"failed"` or `"freed"`. */
    get state() {
      return this.#freed ? "freed" : this.#inner.state();
    }

    /** Reconnects decided so far. */
    get attempts() {
      return this.#live().attempts();
    }

    /** The options of this follower: the core's defaults with the ones given. */
    get options() {
      return Object.freeze(JSON.parse(this.#live().options_json()));
    }

    /** The state to save to resume this read later, as a plain camelCase object (`Follower.resume` takes it back). */
    resumeState() {
      const state = JSON.parse(this.#live().resume_state_js());
      if (state.error) throw toError(state.error);
      return state;
    }

    /** The resume state as the language-neutral JSON shared with Rust and Python. */
    resumeStateJson() {
      return this.#live().resume_state_json();
    }

    /** Releases the follower's WebAssembly memory now (optional; also done on garbage collection). Later calls throw. */
    free() {
      if (!this.#freed) {
        this.#freed = true;
        const inner = this.#inner;
        this.#inner = undefined;
        if (inner) inner.free();
      }
    }
  }
  /** The core's default follow options (`FollowOptions::default()`), frozen. */
  Object.defineProperty(Follower, "defaults", { value: FOLLOW_DEFAULTS, enumerable: true });
  if (typeof Symbol.dispose === "symbol") {
    Follower.prototype[Symbol.dispose] = Follower.prototype.free;
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
    Reader,
    iterEvents,
    Follower,
    Request,
    Transcript,
    Utf8Decoder,
    DoryWireError,
    ...BASES,
    ...CLASSES,
    ERROR_CODES,
    DEFAULT_MAX_FRAME_BYTES,
    DEFAULT_LIVENESS_TIMEOUT_MS,
    DEFAULT_RETRIES,
    DEFAULT_BACKOFF_MS,
    DEFAULT_MAX_BACKOFF_MS,
    MAX_FRAME_BYTES_LIMIT,
    MIN_MAX_BYTES,
    memoryBytes,
  };
  Object.assign(api, createPreviewApi({ wasm, platform, toBytes, toError, rethrow, checkInteger, checkOptions, describe, DoryWireError }));
  return api;
}
