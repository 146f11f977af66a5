// Shared by the Node tests, the host example and the benchmark: loads the
// component as transpiled by jco and converts its values to the shapes of
// the shared vectors (tests/vectors, format in docs/VECTORS.md).
//
// jco maps the WIT types to JavaScript as follows: records are objects with
// camelCase keys, variants are `{ tag, val }`, enums are their kebab-case
// strings, `u64`/`s64` are BigInt, `option<T>` is `T | undefined`,
// `list<u8>` is a Uint8Array, and a function returning `result<T, error>`
// returns T or throws the `error` record itself.
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

import { chunkings, parseJsonExact, SplitMix64, vectorBody } from "../../npm/test/vector-lib.mjs";

export const here = dirname(fileURLToPath(import.meta.url));
export const rootDir = join(here, "..", "..");

/** Imports the transpiled component (DORY_COMPONENT_JS, else target/component/jco). */
export async function loadComponent() {
  const entry = process.env.DORY_COMPONENT_JS ?? join(rootDir, "target", "component", "jco", "dory-wire.js");
  return import(pathToFileURL(entry).href);
}

/** True for the component's `error` record (thrown by jco for a `result` error). */
export function isWitError(x) {
  return x !== null && typeof x === "object" && typeof x.code === "string" && Array.isArray(x.fields) && typeof x.kind === "string";
}

/** A BigInt as a Number when exact, else the BigInt (as the vectors are parsed). */
export function num(x) {
  if (typeof x !== "bigint") return x;
  return x <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(x) : x;
}

const snake = (s) => s.replaceAll("-", "_");
const kebab = (s) => s.replaceAll("_", "-");

export function toB64(bytes) {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
}

export function cursorToVector(c) {
  return { stdout: num(c.stdout), stderr: num(c.stderr) };
}

/**
 * A record's fields under their snake_case names, as the core's record table
 * names them (jco spells them in camelCase): integers as Numbers when exact,
 * an absent option as null.
 */
function recordFields(v) {
  const out = {};
  for (const [k, x] of Object.entries(v)) out[k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)] = num(x) ?? null;
  return out;
}

/** A component event in the vectors' shape. */
export function eventToVector(e) {
  const v = e.val;
  switch (e.tag) {
    case "started":
      return { type: "started", proc_id: v.procId };
    case "output":
      return { type: v.stream, data_b64: toB64(v.data), start: num(v.start), end: num(v.end) };
    case "skipped":
      return { type: "skipped", stream: v.stream, from: num(v.start), to: num(v.end) };
    case "heartbeat":
      return { type: "heartbeat" };
    case "exit":
    case "unknown":
    case "identity":
      return { type: e.tag, ...recordFields(v) };
    case "exec-result":
      return {
        type: "result",
        proc_id: v.procId,
        stdout_b64: toB64(v.stdout),
        stderr_b64: toB64(v.stderr),
        stdout_truncated: v.stdoutTruncated,
        stderr_truncated: v.stderrTruncated,
        exit_code: num(v.exitCode) ?? null,
        timed_out: v.timedOut,
      };
    default:
      throw new Error(`unknown event tag ${e.tag}`);
  }
}

/** The value of one error field, in the vectors' shape. */
function fieldToVector(value) {
  switch (value.tag) {
    case "str":
    case "stream":
      return value.val;
    case "opt-str":
      return value.val ?? null;
    case "u64":
      return num(value.val);
    case "cursor":
      return cursorToVector(value.val);
    case "boolean":
      return value.val;
    default:
      throw new Error(`unknown field value tag ${value.tag}`);
  }
}

/** The component's error record as a vector end: code and every field. */
export function errorToVector(err) {
  const out = { type: "error", code: err.code };
  for (const f of err.fields) out[f.name] = fieldToVector(f.value);
  return out;
}

/** A component end in the vectors' shape. */
export function endToVector(end) {
  switch (end.tag) {
    case "exited":
      return { type: "exited", ...recordFields(end.val) };
    case "disconnected":
      return { type: "disconnected", reason: snake(end.val.reason), cursor: cursorToVector(end.val.cursor) };
    case "document":
      return { type: "document" };
    default:
      throw new Error(`unknown end tag ${end.tag}`);
  }
}

/**
 * The rows of ERROR_CODES in the core's source (crates/dory-wire/src/error.rs),
 * in the shape of the component's `error-code` records, in table order.
 */
export function coreErrorTable(source) {
  const rows = new Map();
  const re = /const (\w+): ErrorCode = ErrorCode \{\s*code: "(\w+)",\s*class: "(\w+)",\s*kind: ErrorKind::(\w+),\s*fields: &\[([^\]]*)\],?\s*\};/g;
  for (const m of source.matchAll(re)) {
    const fields = [...m[5].matchAll(/"(\w+)"/g)].map((f) => f[1]);
    rows.set(m[1], { code: m[2], className: m[3], kind: m[4].toLowerCase(), fields });
  }
  const list = /pub const ERROR_CODES: &\[ErrorCode\] = &\[([^\]]*)\];/.exec(source);
  if (!list) throw new Error("ERROR_CODES not found in error.rs");
  return list[1]
    .split(",")
    .map((name) => name.trim())
    .filter(Boolean)
    .map((name) => {
      if (!rows.has(name)) throw new Error(`row ${name} of ERROR_CODES not found in error.rs`);
      return rows.get(name);
    });
}

/** The reader options of a decode vector. */
export function vectorOptions(v) {
  const options = {};
  if (v.cursor) options.cursor = { stdout: BigInt(v.cursor.stdout ?? 0), stderr: BigInt(v.cursor.stderr ?? 0) };
  if (v.gap_policy) options.gapPolicy = v.gap_policy;
  if (v.max_frame_bytes !== undefined) options.maxFrameBytes = BigInt(v.max_frame_bytes);
  if (v.strict !== undefined) options.strict = v.strict;
  return options;
}

/**
 * Runs a decode vector over the given chunks of its body; returns the
 * observed events, end and cursor in the vectors' shapes. Also checks that
 * an error is sticky: one more `feed` returns it again, with no event.
 */
export function decodeVector(mod, v, chunks, table = errorTable(mod)) {
  const reader = new mod.decode.Reader(kebab(v.endpoint), vectorOptions(v));
  const events = [];
  let end;
  let failed;
  try {
    reader.open(v.status, v.content_type ?? "", v.process_id_header ?? undefined);
    for (const chunk of chunks) {
      const fed = reader.feed(chunk);
      for (const e of fed.events) events.push(eventToVector(e));
      if (fed.error) {
        failed = fed.error;
        break;
      }
    }
    if (!failed) {
      const finished = reader.finish();
      for (const e of finished.events) events.push(eventToVector(e));
      if (finished.end.tag === "ok") end = endToVector(finished.end.val);
      else failed = finished.end.val;
    }
  } catch (err) {
    if (!isWitError(err)) throw err;
    failed = err;
  }
  if (failed) {
    const row = table.get(failed.code);
    const shape = { code: failed.code, className: failed.className, kind: failed.kind, fields: failed.fields.map((f) => f.name) };
    if (!row || !same(shape, row)) throw new Error(`${v.name}: error ${JSON.stringify(shape)} is not its row of error-codes ${JSON.stringify(row)}`);
    if (!failed.message.startsWith(`${failed.code}: `)) throw new Error(`${v.name}: message ${JSON.stringify(failed.message)}`);
    end = errorToVector(failed);
    const again = reader.feed(new Uint8Array([10]));
    if (again.events.length !== 0 || again.error?.code !== failed.code || reader.state() !== "failed") {
      throw new Error(`${v.name}: the error ${failed.code} is not sticky: ${JSON.stringify(again, big)}`);
    }
  }
  const cursor = cursorToVector(reader.cursor());
  reader[Symbol.dispose]();
  return { events, end, cursor };
}

const tables = new WeakMap();

/** The component's error-codes, by code (computed once per module). */
export function errorTable(mod) {
  if (!tables.has(mod)) tables.set(mod, new Map(mod.types.errorCodes().map((row) => [row.code, row])));
  return tables.get(mod);
}

/** JSON.stringify replacer that writes BigInts as their digits. */
export function big(_key, value) {
  return typeof value === "bigint" ? `${value}n` : value;
}

function canonical(x) {
  if (Array.isArray(x)) return x.map(canonical);
  if (x !== null && typeof x === "object") {
    const out = {};
    for (const k of Object.keys(x).sort()) out[k] = canonical(x[k]);
    return out;
  }
  return x;
}

/** Deep equality of vector-shaped values (BigInts included). */
export function same(a, b) {
  return JSON.stringify(canonical(a), big) === JSON.stringify(canonical(b), big);
}

/** Differences between a decode result and a vector's expectation (only the keys it holds). */
export function compareDecode(v, got) {
  const problems = [];
  const exp = v.expect;
  if (exp.events !== undefined && !same(exp.events, got.events)) {
    problems.push(`events: expected ${JSON.stringify(exp.events, big)}, got ${JSON.stringify(got.events, big)}`);
  }
  for (const key of Object.keys(exp.end ?? {})) {
    if (!same(exp.end[key], got.end[key])) {
      problems.push(`end.${key}: expected ${JSON.stringify(exp.end[key], big)}, got ${JSON.stringify(got.end, big)}`);
    }
  }
  if (exp.cursor !== undefined && !same({ stdout: 0, stderr: 0, ...exp.cursor }, got.cursor)) {
    problems.push(`cursor: expected ${JSON.stringify(exp.cursor, big)}, got ${JSON.stringify(got.cursor, big)}`);
  }
  return problems;
}

/**
 * The WIT `preview-options` of the npm options `keep`, `terminal` and
 * `split`, and of a token limit `{ maxTokens, tokenizer }` (each absent:
 * none; the core's `token_limit` reads the two).
 */
export function previewOptions(keep, terminal, split, { maxTokens, tokenizer } = {}) {
  let k = { tag: "none" };
  if (keep === "defaults") k = { tag: "defaults" };
  else if (Array.isArray(keep)) k = { tag: "patterns", val: keep };
  return { keep: k, terminal: terminal === true, split: split ?? "even", maxTokens, tokenizer };
}

// -- token limits (a vector's top-level max_tokens and tokenizer) -------------

/**
 * The tokenizer of a `max_tokens` without one: the core's DEFAULT_TOKENIZER
 * (tests/api/surface.json), which the component does not have and refuses
 * by name. Only the runner needs it, to know which vectors the component
 * can play.
 */
export const DEFAULT_TOKENIZER = "o200k_base";

/** A vector's (or a run's) token limit as `{ maxTokens, tokenizer }`, each only when present. */
export function vectorTokens(v) {
  const o = {};
  if (v.max_tokens !== undefined && v.max_tokens !== null) o.maxTokens = Number(v.max_tokens);
  if (v.tokenizer !== undefined && v.tokenizer !== null) o.tokenizer = v.tokenizer;
  return o;
}

/** The tokenizer that counts `v`'s previews; null without a token option. */
export function vectorTokenizer(v) {
  const o = vectorTokens(v);
  if (o.maxTokens === undefined && o.tokenizer === undefined) return null;
  return o.tokenizer ?? DEFAULT_TOKENIZER;
}

/** The tokenizer `v` needs when the component lacks it (not in `tokenizers()`), else null. */
export function missingTokenizer(mod, v) {
  const name = vectorTokenizer(v);
  return name !== null && !mod.preview.tokenizers().includes(name) ? name : null;
}

/** The `argument` field of a WIT error record (undefined without one). */
export function errorArgument(err) {
  return err.fields.find((f) => f.name === "argument")?.value.val;
}

/**
 * The problems of a vector whose tokenizer the component lacks: every
 * bounder (`bound`, `streaming-bounder`, `run-bounder`) and `count-tokens`
 * must refuse it with `invalid_argument`, argument `tokenizer`.
 */
export function tokenizerRefusals(mod, v, name) {
  const options = previewOptions(v.keep, v.terminal, undefined, vectorTokens(v));
  const [lines, bytes] = [BigInt(v.max_lines ?? 400), BigInt(v.max_bytes ?? 16384)];
  const problems = [];
  for (const [what, call] of [
    ["bound", () => mod.preview.bound(new TextEncoder().encode("x\n".repeat(10)), lines, bytes, undefined, options)],
    ["streaming-bounder", () => new mod.preview.StreamingBounder(lines, bytes, undefined, options)],
    ["run-bounder", () => new mod.run.RunBounder(lines, bytes, undefined, options)],
    ["count-tokens", () => mod.preview.countTokens("x", name)],
  ]) {
    const got = attempt(call);
    if (!got.err || got.err.code !== "invalid_argument" || errorArgument(got.err) !== "tokenizer") {
      problems.push(`${what}: tokenizer ${JSON.stringify(name)} must be refused with invalid_argument (argument tokenizer), got ${JSON.stringify(got.err ?? "no error", big)}`);
    }
  }
  return problems;
}

/**
 * The token problems of a preview of `v` (`text` and its `tokens`): none
 * without a token option, else `count-tokens` of the text under the same
 * tokenizer, within `max_tokens`.
 */
export function tokenProblems(mod, v, text, tokens, where) {
  const name = vectorTokenizer(v);
  if (name === null) return tokens === null ? [] : [`${where}: tokens ${tokens} without a token limit`];
  const problems = [];
  const counted = num(mod.preview.countTokens(text, vectorTokens(v).tokenizer));
  if (tokens !== counted) problems.push(`${where}: tokens ${tokens}, count-tokens ${counted}`);
  const max = vectorTokens(v).maxTokens;
  if (max !== undefined && !(tokens <= max)) problems.push(`${where}: ${tokens} tokens over max_tokens ${max}`);
  return problems;
}

/**
 * The token checks of a preview vector the component can play, whatever
 * the npm package's checks do with them: `bound` and the streaming bounder
 * (pieces of 1000 bytes) with the vector's token limit, spill and hint
 * give `expect.tokens` (when given), the count of their text, within
 * `max_tokens`.
 */
export function previewTokenProblems(mod, v) {
  if (vectorTokenizer(v) === null || v.expect?.error) return [];
  const data = v.input_b64 !== undefined ? new Uint8Array(Buffer.from(v.input_b64, "base64")) : new TextEncoder().encode(v.input);
  const [lines, bytes] = [BigInt(v.max_lines), BigInt(v.max_bytes)];
  const options = previewOptions(v.keep, v.terminal, undefined, vectorTokens(v));
  // The vector's spill outcome (the npm checks' writer) and hint: the notice is counted too.
  let outcome = { tag: "not-saved" };
  if (v.spill) outcome = v.spill.fails ? { tag: "failed", val: "disk full (vector writer)" } : { tag: "saved", val: v.spill.path };
  const rendered = (bounded) => {
    if (bounded.tag === "fits") return bounded.val;
    const p = bounded.val.render(outcome, v.hint ?? undefined);
    bounded.val[Symbol.dispose]();
    return p;
  };
  const spillId = v.spill_id ?? "0123456789abcdef0123456789abcdef";
  const s = new mod.preview.StreamingBounder(lines, bytes, spillId, options);
  for (let i = 0; i < data.length; i += 1000) s.push(data.subarray(i, i + 1000));
  const problems = [];
  for (const [how, p] of [
    ["bound", rendered(mod.preview.bound(data, lines, bytes, spillId, options))],
    ["streaming", rendered(mod.preview.StreamingBounder.finish(s))],
  ]) {
    const tokens = num(p.tokens) ?? null;
    if (v.expect?.tokens !== undefined && tokens !== Number(v.expect.tokens)) problems.push(`${how}: tokens ${tokens}, expected ${v.expect.tokens}`);
    problems.push(...tokenProblems(mod, v, p.text, tokens, how));
  }
  return problems;
}

/**
 * The preview API of the npm package (`bound`, `StreamingBounder`,
 * `DoryWireError`, `TOKENIZERS`, `countTokens`) on top of the component, so
 * that the npm package's own preview checks run unchanged against it. The
 * spill writer is called between `bound` and `render`: the handshake of the
 * WIT interface. `tokens` (`{ maxTokens, tokenizer }`, a vector's token
 * limit) applies to every bounder the checks do not give one.
 */
export function previewApi(mod, tokens = {}) {
  class DoryWireError extends Error {
    constructor(err) {
      super(err.message);
      this.code = err.code;
      this.kind = err.kind;
      this.argument = errorArgument(err);
    }
  }
  const limitOf = (o) => ({ maxTokens: o.maxTokens ?? tokens.maxTokens, tokenizer: o.tokenizer ?? tokens.tokenizer });
  const call = (f) => {
    try {
      return f();
    } catch (err) {
      if (isWitError(err)) throw new DoryWireError(err);
      throw err;
    }
  };
  const toPreview = (p) => ({
    text: p.text,
    truncated: p.truncated,
    totalLines: num(p.totalLines),
    totalBytes: num(p.totalBytes),
    headBytes: num(p.headBytes),
    tailBytes: num(p.tailBytes),
    omittedLines: num(p.omittedLines),
    omittedBytes: num(p.omittedBytes),
    omittedRange: p.omittedRange ? [num(p.omittedRange.first), num(p.omittedRange.last)] : null,
    spillId: p.spillId ?? null,
    spillPath: p.spillPath ?? null,
    spillError: p.spillError ?? null,
    tokens: num(p.tokens) ?? null,
  });
  const settle = (bounded, input, spill, hint) => {
    if (bounded.tag === "fits") return toPreview(bounded.val);
    const pending = bounded.val;
    let outcome = { tag: "not-saved" };
    if (spill) {
      try {
        outcome = { tag: "saved", val: spill(pending.spillId(), input) };
      } catch (err) {
        outcome = { tag: "failed", val: String(err?.message ?? err) };
      }
    }
    const preview = toPreview(pending.render(outcome, hint));
    pending[Symbol.dispose]();
    return preview;
  };
  const encoder = new TextEncoder();
  return {
    DoryWireError,
    TOKENIZERS: Object.freeze(mod.preview.tokenizers()),
    countTokens: (text, tokenizer) => num(call(() => mod.preview.countTokens(text, tokenizer))),
    bound(input, { maxLines, maxBytes, spill, spillId, hint, keep, terminal, split, ...rest } = {}) {
      const data = typeof input === "string" ? encoder.encode(input) : input;
      const options = previewOptions(keep, terminal, split, limitOf(rest));
      const bounded = call(() => mod.preview.bound(data, BigInt(maxLines), BigInt(maxBytes), spillId, options));
      return settle(bounded, data, spill, hint);
    },
    StreamingBounder: class {
      constructor({ maxLines, maxBytes, spillId, keep, terminal, split, ...rest } = {}) {
        const options = previewOptions(keep, terminal, split, limitOf(rest));
        this.inner = call(() => new mod.preview.StreamingBounder(BigInt(maxLines), BigInt(maxBytes), spillId, options));
      }
      push(chunk) {
        this.inner.push(chunk);
      }
      finish({ spill, hint } = {}) {
        return settle(call(() => mod.preview.StreamingBounder.finish(this.inner)), undefined, spill, hint);
      }
    },
  };
}

/**
 * The search API of the npm package (`Searcher`, `DoryWireError`) on top of
 * the component's `searcher`, so that the npm package's own search checks
 * (`checkSearch`) run unchanged against it.
 */
export function searchApi(mod) {
  class DoryWireError extends Error {
    constructor(err) {
      super(err.message);
      this.code = err.code;
      const argument = err.fields.find((f) => f.name === "argument");
      if (argument !== undefined) this.argument = argument.value.val;
    }
  }
  const opt = (n) => (n === undefined || n === null ? null : num(n));
  return {
    DoryWireError,
    Searcher: class {
      constructor(pattern, { context = 0, maxLines = 400, maxBytes = 16384, ignoreCase = false } = {}) {
        try {
          this.inner = mod.search.Searcher.create(pattern, {
            context: BigInt(context),
            maxLines: BigInt(maxLines),
            maxBytes: BigInt(maxBytes),
            ignoreCase,
          });
        } catch (err) {
          if (isWitError(err)) throw new DoryWireError(err);
          throw err;
        }
      }
      push(chunk) {
        this.inner.push(chunk);
      }
      finish(path) {
        const r = mod.search.Searcher.finish(this.inner, path ?? undefined);
        return {
          text: r.text,
          truncated: r.truncated,
          totalLines: num(r.totalLines),
          totalBytes: num(r.totalBytes),
          matchedLines: num(r.matchedLines),
          shownLines: num(r.shownLines),
          omittedLines: num(r.omittedLines),
          partialLine: opt(r.partialLine),
          longLines: num(r.longLines),
          firstLongLine: opt(r.firstLongLine),
          spillPath: r.spillPath ?? null,
          command: r.command ?? null,
        };
      }
    },
  };
}

// -- conversations (docs/VECTORS.md, "kind conversation") ---------------------

const MS = 1_000_000n; // nanoseconds in a millisecond

/** JSON text of a vector value, BigInts written as their digits (exact). */
export function toJsonExact(x) {
  if (typeof x === "bigint") return x.toString();
  if (Array.isArray(x)) return `[${x.map(toJsonExact).join(",")}]`;
  if (x !== null && typeof x === "object") {
    return `{${Object.entries(x)
      .map(([k, v]) => `${JSON.stringify(k)}:${toJsonExact(v)}`)
      .join(",")}}`;
  }
  return JSON.stringify(x);
}

/** Milliseconds of a vector (a Number, or a BigInt) as exact nanoseconds. */
function msToNs(ms) {
  return typeof ms === "bigint" || Number.isInteger(ms) ? BigInt(ms) * MS : BigInt(Math.round(ms * 1e6));
}

/** The `follow-options` of a conversation vector; absent ones stay absent (the core's defaults). */
export function followOptions(v) {
  const o = v.options ?? {};
  const out = {};
  const known = ["follow", "gap_policy", "retries", "backoff_ms", "max_backoff_ms", "jitter", "liveness_timeout_ms", "max_frame_bytes", "strict"];
  for (const key of Object.keys(o)) if (!known.includes(key)) throw new Error(`${v.name}: unknown option ${key}`);
  if (o.follow !== undefined) out.follow = o.follow;
  if (o.gap_policy !== undefined) out.gapPolicy = o.gap_policy;
  if (o.retries !== undefined) out.retries = Number(o.retries);
  if (o.backoff_ms !== undefined) out.backoffNs = msToNs(o.backoff_ms);
  if (o.max_backoff_ms !== undefined) out.maxBackoffNs = msToNs(o.max_backoff_ms);
  if (o.jitter !== undefined) out.jitter = o.jitter;
  if (o.liveness_timeout_ms !== undefined) out.livenessTimeoutNs = msToNs(o.liveness_timeout_ms);
  if (o.max_frame_bytes !== undefined) out.maxFrameBytes = BigInt(o.max_frame_bytes);
  if (o.strict !== undefined) out.strict = o.strict;
  return out;
}

/** Calls `f`; returns `{ ok: value }`, or `{ err: record }` for a thrown WIT error. */
function attempt(f) {
  try {
    return { ok: f() };
  } catch (err) {
    if (isWitError(err)) return { err };
    throw err;
  }
}

/** The follower of a conversation vector's `read`: `{ ok: follower }` or `{ err: record }`. */
export function readFollower(mod, v) {
  const { Follower } = mod.follow;
  const read = v.read;
  const options = followOptions(v);
  const id = read.computer_id;
  switch (read.type) {
    case "process_output": {
      const c = read.cursor;
      const cursor = c ? { stdout: BigInt(c.stdout ?? 0), stderr: BigInt(c.stderr ?? 0) } : undefined;
      return attempt(() => Follower.processOutput(id, read.proc_id, cursor, options));
    }
    case "resume":
      return attempt(() => Follower.resumeJson(id, toJsonExact(read.state), options));
    case "setup_logs":
      return attempt(() => Follower.setupLogs(id, read.offset === undefined ? undefined : BigInt(read.offset), options));
    // The one-answer calls (PROTOCOL.md, "One-answer calls").
    case "start":
    case "exec": {
      const command = typeof read.command === "string" ? { tag: "shell", val: read.command } : { tag: "argv", val: read.command };
      const timeout = read.timeout_seconds === undefined ? undefined : Number(read.timeout_seconds);
      const make = read.type === "start" ? Follower.callStart : Follower.callExec;
      return attempt(() => make(id, command, timeout, read.idempotency_key, options));
    }
    case "get_process":
      return attempt(() => Follower.callGetProcess(id, read.proc_id, options));
    case "kill":
      return attempt(() => Follower.callKill(id, read.proc_id, options));
    case "exec_stream": {
      const command = typeof read.command === "string" ? { tag: "shell", val: read.command } : { tag: "argv", val: read.command };
      const timeout = read.timeout_seconds === undefined ? undefined : Number(read.timeout_seconds);
      return attempt(() => Follower.execStream(id, command, timeout, read.idempotency_key, options));
    }
    default:
      throw new Error(`${v.name}: unknown read type ${read.type}`);
  }
}

/** A component `request` in the vectors' shape (the body parsed as JSON, exactly). */
export function requestToVector(r) {
  return {
    method: r.method.toUpperCase(),
    target: r.target,
    headers: Object.fromEntries(r.headers),
    body: r.body === undefined ? null : parseJsonExact(new TextDecoder().decode(r.body)),
  };
}

/** A component `decision` in the vectors' shape. */
export function decisionToVector(d) {
  const v = d.val;
  switch (d.tag) {
    case "continue":
      return { type: "continue" };
    case "done":
      return { type: "done", exited: v.exited, exit_code: num(v.exitCode) ?? null, timed_out: v.timedOut, cursor: cursorToVector(v.cursor), proc_id: v.procId ?? null };
    case "reconnect":
      return {
        type: "reconnect",
        attempt: v.attempt,
        failures: v.failures,
        reason: snake(v.reason),
        cursor: cursorToVector(v.cursor),
        delay_ms: Number(v.delayNs) / 1e6,
        proc_id: v.procId ?? null,
        detail: v.detail,
      };
    default:
      throw new Error(`unknown decision tag ${d.tag}`);
  }
}

/** The keys of an expected decision that the observed one does not match (`delay_ms` to 1 µs). */
export function compareDecision(expected, got) {
  if (got.type !== expected.type) return [`expected ${JSON.stringify(expected, big)}, got ${JSON.stringify(got, big)}`];
  const problems = [];
  for (const [key, raw] of Object.entries(expected)) {
    const want = key === "cursor" && raw && typeof raw === "object" ? { stdout: 0, stderr: 0, ...raw } : raw;
    const have = Object.hasOwn(got, key) ? got[key] : "<missing>";
    const ok = key === "delay_ms" && typeof have === "number" ? Math.abs(have - Number(want)) <= 0.001 : same(have, want);
    if (!ok) problems.push(`${key}: expected ${JSON.stringify(want, big)}, got ${JSON.stringify(have, big)} in ${JSON.stringify(got, big)}`);
  }
  return problems;
}

/** The body of a response, cut by the `mode`-th chunking of the npm package's runner. */
function cut(name, response, mode) {
  const all = chunkings(name, vectorBody(response));
  return (all[mode] ?? all[0])[1];
}

/** How many chunkings a conversation is played with (whole, byte by byte, seeded random splits). */
export const CONVERSATION_SPLITS = chunkings("", new Uint8Array(1)).length;

/**
 * Plays one exchange's response on `f` (its body cut by the `mode`-th
 * chunking); pushes every event delivered to `events`; returns
 * `{ ok: decision }` or `{ err: record }`.
 */
function play(f, x, name, mode, events) {
  const response = x.response;
  const jitter = Number(x.jitter ?? response.jitter ?? 0);
  const liveness = f.options().livenessTimeoutNs;
  const check = (cond, what) => {
    if (!cond) throw new Error(`${name}: ${what}`);
  };
  // A `stall`: the wait for the service runs out. The follower offers a
  // whole liveness timeout; waits of nothing and of all but a nanosecond of
  // it are not over; one more nanosecond of waiting is.
  const stallWait = (what) => {
    const limit = f.waitLimitNs();
    check(limit === liveness, `${what}: the wait limit is ${limit}, not ${liveness}`);
    check(!f.waitedNs(0n), `${what}: over as it began`);
    check(!f.waitedNs(liveness - 1n), `${what}: over before the liveness timeout`);
    check(f.waitedNs(1n), `${what}: not over at the liveness timeout`);
  };
  if (response.not_connected !== undefined) {
    return attempt(() => f.notConnected(response.not_connected, jitter));
  }
  if (response.status === undefined) {
    if (response.stall) {
      stallWait("the headers' wait");
      return attempt(() => f.noResponse("", jitter));
    }
    return attempt(() => f.noResponse(response.no_response, jitter));
  }
  const retryAfter = response.retry_after === undefined ? undefined : String(response.retry_after);
  const opened = attempt(() => f.open(response.status, response.content_type ?? "", response.proc_id ?? undefined, retryAfter));
  if (opened.err) return opened;
  for (const chunk of cut(name, response, mode)) {
    const fed = f.feed(chunk);
    events.push(...fed.events);
    if (fed.error) return { err: fed.error };
  }
  if (response.stall) stallWait("the body's wait");
  const followed = f.finish(response.broken ?? undefined, jitter);
  events.push(...followed.events);
  return followed.decision.tag === "ok" ? { ok: followed.decision.val } : { err: followed.decision.val };
}

/** An error record in the vectors' shape, checked against its row of `error-codes`. */
function checkedError(err, table) {
  const row = table.get(err.code);
  const shape = { code: err.code, className: err.className, kind: err.kind, fields: err.fields.map((f) => f.name) };
  if (!row || !same(shape, row)) throw new Error(`error ${JSON.stringify(shape)} is not its row of error-codes ${JSON.stringify(row)}`);
  return errorToVector(err);
}

/**
 * Runs a conversation vector with every body cut by the `mode`-th chunking.
 * Returns the problems found and what was observed (requests, decisions,
 * events, cursor, process), to compare across chunkings.
 */
export function conversationVector(mod, v, mode, table = errorTable(mod)) {
  const problems = [];
  const seen = { requests: [], decisions: [] };
  const built = readFollower(mod, v);
  const f = built.ok;
  const events = [];
  let got = { type: undefined };
  let ended = false;
  for (const [i, x] of v.exchanges.entries()) {
    const at = `exchange ${i + 1}`;
    let decision = built;
    if (f) {
      decision = attempt(() => f.request());
      if (decision.ok) {
        const req = requestToVector(decision.ok);
        seen.requests.push(req);
        if (x.request) {
          const want = { body: null, ...x.request };
          if (!same(req, want)) problems.push(`${at}: request: expected ${JSON.stringify(want, big)}, got ${JSON.stringify(req, big)}`);
        }
        decision = play(f, x, `${v.name} (${at})`, mode, events);
      }
    }
    got = decision.err ? checkedError(decision.err, table) : decisionToVector(decision.ok);
    seen.decisions.push(got);
    for (const p of compareDecision(x.decision, got)) problems.push(`${at}: decision ${p}`);
    if (got.type === "done" || got.type === "error") {
      const left = v.exchanges.length - i - 1;
      if (left) problems.push(`${at}: the read ended (${got.type}) with ${left} exchanges left`);
      ended = true;
      break;
    }
  }
  if (!ended) problems.push("the last exchange's decision is neither done nor error");
  seen.events = events.map(eventToVector);
  if (f) {
    if (got.type === "error") {
      const again = attempt(() => f.request());
      if (!again.err || again.err.code !== got.code || f.state() !== "failed") problems.push(`the error ${got.code} is not sticky`);
    } else if (got.type === "done" && f.state() !== "done") {
      problems.push(`done, but the follower's state is ${f.state()}`);
    }
    seen.cursor = cursorToVector(f.cursor());
    seen.procId = f.procId() ?? null;
    f[Symbol.dispose]();
  }
  problems.push(...compareConversationOutput(v.expect, seen));
  return { problems, seen };
}

/** `expect` of a conversation vector against every event delivered, and the follower's cursor and process. */
export function compareConversationOutput(expect, seen) {
  const events = seen.events;
  const bytes = (name) => Buffer.concat(events.filter((e) => e.type === name).map((e) => Buffer.from(e.data_b64, "base64")));
  const got = {
    stdout: bytes("stdout"),
    stderr: bytes("stderr"),
    skipped: events.filter((e) => e.type === "skipped"),
    exit: null,
    cursor: seen.cursor,
    proc_id: seen.procId,
  };
  got.stdout_b64 = got.stdout.toString("base64");
  got.stderr_b64 = got.stderr.toString("base64");
  for (const e of events) if (e.type === "exit") got.exit = { exit_code: e.exit_code, timed_out: e.timed_out };
  const problems = [];
  for (const key of ["stdout", "stderr", "stdout_b64", "stderr_b64", "exit", "cursor", "proc_id", "skipped"]) {
    if (!Object.hasOwn(expect, key) && key !== "skipped") continue;
    let want = expect[key] ?? (key === "skipped" ? [] : null);
    let have = got[key];
    if (key === "cursor") want = { stdout: 0, stderr: 0, ...want };
    if (key === "stdout" || key === "stderr") {
      want = Buffer.from(want, "utf8").toString("base64");
      have = have.toString("base64");
    }
    if (!same(have, want)) problems.push(`expect.${key}: expected ${JSON.stringify(want, big)}, got ${JSON.stringify(have, big)}`);
  }
  if (Object.hasOwn(expect, "events")) {
    const others = events.filter((e) => e.type !== "stdout" && e.type !== "stderr");
    if (!same(others, expect.events)) problems.push(`expect.events: expected ${JSON.stringify(expect.events, big)}, got ${JSON.stringify(others, big)}`);
  }
  return problems;
}

// -- runs (docs/VECTORS.md, "kind run") --------------------------------------

export const VIEWS = ["stdout", "stderr", "combined"];

/** A run vector's input as `{ lost: stream, from, to }` and `{ stream, data }` items, in arrival order. */
export function runItems(v) {
  const encoder = new TextEncoder();
  return v.input.map((item) => {
    if (item.lost !== undefined) return { lost: item.lost, from: BigInt(item.from), to: BigInt(item.to) };
    const [[key, value]] = Object.entries(item);
    if (key.endsWith("_b64")) return { stream: key.slice(0, -4), data: new Uint8Array(Buffer.from(value, "base64")) };
    return { stream: key, data: encoder.encode(value) };
  });
}

/** The spill outcome of `view`, as the Rust runner reads the vector. */
export function runOutcome(v, view) {
  const spill = v.spill?.[view];
  if (spill === undefined || spill === null) return { tag: "not-saved" };
  if (spill.fails) return { tag: "failed", val: "the writer failed" };
  return { tag: "saved", val: spill.path ?? "" };
}

/**
 * The items with each output cut in pieces: one byte each without a
 * generator, else at the points the Rust runner draws (`1 + below(rest)`
 * bytes a piece, one SplitMix64 for every round).
 */
export function resplitRun(items, rng) {
  const out = [];
  for (const item of items) {
    if (item.lost !== undefined) {
      out.push(item);
      continue;
    }
    let rest = item.data;
    while (rest.length > 0) {
      const n = rng ? 1 + rng.below(rest.length) : 1;
      out.push({ stream: item.stream, data: rest.subarray(0, n) });
      rest = rest.subarray(n);
    }
  }
  return out;
}

/** The bytes of one view of the items. */
export function runViewBytes(items, view) {
  return Buffer.concat(items.filter((i) => i.lost === undefined && (view === "combined" || i.stream === view)).map((i) => i.data));
}

const textLines = (text) => (text.match(/\n/g)?.length ?? 0) + (text.length > 0 && !text.endsWith("\n") ? 1 : 0);

/**
 * Plays the items through a `run-bounder` (with `push` and `lose`, or as the
 * events `feed` takes) and renders every view: `{ ok: views }` in the
 * vectors' shape, or `{ error: code }`. What can be checked while pushing
 * (the spill ids, the totals, the memory held) is checked, into `problems`.
 */
export function playRun(mod, v, items, { asEvents = false, problems = [] } = {}) {
  const maxBytes = BigInt(v.max_bytes);
  let rb;
  try {
    rb = new mod.run.RunBounder(BigInt(v.max_lines), maxBytes, v.spill_id, previewOptions(v.keep, v.terminal, undefined, vectorTokens(v)));
  } catch (err) {
    if (!isWitError(err)) throw err;
    return { error: err.code };
  }
  if (asEvents) {
    const at = { stdout: 0n, stderr: 0n };
    const events = items.map((i) => {
      if (i.lost !== undefined) return { tag: "skipped", val: { stream: i.lost, start: i.from, end: i.to } };
      const start = at[i.stream];
      at[i.stream] += BigInt(i.data.length);
      return { tag: "output", val: { stream: i.stream, data: i.data, start, end: at[i.stream] } };
    });
    rb.feed([...events, { tag: "heartbeat" }]);
  } else {
    for (const i of items) {
      if (i.lost !== undefined) rb.lose(i.lost, i.from, i.to);
      else rb.push(i.stream, i.data);
    }
  }
  const lostLive = {};
  for (const view of VIEWS) {
    if (rb.spillId(view) !== `${v.spill_id}-${view}`) problems.push(`${view}: the bounder's spill id is ${rb.spillId(view)}`);
    const total = rb.totalBytes(view);
    if (total !== BigInt(runViewBytes(items, view).length)) problems.push(`${view}: total-bytes ${total} while pushing`);
    lostLive[view] = rb.lostBytes(view);
  }
  const retained = rb.retainedBytes();
  // docs/preview.md: each view's terminal window adds 8 × max(2 × max_bytes + 8, 4096) + 16 KiB.
  const cap = 2n * maxBytes + 8n > 4096n ? 2n * maxBytes + 8n : 4096n;
  const windows = v.terminal ? 3n * (8n * cap + 16384n) : 0n;
  if (retained > 6n * (2n * maxBytes + 8n) + maxBytes / 4n + 4n + 32n * (maxBytes / 4n + 5n) + windows) problems.push(`retained-bytes ${retained} over the limits' bound`);
  let pending;
  try {
    pending = mod.run.RunBounder.finish(rb);
  } catch (err) {
    if (!isWitError(err)) throw err;
    if (err.kind !== "limits") problems.push(`finish failed with ${err.code}`);
    return { error: err.code };
  }
  const out = {};
  for (const view of VIEWS) {
    const p = pending.render(view, runOutcome(v, view), v.hint ?? undefined);
    const [lostBytes, lostRanges] = pending.lost(view);
    if (lostBytes !== lostLive[view]) problems.push(`${view}: lost-bytes ${lostLive[view]} before finish, ${lostBytes} after`);
    out[view] = {
      preview: p.text,
      truncated: p.truncated,
      total_bytes: num(pending.totalBytes(view)),
      lost_bytes: num(lostBytes),
      lost_ranges: num(lostRanges),
      needs_spill: pending.needsSpill(view),
      spill_id: pending.spillId(view),
      spill_path: p.spillPath ?? null,
      spill_error: p.spillError !== undefined,
      tokens: num(p.tokens) ?? null,
    };
  }
  pending[Symbol.dispose]();
  return { ok: out };
}

/**
 * The problems of a run vector against `expect` (the vector's own by
 * default): each view's expected fields, both limits, each view without
 * losses or a stderr section equal to `preview.bound` of its bytes, and the
 * same result byte by byte, at the Rust runner's seeded splits and through
 * `feed`.
 */
export function checkRunVector(mod, v, expect = v.expect) {
  const missing = missingTokenizer(mod, v);
  if (missing !== null) return tokenizerRefusals(mod, v, missing);
  const problems = [];
  const items = runItems(v);
  const got = playRun(mod, v, items, { problems });
  let refused = false;
  try {
    mod.run.checkLimits(BigInt(v.max_lines), BigInt(v.max_bytes));
  } catch (err) {
    if (!isWitError(err) || err.code !== "invalid_limits") throw err;
    refused = true;
  }
  // check-limits has no token limit: the core's rule for one (RunBounder::check_tokens).
  const maxTokens = vectorTokens(v).maxTokens;
  if (maxTokens !== undefined && BigInt(maxTokens) < mod.run.minRunMaxBytes()) refused = true;
  if (expect.error) {
    if (got.error !== expect.error.code) problems.push(`expected error ${JSON.stringify(expect.error)}, got ${JSON.stringify(got, big)}`);
    if (!refused && expect.error.code === "invalid_limits") problems.push("check-limits accepts limits a run fails with");
  } else if (got.error) {
    problems.push(`unexpected error ${got.error}`);
  } else {
    for (const view of VIEWS) {
      if (!expect[view]) {
        problems.push(`expect.${view} missing`);
        continue;
      }
      const have = got.ok[view];
      for (const [key, want] of Object.entries(expect[view])) {
        if (!same(have[key], want)) problems.push(`${view}.${key}: got ${JSON.stringify(have[key], big)}, expected ${JSON.stringify(want, big)}`);
      }
      const text = have.preview;
      const size = Buffer.byteLength(text);
      if (size > v.max_bytes || textLines(text) > v.max_lines) problems.push(`${view}: ${size} bytes, ${textLines(text)} lines over ${v.max_lines}/${v.max_bytes}`);
      problems.push(...tokenProblems(mod, v, text, have.tokens, view));
      if (have.lost_bytes === 0 && !text.includes("[... the last ")) {
        const options = previewOptions(v.keep, v.terminal, undefined, vectorTokens(v));
        const bounded = mod.preview.bound(runViewBytes(items, view), BigInt(v.max_lines), BigInt(v.max_bytes), `${v.spill_id}-${view}`, options);
        let whole;
        if (bounded.tag === "fits") whole = bounded.val.text;
        else {
          whole = bounded.val.render(runOutcome(v, view), v.hint ?? undefined).text;
          bounded.val[Symbol.dispose]();
        }
        if (whole !== text) problems.push(`${view}: differs from bound() of its bytes:\n${whole}\n---\n${text}`);
      }
    }
  }
  const rng = new SplitMix64(0x5eed0000 + items.length);
  const rounds = [["byte by byte", () => playRun(mod, v, resplitRun(items), { problems })]];
  for (let r = 1; r < 7; r++) rounds.push([`split round ${r}`, () => playRun(mod, v, resplitRun(items, rng), { problems })]);
  rounds.push(["feed (events)", () => playRun(mod, v, items, { asEvents: true, problems })]);
  for (const [how, play] of rounds) {
    const again = play();
    if (!same(again, got)) problems.push(`${how} gives another result: ${JSON.stringify(again, big)}`);
  }
  return problems;
}

// -- run conversations (docs/VECTORS.md, "kind run-conversation") -------------

/** The `run-options` of a run-conversation vector; absent ones stay absent (the core's defaults). */
export function runOptions(v) {
  const r = v.run;
  const out = { follow: followOptions(v) };
  if (r.max_lines !== undefined) out.maxLines = BigInt(r.max_lines);
  if (r.max_bytes !== undefined) out.maxBytes = BigInt(r.max_bytes);
  if (r.idempotency_key !== undefined) out.idempotencyKey = r.idempotency_key;
  if (r.timeout_seconds !== undefined) out.timeoutSeconds = Number(r.timeout_seconds);
  if (r.hint !== undefined) out.hint = r.hint;
  out.killOnCancel = Boolean(r.kill_on_cancel);
  out.spill = Boolean(r.spill);
  out.onOutput = Boolean(r.on_output);
  if (r.answer_timeout_ms !== undefined) out.answerTimeoutNs = msToNs(r.answer_timeout_ms);
  // Absent: the run's defaults; a null keep is keep::none.
  if (r.keep !== undefined) out.keep = previewOptions(r.keep, false).keep;
  if (r.terminal !== undefined) out.terminal = r.terminal;
  // The previews' token limit (absent: none).
  Object.assign(out, vectorTokens(r));
  return out;
}

/** The `run` of a run-conversation vector: `{ ok: run }` or `{ err: record }`. */
export function runOf(mod, v) {
  const r = v.run;
  const command = typeof r.command === "string" ? { tag: "shell", val: r.command } : { tag: "argv", val: r.command };
  const random = r.random_hex === undefined ? new Uint8Array(16) : new Uint8Array(Buffer.from(r.random_hex, "hex"));
  return attempt(() => new mod.runMachine.Run(r.computer_id, command, runOptions(v), random));
}

/** A component `run-step` in the vectors' shape. */
export function runStepToVector(step) {
  switch (step.tag) {
    case "send":
    case "done":
    case "cancelled":
      return { type: step.tag };
    case "wait": {
      let reconnect = null;
      if (step.val.reconnect) {
        const { type: _, ...rest } = decisionToVector({ tag: "reconnect", val: step.val.reconnect });
        reconnect = rest;
      }
      return { type: "wait", delay_ms: Number(step.val.delayNs) / 1e6, reconnect };
    }
    default:
      throw new Error(`unknown run step tag ${step.tag}`);
  }
}

function runPreviewToVector(p) {
  return {
    text: p.text,
    truncated: p.truncated,
    total_bytes: num(p.totalBytes),
    total_lines: num(p.totalLines),
    spill_id: p.spillId ?? null,
    spill_path: p.spillPath ?? null,
    spill_error: p.spillError ?? null,
    tokens: num(p.tokens) ?? null,
  };
}

/** A component `run-result` in the vectors' shape. */
export function runResultToVector(r) {
  return {
    proc_id: r.procId,
    idempotency_key: r.idempotencyKey,
    exit_code: num(r.exitCode) ?? null,
    timed_out: r.timedOut,
    stdout_lost_bytes: num(r.stdoutLostBytes),
    stderr_lost_bytes: num(r.stderrLostBytes),
    stdout: runPreviewToVector(r.stdout),
    stderr: runPreviewToVector(r.stderr),
    combined: runPreviewToVector(r.combined),
  };
}

/**
 * The runner's client: a spill writer that records each view's bytes (or
 * fails as the vector's `spill_writer` says) and an output hook that
 * records; order problems (a write before the open, anything after the end)
 * are noted. Failures are reported to the run after the call that gave the
 * action returned; each commit's outcome after `done`.
 */
class RunClient {
  constructor(v) {
    this.files = {};
    this.output = {};
    this.fail = v.spill_writer ?? null;
    this.failed = [];
    this.commits = [];
  }

  fails(view, at) {
    return this.fail !== null && this.fail.view === view && this.fail.at === at;
  }

  file(view) {
    this.files[view] ??= { spillId: "", data: [], end: null, problems: [] };
    return this.files[view];
  }

  act(actions) {
    for (const action of actions) {
      const a = action.val;
      switch (action.tag) {
        case "open-spill": {
          const file = this.file(a.view);
          if (file.spillId) file.problems.push("opened twice");
          file.spillId = a.spillId;
          if (this.fails(a.view, "open")) {
            file.end = "failed";
            this.failed.push(a.view);
          }
          break;
        }
        case "write-spill": {
          const file = this.file(a.view);
          if (!file.spillId) file.problems.push("a write before the open");
          if (!(a.data instanceof Uint8Array)) file.problems.push("data is not a Uint8Array");
          if (file.end === "failed") break; // the writer failed: nothing more
          if (file.end !== null) file.problems.push(`a write after ${file.end}`);
          else if (this.fails(a.view, "write")) {
            file.end = "failed";
            this.failed.push(a.view);
          } else file.data.push(Buffer.from(a.data));
          break;
        }
        case "commit-spill": {
          const file = this.file(a);
          if (file.end !== null) file.problems.push("a commit after its end");
          file.end = this.fails(a, "commit") ? "failed" : "commit";
          this.commits.push(a);
          break;
        }
        case "discard-spill": {
          const file = this.file(a);
          if (file.end !== null && file.end !== "failed") file.problems.push("a discard after its end");
          if (file.end === null) file.end = "discard";
          break;
        }
        case "output": {
          this.output[a.stream] ??= { data: [], text: "" };
          this.output[a.stream].data.push(Buffer.from(a.data));
          this.output[a.stream].text += a.text;
          break;
        }
        default:
          throw new Error(`unknown run action tag ${action.tag}`);
      }
    }
  }

  error() {
    return this.fail?.error ?? "";
  }

  report(run) {
    for (const view of this.failed.splice(0)) run.spillFailed(view, this.error());
  }

  commit(run) {
    for (const view of this.commits.splice(0)) {
      const outcome = this.files[view].end === "failed" ? { tag: "failed", val: this.error() } : { tag: "saved", val: `/spill/${run.spillId(view)}` };
      run.spillCommitted(view, outcome);
    }
  }

  /** What the client saw, in a comparable shape. */
  seen() {
    const files = {};
    for (const [view, f] of Object.entries(this.files)) files[view] = { spill_id: f.spillId, data_b64: Buffer.concat(f.data).toString("base64"), end: f.end, problems: f.problems };
    const output = {};
    for (const [stream, o] of Object.entries(this.output)) output[stream] = { data_b64: Buffer.concat(o.data).toString("base64"), text: o.text };
    return { files, output };
  }
}

/**
 * One exchange of a run conversation: the run's request, then its answer
 * played as the vector says (the body cut by the `mode`-th chunking).
 * Returns `{ ok: step }` or `{ err: record }`.
 */
function playRunExchange(run, x, name, mode, client, requests) {
  const req = attempt(() => run.request());
  if (req.err) return req;
  requests.push(requestToVector(req.ok));
  const check = (cond, what) => {
    if (!cond) throw new Error(`${name}: ${what}`);
  };
  const cancelled = () => {
    const c = run.cancel();
    client.act(c.actions);
    return { ok: c.step };
  };
  const response = x.response;
  if (response === undefined) {
    check(x.cancel, "an exchange without a response cancels");
    return cancelled();
  }
  const jitter = Number(x.jitter ?? 0);
  const stall = Boolean(response.stall);
  if (response.not_connected !== undefined) {
    return attempt(() => run.notConnected(response.not_connected, jitter));
  }
  if (response.no_response !== undefined || (stall && response.status === undefined)) {
    if (stall) {
      const limit = run.waitLimitNs();
      check(limit !== undefined, "a bounded wait for the headers");
      check(run.waitedNs(limit), "the headers wait is over");
    }
    return attempt(() => run.noResponse(response.no_response ?? "", jitter));
  }
  const retryAfter = response.retry_after === undefined ? undefined : String(response.retry_after);
  const opened = attempt(() => run.open(response.status, response.content_type ?? "", response.proc_id ?? undefined, retryAfter));
  if (opened.err) return opened;
  let trickled = false;
  if (response.pieces) {
    for (const piece of response.pieces) {
      if (run.waitedNs(msToNs(piece.wait_ms))) {
        trickled = true;
        break;
      }
      const fed = run.feed(new TextEncoder().encode(piece.body));
      client.act(fed.actions);
      client.report(run);
      if (fed.error) return { err: fed.error };
    }
  } else {
    for (const chunk of cut(name, response, mode)) {
      const fed = run.feed(chunk);
      client.act(fed.actions);
      client.report(run);
      if (fed.error) return { err: fed.error };
    }
  }
  if (x.cancel) return cancelled();
  if (stall && !trickled) {
    const limit = run.waitLimitNs();
    check(limit !== undefined, "a bounded wait for the body");
    check(run.waitedNs(limit), "the stream stalls");
  }
  const finished = run.finish(trickled ? undefined : (response.broken ?? undefined), jitter);
  client.act(finished.actions);
  client.report(run);
  return finished.step.tag === "ok" ? { ok: finished.step.val } : { err: finished.step.val };
}

/**
 * Plays a run-conversation vector with every body cut by the `mode`-th
 * chunking. Returns what was observed: the requests, the steps, the
 * client's files and hook output, the result and the run's state.
 */
export function playRunConversation(mod, v, mode, table = errorTable(mod)) {
  const client = new RunClient(v);
  const played = { requests: [], steps: [], result: null, state: "failed" };
  const built = runOf(mod, v);
  if (built.err) {
    played.steps.push(checkedError(built.err, table));
    return { ...played, ...client.seen() };
  }
  const run = built.ok;
  for (const [i, x] of v.exchanges.entries()) {
    const name = `${v.name} (exchange ${i + 1})`;
    let step;
    if (x.request === undefined) {
      const c = run.cancel();
      client.act(c.actions);
      step = { ok: c.step };
    } else {
      step = playRunExchange(run, x, name, mode, client, played.requests);
    }
    if (step.err) {
      played.steps.push(checkedError(step.err, table));
      break;
    }
    played.steps.push(runStepToVector(step.ok));
    if (step.ok.tag === "done") {
      client.commit(run);
      const r = attempt(() => run.result());
      played.result = r.err ? checkedError(r.err, table) : runResultToVector(r.ok);
      // Each preview's tokens counted again (docs/VECTORS.md).
      const problems = r.err ? [] : VIEWS.flatMap((view) => tokenProblems(mod, v.run, r.ok[view].text, num(r.ok[view].tokens) ?? null, `result ${view}`));
      if (problems.length > 0) played.tokenProblems = problems;
    }
  }
  played.state = run.state();
  run[Symbol.dispose]();
  return { ...played, ...client.seen() };
}

/** Whether `actual` holds every key of `expected` with an equal value (recursively into objects). */
function subsetMatches(expected, actual) {
  if (expected !== null && typeof expected === "object" && !Array.isArray(expected) && actual !== null && typeof actual === "object" && !Array.isArray(actual)) {
    return Object.entries(expected).every(([k, e]) => Object.hasOwn(actual, k) && subsetMatches(e, actual[k]));
  }
  return same(expected, actual);
}

/** A step against the vector's: delays within 1e-3 ms, a `null` reconnect only null, the rest a subset. */
function runStepMatches(expected, got) {
  const e = structuredClone(expected);
  const g = structuredClone(got);
  const delays = (x) => {
    const out = [];
    if (x !== null && typeof x === "object") {
      if (x.delay_ms !== undefined) {
        out.push(Number(x.delay_ms));
        delete x.delay_ms;
      }
      if (x.reconnect && typeof x.reconnect === "object" && x.reconnect.delay_ms !== undefined) {
        out.push(Number(x.reconnect.delay_ms));
        delete x.reconnect.delay_ms;
      }
    }
    return out;
  };
  const [ed, gd] = [delays(e), delays(g)];
  const delaysOk = ed.length <= gd.length && ed.every((d, i) => Math.abs(d - gd[i]) < 1e-3);
  const reconnectOk = !(Object.hasOwn(e, "reconnect") && e.reconnect === null) || g.reconnect === null || g.reconnect === undefined;
  return delaysOk && reconnectOk && subsetMatches(e, g);
}

const b64OfText = (text) => Buffer.from(text, "utf8").toString("base64");

/** The expected bytes `data` / `data_b64` of a spill or hook expectation, as base64 (undefined: not said). */
function expectedB64(x) {
  if (x.data !== undefined) return b64OfText(x.data);
  return x.data_b64;
}

/** How a play of a run-conversation vector differs from the vector (empty: it agrees). */
export function runConversationProblems(v, played) {
  const problems = [...(played.tokenProblems ?? [])];
  const exchanges = v.exchanges;
  const show = (x) => JSON.stringify(x, big);
  if (played.steps.length !== exchanges.length) problems.push(`${exchanges.length} exchanges scripted, the run had ${played.steps.length}: ${show(played.steps)}`);
  const expectedRequests = exchanges.filter((x) => x.request !== undefined).map((x) => x.request);
  expectedRequests.forEach((want, i) => {
    const got = played.requests[i];
    if (got === undefined) return;
    const w = { body: null, ...want };
    if (!same(w, got)) problems.push(`request ${i}: expected ${show(w)}, got ${show(got)}`);
  });
  exchanges.forEach((x, i) => {
    const got = played.steps[i];
    if (got === undefined) return;
    if (x.step === undefined) problems.push(`exchange ${i} has no step`);
    else if (!runStepMatches(x.step, got)) problems.push(`step ${i}: expected ${show(x.step)}, got ${show(got)}`);
  });
  const expect = v.expect;
  if (expect.state !== undefined && expect.state !== played.state) problems.push(`state: expected ${expect.state}, got ${played.state}`);
  const spills = expect.spills ?? {};
  for (const [view, file] of Object.entries(played.files)) {
    for (const p of file.problems) problems.push(`spill ${view}: ${p}`);
    const want = spills[view];
    if (want === undefined) {
      problems.push(`spill ${view} was opened, the vector has none`);
      continue;
    }
    if (want.spill_id !== undefined && want.spill_id !== file.spill_id) problems.push(`spill ${view} id ${file.spill_id} not ${want.spill_id}`);
    const data = expectedB64(want);
    if (data !== undefined && data !== file.data_b64) problems.push(`spill ${view} data: expected ${data}, got ${file.data_b64} (base64)`);
    const end = file.end ?? "open";
    if (want.end !== end) problems.push(`spill ${view} ended ${end}, expected ${want.end}`);
  }
  for (const view of Object.keys(spills)) if (!Object.hasOwn(played.files, view)) problems.push(`spill ${view} was never opened`);
  const output = expect.output ?? {};
  for (const [stream, got] of Object.entries(played.output)) {
    const want = output[stream];
    if (want === undefined) {
      problems.push(`the hook got ${stream}, the vector has none`);
      continue;
    }
    const data = expectedB64(want);
    if (data !== undefined && data !== got.data_b64) problems.push(`output ${stream} data: expected ${data}, got ${got.data_b64} (base64)`);
    if (want.text !== got.text) problems.push(`output ${stream} text: expected ${JSON.stringify(want.text)}, got ${JSON.stringify(got.text)}`);
  }
  for (const stream of Object.keys(output)) if (!Object.hasOwn(played.output, stream)) problems.push(`the hook never got ${stream}`);
  const wantResult = expect.result ?? null;
  const gotResult = played.result;
  if ((wantResult === null) !== (gotResult === null) || (wantResult !== null && !subsetMatches(wantResult, gotResult))) {
    problems.push(`result: expected ${show(wantResult)}, got ${show(gotResult)}`);
  }
  return problems;
}

/**
 * The problems of a run-conversation vector played whole, byte by byte and
 * at seeded random splits: the vector's expectation, and the same play
 * every time.
 */
export function checkRunConversationVector(mod, v) {
  // A tokenizer the component lacks: the `run` constructor refuses it.
  const missing = missingTokenizer(mod, v.run);
  if (missing !== null) {
    const built = runOf(mod, v);
    if (!built.err || built.err.code !== "invalid_argument" || errorArgument(built.err) !== "tokenizer") {
      return [`tokenizer ${JSON.stringify(missing)} must be refused by run with invalid_argument (argument tokenizer), got ${JSON.stringify(built.err ?? "a run", big)}`];
    }
    return [];
  }
  const problems = [];
  let reference;
  for (let mode = 0; mode < CONVERSATION_SPLITS; mode++) {
    const how = mode === 0 ? "whole" : mode === 1 ? "byte by byte" : `random splits #${mode - 1}`;
    const played = playRunConversation(mod, v, mode);
    if (mode === 0) for (const p of runConversationProblems(v, played)) problems.push(`${how}: ${p}`);
    reference ??= played;
    if (!same(played, reference)) problems.push(`${how}: differs from the whole bodies: ${JSON.stringify(played, big)}`);
  }
  return problems;
}
