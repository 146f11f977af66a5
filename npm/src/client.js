// The HTTP client of dory-wire (`dory-wire/client`): the Dory process API
// on the platform's `fetch`, driving the core.
//
// Like api.js, this file is one function, `createClientApi(core)`, with no
// import or export statement: build.mjs wraps the same text as CommonJS (Node)
// and as an ES module (browsers) over the matching core entry, so the client
// shares the core's classes (`instanceof OutputGap` works on what it throws).
//
// Nothing here knows the protocol. Every request is the core's (`Request.*`,
// or a `Follower`'s `request()`); every read of output is a core `Follower`,
// which says what each answer means, when to reconnect, how long to wait
// first and when to give up; JSON answers are decoded by a core `Reader`.
// This layer does the IO the core asks for: it sends the requests with
// `fetch`, feeds back the status, headers and body, runs the core's clock
// (timers at its deadlines), sleeps the delays it decides, bounds the
// connections in flight, and turns core events into frames with the wire's
// field names.

/* eslint-disable no-unused-vars */
function createClientApi(core) {
  "use strict";

  const { Follower, Request, Reader, Transcript, Utf8Decoder } = core;

  /** How many requests a client has in flight at once, by default (httpx's pool: 100). */
  const DEFAULT_MAX_CONNECTIONS = 100;

  /**
   * The core's follow options the one-call reads (and the exec stream)
   * accept: every option of `Follower.defaults` but the frame limit and
   * strictness, which are the client's. Their names, types, values and
   * defaults are the core's.
   */
  const FOLLOW_OPTIONS = Object.keys(Follower.defaults).filter((name) => name !== "maxFrameBytes" && name !== "strict");
  /** Those of them that apply to one response (the frame iterators). */
  const RESPONSE_OPTIONS = FOLLOW_OPTIONS.filter((name) => name === "follow" || name === "gapPolicy" || name === "livenessTimeoutMs");

  // ----------------------------------------------------------------- errors

  /**
   * A read ended before `exit` and may not go on by itself: the core's class
   * of `stream_disconnected` (kind `transport`), the same object as
   * `dory-wire`'s, so `instanceof` holds whichever entry point raised it. It
   * reads `reason`, `cursor`, `procId` and, under the wire's names,
   * `stdout_offset`, `stderr_offset` and `proc_id`; `cause` is the
   * transport's error.
   */
  const StreamDisconnected = core.StreamDisconnected;

  /** The StreamDisconnected of a reconnect the follower decided (its record), caused by `cause`: the core's message. */
  function fromRecord(record, cause) {
    return StreamDisconnected.fromReconnect(record, cause);
  }

  /** Gives a StreamDisconnected thrown by the core the transport's error as its `cause`. */
  function withCause(error, cause) {
    if (error instanceof StreamDisconnected && error.cause === undefined && cause !== undefined) {
      Object.defineProperty(error, "cause", { value: cause, configurable: true, writable: true });
    }
    return error;
  }

  /** What operations in flight reject with once the client is closed. */
  function closedError() {
    const message = "the dory-wire client is closed";
    if (typeof DOMException === "function") return new DOMException(message, "AbortError");
    const error = new Error(message);
    error.name = "AbortError";
    return error;
  }

  /**
   * What a transport error says, for the follower's record (its `detail`):
   * the error's message and those of its causes — fetch's `TypeError: fetch
   * failed` keeps the reason and the address in `cause` (`connect
   * ECONNREFUSED 127.0.0.1:8080`, an `AggregateError` of one per address) —
   * after the request's method and URL when given (no answer came: where
   * from).
   */
  function describeTransportError(error, method, url) {
    const parts = [];
    const add = (text) => {
      if (text !== "" && !parts.some((p) => p.includes(text))) parts.push(text);
    };
    let e = error;
    for (let depth = 0; e !== undefined && e !== null && depth < 8; depth++) {
      add(oneError(e));
      if (typeof e === "object" && Array.isArray(e.errors) && e.errors.length > 0) add(e.errors.map(oneError).join("; "));
      e = typeof e === "object" ? e.cause : undefined;
    }
    const text = parts.join(": ") || "the transport failed";
    return url === undefined ? text : `${method} ${url}: ${text}`;
  }

  function oneError(e) {
    if (typeof e !== "object") return String(e);
    let text = typeof e.message === "string" && e.message !== "" ? e.message : typeof e.errors === "object" ? "" : String(e.name ?? "Error");
    if (typeof e.code === "string" && !text.includes(e.code)) text += text === "" ? e.code : ` (${e.code})`;
    if (typeof e.address === "string" && !text.includes(e.address)) {
      text += ` ${e.address}${e.port === undefined ? "" : `:${e.port}`}`;
    }
    return text.trim();
  }

  // -------------------------------------------------------- argument checks

  function describe(v) {
    if (v === null) return "null";
    if (Array.isArray(v)) return "an array";
    if (typeof v === "object") return v.constructor ? `a ${v.constructor.name}` : "an object";
    return `a ${typeof v}`;
  }

  function options(value, allowed, what) {
    if (value === undefined || value === null) return {};
    if (typeof value !== "object" || Array.isArray(value)) {
      throw new TypeError(`${what} must be an object, got ${describe(value)}`);
    }
    for (const key of Object.keys(value)) {
      if (!allowed.includes(key)) throw new TypeError(`unknown ${what} "${key}" (expected ${allowed.join(", ")})`);
    }
    return value;
  }

  const given = (v) => v !== undefined && v !== null;

  /** A number argument the core will check (a bigint is a number); a wrong type is a TypeError naming it. */
  function numberArg(value, what) {
    if (given(value) && typeof value !== "number" && typeof value !== "bigint") {
      throw new TypeError(`${what} must be a number, got ${describe(value)}`);
    }
    return given(value) ? value : undefined;
  }

  function stringArg(value, what) {
    if (given(value) && typeof value !== "string") throw new TypeError(`${what} must be a string, got ${describe(value)}`);
    return given(value) ? value : undefined;
  }

  /** The start's options under the core's names (the client's are the wire's). */
  function startArgs(o) {
    return { timeoutSeconds: numberArg(o.timeout_seconds, "timeout_seconds"), idempotencyKey: stringArg(o.idempotency_key, "idempotency_key") };
  }

  /**
   * Builds with the core, naming the caller's argument in its refusal: the
   * core names what it was given (`cursor.stdout`), the caller may have
   * written another name for it (`stdout_offset`).
   */
  function built(make, names) {
    try {
      return make();
    } catch (error) {
      if (!(error instanceof core.InvalidArgument)) throw error;
      const name = names?.[error.argument] ?? followOption(error.argument);
      if (name === undefined || name === error.argument) throw error;
      return throwRenamed(error, name);
    }
  }

  /**
   * The follow option (a name of `Follower.defaults`) that the core's
   * `FollowOptions::check` means by its field name: `liveness_timeout` is
   * `livenessTimeoutMs`, `backoff` is `backoffMs` (durations say their unit).
   */
  function followOption(field) {
    const camel = field.replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase());
    return Object.keys(Follower.defaults).find((name) => name === camel || name === `${camel}Ms`);
  }

  function throwRenamed(error, name) {
    throw new core.InvalidArgument(`invalid_argument: ${name}: ${error.reason}`, { argument: name, reason: error.reason });
  }

  /**
   * Where a read of process output starts: `cursor` ({stdout, stderr}, a
   * reader's or an error's own) or the wire's `stdout_offset` /
   * `stderr_offset`, not both; `names` maps the core's argument names back
   * to the caller's.
   */
  function startCursor(o) {
    const offsets = given(o.stdout_offset) || given(o.stderr_offset);
    if (given(o.cursor)) {
      if (offsets) throw new TypeError("pass the start as cursor or as stdout_offset / stderr_offset, not both");
      return { cursor: o.cursor, names: undefined };
    }
    return {
      cursor: { stdout: numberArg(o.stdout_offset, "stdout_offset") ?? 0, stderr: numberArg(o.stderr_offset, "stderr_offset") ?? 0 },
      names: { "cursor.stdout": "stdout_offset", "cursor.stderr": "stderr_offset" },
    };
  }

  /** The core follow options among `o` (`allowed` of them), over the client's liveness and frame limit. */
  function followArgs(client, o, allowed) {
    const f = {};
    if (client.livenessTimeoutMs !== undefined) f.livenessTimeoutMs = client.livenessTimeoutMs;
    if (client.maxFrameBytes !== undefined) f.maxFrameBytes = client.maxFrameBytes;
    for (const name of allowed) if (o[name] !== undefined) f[name] = o[name];
    return f;
  }

  function hookArg(value) {
    if (value !== undefined && value !== null && typeof value !== "function") {
      throw new TypeError(`onReconnect must be a function, got ${describe(value)}`);
    }
    return value ?? undefined;
  }

  /**
   * Runs `make` now when the core is loaded, so argument errors are thrown
   * at the call; in a browser before `init()`, returns undefined (the caller
   * loads the core, then runs it).
   */
  function whenLoaded(make) {
    try {
      return make();
    } catch (error) {
      // The browser build's "call `await init()`" is a plain Error; anything else is about the arguments.
      if (error === null || typeof error !== "object" || error.constructor !== Error) throw error;
      return undefined;
    }
  }

  // ---------------------------------------------------------------- frames

  const encoder = new TextEncoder();
  let utf8 = null;

  function sameBytes(a, b) {
    if (a.length !== b.length) return false;
    if (typeof Buffer === "function") {
      return Buffer.from(a.buffer, a.byteOffset, a.length).equals(Buffer.from(b.buffer, b.byteOffset, b.length));
    }
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
    return true;
  }

  function base64(bytes) {
    if (typeof Buffer === "function") return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
    if (typeof bytes.toBase64 === "function") return bytes.toBase64();
    let binary = "";
    for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
    return btoa(binary);
  }

  /** Whether `bytes` hold a byte that never occurs in UTF-8 (C0, C1, F5..FF): then they are not text. */
  function neverUtf8(bytes) {
    for (let i = 0; i < bytes.length; i++) {
      const b = bytes[i];
      if (b >= 0xf5 || b === 0xc0 || b === 0xc1) return true;
    }
    return false;
  }

  /**
   * The wire's form of `bytes`: their text when they are valid UTF-8, else
   * padded standard base64 — the rule the server applies to each chunk. The
   * text comes from the core's decoder (which replaces invalid bytes by
   * U+FFFD); it is valid exactly when it encodes back to the same bytes.
   */
  function wireForm(bytes) {
    if (bytes.length === 0) return ["", "utf-8"];
    if (!neverUtf8(bytes)) {
      if (utf8 === null) utf8 = new Utf8Decoder();
      const text = utf8.push(bytes) + utf8.finish();
      if (sameBytes(encoder.encode(text), bytes)) return [text, "utf-8"];
    }
    return [base64(bytes), "base64"];
  }

  /**
   * An output frame. `data` and `encoding` are computed on first access (a
   * loop that reads only `bytes` never pays for them); they are enumerable
   * own properties like the others, so spreading, JSON and deep equality see
   * them.
   */
  function outputFrame(event) {
    const frame = { type: event.stream, data: "", encoding: "utf-8", offset: event.end, stream: event.stream, start: event.start, end: event.end, bytes: event.data };
    let form = null;
    const field = (i, name) => ({
      get: () => (form ??= wireForm(event.data))[i],
      set: (value) => Object.defineProperty(frame, name, { value, writable: true, enumerable: true, configurable: true }),
      enumerable: true,
      configurable: true,
    });
    return Object.defineProperties(frame, { data: field(0, "data"), encoding: field(1, "encoding") });
  }

  /**
   * The frame of a core event, with the wire's field names; null for the
   * result document an exec stream may be answered by (its output follows,
   * read from the process's output).
   */
  function toFrame(event) {
    switch (event.type) {
      case "output":
        return outputFrame(event);
      case "exit":
        return { type: "exit", exit_code: event.exitCode, timed_out: event.timedOut };
      case "heartbeat":
        return { type: "heartbeat" };
      case "started":
        return { type: "started", proc_id: event.procId };
      case "skipped":
        return { type: "skipped", stream: event.stream, start: event.start, end: event.end };
      case "identity":
        return identityOf(event);
      case "unknown":
        return { type: "unknown", frame_type: event.frameType };
      case "exec_result":
        return null;
      default:
        throw new Error(`dory-wire/client: unexpected event ${JSON.stringify(event.type)} in a stream`);
    }
  }

  function identityOf(event) {
    return { type: "identity", proc_id: event.procId, status: event.status };
  }

  function resultOf(event) {
    return {
      type: "exec_result",
      proc_id: event.procId,
      stdout: event.stdout,
      stderr: event.stderr,
      stdout_truncated: event.stdoutTruncated,
      stderr_truncated: event.stderrTruncated,
      exit_code: event.exitCode,
      timed_out: event.timedOut,
    };
  }

  /** The consumed offsets after `event`, from those before it (the reader's cursor moved with it). */
  function advance(cursor, event) {
    if (event.type === "output" || event.type === "skipped") cursor[event.stream] = event.end;
  }

  /** How a read that is done ended, as the core's End. */
  function endOf(done) {
    if (done.exited) return { type: "exited", exitCode: done.exitCode, timedOut: done.timedOut };
    return { type: "disconnected", cursor: { ...done.cursor }, reason: "end_of_body" };
  }

  // ------------------------------------------------------------- the clock

  /** A wait given up: the link was closed, or the client. */
  const ABORTED = Symbol("aborted");
  const STALLED = Symbol("stalled");

  function now() {
    return typeof performance !== "undefined" ? performance.now() : Date.now();
  }

  /**
   * The follower's clock for one request: the time spent waiting for the
   * network (its headers, then its body), in ms from the request. A consumer
   * that takes long over its frames is not waiting for the network: its time
   * never counts as a stall.
   */
  class WaitClock {
    ms = 0;

    /**
     * Waits for `promise` unless the follower's deadline (`pollTimeoutMs()`)
     * passes first or `link` is aborted. Resolves `{value}`, STALLED (the
     * follower said the wait is over), or rejects with what `promise` did, or
     * with ABORTED.
     */
    within(promise, follower, link) {
      const began = now();
      const at = () => this.ms + (now() - began);
      return new Promise((resolve, reject) => {
        let timer = null;
        let settled = false;
        const settle = (how, value) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          link.signal.removeEventListener("abort", aborted);
          this.ms = at();
          how(value);
        };
        const aborted = () => settle(reject, ABORTED);
        const arm = () => {
          const deadline = follower.pollTimeoutMs();
          if (deadline === null) return;
          timer = setTimeout(
            () => {
              if (settled) return;
              // The timer may fire a little early on this clock: the deadline counts as reached.
              if (follower.handleTimeoutMs(Math.max(at(), deadline))) settle(resolve, STALLED);
              else arm();
            },
            Math.max(0, Math.ceil(deadline - at())),
          );
        };
        if (link.signal.aborted) {
          aborted();
          return;
        }
        link.signal.addEventListener("abort", aborted);
        arm();
        promise.then(
          (value) => settle(resolve, { value }),
          (error) => settle(reject, error),
        );
      });
    }
  }

  /** Sleeps `ms`; rejects with ABORTED when `link` is aborted first. */
  function sleep(ms, link) {
    if (link.signal.aborted) return Promise.reject(ABORTED);
    if (ms <= 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const aborted = () => {
        clearTimeout(timer);
        reject(ABORTED);
      };
      const timer = setTimeout(() => {
        link.signal.removeEventListener("abort", aborted);
        resolve();
      }, ms);
      link.signal.addEventListener("abort", aborted, { once: true });
    });
  }

  // ----------------------------------------------------------- connections

  /**
   * The bound on requests in flight: a FIFO semaphore. A permit is taken
   * before a request is sent and given back when its response body ended or
   * was cancelled (or no response came).
   */
  class Permits {
    #free;
    #waiting = [];

    constructor(limit) {
      this.#free = limit;
    }

    /** A function that gives the permit back (once); rejects with ABORTED when `link` is aborted first. */
    acquire(link) {
      if (link.signal.aborted) return Promise.reject(ABORTED);
      if (this.#free > 0 && this.#waiting.length === 0) {
        this.#free--;
        return Promise.resolve(this.#releaser());
      }
      return new Promise((resolve, reject) => {
        const waiter = { resolve, link, aborted: null };
        waiter.aborted = () => {
          const i = this.#waiting.indexOf(waiter);
          if (i >= 0) this.#waiting.splice(i, 1);
          reject(ABORTED);
        };
        link.signal.addEventListener("abort", waiter.aborted, { once: true });
        this.#waiting.push(waiter);
      });
    }

    #releaser() {
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const next = this.#waiting.shift();
        if (next === undefined) {
          this.#free++;
        } else {
          next.link.signal.removeEventListener("abort", next.aborted);
          next.resolve(this.#releaser());
        }
      };
    }
  }

  /**
   * What one operation (a read, a stream, a request) is cancelled through:
   * its owner closing it (`closed`: it ends quietly) or the client closing
   * (its operations reject with an AbortError).
   */
  class Link {
    #controller = new AbortController();
    closed = false;

    get signal() {
      return this.#controller.signal;
    }

    abort() {
      this.#controller.abort();
    }

    /** A controller for one request, aborted with the link. */
    request() {
      const controller = new AbortController();
      const abort = () => controller.abort();
      if (this.signal.aborted) controller.abort();
      else this.signal.addEventListener("abort", abort, { once: true });
      return { controller, done: () => this.signal.removeEventListener("abort", abort) };
    }
  }

  // -------------------------------------------------------------- the read

  /**
   * Drives `follower` to its end, over the network: one IO loop for every
   * read. Sends `follower.request()`, feeds the answer back, runs the
   * follower's clock, and does what it decides: `done` ends the read,
   * `reconnect` calls `onReconnect` with the core's record and sleeps its
   * `delayMs` (or, with `reconnect: false`, a one-response iterator, throws
   * the StreamDisconnected of that record), `continue` sends the next
   * request. With a `transcript`, output goes into it (`feedInto`) and
   * nothing is yielded; else it yields the events of each piece of a body
   * (non-empty arrays). Returns the `done` decision, or null when `link` was
   * closed by its owner. The core's errors are thrown as they are, after the
   * events decoded before them; an AbortError once the client is closed.
   */
  async function* drive(client, follower, link, { transcript, reconnect, onReconnect }) {
    const stopped = () => {
      if (link.closed) return true;
      if (client.closed) throw closedError();
      return false;
    };
    /** Whether a wait ended because the read was closed (then quietly) or the client (then it throws). */
    const abandoned = (error) => {
      if (error === ABORTED || link.closed || client.closed) {
        if (stopped()) return true;
        throw closedError();
      }
      return false;
    };
    for (;;) {
      if (stopped()) return null;
      let release;
      try {
        release = await client.permits.acquire(link);
      } catch (error) {
        if (abandoned(error)) return null;
        throw error;
      }
      let decision;
      let cause;
      let body = null;
      let bodyDone = false;
      const { controller, done } = link.request();
      try {
        const request = follower.request();
        const clock = new WaitClock();
        follower.handleTimeoutMs(clock.ms); // arms the wait for the headers
        const url = client.url(request);
        let response;
        try {
          const got = await clock.within(client.send(request, url, controller.signal), follower, link);
          if (got === STALLED) {
            controller.abort(); // no headers in time
          } else {
            response = got.value;
          }
        } catch (error) {
          if (abandoned(error)) return null;
          cause = error;
        }
        if (response === undefined) {
          decision = follower.noResponse(cause === undefined ? "" : describeTransportError(cause, request.method, url), Math.random());
        } else {
          const h = (name) => response.headers.get(name);
          body = response.body === null || response.body === undefined ? null : response.body;
          follower.open(response.status, h("content-type"), h("ce-process-id"), h("retry-after"));
          const chunks = body === null ? null : body.getReader();
          body = chunks;
          bodyDone = chunks === null;
          let broken;
          let stalled = follower.handleTimeoutMs(clock.ms); // arms the wait for the first frame
          while (!bodyDone && !stalled) {
            let got;
            try {
              got = await clock.within(chunks.read(), follower, link);
            } catch (error) {
              if (abandoned(error)) return null;
              broken = error;
              bodyDone = true;
              break;
            }
            if (got === STALLED) {
              stalled = true;
              break;
            }
            const step = got.value;
            if (step.done) {
              bodyDone = true;
              break;
            }
            const events = transcript === undefined ? follower.feed(step.value) : follower.feedInto(step.value, transcript);
            // A complete frame restarts the clock; a trickle runs it out.
            stalled = follower.handleTimeoutMs(clock.ms);
            if (events.length > 0 && transcript === undefined) yield events;
            if (stopped()) return null;
          }
          cause = broken;
          let events;
          try {
            [events, decision] = follower.finish(broken === undefined ? undefined : describeTransportError(broken), Math.random());
          } catch (error) {
            if (Array.isArray(error.events) && error.events.length > 0) yield* deliver(error.events, transcript);
            throw error;
          }
          yield* deliver(events, transcript);
        }
      } catch (error) {
        throw withCause(error, cause);
      } finally {
        if (!bodyDone && body !== null) body.cancel().catch(() => {});
        controller.abort();
        done();
        release();
      }
      if (decision.type === "done") {
        if (decision.exited && transcript !== undefined) transcript.finish();
        return decision;
      }
      if (decision.type === "reconnect") {
        if (!reconnect) throw fromRecord(decision, cause);
        if (onReconnect !== undefined) onReconnect(decision);
        try {
          await sleep(decision.delayMs, link);
        } catch (error) {
          if (abandoned(error)) return null;
          throw error;
        }
      }
      // "continue": the next request now.
    }
  }

  /** Events decoded at the end of a body: into the transcript, or yielded. */
  function* deliver(events, transcript) {
    if (events.length === 0) return;
    if (transcript === undefined) {
      yield events;
    } else {
      for (const event of events) transcript.push(event);
    }
  }

  /** Reads `follower` to its end into a transcript (the one-call reads). */
  async function readToEnd(client, follower, transcript, onReconnect) {
    const link = client.link();
    const into = transcript ?? new Transcript();
    try {
      const run = drive(client, follower, link, { transcript: into, reconnect: true, onReconnect });
      for (;;) {
        const step = await run.next();
        if (step.done) break;
      }
      return into;
    } finally {
      client.unlink(link);
      follower.free();
    }
  }

  // --------------------------------------------------------------- streams

  /**
   * The frames of a read, with the consumed offsets after each frame.
   * Iterate it once; `close()` ends it (the process keeps running). A
   * process-output or setup-log stream reads one response; an exec stream
   * follows its process to the exit as the core decides.
   */
  class OutputStream {
    #client;
    #make;
    #follower;
    #reconnect;
    #onReconnect;
    #cursor;
    #procId;
    #end = null;
    #link = null;
    #iterator = null;
    #closed = false;

    /** @internal */
    constructor(client, make, cursor, procId, { reconnect = false, onReconnect } = {}) {
      this.#client = client;
      this.#make = make;
      this.#follower = whenLoaded(make); // argument errors now, where the core is loaded
      this.#cursor = { stdout: Number(cursor.stdout ?? 0), stderr: Number(cursor.stderr ?? 0) };
      this.#procId = procId;
      this.#reconnect = reconnect;
      this.#onReconnect = onReconnect;
    }

    /** Bytes of stdout consumed: through the last frame delivered. */
    get stdout_offset() {
      return this.#cursor.stdout;
    }

    /** Bytes of stderr consumed: through the last frame delivered. */
    get stderr_offset() {
      return this.#cursor.stderr;
    }

    /** The consumed offsets as a core Cursor. */
    get cursor() {
      return { stdout: this.#cursor.stdout, stderr: this.#cursor.stderr };
    }

    /** The process id, once known (an exec stream learns it from `started` or its header). */
    get proc_id() {
      return this.#procId;
    }

    /** How the read ended (the core's End), once it did without throwing; null before. */
    get end() {
      return this.#end;
    }

    [Symbol.asyncIterator]() {
      if (this.#iterator !== null) {
        throw new TypeError("an output stream is read once: open another one from its offsets");
      }
      this.#iterator = this.#frames();
      return this.#iterator;
    }

    /** Ends the stream and releases its connection. Never kills the process. */
    async close() {
      this.#closed = true;
      if (this.#link !== null) {
        this.#link.closed = true;
        this.#link.abort();
      }
      if (this.#iterator !== null) await this.#iterator.return(undefined);
      this.#release();
    }

    #release() {
      if (this.#follower !== undefined && this.#follower !== null) {
        this.#follower.free();
        this.#follower = null;
      }
    }

    #learn(follower) {
      this.#procId = follower.procId ?? this.#procId;
    }

    async *#frames() {
      const client = this.#client;
      await client.ready();
      if (this.#closed) return;
      if (this.#follower === undefined) this.#follower = this.#make();
      const follower = this.#follower;
      const link = client.link();
      this.#link = link;
      const run = drive(client, follower, link, { transcript: undefined, reconnect: this.#reconnect, onReconnect: this.#onReconnect });
      try {
        for (;;) {
          let step;
          try {
            step = await run.next();
          } finally {
            if (this.#follower === follower) this.#learn(follower);
          }
          if (step.done) {
            if (step.value !== null) this.#end = endOf(step.value);
            return;
          }
          for (const event of step.value) {
            advance(this.#cursor, event);
            if (event.type === "started" || event.type === "identity") this.#procId = event.procId;
            const frame = toFrame(event);
            if (frame !== null) yield frame;
          }
        }
      } finally {
        // Left early (a break, close()): the response is cancelled, its connection given back.
        await run.return(null);
        client.unlink(link);
        this.#link = null;
        this.#release();
      }
    }
  }
  if (typeof Symbol.asyncDispose === "symbol") {
    OutputStream.prototype[Symbol.asyncDispose] = OutputStream.prototype.close;
  }

  // ------------------------------------------------------------- resources

  const OFFSETS = ["stdout_offset", "stderr_offset", "cursor"];
  const STREAM_OPTIONS = RESPONSE_OPTIONS;
  const READ_OPTIONS = [...FOLLOW_OPTIONS, "transcript", "onReconnect"];
  const START_OPTIONS = ["timeout_seconds", "idempotency_key"];

  /** The `transcript` option: a core Transcript, or none. */
  function transcriptArg(value) {
    if (value === undefined || value === null) return undefined;
    if (!(value instanceof Transcript)) throw new TypeError(`transcript must be a Transcript, got ${describe(value)}`);
    return value;
  }

  /** One process: read its retained output, kill it. */
  class Process {
    #client;
    #computer;

    /** @internal */
    constructor(client, computer, identity) {
      this.#client = client;
      this.#computer = computer;
      /** The process id. */
      this.proc_id = identity.proc_id;
      /** Its status when the handle was made. */
      this.status = identity.status;
    }

    #follower(o, allowed) {
      const { cursor, names } = startCursor(o);
      const computerId = this.#computer.id;
      const procId = this.proc_id;
      const args = { cursor, ...followArgs(this.#client, o, allowed) };
      return { cursor, make: () => built(() => Follower.processOutput(computerId, procId, args), names) };
    }

    /**
     * The retained output from per-stream byte offsets (default 0) or a
     * `cursor`, frame by frame: one response, no reconnect.
     */
    iterOutput(outputOptions) {
      const o = options(outputOptions, [...OFFSETS, ...STREAM_OPTIONS], "iterOutput option");
      const { cursor, make } = this.#follower(o, STREAM_OPTIONS);
      return new OutputStream(this.#client, make, cursor, this.proc_id);
    }

    /** The whole output from the offsets, reconnecting as the core decides: a Transcript. */
    async readOutput(readOptions) {
      const o = options(readOptions, [...OFFSETS, ...READ_OPTIONS], "readOutput option");
      const onReconnect = hookArg(o.onReconnect);
      const transcript = transcriptArg(o.transcript);
      const { make } = this.#follower(o, FOLLOW_OPTIONS);
      await this.#client.ready();
      return readToEnd(this.#client, make(), transcript, onReconnect);
    }

    /** Kills the process group (closing a stream never does). */
    kill() {
      return this.#computer.processes.kill(this.proc_id);
    }
  }

  /** The processes of a computer. */
  class Processes {
    #client;
    #computer;

    /** @internal */
    constructor(client, computer) {
      this.#client = client;
      this.#computer = computer;
    }

    /**
     * Starts a background process. With `idempotency_key`, a repeated start
     * answers the same identity and starts nothing.
     */
    async start(command, startOptions) {
      const o = options(startOptions, START_OPTIONS, "start option");
      const args = startArgs(o);
      return identityOf(await this.#client.identity(() => Request.start(this.#computer.id, command, args)));
    }

    /** A handle on a process (its identity is fetched: an unknown id is an ApiError 404). */
    async get(procId) {
      const identity = await this.#client.identity(() => Request.getProcess(this.#computer.id, procId));
      return new Process(this.#client, this.#computer, identityOf(identity));
    }

    /** Kills a process's group; answers its identity. */
    async kill(procId) {
      return identityOf(await this.#client.identity(() => Request.kill(this.#computer.id, procId)));
    }
  }

  /** The setup command's logs: one stream (stderr merged into stdout), one offset. */
  class Setup {
    #client;
    #computer;

    /** @internal */
    constructor(client, computer) {
      this.#client = client;
      this.#computer = computer;
    }

    #make(o, allowed) {
      const computerId = this.#computer.id;
      const offset = numberArg(o.offset, "offset") ?? 0;
      const args = { offset, ...followArgs(this.#client, o, allowed) };
      return { offset, make: () => built(() => Follower.setupLogs(computerId, args)) };
    }

    /** The setup log from `offset`, frame by frame (one response); resume from the stream's `stdout_offset`. */
    iterLogs(logOptions) {
      const o = options(logOptions, ["offset", ...STREAM_OPTIONS], "iterLogs option");
      const { offset, make } = this.#make(o, STREAM_OPTIONS);
      return new OutputStream(this.#client, make, { stdout: offset, stderr: 0 }, null);
    }

    /** The whole setup log from `offset` (the transcript's stdout), reconnecting like `readOutput`. */
    async readLogs(logOptions) {
      const o = options(logOptions, ["offset", ...READ_OPTIONS], "readLogs option");
      const onReconnect = hookArg(o.onReconnect);
      const transcript = transcriptArg(o.transcript);
      const { make } = this.#make(o, FOLLOW_OPTIONS);
      await this.#client.ready();
      return readToEnd(this.#client, make(), transcript, onReconnect);
    }
  }

  /** One computer: its processes, its setup logs, exec. */
  class Computer {
    #client;

    /** @internal */
    constructor(client, id) {
      this.#client = client;
      /** The computer id. */
      this.id = id;
      /** Start, get and kill processes. */
      this.processes = new Processes(client, this);
      /** The setup command's logs. */
      this.setup = new Setup(client, this);
    }

    /**
     * Synchronous exec: waits for the exit and answers the result (each
     * stream cut at the server's limit, flagged `*_truncated`). A keyed
     * replay answers the first run's identity instead.
     */
    async exec(command, execOptions) {
      const o = options(execOptions, START_OPTIONS, "exec option");
      const args = startArgs(o);
      const event = await this.#client.document(() => Request.exec(this.id, command, args));
      return event.type === "identity" ? identityOf(event) : resultOf(event);
    }

    /**
     * Streaming exec: `started`, the output frames and `exit`, followed to
     * the exit as the core decides: after a cut, from the process's retained
     * output (never by sending the exec again, unless its idempotency key
     * makes that safe). A keyed replay (a JSON identity) yields one
     * `identity` frame, then the first run's output.
     */
    execStream(command, execOptions) {
      const o = options(execOptions, [...START_OPTIONS, ...FOLLOW_OPTIONS.filter((n) => n !== "follow"), "onReconnect"], "execStream option");
      const onReconnect = hookArg(o.onReconnect);
      const { timeoutSeconds, idempotencyKey } = startArgs(o);
      const args = { timeoutSeconds, idempotencyKey, ...followArgs(this.#client, o, FOLLOW_OPTIONS) };
      const make = () => built(() => Follower.execStream(this.id, command, args));
      return new OutputStream(this.#client, make, { stdout: 0, stderr: 0 }, null, { reconnect: true, onReconnect });
    }
  }

  /** The computers of the service. */
  class Computers {
    #client;

    /** @internal */
    constructor(client) {
      this.#client = client;
    }

    /**
     * A computer by id, at once: sends no request (errors come with the
     * first call), so `await` on it is optional. An id the core refuses
     * throws here (`TypeError`, or the core's `InvalidArgument`).
     */
    get(id) {
      whenLoaded(() => Request.setupLogs(id)); // the core's check of a computer id
      if (typeof id !== "string") throw new TypeError(`computerId must be a string, got ${describe(id)}`);
      return new Computer(this.#client, id);
    }
  }

  // ---------------------------------------------------------------- client

  function environment(name) {
    const env = typeof process !== "undefined" && process !== null ? process.env : undefined;
    const value = env ? env[name] : undefined;
    return typeof value === "string" && value !== "" ? value : undefined;
  }

  const CLIENT_OPTIONS = ["baseUrl", "fetch", "headers", "livenessTimeoutMs", "maxFrameBytes", "maxConnections"];

  /**
   * The connection to one Dory service: a base URL and a `fetch`. Close it
   * when done (`close()` aborts whatever is still in flight).
   */
  class Client {
    #transport;

    /**
     * @param {string | object} [urlOrOptions] the base URL, or the options
     *   `{baseUrl, fetch, headers, livenessTimeoutMs, maxFrameBytes, maxConnections}`;
     *   `baseUrl` defaults to the DORY_URL environment variable (Node).
     * @param {object} [clientOptions] the options, after a base URL
     */
    constructor(urlOrOptions, clientOptions) {
      let o;
      if (typeof urlOrOptions === "string") {
        o = { ...options(clientOptions, CLIENT_OPTIONS.filter((n) => n !== "baseUrl"), "Client option"), baseUrl: urlOrOptions };
      } else {
        if (clientOptions !== undefined) throw new TypeError("new Client(options) takes one argument; new Client(baseUrl, options) two");
        o = options(urlOrOptions, CLIENT_OPTIONS, "Client option");
      }
      const baseUrl = o.baseUrl ?? environment("DORY_URL");
      if (baseUrl === undefined) throw new TypeError('no base URL: pass new Client("http://…") or set DORY_URL');
      if (typeof baseUrl !== "string") throw new TypeError(`baseUrl must be a string, got ${describe(baseUrl)}`);
      let parsed;
      try {
        parsed = new URL(baseUrl);
      } catch {
        throw new RangeError(`baseUrl is not a URL: ${JSON.stringify(baseUrl)}`);
      }
      if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
        throw new RangeError(`baseUrl must be http: or https:, got ${JSON.stringify(baseUrl)}`);
      }
      // Kept apart and called with no receiver: Cloudflare Workers' fetch
      // throws "Illegal invocation" when called as a method of another object.
      const fetchImpl = o.fetch ?? (typeof globalThis.fetch === "function" ? globalThis.fetch : undefined);
      if (typeof fetchImpl !== "function") throw new TypeError("no fetch: this platform has none, pass new Client({ fetch })");
      const headers = {};
      if (o.headers !== undefined && o.headers !== null) {
        if (typeof o.headers !== "object" || Array.isArray(o.headers)) {
          throw new TypeError(`headers must be an object of strings, got ${describe(o.headers)}`);
        }
        for (const [k, v] of Object.entries(o.headers)) {
          if (typeof v !== "string") throw new TypeError(`header ${k} must be a string, got ${describe(v)}`);
          headers[k.toLowerCase()] = v;
        }
      }
      const maxConnections = o.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
      if (typeof maxConnections !== "number") throw new TypeError(`maxConnections must be a number, got ${describe(maxConnections)}`);
      if (!Number.isInteger(maxConnections) || maxConnections < 1) {
        throw new RangeError(`maxConnections must be an integer >= 1, got ${maxConnections}`);
      }
      const follow = {};
      for (const name of ["livenessTimeoutMs", "maxFrameBytes"]) {
        if (o[name] !== undefined) follow[name] = o[name];
      }
      // The core checks them (a TypeError, or InvalidArgument naming the option).
      whenLoaded(() => built(() => Follower.setupLogs("c", follow)).free());
      this.#transport = new Transport(baseUrl.replace(/\/+$/, ""), fetchImpl, headers, follow, maxConnections);
      /** The computers of the service. */
      this.computers = new Computers(this.#transport);
    }

    /** The base URL requests go to. */
    get baseUrl() {
      return this.#transport.baseUrl;
    }

    /** How many requests this client has in flight at most (option `maxConnections`, default 100). */
    get maxConnections() {
      return this.#transport.maxConnections;
    }

    /** Aborts every request and stream in flight; later calls reject. Idempotent. */
    close() {
      this.#transport.close();
    }
  }
  if (typeof Symbol.dispose === "symbol") {
    Client.prototype[Symbol.dispose] = Client.prototype.close;
  }

  /** What every resource shares: the URL, fetch, headers, limits, permits and the operations in flight. */
  class Transport {
    #fetch;

    constructor(baseUrl, fetchImpl, headers, follow, maxConnections) {
      this.baseUrl = baseUrl;
      this.#fetch = fetchImpl;
      this.headers = headers;
      this.livenessTimeoutMs = follow.livenessTimeoutMs;
      this.maxFrameBytes = follow.maxFrameBytes;
      this.maxConnections = maxConnections;
      this.permits = new Permits(maxConnections);
      this.closed = false;
      this.links = new Set();
    }

    /** Where `request` goes: the base URL, then its target. */
    url(request) {
      return this.baseUrl + request.target;
    }

    /**
     * Sends the core's `request` with fetch (called with no receiver): its
     * method; its headers, then the client's where it sets none of that
     * name; its body, as `application/json`.
     */
    send(request, url, signal) {
      const headers = {};
      for (const [name, value] of Object.entries(request.headers)) headers[name.toLowerCase()] = value;
      if (request.body !== null && !Object.prototype.hasOwnProperty.call(headers, "content-type")) headers["content-type"] = "application/json";
      for (const [name, value] of Object.entries(this.headers)) {
        if (!Object.prototype.hasOwnProperty.call(headers, name)) headers[name] = value;
      }
      const init = { method: request.method, headers, signal };
      if (request.body !== null) init.body = request.body;
      return Promise.resolve().then(() => this.#fetch.call(undefined, url, init));
    }

    async ready() {
      this.check();
      await core.init();
      this.check();
    }

    check() {
      if (this.closed) throw closedError();
    }

    /** A cancellable operation; `close()` aborts them all. */
    link() {
      this.check();
      const link = new Link();
      this.links.add(link);
      return link;
    }

    unlink(link) {
      this.links.delete(link);
    }

    close() {
      if (this.closed) return;
      this.closed = true;
      for (const link of this.links) link.abort();
      this.links.clear();
    }

    /**
     * Sends the request `build()` makes (a core `Request`), answered by one
     * JSON document decoded by a core `document` Reader: returns its event.
     * Error answers throw the core's errors; a transport failure rejects
     * with fetch's own error.
     */
    async document(build) {
      await this.ready();
      const request = build();
      const link = this.link();
      let release;
      try {
        release = await this.permits.acquire(link);
      } catch {
        this.unlink(link);
        throw closedError();
      }
      const { controller, done } = link.request();
      const reader = new Reader("document", this.maxFrameBytes === undefined ? {} : { maxFrameBytes: this.maxFrameBytes });
      let chunks = null;
      let bodyDone = true;
      try {
        let response;
        try {
          response = await this.send(request, this.url(request), controller.signal);
        } catch (error) {
          if (this.closed) throw closedError();
          throw error;
        }
        reader.open(response.status, response.headers.get("content-type"), response.headers.get("ce-process-id"));
        const events = [];
        if (response.body !== null && response.body !== undefined) {
          chunks = response.body.getReader();
          bodyDone = false;
          for (;;) {
            let step;
            try {
              step = await chunks.read();
            } catch (error) {
              bodyDone = true;
              if (this.closed) throw closedError();
              throw error;
            }
            if (step.done) {
              bodyDone = true;
              break;
            }
            events.push(...reader.feed(step.value));
          }
        }
        const [last] = reader.finish();
        events.push(...last);
        const event = events.find((e) => e.type === "identity" || e.type === "exec_result");
        if (event === undefined) throw new Error(`dory-wire/client: ${request.method} ${request.path} answered no document`);
        return event;
      } finally {
        if (!bodyDone && chunks !== null) chunks.cancel().catch(() => {});
        controller.abort();
        done();
        release();
        this.unlink(link);
        reader.free();
      }
    }

    async identity(build) {
      const event = await this.document(build);
      if (event.type !== "identity") {
        throw new Error(`dory-wire/client: the answer was ${event.type}, not a process identity`);
      }
      return event;
    }
  }

  return {
    Client,
    StreamDisconnected,
    Transcript,
    DoryWireError: core.DoryWireError,
    AnswerError: core.AnswerError,
    LossError: core.LossError,
    ProtocolError: core.ProtocolError,
    ApiError: core.ApiError,
    OffsetBeyondOutput: core.OffsetBeyondOutput,
    OutputGap: core.OutputGap,
    OutputExpired: core.OutputExpired,
  };
}
