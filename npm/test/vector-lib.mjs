// Shared vector logic (tests/vectors, format in docs/VECTORS.md), free of any
// Node import so the browser test runs the very same code in Chromium.
//
// The vectors keep their own, language-neutral shape (`{"type":"stdout", …}`,
// `skipped` with `from`/`to`, `result`); this runner maps the package's
// events (`{type: "output", stream, …}`, `skipped` with `start`/`end`,
// `exec_result`) onto it.

/** Standard base64 of bytes. */
export function toB64(bytes) {
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    s += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  }
  return btoa(s);
}

/** Bytes of standard base64. */
export function fromB64(b64) {
  const s = atob(b64);
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

/** The body bytes of a decode vector. */
export function vectorBody(v) {
  return v.body_b64 !== undefined ? fromB64(v.body_b64) : new TextEncoder().encode(v.body ?? "");
}

// ----------------------------------------------------------- token limits

/**
 * The tokenizer `max_tokens` alone means (docs/VECTORS.md: the core's
 * DEFAULT_TOKENIZER, tests/api/surface.json's default of `tokenizer`). Only
 * the runner knows it, to tell which vectors this build can play: the
 * package passes what it is given and the core applies the default.
 */
export const DEFAULT_TOKENIZER = "o200k_base";

/** A vector's (or a run's) token limit as the bounders' options: `{maxTokens, tokenizer}`, each only when present. */
export function tokenOptions(v) {
  const o = {};
  if (v.max_tokens !== undefined && v.max_tokens !== null) o.maxTokens = Number(v.max_tokens);
  if (v.tokenizer !== undefined && v.tokenizer !== null) o.tokenizer = v.tokenizer;
  return o;
}

/** The tokenizer that counts `v`'s previews (null: no token limit). */
export function vectorTokenizer(v) {
  const o = tokenOptions(v);
  if (o.maxTokens === undefined && o.tokenizer === undefined) return null;
  return o.tokenizer ?? DEFAULT_TOKENIZER;
}

/** Whether `v` names a tokenizer (or, by `max_tokens` alone, the default) that this build lacks. */
export function lacksTokenizer(api, v) {
  const name = vectorTokenizer(v);
  return name !== null && !api.TOKENIZERS.includes(name);
}

/**
 * The problems of a build that lacks the vector's tokenizer: each call of
 * `calls` (`[what, () => …]`) must throw the core's refusal, a
 * DoryWireError `invalid_argument` with argument `tokenizer`.
 */
export function tokenizerRefusals(api, calls) {
  const problems = [];
  for (const [what, call] of calls) {
    let thrown;
    try {
      call();
    } catch (e) {
      thrown = e;
    }
    if (!(thrown instanceof api.DoryWireError) || thrown.code !== "invalid_argument" || thrown.argument !== "tokenizer") {
      problems.push(`${what}: a tokenizer this build lacks must be refused with invalid_argument (argument tokenizer), got ${thrown === undefined ? "no error" : `${thrown.code ?? ""} ${thrown.argument ?? ""} ${thrown}`}`);
    }
  }
  return problems;
}

/**
 * The token problems of a preview of `v` (docs/VECTORS.md): without a token
 * limit `tokens` is null; with one, it is the count of `text` by the same
 * tokenizer (`countTokens`) and at most `max_tokens`.
 */
export function tokenProblems(api, v, p, where) {
  const name = vectorTokenizer(v);
  if (name === null) return p.tokens === null ? [] : [`${where}: tokens ${p.tokens} without a token limit`];
  const problems = [];
  const counted = api.countTokens(p.text, name);
  if (p.tokens !== counted) problems.push(`${where}: tokens ${p.tokens}, but countTokens(text, ${JSON.stringify(name)}) is ${counted}`);
  const max = tokenOptions(v).maxTokens;
  if (max !== undefined && !(p.tokens <= max)) problems.push(`${where}: tokens ${p.tokens} > maxTokens ${max}`);
  return problems;
}

/** The input bytes of a preview vector. */
export function vectorInput(v) {
  return v.input_b64 !== undefined ? fromB64(v.input_b64) : new TextEncoder().encode(v.input ?? "");
}

/** A JS event in the vectors' shape (snake_case keys, base64 data). */
/** `apiCode` → `api_code`: a field under its vector (core) name. */
const snake = (name) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** An event or end object with its keys in snake_case, as the vectors write them. */
const snakeKeys = (o) => Object.fromEntries(Object.entries(o).map(([k, v]) => [snake(k), v]));

export function eventToVector(e) {
  switch (e.type) {
    case "output":
      return { type: e.stream, data_b64: toB64(e.data), start: e.start, end: e.end };
    case "started":
      return { type: "started", proc_id: e.procId };
    case "skipped":
      return { type: "skipped", stream: e.stream, from: e.start, to: e.end };
    case "heartbeat":
      return { type: "heartbeat" };
    case "exit":
    case "unknown":
    case "identity":
      // Named as the core's record table names them (camelCase → snake_case).
      return snakeKeys(e);
    case "exec_result":
      return {
        type: "result",
        proc_id: e.procId,
        stdout_b64: toB64(e.stdout),
        stderr_b64: toB64(e.stderr),
        stdout_truncated: e.stdoutTruncated,
        stderr_truncated: e.stderrTruncated,
        exit_code: e.exitCode,
        timed_out: e.timedOut,
      };
    default:
      throw new Error(`unknown event type ${e.type}`);
  }
}


/** An End (or a thrown error) in the vectors' shape. */
export function endToVector(api, end) {
  if (end instanceof Error) {
    if (!(end instanceof api.DoryWireError)) throw end;
    const out = { type: "error", code: end.code };
    const row = api.ERROR_CODES.find((r) => r.code === end.code);
    for (const field of row ? row.fields : []) {
      const value = end[field];
      const key = snake(field);
      // An exact value a Number cannot hold (integer_out_of_range) compares as text.
      // The argument JavaScript names (procId) under the core's name the vectors use.
      if (value !== undefined) out[key] = typeof value === "bigint" ? value.toString() : key === "argument" ? snake(value) : value;
    }
    return out;
  }
  switch (end.type) {
    case "exited":
      return snakeKeys(end);
    case "disconnected":
      return { type: "disconnected", reason: end.reason, cursor: end.cursor };
    default:
      return { type: end.type };
  }
}

/** Splits bytes at the given (sorted) cut points. */
export function splitAt(bytes, cuts) {
  const out = [];
  let at = 0;
  for (const c of cuts) {
    out.push(bytes.subarray(at, c));
    at = c;
  }
  out.push(bytes.subarray(at));
  return out;
}

/**
 * SplitMix64 with the draws of the Rust tests' generator (crates/dory-testkit,
 * `Rng`): the same seed gives the same numbers here. The one copy the
 * JavaScript tests use.
 */
export class SplitMix64 {
  constructor(seed) {
    this.state = BigInt.asUintN(64, BigInt(seed));
  }

  /** The next 64 random bits, as a BigInt. */
  nextU64() {
    this.state = BigInt.asUintN(64, this.state + 0x9e3779b97f4a7c15n);
    let z = this.state;
    z = BigInt.asUintN(64, (z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n);
    z = BigInt.asUintN(64, (z ^ (z >> 27n)) * 0x94d049bb133111ebn);
    return z ^ (z >> 31n);
  }

  /** A number in `0..n`, or 0 when `n` is 0: the high half of `nextU64() * n`, as in Rust. */
  below(n) {
    return Number((this.nextU64() * BigInt(n)) >> 64n);
  }

  /** A number in `lo..=hi` (`lo` when `hi < lo`). */
  range(lo, hi) {
    return lo + this.below(Math.max(0, hi - lo) + 1);
  }

  /** Up to `max` sorted cut points in `0..=len` (duplicates make empty pieces). */
  cuts(len, max) {
    const n = this.below(max + 1);
    const cuts = [];
    for (let i = 0; i < n; i++) cuts.push(this.below(len + 1));
    return cuts.sort((x, y) => x - y);
  }
}

export function hashString(s) {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}

/** Seeded random cut points (up to 12 of them) inside `len`. */
export function randomCuts(len, seed) {
  return new SplitMix64(seed).cuts(len, 12);
}

/** The named chunkings of a body: whole, byte by byte (when small enough) and seeded random. */
export function chunkings(name, body, { byteLimit = 1 << 20, seeds = 5 } = {}) {
  const out = [["whole", [body]]];
  if (body.length <= byteLimit) {
    const bytes = [];
    for (let i = 0; i < body.length; i++) bytes.push(body.subarray(i, i + 1));
    out.push(["byte-by-byte", bytes]);
  }
  for (let s = 0; s < seeds; s++) {
    const seed = (hashString(name) + s * 7919) >>> 0;
    out.push([`random-${seed}`, splitAt(body, randomCuts(body.length, seed))]);
  }
  return out;
}

function equal(a, b) {
  return JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b));
}

function sortKeys(x) {
  if (Array.isArray(x)) return x.map(sortKeys);
  if (x !== null && typeof x === "object") {
    const out = {};
    for (const k of Object.keys(x).sort()) out[k] = sortKeys(x[k]);
    return out;
  }
  return x;
}

/** Compares a decode result with a vector's expectation; returns a list of differences. */
export function compareDecode(v, got) {
  const problems = [];
  const exp = v.expect;
  if (exp.events !== undefined && !equal(exp.events, got.events)) {
    problems.push(`events: expected ${JSON.stringify(exp.events)}, got ${JSON.stringify(got.events)}`);
  }
  if (exp.end !== undefined) {
    for (const key of Object.keys(exp.end)) {
      if (!equal(exp.end[key], got.end[key])) {
        problems.push(`end.${key}: expected ${JSON.stringify(exp.end[key])}, got ${JSON.stringify(got.end[key])} (end ${JSON.stringify(got.end)})`);
      }
    }
  }
  if (exp.cursor !== undefined && !equal(exp.cursor, got.cursor)) {
    problems.push(`cursor: expected ${JSON.stringify(exp.cursor)}, got ${JSON.stringify(got.cursor)}`);
  }
  return problems;
}

/**
 * JSON.parse that keeps integers beyond Number.MAX_SAFE_INTEGER exact, as
 * BigInt (some vectors hold offsets near 2^64 − 1). Strings are decoded by
 * JSON.parse itself, so escapes behave exactly as usual.
 */
export function parseJsonExact(text) {
  let i = 0;
  const ws = () => {
    while (i < text.length && " \t\n\r".includes(text[i])) i++;
  };
  const value = () => {
    ws();
    const c = text[i];
    if (c === "{") {
      i++;
      const obj = {};
      ws();
      if (text[i] === "}") {
        i++;
        return obj;
      }
      for (;;) {
        ws();
        const key = string();
        ws();
        if (text[i++] !== ":") throw new SyntaxError(`expected : at ${i}`);
        obj[key] = value();
        ws();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i++] !== "}") throw new SyntaxError(`expected } at ${i}`);
        return obj;
      }
    }
    if (c === "[") {
      i++;
      const arr = [];
      ws();
      if (text[i] === "]") {
        i++;
        return arr;
      }
      for (;;) {
        arr.push(value());
        ws();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i++] !== "]") throw new SyntaxError(`expected ] at ${i}`);
        return arr;
      }
    }
    if (c === '"') return string();
    const m = /^(?:true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(text.slice(i, i + 400));
    if (!m) throw new SyntaxError(`unexpected ${JSON.stringify(c)} at ${i}`);
    i += m[0].length;
    const lit = m[0];
    if (/^-?\d+$/.test(lit)) {
      const n = Number(lit);
      return Number.isSafeInteger(n) ? n : BigInt(lit);
    }
    return JSON.parse(lit);
  };
  const string = () => {
    if (text[i] !== '"') throw new SyntaxError(`expected string at ${i}`);
    let j = i + 1;
    while (text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
    const s = JSON.parse(text.slice(i, j + 1));
    i = j + 1;
    return s;
  };
  const out = value();
  ws();
  if (i !== text.length) throw new SyntaxError(`trailing data at ${i}`);
  return out;
}

/** True when a value holds a BigInt anywhere (an integer a Number cannot hold). */
export function hasBigInt(x) {
  if (typeof x === "bigint") return true;
  if (Array.isArray(x)) return x.some(hasBigInt);
  if (x !== null && typeof x === "object") return Object.values(x).some(hasBigInt);
  return false;
}

/**
 * What the JS API must give for a vector. Offsets are Numbers in JS, and one
 * above Number.MAX_SAFE_INTEGER is an error, never rounded: a cursor option
 * beyond it is a RangeError; decoding stops with `integer_out_of_range` at the
 * first event (or the end) that holds one, keeping the events before it.
 * Returns `{rangeError: true}` or an expectation in vector shape.
 */
export function jsExpectation(v) {
  if (v.cursor && hasBigInt(v.cursor)) return { rangeError: true };
  const exp = v.expect;
  const events = exp.events ?? [];
  const first = events.findIndex(hasBigInt);
  if (first >= 0) {
    return { events: events.slice(0, first), end: { type: "error", code: "integer_out_of_range" } };
  }
  if (exp.end && hasBigInt(exp.end)) {
    return { events, end: { type: "error", code: "integer_out_of_range" } };
  }
  if (exp.cursor && hasBigInt(exp.cursor)) {
    // The events and end are exact; only the cursor cannot be a Number.
    return { events, end: exp.end, cursor: "integer_out_of_range" };
  }
  return exp;
}

/**
 * The reader a decode vector asks for (its cursor, gap policy, frame limit
 * and strictness), or null when JS refuses the options with a RangeError (an
 * offset above Number.MAX_SAFE_INTEGER).
 */
function vectorReader(api, v) {
  const options = {};
  if (v.cursor) options.cursor = v.cursor;
  if (v.gap_policy) options.gapPolicy = v.gap_policy;
  if (v.max_frame_bytes !== undefined) options.maxFrameBytes = v.max_frame_bytes;
  if (v.strict) options.strict = true;
  try {
    return new api.Reader(v.endpoint, options);
  } catch (err) {
    if (err instanceof RangeError) return null;
    throw err;
  }
}

/** `decode`, but the cursor read is allowed to fail with a code. */
export function decodeJs(api, v, chunks) {
  const reader = vectorReader(api, v);
  if (reader === null) return { rangeError: true };
  const events = [];
  let end;
  try {
    reader.open(v.status, v.content_type ?? "", v.process_id_header ?? undefined);
    for (const chunk of chunks) {
      for (const e of reader.feed(chunk)) events.push(eventToVector(e));
    }
    const [last, fin] = reader.finish();
    for (const e of last) events.push(eventToVector(e));
    end = endToVector(api, fin);
  } catch (err) {
    end = endToVector(api, err);
  }
  let cursor;
  try {
    cursor = reader.cursor;
  } catch (err) {
    if (!(err instanceof api.DoryWireError)) throw err;
    cursor = err.code;
  }
  reader.free();
  return { events, end, cursor };
}

/** Compares a JS decode result with `jsExpectation(v)`; returns the differences. */
export function compareJs(v, got) {
  const exp = jsExpectation(v);
  if (exp.rangeError || got.rangeError) {
    return exp.rangeError && got.rangeError ? [] : [`expected rangeError=${!!exp.rangeError}, got ${JSON.stringify(got)}`];
  }
  return compareDecode({ expect: exp }, got);
}

/**
 * `decodeJs` through `feedInto` and a Transcript: the events other than
 * output (in vector shape), the transcript's bytes and skipped ranges per
 * stream, the end and the cursor.
 */
export function decodeIntoJs(api, v, chunks) {
  const reader = vectorReader(api, v);
  if (reader === null) return { rangeError: true };
  const transcript = new api.Transcript();
  const events = [];
  let end;
  try {
    reader.open(v.status, v.content_type ?? "", v.process_id_header ?? undefined);
    for (const chunk of chunks) {
      for (const e of reader.feedInto(chunk, transcript)) events.push(eventToVector(e));
    }
    const [last, fin] = reader.finish();
    for (const e of last) {
      transcript.push(e);
      events.push(eventToVector(e));
    }
    end = endToVector(api, fin);
  } catch (err) {
    end = endToVector(api, err);
  }
  let cursor;
  try {
    cursor = reader.cursor;
  } catch (err) {
    if (!(err instanceof api.DoryWireError)) throw err;
    cursor = err.code;
  }
  const streams = {};
  for (const stream of ["stdout", "stderr"]) {
    streams[stream] = { b64: toB64(transcript.bytes(stream)), skipped: transcript.skipped(stream) };
  }
  reader.free();
  transcript.free();
  return { events, end, cursor, streams };
}

/** What `decodeIntoJs` must give, derived from a `decodeJs` result. */
export function intoFromEvents(got) {
  if (got.rangeError) return got;
  const events = [];
  const parts = { stdout: [], stderr: [] };
  const skipped = { stdout: [], stderr: [] };
  for (const e of got.events) {
    if (e.type === "stdout" || e.type === "stderr") {
      parts[e.type].push(fromB64(e.data_b64));
      continue;
    }
    if (e.type === "skipped") skipped[e.stream].push([e.from, e.to]);
    events.push(e);
  }
  const streams = {};
  for (const stream of ["stdout", "stderr"]) {
    const all = new Uint8Array(parts[stream].reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts[stream]) {
      all.set(p, at);
      at += p.length;
    }
    streams[stream] = { b64: toB64(all), skipped: skipped[stream] };
  }
  return { events, end: got.end, cursor: got.cursor, streams };
}

// ------------------------------------------------------------ conversations

/** A vector's option names (the core's, snake_case) and the Follower's (JS case). */
const FOLLOW_OPTION_NAMES = {
  follow: "follow",
  gap_policy: "gapPolicy",
  retries: "retries",
  backoff_ms: "backoffMs",
  max_backoff_ms: "maxBackoffMs",
  jitter: "jitter",
  liveness_timeout_ms: "livenessTimeoutMs",
  max_frame_bytes: "maxFrameBytes",
  strict: "strict",
};

/** The Follower a conversation vector's `read` and `options` ask for. */
export function conversationFollower(api, v) {
  const options = {};
  for (const [key, value] of Object.entries(v.options ?? {})) {
    const name = FOLLOW_OPTION_NAMES[key];
    if (name === undefined) throw new Error(`${v.name}: unknown option ${key}`);
    options[name] = value;
  }
  const read = v.read;
  switch (read.type) {
    case "process_output":
      return api.Follower.processOutput(read.computer_id, read.proc_id, { ...options, cursor: read.cursor });
    case "resume":
      // The state as the language-neutral JSON (as Rust and Python write it).
      return api.Follower.resume(read.computer_id, JSON.stringify(read.state), options);
    case "setup_logs":
      return api.Follower.setupLogs(read.computer_id, { ...options, offset: read.offset });
    // The one-answer calls (PROTOCOL.md, "One-answer calls").
    case "start":
    case "exec": {
      const build = read.type === "start" ? api.Request.start : api.Request.exec;
      const timeoutMs = read.timeout_seconds === undefined ? undefined : Number(read.timeout_seconds) * 1000;
      const request = build(read.computer_id, read.command, { timeoutMs, idempotencyKey: read.idempotency_key });
      return api.Follower.call(request, options);
    }
    case "get_process":
      return api.Follower.call(api.Request.getProcess(read.computer_id, read.proc_id), options);
    case "kill":
      return api.Follower.call(api.Request.kill(read.computer_id, read.proc_id), options);
    case "exec_stream":
      return api.Follower.execStream(read.computer_id, read.command, {
        ...options,
        timeoutMs: read.timeout_seconds === undefined ? undefined : Number(read.timeout_seconds) * 1000,
        idempotencyKey: read.idempotency_key,
      });
    default:
      throw new Error(`${v.name}: unknown read type ${read.type}`);
  }
}

/** A request in the vectors' shape: method, target, headers, body (parsed JSON, or null). */
export function requestToVector(r) {
  return {
    method: r.method,
    target: r.target,
    headers: { ...r.headers },
    body: r.body === null ? null : JSON.parse(new TextDecoder().decode(r.body)),
  };
}

/** A decision (or a thrown error) in the vectors' shape. */
export function decisionToVector(api, d) {
  if (d instanceof Error) return endToVector(api, d);
  switch (d.type) {
    case "done":
      return { type: "done", exited: d.exited, exit_code: d.exitCode, timed_out: d.timedOut, cursor: d.cursor, proc_id: d.procId };
    case "reconnect":
      return {
        type: "reconnect",
        attempt: d.attempt,
        failures: d.failures,
        reason: d.reason,
        cursor: d.cursor,
        delay_ms: d.delayMs,
        proc_id: d.procId,
        detail: d.detail,
      };
    case "continue":
      return { type: "continue" };
    default:
      throw new Error(`unknown decision ${JSON.stringify(d)}`);
  }
}

/** The body bytes of a scripted response. */
function responseBody(response) {
  return response.body_b64 !== undefined ? fromB64(response.body_b64) : new TextEncoder().encode(response.body ?? "");
}

/**
 * A `stall` (docs/VECTORS.md): the wait for the service runs out. The
 * follower offers a whole liveness timeout (`waitLimitMs`), a wait of nothing
 * is not over, and a wait of the whole timeout is. Returns the problems.
 */
function stallWait(follower, liveness, what) {
  const problems = [];
  const limit = follower.waitLimitMs();
  if (limit !== liveness) problems.push(`${what}: waitLimitMs ${limit}, expected ${liveness}`);
  if (follower.waitedMs(0) !== false) problems.push(`${what}: over at once`);
  if (follower.waitedMs(liveness) !== true) problems.push(`${what}: not over at the liveness timeout`);
  return problems;
}

/**
 * Plays a conversation vector (docs/VECTORS.md, kind "conversation") through
 * a Follower: asks for each request, plays each scripted response — its body
 * cut where `split(len)` says (sorted cut points) — and records the
 * requests, the decisions, every event delivered, and the follower's final
 * cursor and process. With `transcript`, bodies are fed with `feedInto` and
 * the output bytes land there instead of in `events`. Steps the vector
 * scripts that do not hold (a clock that does not stall when it should) are
 * listed in `problems`.
 */
export function playConversation(api, v, split, transcript) {
  const run = { requests: [], decisions: [], events: [], cursor: null, procId: null, problems: [] };
  let follower;
  try {
    follower = conversationFollower(api, v);
  } catch (err) {
    if (!(err instanceof api.DoryWireError)) throw err;
    run.decisions.push(endToVector(api, err));
    return run;
  }
  const liveness = follower.options.livenessTimeoutMs;
  const take = (events) => {
    for (const e of events) run.events.push(eventToVector(e));
  };
  try {
    for (const [i, exchange] of v.exchanges.entries()) {
      let decision;
      try {
        run.requests.push(requestToVector(follower.request()));
        const response = exchange.response;
        const jitter = exchange.jitter ?? 0;
        const stall = response.stall === true;
        if (response.not_connected !== undefined) {
          decision = follower.notConnected(response.not_connected, jitter);
        } else if (response.no_response !== undefined || (stall && response.status === undefined)) {
          if (stall) run.problems.push(...stallWait(follower, liveness, `exchange ${i}: the headers wait`));
          decision = follower.noResponse(response.no_response ?? "", jitter);
        } else {
          follower.open(response.status, response.content_type ?? "", response.proc_id, response.retry_after);
          const body = responseBody(response);
          for (const chunk of splitAt(body, split(body.length))) {
            take(transcript ? follower.feedInto(chunk, transcript) : follower.feed(chunk));
          }
          if (stall) run.problems.push(...stallWait(follower, liveness, `exchange ${i}: the body's wait`));
          const [events, d] = follower.finish(response.broken, jitter);
          if (transcript) for (const e of events) transcript.push(e);
          take(events);
          decision = d;
        }
      } catch (err) {
        if (!(err instanceof api.DoryWireError)) throw err;
        // Events completed by `finish` before its error are delivered too.
        if (err.events) {
          if (transcript) for (const e of err.events) transcript.push(e);
          take(err.events);
        }
        decision = err;
      }
      run.decisions.push(decisionToVector(api, decision));
      if (decision instanceof Error) break; // errors are sticky: the conversation is over
    }
    run.cursor = follower.cursor;
    run.procId = follower.procId;
  } finally {
    follower.free();
  }
  return run;
}

/** Whether `actual` holds every key of `expected` with an equal value (objects recursively). */
function subsetMatches(expected, actual) {
  if (expected !== null && typeof expected === "object" && !Array.isArray(expected)) {
    if (actual === null || typeof actual !== "object" || Array.isArray(actual)) return false;
    return Object.keys(expected).every((k) => k in actual && subsetMatches(expected[k], actual[k]));
  }
  return equal(expected, actual);
}

function concatBytes(parts) {
  const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    all.set(p, at);
    at += p.length;
  }
  return all;
}

/** The output bytes of `stream` in a run's events. */
export function runBytes(run, stream) {
  return concatBytes(run.events.filter((e) => e.type === stream).map((e) => fromB64(e.data_b64)));
}

/** Compares a conversation run with its vector; returns the differences. */
export function checkConversation(v, run) {
  const problems = [...run.problems];
  const show = (x) => JSON.stringify(x);
  if (run.decisions.length !== v.exchanges.length) {
    problems.push(`${v.exchanges.length} exchanges scripted, the conversation had ${run.decisions.length}: ${show(run.decisions)}`);
  }
  v.exchanges.forEach((exchange, i) => {
    const got = run.requests[i];
    if (exchange.request !== undefined && got !== undefined) {
      const expected = { body: null, ...exchange.request };
      if (!equal(expected, got)) problems.push(`request ${i}\n    expected ${show(expected)}\n    got      ${show(got)}`);
    }
    const decided = run.decisions[i];
    if (exchange.decision !== undefined && decided !== undefined) {
      const { delay_ms: expectedDelay, ...e } = exchange.decision;
      const { delay_ms: gotDelay, ...g } = decided;
      const delayOk = expectedDelay === undefined || (gotDelay !== undefined && Math.abs(Number(expectedDelay) - gotDelay) < 1e-3);
      if (!subsetMatches(e, g) || !delayOk) {
        problems.push(`decision ${i}\n    expected ${show(exchange.decision)}\n    got      ${show(decided)}`);
      }
    }
  });
  const last = v.exchanges[v.exchanges.length - 1]?.decision?.type;
  if (last !== "done" && last !== "error") problems.push(`the last decision must be done or error, not ${last}`);
  const exp = v.expect ?? {};
  for (const stream of ["stdout", "stderr"]) {
    let expected;
    if (typeof exp[stream] === "string") expected = new TextEncoder().encode(exp[stream]);
    else if (typeof exp[`${stream}_b64`] === "string") expected = fromB64(exp[`${stream}_b64`]);
    if (expected === undefined) continue;
    const got = runBytes(run, stream);
    if (toB64(got) !== toB64(expected)) {
      const text = (b) => new TextDecoder().decode(b);
      problems.push(`${stream}\n    expected ${show(text(expected))}\n    got      ${show(text(got))}`);
    }
  }
  const skipped = run.events.filter((e) => e.type === "skipped");
  const expectedSkipped = exp.skipped ?? [];
  if (!equal(expectedSkipped, skipped)) problems.push(`skipped\n    expected ${show(expectedSkipped)}\n    got      ${show(skipped)}`);
  if (exp.exit !== undefined) {
    const exit = run.events.find((e) => e.type === "exit");
    const got = exit === undefined ? null : { exit_code: exit.exit_code, timed_out: exit.timed_out };
    if (!equal(exp.exit, got)) problems.push(`exit\n    expected ${show(exp.exit)}\n    got      ${show(got)}`);
  }
  if (exp.cursor !== undefined && !equal(exp.cursor, run.cursor)) {
    problems.push(`cursor\n    expected ${show(exp.cursor)}\n    got      ${show(run.cursor)}`);
  }
  if (exp.proc_id !== undefined && !equal(exp.proc_id, run.procId)) {
    problems.push(`proc_id\n    expected ${show(exp.proc_id)}\n    got      ${show(run.procId)}`);
  }
  if (exp.events !== undefined) {
    const events = run.events.filter((e) => e.type !== "stdout" && e.type !== "stderr");
    if (!equal(exp.events, events)) problems.push(`events\n    expected ${show(exp.events)}\n    got      ${show(events)}`);
  }
  return problems;
}

/**
 * The splits every conversation is played at, each a fresh `split(len)`:
 * whole, byte by byte, and `seeds` seeded random rounds (up to 5 cuts per
 * body, drawn in order across the conversation's bodies).
 */
export function conversationSplits(name, { seeds = 6 } = {}) {
  const out = [
    ["whole", () => () => []],
    [
      "byte-by-byte",
      () => (len) => {
        const cuts = [];
        for (let i = 1; i < len; i++) cuts.push(i);
        return cuts;
      },
    ],
  ];
  for (let s = 0; s < seeds; s++) {
    const seed = (hashString(name) + s * 7919) >>> 0;
    out.push([
      `random-${seed}`,
      () => {
        const rng = new SplitMix64(seed);
        return (len) => rng.cuts(len, 5);
      },
    ]);
  }
  return out;
}

// --------------------------------------------------------------------- run

const RUN_VIEWS = ["stdout", "stderr", "combined"];

/** The items of a run vector: `{output: stream, data}` and `{lost: stream, from, to}`, in order. */
export function runItems(v) {
  return v.input.map((item) => {
    if (item.lost !== undefined) return { lost: item.lost, from: Number(item.from), to: Number(item.to) };
    const [key, value] = Object.entries(item)[0];
    const b64 = key.endsWith("_b64");
    return { output: b64 ? key.slice(0, -4) : key, data: b64 ? fromB64(value) : new TextEncoder().encode(value) };
  });
}

/** The error a vector's failing spill writer throws (the same for the run and for bound()). */
const RUN_WRITER_ERROR = new Error("disk full (vector writer)");

/** Renders one view of a pending run for the vector's spill spec of it. */
function renderRunView(pending, view, spill, hint) {
  if (spill === undefined || spill === null) return pending.render(view, { hint });
  if (spill.fails) return pending.renderWriter(view, { threw: RUN_WRITER_ERROR, hint });
  return pending.render(view, { spillPath: spill.path, hint });
}

/** A vector's options `keep`, `terminal` (absent: off) and its token limit (`max_tokens`, `tokenizer`; absent: none). */
export function runOptions(v) {
  const o = tokenOptions(v);
  if (v.keep !== undefined) o.keep = v.keep;
  if (v.terminal !== undefined) o.terminal = v.terminal;
  return o;
}

/** A run vector's items through a RunBounder: each view as the vectors write it (plus its Preview), or `{error: code}`. */
export function playRun(api, v, items) {
  let run;
  try {
    run = new api.RunBounder({ maxLines: v.max_lines, maxBytes: v.max_bytes, spillId: v.spill_id, ...runOptions(v) });
  } catch (e) {
    // A refused keep pattern (docs/VECTORS.md), when the bounder is built.
    if (!(e instanceof api.DoryWireError)) throw e;
    return { error: e.code };
  }
  for (const item of items) {
    if (item.lost !== undefined) run.lose(item.lost, item.from, item.to);
    else run.push(item.output, item.data);
  }
  let pending;
  try {
    pending = run.finish();
  } catch (e) {
    if (!(e instanceof api.DoryWireError)) throw e;
    return { error: e.code };
  }
  try {
    const out = {};
    for (const view of RUN_VIEWS) {
      const p = renderRunView(pending, view, v.spill?.[view], v.hint ?? undefined);
      const lost = pending.lost(view);
      out[view] = {
        preview: p.text,
        truncated: p.truncated,
        total_bytes: pending.totalBytes(view),
        lost_bytes: lost.bytes,
        lost_ranges: lost.ranges,
        needs_spill: pending.needsSpill(view),
        spill_id: pending.spillId(view),
        spill_path: p.spillPath,
        spill_error: p.spillError !== null,
        tokens: p.tokens,
        whole: p,
      };
    }
    return out;
  } finally {
    pending.free();
  }
}

/** The same items with every output split at seeded points (the Rust runner's `resplit`): byte by byte, or 1 + below(rest) bytes a piece. */
export function resplitRun(items, rng, byteByByte) {
  const out = [];
  for (const item of items) {
    if (item.lost !== undefined) {
      out.push(item);
      continue;
    }
    let at = 0;
    while (at < item.data.length) {
      const n = byteByByte ? 1 : 1 + rng.below(item.data.length - at);
      out.push({ output: item.output, data: item.data.subarray(at, at + n) });
      at += n;
    }
  }
  return out;
}

/** The bytes of `view` among the items. */
export function runViewBytes(items, view) {
  return concatBytes(items.filter((i) => i.lost === undefined && (view === "combined" || i.output === view)).map((i) => i.data));
}

/** The result without the Previews, for comparing splits. */
const runShape = (r) => JSON.stringify(r.error !== undefined ? r : Object.fromEntries(RUN_VIEWS.map((view) => [view, { ...r[view], whole: undefined }])));

/**
 * Checks a run vector against `expect` (default its own): each view's
 * expected keys, both limits, each view without losses or a stderr section
 * equal to `bound()` of its bytes with spill id `<spill_id>-<view>` (the
 * whole Preview), and the same result whole, byte by byte and at the Rust
 * runner's seeded splits. Returns the problems.
 */
export function checkRun(api, v, expect = v.expect) {
  const items = runItems(v);
  if (lacksTokenizer(api, v)) {
    // docs/VECTORS.md: what a caller of this build gets, whatever the vector expects.
    const options = { maxLines: v.max_lines, maxBytes: v.max_bytes, spillId: v.spill_id, ...runOptions(v) };
    return tokenizerRefusals(api, [
      ["new RunBounder", () => new api.RunBounder(options)],
      ["RunBounder.checkLimits", () => api.RunBounder.checkLimits(v.max_lines, v.max_bytes, tokenOptions(v))],
    ]);
  }
  const got = playRun(api, v, items);
  const show = (x) => JSON.stringify(x);
  if (got.error !== undefined || expect.error !== undefined) {
    if (got.error === undefined) return [`expected error ${show(expect.error)}, got a result`];
    if (expect.error === undefined) return [`unexpected error ${got.error}`];
    return got.error === expect.error.code ? [] : [`error ${got.error}, expected ${expect.error.code}`];
  }
  const problems = [];
  const encoder = new TextEncoder();
  for (const view of RUN_VIEWS) {
    const want = expect[view];
    if (want === undefined || want === null) {
      problems.push(`expect.${view} missing`);
      continue;
    }
    const have = got[view];
    for (const [key, value] of Object.entries(want)) {
      if (!equal(have[key], value)) problems.push(`${view}.${key}: got ${show(have[key])} expected ${show(value)}`);
    }
    const text = have.preview;
    const bytes = encoder.encode(text);
    let lines = 0;
    for (const b of bytes) if (b === 10) lines++;
    if (bytes.length > 0 && bytes[bytes.length - 1] !== 10) lines++;
    if (bytes.length > v.max_bytes || lines > v.max_lines) problems.push(`${view}: ${bytes.length} bytes, ${lines} lines over the limits`);
    problems.push(...tokenProblems(api, v, have.whole, view));
    if (have.lost_bytes === 0 && !text.includes("[... the last ")) {
      const spill = v.spill?.[view];
      const writer = spill === undefined || spill === null ? undefined : spill.fails ? () => {
        throw RUN_WRITER_ERROR;
      } : () => spill.path;
      let whole;
      try {
        whole = api.bound(runViewBytes(items, view), { maxLines: v.max_lines, maxBytes: v.max_bytes, spillId: `${v.spill_id}-${view}`, spill: writer, hint: v.hint ?? undefined, ...runOptions(v) });
      } catch (e) {
        problems.push(`${view}: bound() failed: ${e}`);
        continue;
      }
      if (!equal(whole, have.whole)) problems.push(`${view}: differs from bound() of its bytes:\n    ${show(whole)}\n    ${show(have.whole)}`);
    }
  }
  const rng = new SplitMix64(0x5eed0000 + items.length);
  for (let round = 0; round < 7; round++) {
    const again = playRun(api, v, resplitRun(items, rng, round === 0));
    if (runShape(again) !== runShape(got)) problems.push(`split round ${round}${round === 0 ? " (byte by byte)" : ""} gives another result`);
  }
  return problems;
}

// ------------------------------------------------------- run conversations

/** The `Run` a run-conversation vector's `run` and `options` ask for (docs/VECTORS.md, kind "run-conversation"). */
export function runConversationRun(api, v) {
  const r = v.run;
  const options = {};
  for (const [key, value] of Object.entries(v.options ?? {})) {
    const name = FOLLOW_OPTION_NAMES[key];
    if (name === undefined) throw new Error(`${v.name}: unknown option ${key}`);
    options[name] = typeof value === "bigint" ? Number(value) : value;
  }
  const random = new Uint8Array(16);
  if (r.random_hex !== undefined) for (let i = 0; i < 16; i++) random[i] = parseInt(r.random_hex.slice(2 * i, 2 * i + 2), 16);
  return new api.Run(r.computer_id, r.command, {
    ...options,
    random,
    idempotencyKey: r.idempotency_key,
    timeoutMs: r.timeout_seconds === undefined ? undefined : Number(r.timeout_seconds) * 1000,
    maxLines: r.max_lines === undefined ? undefined : Number(r.max_lines),
    maxBytes: r.max_bytes === undefined ? undefined : Number(r.max_bytes),
    // The previews' token limit (absent: none).
    ...tokenOptions(r),
    hint: r.hint,
    killOnCancel: r.kill_on_cancel ?? false,
    spill: r.spill ?? false,
    onOutput: r.on_output ?? false,
    answerTimeoutMs: r.answer_timeout_ms === undefined ? undefined : Number(r.answer_timeout_ms),
    // Absent: undefined, the run's defaults; null keep: off.
    keep: r.keep,
    terminal: r.terminal,
  });
}

/** A step of a Run (or a thrown error) in the vectors' shape. */
export function runStepToVector(api, step) {
  if (step instanceof Error) return endToVector(api, step);
  if (step.type !== "wait") return { type: step.type };
  const r = step.reconnect;
  return {
    type: "wait",
    delay_ms: step.delayMs,
    reconnect:
      r === null
        ? null
        : { attempt: r.attempt, failures: r.failures, reason: r.reason, cursor: r.cursor, delay_ms: r.delayMs, proc_id: r.procId, detail: r.detail },
  };
}

/** A preview in the vectors' shape. */
function previewToVector(p) {
  return {
    text: p.text,
    truncated: p.truncated,
    total_bytes: p.totalBytes,
    total_lines: p.totalLines,
    spill_id: p.spillId,
    spill_path: p.spillPath,
    spill_error: p.spillError,
    tokens: p.tokens,
  };
}

/** A Run's result in the vectors' shape. */
function runResultToVector(r) {
  return {
    proc_id: r.procId,
    idempotency_key: r.idempotencyKey,
    exit_code: r.exitCode,
    timed_out: r.timedOut,
    stdout_lost_bytes: r.stdoutLostBytes,
    stderr_lost_bytes: r.stderrLostBytes,
    stdout: previewToVector(r.stdout),
    stderr: previewToVector(r.stderr),
    combined: previewToVector(r.combined),
  };
}

/**
 * The runner's client of a run conversation: a spill writer that records
 * each view's bytes (or fails as the vector's `spill_writer` says) and an
 * output hook that records; failures are reported to the run after the
 * call that gave the actions returned, commits after `done`.
 */
class RunConversationClient {
  files = {};
  output = {};
  failed = [];
  commits = [];

  constructor(v) {
    this.fail = v.spill_writer ?? null;
  }

  #fails(view, at) {
    return this.fail !== null && this.fail.view === view && this.fail.at === at;
  }

  #file(view) {
    this.files[view] ??= { spillId: null, data: [], end: null, problems: [] };
    return this.files[view];
  }

  act(actions) {
    for (const a of actions) {
      switch (a.type) {
        case "openSpill": {
          const file = this.#file(a.view);
          if (file.spillId !== null) file.problems.push("opened twice");
          file.spillId = a.spillId;
          if (this.#fails(a.view, "open")) {
            file.end = "failed";
            this.failed.push(a.view);
          }
          break;
        }
        case "writeSpill": {
          const file = this.#file(a.view);
          if (file.spillId === null) file.problems.push("a write before the open");
          if (file.end === "failed") break; // the writer failed: nothing more
          if (file.end !== null) file.problems.push(`a write after ${file.end}`);
          else if (this.#fails(a.view, "write")) {
            file.end = "failed";
            this.failed.push(a.view);
          } else {
            if (!(a.data instanceof Uint8Array)) file.problems.push("data is not a Uint8Array");
            file.data.push(a.data.slice());
          }
          break;
        }
        case "commitSpill": {
          const file = this.#file(a.view);
          if (file.end !== null) file.problems.push("a commit after its end");
          file.end = this.#fails(a.view, "commit") ? "failed" : "commit";
          this.commits.push(a.view);
          break;
        }
        case "discardSpill": {
          const file = this.#file(a.view);
          if (file.end !== null && file.end !== "failed") file.problems.push("a discard after its end");
          if (file.end === null) file.end = "discard";
          break;
        }
        case "output": {
          this.output[a.stream] ??= { data: [], text: "" };
          this.output[a.stream].data.push(a.data.slice());
          this.output[a.stream].text += a.text;
          break;
        }
        default:
          throw new Error(`unknown run action ${JSON.stringify(a)}`);
      }
    }
  }

  report(run) {
    for (const view of this.failed.splice(0)) run.spillFailed(view, this.#error());
  }

  commit(run) {
    for (const view of this.commits.splice(0)) {
      if (this.files[view].end === "failed") run.spillCommitted(view, { threw: this.#error() });
      else run.spillCommitted(view, { returned: `/spill/${run.spillId(view)}` });
    }
  }

  /** What the failing writer threw: its text is the vector's `error` (String() of it, as the client reports a writer's). */
  #error() {
    const text = this.fail?.error ?? "";
    return { toString: () => text };
  }

  /** What was recorded, comparable with JSON (bytes as base64). */
  snapshot() {
    const files = {};
    for (const [view, f] of Object.entries(this.files)) files[view] = { spill_id: f.spillId, data_b64: toB64(concatBytes(f.data)), end: f.end ?? "open", problems: f.problems };
    const output = {};
    for (const [stream, o] of Object.entries(this.output)) output[stream] = { data_b64: toB64(concatBytes(o.data)), text: o.text };
    return { files, output };
  }
}

/**
 * For a run-conversation vector whose run names a tokenizer this build
 * lacks: the problems of its refusal (`new Run` must throw the core's
 * `invalid_argument`, argument `tokenizer`, whatever the vector expects of
 * a build that has it); null when this build has the tokenizer.
 */
export function runConversationRefusal(api, v) {
  if (!lacksTokenizer(api, v.run)) return null;
  return tokenizerRefusals(api, [["new Run", () => runConversationRun(api, v)]]);
}

/**
 * Plays a run-conversation vector through a Run: asks for each request,
 * plays each scripted answer — its body cut where `split(len)` says — does
 * the actions with the runner's client, and records the requests, the
 * steps, the spills, the hook's output, the result and the final state.
 */
export function playRunConversation(api, v, split) {
  const client = new RunConversationClient(v);
  const played = { requests: [], steps: [], result: null, state: "failed", client: null };
  let run;
  try {
    run = runConversationRun(api, v);
  } catch (err) {
    if (!(err instanceof api.DoryWireError)) throw err;
    played.steps.push(endToVector(api, err));
    played.client = client.snapshot();
    return played;
  }
  const cancelled = () => {
    const { actions, step } = run.cancel();
    client.act(actions);
    return step;
  };
  try {
    for (const exchange of v.exchanges) {
      let step;
      try {
        step = exchange.request === undefined ? cancelled() : playRunExchange(run, exchange, client, played.requests, split, cancelled);
      } catch (err) {
        if (!(err instanceof api.DoryWireError)) throw err;
        if (Array.isArray(err.actions)) client.act(err.actions);
        client.report(run);
        played.steps.push(endToVector(api, err));
        break;
      }
      played.steps.push(runStepToVector(api, step));
      if (step.type === "done") {
        client.commit(run);
        try {
          const result = run.result();
          played.result = runResultToVector(result);
          // docs/VECTORS.md: each preview's tokens counted again.
          const problems = ["stdout", "stderr", "combined"].flatMap((view) => tokenProblems(api, v.run, result[view], `result ${view}`));
          if (problems.length > 0) played.tokenProblems = problems;
        } catch (err) {
          if (!(err instanceof api.DoryWireError)) throw err;
          played.result = endToVector(api, err);
        }
      }
    }
    played.state = run.state;
  } finally {
    run.free();
  }
  played.client = client.snapshot();
  return played;
}

function playRunExchange(run, exchange, client, requests, split, cancelled) {
  requests.push(requestToVector(run.request()));
  const response = exchange.response;
  if (response === undefined) {
    if (exchange.cancel !== true) throw new Error("an exchange without a response cancels");
    return cancelled();
  }
  const jitter = exchange.jitter ?? 0;
  const stall = response.stall === true;
  if (response.not_connected !== undefined) {
    return run.notConnected(response.not_connected, jitter);
  }
  if (response.no_response !== undefined || (stall && response.status === undefined)) {
    if (stall) {
      const limit = run.waitLimitMs();
      if (limit === null || run.waited(limit) !== true) throw new Error("the headers wait is not over at the wait limit");
    }
    return run.noResponse(response.no_response ?? "", jitter);
  }
  run.open(Number(response.status), response.content_type ?? "", response.proc_id, response.retry_after);
  let trickled = false;
  const feed = (chunk) => {
    let actions;
    try {
      actions = run.feed(chunk);
    } finally {
      client.report(run);
    }
    client.act(actions);
    client.report(run);
  };
  if (Array.isArray(response.pieces)) {
    for (const piece of response.pieces) {
      if (run.waited(Number(piece.wait_ms))) {
        trickled = true;
        break;
      }
      feed(new TextEncoder().encode(piece.body));
    }
  } else {
    const body = responseBody(response);
    for (const chunk of splitAt(body, split(body.length))) feed(chunk);
  }
  if (exchange.cancel === true) return cancelled();
  if (stall && !trickled) {
    const limit = run.waitLimitMs();
    if (limit === null || run.waited(limit) !== true) throw new Error("the stream does not stall at the wait limit");
  }
  let result;
  try {
    result = run.finish(trickled ? undefined : response.broken, jitter);
  } finally {
    client.report(run);
  }
  client.act(result.actions);
  client.report(run);
  return result.step;
}

/** Whether a played step matches the vector's (delays within 1e-3 ms; a null reconnect must be null). */
function runStepMatches(expected, got) {
  const e = JSON.parse(JSON.stringify(expected));
  const g = JSON.parse(JSON.stringify(got));
  const delays = (x) => {
    const out = [];
    if (x !== null && typeof x === "object") {
      if (x.delay_ms !== undefined) {
        out.push(Number(x.delay_ms));
        delete x.delay_ms;
      }
      if (x.reconnect !== null && typeof x.reconnect === "object" && x.reconnect.delay_ms !== undefined) {
        out.push(Number(x.reconnect.delay_ms));
        delete x.reconnect.delay_ms;
      }
    }
    return out;
  };
  const [ed, gd] = [delays(e), delays(g)];
  const delaysOk = ed.length <= gd.length && ed.every((d, i) => Math.abs(d - gd[i]) < 1e-3);
  const reconnectOk = !(e.reconnect === null && g.reconnect !== null);
  return subsetMatches(e, g) && delaysOk && reconnectOk;
}

/** The bytes of `data` / `data_b64` of an expectation, as base64 (undefined when neither). */
function expectedB64(x) {
  if (typeof x.data === "string") return toB64(new TextEncoder().encode(x.data));
  if (typeof x.data_b64 === "string") return x.data_b64;
  return undefined;
}

/** Compares a played run conversation with its vector; returns the differences. */
export function checkRunConversation(v, played) {
  const problems = [...(played.tokenProblems ?? [])];
  const show = (x) => JSON.stringify(x);
  if (played.steps.length !== v.exchanges.length) {
    problems.push(`${v.exchanges.length} exchanges scripted, the run had ${played.steps.length}: ${show(played.steps)}`);
  }
  const expectedRequests = v.exchanges.filter((e) => e.request !== undefined).map((e) => e.request);
  expectedRequests.forEach((request, i) => {
    const got = played.requests[i];
    if (got === undefined) return;
    const expected = { body: null, ...request };
    if (!equal(expected, got)) problems.push(`request ${i}\n    expected ${show(expected)}\n    got      ${show(got)}`);
  });
  v.exchanges.forEach((exchange, i) => {
    const got = played.steps[i];
    if (got === undefined) return;
    if (exchange.step === undefined) problems.push(`exchange ${i} has no step`);
    else if (!runStepMatches(exchange.step, got)) problems.push(`step ${i}\n    expected ${show(exchange.step)}\n    got      ${show(got)}`);
  });
  const exp = v.expect ?? {};
  if (exp.state !== undefined && exp.state !== played.state) problems.push(`state\n    expected ${exp.state}\n    got      ${played.state}`);
  const spills = exp.spills ?? {};
  for (const [view, file] of Object.entries(played.client.files)) {
    for (const p of file.problems) problems.push(`spill ${view}: ${p}`);
    const expected = spills[view];
    if (expected === undefined) {
      problems.push(`spill ${view} was opened, the vector has none`);
      continue;
    }
    if (expected.spill_id !== undefined && expected.spill_id !== file.spill_id) problems.push(`spill ${view} id ${file.spill_id} not ${expected.spill_id}`);
    const data = expectedB64(expected);
    if (data !== undefined && data !== file.data_b64) {
      const text = (b64) => new TextDecoder().decode(fromB64(b64));
      problems.push(`spill ${view} data\n    expected ${show(text(data))}\n    got      ${show(text(file.data_b64))}`);
    }
    if (expected.end !== file.end) problems.push(`spill ${view} ended ${file.end}, expected ${expected.end}`);
  }
  for (const view of Object.keys(spills)) if (played.client.files[view] === undefined) problems.push(`spill ${view} was never opened`);
  const output = exp.output ?? {};
  for (const [stream, got] of Object.entries(played.client.output)) {
    const expected = output[stream];
    if (expected === undefined) {
      problems.push(`the hook got ${stream}, the vector has none`);
      continue;
    }
    const data = expectedB64(expected);
    if (data !== undefined && data !== got.data_b64) problems.push(`output ${stream} data ${show(new TextDecoder().decode(fromB64(got.data_b64)))}`);
    if (expected.text !== got.text) problems.push(`output ${stream} text ${show(got.text)}`);
  }
  for (const stream of Object.keys(output)) if (played.client.output[stream] === undefined) problems.push(`the hook never got ${stream}`);
  const expectedResult = exp.result ?? null;
  const resultOk = expectedResult === null || played.result === null ? expectedResult === played.result : subsetMatches(expectedResult, played.result);
  if (!resultOk) problems.push(`result\n    expected ${show(expectedResult)}\n    got      ${show(played.result)}`);
  return problems;
}

// ---- kind "search" (docs/VECTORS.md): a saved output through a Searcher

const SEARCH_FIELDS = {
  text: "text",
  truncated: "truncated",
  total_lines: "totalLines",
  total_bytes: "totalBytes",
  matched_lines: "matchedLines",
  shown_lines: "shownLines",
  omitted_lines: "omittedLines",
  partial_line: "partialLine",
  long_lines: "longLines",
  first_long_line: "firstLongLine",
  spill_path: "spillPath",
  command: "command",
};

/** The result of a search vector over `chunks`, in the vectors' shape (snake_case keys). */
export function playSearch(api, v, chunks) {
  const options = {};
  if (v.context !== undefined) options.context = v.context;
  if (v.max_lines !== undefined) options.maxLines = v.max_lines;
  if (v.max_bytes !== undefined) options.maxBytes = v.max_bytes;
  if (v.ignore_case !== undefined) options.ignoreCase = v.ignore_case;
  let searcher;
  try {
    searcher = new api.Searcher(v.pattern, options);
  } catch (e) {
    if (!(e instanceof api.DoryWireError)) throw e;
    const error = { code: e.code };
    if (e.argument !== undefined) error.argument = snake(e.argument);
    return { error };
  }
  for (const chunk of chunks) searcher.push(chunk);
  const r = searcher.finish(v.path ?? null);
  const out = {};
  for (const [key, field] of Object.entries(SEARCH_FIELDS)) out[key] = r[field];
  return out;
}

/** Deep equality of JSON values, whatever the order of object keys. */
function sameJson(a, b) {
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return a === b;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && sameJson(a[k], b[k]));
}

/**
 * What is wrong with a search vector's result against `expect`: fed whole,
 * byte by byte and at the Rust runner's seeded splits (the same each time),
 * the keys of `expect`, both limits.
 */
export function checkSearch(api, v, expect = v.expect) {
  const data = vectorInput(v);
  const whole = playSearch(api, v, [data]);
  const problems = [];
  const splits = [["bytewise", Array.from({ length: Math.max(0, data.length - 1) }, (_, i) => i + 1)]];
  const rng = new SplitMix64(BigInt(0x5ea4) ^ BigInt(data.length));
  for (let i = 0; i < 8; i++) {
    const cuts = rng.cuts(data.length, 6);
    splits.push([`cuts ${cuts}`, cuts]);
  }
  for (const [how, cuts] of splits) {
    if (!sameJson(playSearch(api, v, splitAt(data, cuts)), whole)) problems.push(`${how}: differs from the whole input`);
  }
  if (Object.keys(expect).length === 0) problems.push("expect is empty");
  for (const [key, want] of Object.entries(expect)) {
    const got = whole[key];
    if (!sameJson(got, want)) problems.push(`${key}: got ${JSON.stringify(got)} expected ${JSON.stringify(want)}`);
  }
  if (typeof whole.text === "string") {
    const bytes = new TextEncoder().encode(whole.text).length;
    const lines = whole.text.split("\n").length - 1;
    if (bytes > (v.max_bytes ?? 16384) || lines > (v.max_lines ?? 400)) problems.push("the text is over the limits");
  }
  return problems;
}
