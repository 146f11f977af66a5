// The HTTP client of dory-wire (`dory-wire/client`): the Dory process API
// on the platform's `fetch`, every response decoded by the core's Reader.
//
// Like api.js, this file is one function, `createClientApi(core)`, with no
// import or export statement: build.mjs wraps the same text as CommonJS (Node)
// and as an ES module (browsers) over the matching core entry, so the client
// shares the core's classes (`instanceof OutputGap` works on what it throws).
//
// Nothing here decodes the wire: status, Content-Type, frames, offsets,
// overlap, gaps and error answers all go through a core Reader, and output
// bytes come from its events. This layer does the HTTP, turns ends into
// errors (StreamDisconnected), runs the liveness timers the reader asks for,
// and encodes each frame's bytes back into the wire's `data`/`encoding` form.

/* eslint-disable no-unused-vars */
function createClientApi(core) {
  "use strict";

  const { Reader, Transcript, Utf8Decoder } = core;

  const NDJSON = "application/x-ndjson";
  const JSON_TYPE = "application/json";
  const DEFAULT_RETRIES = 5;
  const DEFAULT_BACKOFF_MS = 250;
  const DEFAULT_MAX_BACKOFF_MS = 5000;

  // ----------------------------------------------------------------- errors

  /**
   * A response of a stream ended without `exit`: the body ended or was cut
   * (`end_of_body`), a `gap` frame ended it without losing anything or after
   * the skip policy reported the loss (`gap`), no byte came within the
   * liveness timeout (`stalled`), or there was no answer at all: refused,
   * reset, no headers in time (`no_response`). Reconnect to the process output
   * from `stdout_offset` / `stderr_offset`; never start the command again.
   * The core's class of `stream_disconnected` (kind `transport`), the same
   * object as `dory-wire`'s, so `instanceof` holds whichever entry point
   * raised it; it reads `reason`, `cursor`, `procId` and, under the wire's
   * names, `stdout_offset`, `stderr_offset` and `proc_id`; `cause` is the
   * transport's error.
   */
  const StreamDisconnected = core.StreamDisconnected;

  function disconnected(reason, cursor, procId, cause) {
    const what = {
      end_of_body: "the response ended before exit",
      gap: "a gap frame ended the response",
      stalled: "no byte came within the liveness timeout",
      no_response: "no response",
    }[reason];
    const detail = cause instanceof Error && cause.message ? ` (${cause.message})` : "";
    return new StreamDisconnected(
      `stream_disconnected: ${what}${detail}; resume from stdout_offset ${cursor.stdout}, stderr_offset ${cursor.stderr}`,
      { reason, cursor: { stdout: cursor.stdout, stderr: cursor.stderr }, procId: procId ?? null, cause },
    );
  }

  /** What operations in flight reject with once the client is closed. */
  function closedError() {
    const message = "the dory-wire client is closed";
    if (typeof DOMException === "function") return new DOMException(message, "AbortError");
    const error = new Error(message);
    error.name = "AbortError";
    return error;
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

  function offset(value, what) {
    if (value === undefined || value === null) return 0;
    if (typeof value !== "number") throw new TypeError(`${what} must be a number, got ${describe(value)}`);
    if (!Number.isSafeInteger(value) || value < 0) {
      throw new RangeError(`${what} must be an integer from 0 to Number.MAX_SAFE_INTEGER, got ${value}`);
    }
    return value;
  }

  function count(value, what, fallback) {
    if (value === undefined) return fallback;
    if (typeof value !== "number") throw new TypeError(`${what} must be a number, got ${describe(value)}`);
    if (!Number.isFinite(value) || value < 0) throw new RangeError(`${what} must be a finite number >= 0, got ${value}`);
    return value;
  }

  function nonEmptyString(value, what) {
    if (typeof value !== "string") throw new TypeError(`${what} must be a string, got ${describe(value)}`);
    if (value === "") throw new RangeError(`${what} must not be empty`);
    return value;
  }

  function checkCommand(command) {
    if (typeof command === "string") return command;
    if (Array.isArray(command) && command.every((a) => typeof a === "string")) return command;
    throw new TypeError(`command must be a string (run with sh -c) or an array of strings (argv), got ${describe(command)}`);
  }

  function startBody(command, o) {
    const body = { command: checkCommand(command) };
    if (o.timeout_seconds !== undefined) {
      const t = o.timeout_seconds;
      if (typeof t !== "number") throw new TypeError(`timeout_seconds must be a number, got ${describe(t)}`);
      if (!Number.isFinite(t) || t <= 0) throw new RangeError(`timeout_seconds must be a positive number, got ${t}`);
      body.timeout_seconds = t;
    }
    const headers = {};
    if (o.idempotency_key !== undefined) headers["idempotency-key"] = nonEmptyString(o.idempotency_key, "idempotency_key");
    return { body: JSON.stringify(body), headers };
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

  /** The frame of a core event, with the wire's field names. */
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

  /** Moves `cursor` past an event (what the reader's cursor did when it produced it). */
  function advance(cursor, event) {
    if (event.type === "output" || event.type === "skipped") cursor[event.stream] = event.end;
  }

  // ------------------------------------------------------------------ HTTP

  const STALLED = Symbol("stalled");

  function now() {
    return typeof performance !== "undefined" ? performance.now() : Date.now();
  }

  /**
   * Reads the next chunk unless the reader's liveness deadline passes first.
   * `clock.ms` is the reader's clock: the time spent waiting for the body, so
   * a consumer that takes long over its frames never looks like a stall.
   */
  function readWithin(body, reader, clock) {
    const began = now();
    const at = () => clock.ms + (now() - began);
    return new Promise((resolve, reject) => {
      let timer = null;
      let settled = false;
      const arm = () => {
        const deadline = reader.pollTimeoutMs();
        if (deadline === null) return;
        timer = setTimeout(() => {
          if (settled) return;
          if (reader.handleTimeoutMs(at())) {
            settled = true;
            resolve(STALLED);
          } else {
            arm();
          }
        }, Math.max(0, Math.ceil(deadline - at())));
      };
      arm();
      body.read().then(
        (step) => {
          clearTimeout(timer);
          if (settled) return;
          settled = true;
          clock.ms = at();
          resolve(step);
        },
        (error) => {
          clearTimeout(timer);
          if (settled) return;
          settled = true;
          reject(error);
        },
      );
    });
  }

  /**
   * One exchange of a stream: the request, then its response decoded by
   * `reader`. Yields the events of each piece of the body (non-empty arrays)
   * and returns the End when it is `exited` or `document`, or null when
   * `link` was closed by its owner. Every other end throws: StreamDisconnected
   * for an end without exit (with the reader's cursor), the core's errors as
   * they are, an AbortError once the client is closed. With a `transcript`,
   * every event is recorded there (output bytes inside WebAssembly memory,
   * `feedInto`) and only the other events are yielded.
   */
  async function* exchange(client, link, plan, cursor, reader, transcript) {
    const request = plan.request(cursor);
    const { signal } = link.controller;
    // No headers within the liveness timeout: no response (like a refusal).
    const headersTimer = setTimeout(() => link.controller.abort(), plan.livenessTimeoutMs);
    let response;
    try {
      response = await client.fetchImpl(client.url(request.path), {
        method: request.method,
        headers: { ...client.headers, accept: NDJSON, ...request.headers },
        body: request.body,
        signal,
      });
    } catch (error) {
      if (link.closed) return null;
      if (client.closed) throw closedError();
      throw disconnected("no_response", reader.cursor, reader.procId, error);
    } finally {
      clearTimeout(headersTimer);
    }
    const body = response.body === null || response.body === undefined ? null : response.body.getReader();
    let bodyDone = body === null;
    try {
      reader.open(response.status, response.headers.get("content-type"), response.headers.get("ce-process-id"));
      let failure = null;
      let stall = false;
      const clock = { ms: 0 };
      reader.handleTimeoutMs(0); // arms the liveness clock
      while (!bodyDone) {
        let step;
        try {
          step = await readWithin(body, reader, clock);
        } catch (error) {
          if (link.closed) return null;
          if (client.closed) throw closedError();
          failure = error;
          break;
        }
        if (step === STALLED) {
          stall = true;
          break;
        }
        if (step.done) {
          bodyDone = true;
          break;
        }
        const events = transcript === undefined ? reader.feed(step.value) : reader.feedInto(step.value, transcript);
        reader.handleTimeoutMs(clock.ms); // bytes fed restart the clock
        if (events.length > 0) yield events;
      }
      // A body cut short: an error answer or a JSON document is incomplete
      // (never decode half of one); an NDJSON stream ends where its last
      // complete frame did. A decoding error already found is thrown as is.
      const pending = reader.state === "failed";
      const ok = response.status >= 200 && response.status <= 299;
      if (failure !== null && !pending && !ok) throw disconnected("end_of_body", reader.cursor, reader.procId, failure);
      let events;
      let end;
      try {
        [events, end] = reader.finish();
      } catch (error) {
        if (failure !== null && !pending) throw disconnected("end_of_body", reader.cursor, reader.procId, failure);
        throw error;
      }
      if (transcript !== undefined) for (const event of events) transcript.push(event);
      if (events.length > 0) yield events;
      if (end.type === "disconnected") {
        throw disconnected(stall ? "stalled" : end.reason, end.cursor, reader.procId, failure ?? undefined);
      }
      return end;
    } finally {
      if (!bodyDone && body !== null) body.cancel().catch(() => {});
      link.controller.abort();
    }
  }

  // --------------------------------------------------------------- streams

  /**
   * The frames of one response of an output request (exec, process output
   * or setup logs), with the consumed offsets after each frame. Iterate it
   * once; `close()` ends it (the process keeps running).
   */
  class OutputStream {
    #client;
    #plan;
    #cursor;
    #procId;
    #gapPolicy;
    #end = null;
    #link = null;
    #iterator = null;
    #closed = false;

    /** @internal */
    constructor(client, plan, cursor, procId, gapPolicy) {
      this.#client = client;
      this.#plan = plan;
      this.#cursor = cursor;
      this.#procId = procId;
      this.#gapPolicy = gapPolicy;
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

    /** The process id, once known (an exec stream learns it from `started`). */
    get proc_id() {
      return this.#procId;
    }

    /** How the response ended (the core's End), once it did; null before or when it threw. */
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
        this.#link.controller.abort();
      }
      if (this.#iterator !== null) await this.#iterator.return(undefined);
    }

    async *#frames() {
      const client = this.#client;
      const plan = this.#plan;
      await client.ready();
      if (this.#closed) return;
      const reader = new Reader(plan.endpoint, {
        cursor: this.#cursor,
        gapPolicy: this.#gapPolicy,
        maxFrameBytes: client.maxFrameBytes,
        livenessTimeoutMs: plan.livenessTimeoutMs,
      });
      const link = client.link();
      this.#link = link;
      const run = exchange(client, link, plan, this.#cursor, reader);
      try {
        for (;;) {
          let step;
          try {
            step = await run.next();
          } catch (error) {
            if (!(error instanceof StreamDisconnected)) throw error;
            if (error.proc_id === null) error.proc_id = this.#procId;
            // A finite read (follow=false) ends where the output ends now: a
            // body that ends cleanly without exit is its normal end.
            if (plan.finite && error.reason === "end_of_body" && error.cause === undefined) {
              this.#end = { type: "disconnected", cursor: error.cursor, reason: "end_of_body" };
              return;
            }
            throw error;
          }
          if (step.done) {
            this.#end = step.value;
            return;
          }
          for (const event of step.value) {
            advance(this.#cursor, event);
            if (event.type === "started" || event.type === "identity") this.#procId = event.procId;
            yield toFrame(event);
          }
        }
      } finally {
        await run.return(null);
        client.unlink(link);
        this.#link = null;
        reader.free();
      }
    }
  }
  if (typeof Symbol.asyncDispose === "symbol") {
    OutputStream.prototype[Symbol.asyncDispose] = OutputStream.prototype.close;
  }

  // ------------------------------------------------------------ follow loop

  const STREAM_OPTIONS = ["follow", "gapPolicy", "livenessTimeoutMs"];
  const READ_OPTIONS = [...STREAM_OPTIONS, "retries", "backoffMs", "maxBackoffMs", "transcript", "onReconnect"];

  function sleep(client, ms) {
    if (ms <= 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const link = client.link();
      const timer = setTimeout(() => {
        client.unlink(link);
        resolve();
      }, ms);
      link.controller.signal.addEventListener("abort", () => {
        clearTimeout(timer);
        client.unlink(link);
        reject(closedError());
      });
    });
  }

  /**
   * The documented loop in one call: read from `cursor`, and on
   * StreamDisconnected reconnect from the consumed offsets — at once after a
   * connection that made progress, else after a doubling backoff, at most
   * `retries` times in a row without progress. Loss errors and error answers
   * end it as they are. Returns the transcript once `exit` was seen (or, for
   * a finite read, where the output ended).
   */
  async function readToEnd(client, plan, cursor, o) {
    const retries = count(o.retries, "retries", DEFAULT_RETRIES);
    if (!Number.isInteger(retries)) throw new RangeError(`retries must be an integer, got ${retries}`);
    const backoffMs = count(o.backoffMs, "backoffMs", DEFAULT_BACKOFF_MS);
    const maxBackoffMs = count(o.maxBackoffMs, "maxBackoffMs", DEFAULT_MAX_BACKOFF_MS);
    if (o.onReconnect !== undefined && typeof o.onReconnect !== "function") {
      throw new TypeError(`onReconnect must be a function, got ${describe(o.onReconnect)}`);
    }
    await client.ready();
    if (o.transcript !== undefined && !(o.transcript instanceof Transcript)) {
      throw new TypeError(`transcript must be a Transcript, got ${describe(o.transcript)}`);
    }
    const transcript = o.transcript ?? new Transcript();
    let failures = 0;
    for (;;) {
      client.check();
      const reader = new Reader(plan.endpoint, {
        cursor,
        gapPolicy: plan.gapPolicy,
        maxFrameBytes: client.maxFrameBytes,
        livenessTimeoutMs: plan.livenessTimeoutMs,
      });
      const link = client.link();
      const run = exchange(client, link, plan, cursor, reader, transcript);
      try {
        let end;
        for (;;) {
          const step = await run.next();
          if (step.done) {
            end = step.value;
            break;
          }
        }
        if (end.type !== "exited") {
          throw new Error(`dory-wire/client: ${plan.endpoint} was answered with a JSON document, not a stream`);
        }
        transcript.finish();
        return transcript;
      } catch (error) {
        if (!(error instanceof StreamDisconnected)) throw error;
        if (plan.finite && error.reason === "end_of_body" && error.cause === undefined) return transcript;
        const progress = error.cursor.stdout !== cursor.stdout || error.cursor.stderr !== cursor.stderr;
        cursor = error.cursor;
        failures = progress ? 0 : failures + 1;
        if (failures > retries) throw error;
        if (o.onReconnect !== undefined) o.onReconnect(error);
        if (failures > 0) {
          const ms = Math.min(maxBackoffMs, backoffMs * 2 ** (failures - 1));
          await sleep(client, ms / 2 + (Math.random() * ms) / 2);
        }
      } finally {
        await run.return(null);
        client.unlink(link);
        reader.free();
      }
    }
  }

  // ------------------------------------------------------------- resources

  const path = (...parts) => parts.map((p) => `/${encodeURIComponent(p)}`).join("");

  /**
   * What an output request needs: the endpoint, how to ask from a cursor,
   * whether the read is finite (follow=false), the gap policy, the liveness.
   */
  function outputPlan(client, computerId, procId, o) {
    const follow = o.follow !== false;
    return {
      endpoint: "process_output",
      finite: !follow,
      gapPolicy: o.gapPolicy ?? "fail",
      livenessTimeoutMs: count(o.livenessTimeoutMs, "livenessTimeoutMs", client.livenessTimeoutMs),
      request(cursor) {
        const query = `stdout_offset=${cursor.stdout}&stderr_offset=${cursor.stderr}&follow=${follow}`;
        return { method: "GET", path: `${path("computers", computerId, "processes", procId)}/output?${query}` };
      },
    };
  }

  function setupPlan(client, computerId, o) {
    const follow = o.follow !== false;
    return {
      endpoint: "setup_logs",
      finite: !follow,
      gapPolicy: o.gapPolicy ?? "fail",
      livenessTimeoutMs: count(o.livenessTimeoutMs, "livenessTimeoutMs", client.livenessTimeoutMs),
      request(cursor) {
        return { method: "GET", path: `${path("computers", computerId, "setup", "logs")}?offset=${cursor.stdout}&follow=${follow}` };
      },
    };
  }

  /** The options of an output read, checked: the start cursor and the rest. */
  function readArgs(value, allowed, what, setup) {
    const offsets = setup ? ["offset"] : ["stdout_offset", "stderr_offset"];
    const o = options(value, [...offsets, ...allowed], what);
    if (o.follow !== undefined && typeof o.follow !== "boolean") throw new TypeError(`follow must be a boolean, got ${describe(o.follow)}`);
    if (o.gapPolicy !== undefined && o.gapPolicy !== "fail" && o.gapPolicy !== "skip") {
      throw new RangeError(`gapPolicy must be "fail" or "skip", got ${JSON.stringify(o.gapPolicy)}`);
    }
    const cursor = setup
      ? { stdout: offset(o.offset, "offset"), stderr: 0 }
      : { stdout: offset(o.stdout_offset, "stdout_offset"), stderr: offset(o.stderr_offset, "stderr_offset") };
    return { o, cursor };
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

    /**
     * The retained output from per-stream byte offsets (default 0), frame by
     * frame: one connection, no reconnect.
     */
    iterOutput(outputOptions) {
      const { o, cursor } = readArgs(outputOptions, STREAM_OPTIONS, "iterOutput option", false);
      const plan = outputPlan(this.#client, this.#computer.id, this.proc_id, o);
      return new OutputStream(this.#client, plan, cursor, this.proc_id, plan.gapPolicy);
    }

    /** The whole output from the offsets, reconnecting as needed: a Transcript. */
    async readOutput(readOptions) {
      const { o, cursor } = readArgs(readOptions, READ_OPTIONS, "readOutput option", false);
      return readToEnd(this.#client, outputPlan(this.#client, this.#computer.id, this.proc_id, o), cursor, o);
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
      const o = options(startOptions, ["timeout_seconds", "idempotency_key"], "start option");
      const { body, headers } = startBody(command, o);
      return identityOf(await this.#client.identity("POST", path("computers", this.#computer.id, "processes"), body, headers));
    }

    /** A handle on a process (its identity is fetched: an unknown id is an ApiError 404). */
    async get(procId) {
      nonEmptyString(procId, "procId");
      const identity = await this.#client.identity("GET", path("computers", this.#computer.id, "processes", procId));
      return new Process(this.#client, this.#computer, identityOf(identity));
    }

    /** Kills a process's group; answers its identity. */
    async kill(procId) {
      nonEmptyString(procId, "procId");
      return identityOf(await this.#client.identity("POST", `${path("computers", this.#computer.id, "processes", procId)}/kill`));
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

    /** The setup log from `offset`, frame by frame; resume from the stream's `stdout_offset`. */
    iterLogs(logOptions) {
      const { o, cursor } = readArgs(logOptions, STREAM_OPTIONS, "iterLogs option", true);
      const plan = setupPlan(this.#client, this.#computer.id, o);
      return new OutputStream(this.#client, plan, cursor, null, plan.gapPolicy);
    }

    /** The whole setup log from `offset` (the transcript's stdout), reconnecting like `readOutput`. */
    async readLogs(logOptions) {
      const { o, cursor } = readArgs(logOptions, READ_OPTIONS, "readLogs option", true);
      return readToEnd(this.#client, setupPlan(this.#client, this.#computer.id, o), cursor, o);
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
      const o = options(execOptions, ["timeout_seconds", "idempotency_key"], "exec option");
      const { body, headers } = startBody(command, o);
      const event = await this.#client.document("POST", path("computers", this.id, "exec"), body, headers);
      return event.type === "identity" ? identityOf(event) : resultOf(event);
    }

    /**
     * Streaming exec: `started`, the output frames and `exit`. A keyed
     * replay (answered with a JSON identity) yields one `identity` frame and
     * ends: read the first run's output with `processes.get(proc_id)`.
     */
    execStream(command, execOptions) {
      const o = options(execOptions, ["timeout_seconds", "idempotency_key", "gapPolicy", "livenessTimeoutMs"], "execStream option");
      if (o.gapPolicy !== undefined && o.gapPolicy !== "fail" && o.gapPolicy !== "skip") {
        throw new RangeError(`gapPolicy must be "fail" or "skip", got ${JSON.stringify(o.gapPolicy)}`);
      }
      const { body, headers } = startBody(command, o);
      const plan = {
        endpoint: "exec",
        finite: false,
        gapPolicy: o.gapPolicy ?? "fail",
        livenessTimeoutMs: count(o.livenessTimeoutMs, "livenessTimeoutMs", this.#client.livenessTimeoutMs),
        request: () => ({ method: "POST", path: path("computers", this.id, "exec"), body, headers: { "content-type": JSON_TYPE, ...headers } }),
      };
      return new OutputStream(this.#client, plan, { stdout: 0, stderr: 0 }, null, plan.gapPolicy);
    }
  }

  /** The computers of the service. */
  class Computers {
    #client;

    /** @internal */
    constructor(client) {
      this.#client = client;
    }

    /** A computer by id (no request: errors come with the first call). */
    async get(id) {
      this.#client.check();
      return new Computer(this.#client, nonEmptyString(id, "computer id"));
    }
  }

  // ---------------------------------------------------------------- client

  function environment(name) {
    const env = typeof process !== "undefined" && process !== null ? process.env : undefined;
    const value = env ? env[name] : undefined;
    return typeof value === "string" && value !== "" ? value : undefined;
  }

  /**
   * The connection to one Dory service: a base URL and a `fetch`. Close it
   * when done (`close()` aborts whatever is still in flight).
   */
  class Client {
    #transport;

    /**
     * @param {object} [clientOptions] `{baseUrl, fetch, headers, livenessTimeoutMs, maxFrameBytes}`;
     *   `baseUrl` defaults to the DORY_URL environment variable (Node).
     */
    constructor(clientOptions) {
      const o = options(clientOptions, ["baseUrl", "fetch", "headers", "livenessTimeoutMs", "maxFrameBytes"], "Client option");
      const baseUrl = o.baseUrl ?? environment("DORY_URL");
      if (baseUrl === undefined) throw new TypeError("no base URL: pass new Client({ baseUrl }) or set DORY_URL");
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
      const fetchImpl = o.fetch ?? (typeof fetch === "function" ? fetch : undefined);
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
      this.#transport = new Transport(baseUrl.replace(/\/+$/, ""), fetchImpl, headers, o);
      /** The computers of the service. */
      this.computers = new Computers(this.#transport);
    }

    /** The base URL requests go to. */
    get baseUrl() {
      return this.#transport.baseUrl;
    }

    /** Aborts every request and stream in flight; later calls reject. Idempotent. */
    close() {
      this.#transport.close();
    }
  }
  if (typeof Symbol.dispose === "symbol") {
    Client.prototype[Symbol.dispose] = Client.prototype.close;
  }

  /** What every resource shares: the URL, fetch, headers, limits and the open connections. */
  class Transport {
    constructor(baseUrl, fetchImpl, headers, o) {
      this.baseUrl = baseUrl;
      this.fetchImpl = fetchImpl;
      this.headers = headers;
      this.livenessTimeoutMs = count(o.livenessTimeoutMs, "livenessTimeoutMs", core.DEFAULT_LIVENESS_TIMEOUT_MS);
      this.maxFrameBytes = o.maxFrameBytes ?? core.DEFAULT_MAX_FRAME_BYTES;
      if (!Number.isInteger(this.maxFrameBytes) || this.maxFrameBytes < 1 || this.maxFrameBytes > core.MAX_FRAME_BYTES_LIMIT) {
        throw new RangeError(`maxFrameBytes must be an integer from 1 to ${core.MAX_FRAME_BYTES_LIMIT}, got ${String(this.maxFrameBytes)}`);
      }
      this.closed = false;
      this.links = new Set();
    }

    url(path) {
      return this.baseUrl + path;
    }

    async ready() {
      this.check();
      await core.init();
      this.check();
    }

    check() {
      if (this.closed) throw closedError();
    }

    /** A cancellable slot for one request; `close()` aborts them all. */
    link() {
      this.check();
      const link = { controller: new AbortController(), closed: false };
      this.links.add(link);
      return link;
    }

    unlink(link) {
      this.links.delete(link);
    }

    close() {
      if (this.closed) return;
      this.closed = true;
      for (const link of this.links) link.controller.abort();
      this.links.clear();
    }

    /**
     * A JSON request whose answer is one document, decoded by a `document`
     * reader: returns its event; error answers throw the core's errors.
     */
    async document(method, path, body, headers) {
      await this.ready();
      const link = this.link();
      const reader = new Reader("document", { maxFrameBytes: this.maxFrameBytes });
      try {
        let response;
        try {
          response = await this.fetchImpl(this.url(path), {
            method,
            headers: { ...this.headers, accept: JSON_TYPE, ...(body === undefined ? {} : { "content-type": JSON_TYPE }), ...headers },
            body,
            signal: link.controller.signal,
          });
        } catch (error) {
          if (this.closed) throw closedError();
          throw error;
        }
        reader.open(response.status, response.headers.get("content-type"), response.headers.get("ce-process-id"));
        const events = [];
        if (response.body !== null && response.body !== undefined) {
          const chunks = response.body.getReader();
          for (;;) {
            let step;
            try {
              step = await chunks.read();
            } catch (error) {
              if (this.closed) throw closedError();
              throw error;
            }
            if (step.done) break;
            events.push(...reader.feed(step.value));
          }
        }
        const [last] = reader.finish();
        events.push(...last);
        const event = events.find((e) => e.type === "identity" || e.type === "exec_result");
        if (event === undefined) throw new Error(`dory-wire/client: ${method} ${path} answered no document`);
        return event;
      } finally {
        this.unlink(link);
        link.controller.abort();
        reader.free();
      }
    }

    async identity(method, path, body, headers) {
      const event = await this.document(method, path, body, headers);
      if (event.type !== "identity") {
        throw new Error(`dory-wire/client: ${method} ${path} answered ${event.type}, not a process identity`);
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
