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
      return { type: "exit", exit_code: num(v.exitCode) ?? null, timed_out: v.timedOut };
    case "unknown":
      return { type: "unknown", frame_type: v.frameType };
    case "identity":
      return { type: "identity", proc_id: v.procId, status: v.status };
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
      return { type: "exited", exit_code: num(end.val.exitCode) ?? null, timed_out: end.val.timedOut };
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
 * The preview API of the npm package (`bound`, `StreamingBounder`,
 * `DoryWireError`) on top of the component, so that the npm package's own
 * preview checks run unchanged against it. The spill writer is called
 * between `bound` and `render`: the handshake of the WIT interface.
 */
export function previewApi(mod) {
  class DoryWireError extends Error {
    constructor(err) {
      super(err.message);
      this.code = err.code;
      this.kind = err.kind;
    }
  }
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
    bound(input, { maxLines, maxBytes, spill, spillId, hint } = {}) {
      const data = typeof input === "string" ? encoder.encode(input) : input;
      const bounded = call(() => mod.preview.bound(data, BigInt(maxLines), BigInt(maxBytes), spillId));
      return settle(bounded, data, spill, hint);
    },
    StreamingBounder: class {
      constructor({ maxLines, maxBytes, spillId } = {}) {
        this.inner = new mod.preview.StreamingBounder(BigInt(maxLines), BigInt(maxBytes), spillId);
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
