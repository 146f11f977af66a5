// The client's option names and defaults, and its argument checks: the
// core checks the values (its refusals name the caller's argument), these
// the JavaScript types.

import { Follower, InvalidArgument, Transcript } from "dory-wire";
import { describe, RENAMED_OPTIONS, renamedOption } from "../args.js";

/** How many requests a client has in flight at once, by default (httpx's pool: 100). */
export const DEFAULT_MAX_CONNECTIONS = 100;

/**
 * The core's follow options the one-call reads (and the exec stream)
 * accept: every option of `Follower.defaults` but the frame limit and
 * strictness, which are the client's. Their names, types, values and
 * defaults are the core's.
 */
export const FOLLOW_OPTIONS = Object.keys(Follower.defaults).filter((name) => name !== "maxFrameBytes" && name !== "strict");
/** Those of them that apply to one response (the frame iterators). */
export const RESPONSE_OPTIONS = FOLLOW_OPTIONS.filter((name) => name === "follow" || name === "gapPolicy" || name === "livenessTimeoutMs");


export function options(value, allowed, what) {
  if (value === undefined || value === null) return {};
  if (typeof value !== "object" || Array.isArray(value)) {
    throw new TypeError(`${what} must be an object, got ${describe(value)}`);
  }
  for (const key of Object.keys(value)) {
    if (Object.prototype.hasOwnProperty.call(RENAMED_OPTIONS, key) && !allowed.includes(key)) throw renamedOption(what, key);
    if (!allowed.includes(key)) throw new TypeError(`unknown ${what} "${key}" (expected ${allowed.join(", ")})`);
  }
  return value;
}

export const given = (v) => v !== undefined && v !== null;

/** A number argument the core will check (a bigint is a number); a wrong type is a TypeError naming it. */
export function numberArg(value, what) {
  if (given(value) && typeof value !== "number" && typeof value !== "bigint") {
    throw new TypeError(`${what} must be a number, got ${describe(value)}`);
  }
  return given(value) ? value : undefined;
}

export function stringArg(value, what) {
  if (given(value) && typeof value !== "string") throw new TypeError(`${what} must be a string, got ${describe(value)}`);
  return given(value) ? value : undefined;
}

/** One option under its name or its documented wire alias, not both. */
function aliased(o, name, alias) {
  if (given(o[name]) && given(o[alias])) throw new TypeError(`pass ${name} or its wire spelling ${alias}, not both`);
  return given(o[name]) ? name : alias;
}

/**
 * The start's options (`timeoutMs`, `idempotencyKey`, or the wire's
 * `timeout_seconds`, `idempotency_key`, documented aliases) under the
 * core's names. `timeoutMs` is sent as `timeoutMs / 1000` seconds, as the
 * core writes it (the same deadline as Python's and Rust's
 * `timeout_seconds`); `timeout_seconds` as it is.
 */
export function startArgs(o) {
  const key = aliased(o, "idempotencyKey", "idempotency_key");
  const idempotencyKey = stringArg(o[key], key);
  if (aliased(o, "timeoutMs", "timeout_seconds") === "timeoutMs") {
    return { timeoutMs: numberArg(o.timeoutMs, "timeoutMs"), idempotencyKey };
  }
  // The core checks the deadline (a positive number), whichever name gave it.
  const seconds = numberArg(o.timeout_seconds, "timeout_seconds");
  return { timeoutMs: seconds === undefined ? undefined : Number(seconds) * 1000, idempotencyKey };
}

/**
 * Builds with the core, naming the caller's argument in its refusal: the
 * core names what it was given (`cursor.stdout`), the caller may have
 * written another name for it (`stdout_offset`).
 */
export function built(make, names) {
  try {
    return make();
  } catch (error) {
    if (!(error instanceof InvalidArgument)) throw error;
    // The binding already names the argument as JavaScript does (the core's
    // rule, names::js_argument); only the caller's own spellings remain.
    const name = names?.[error.argument];
    if (name === undefined || name === error.argument) throw error;
    return throwRenamed(error, name);
  }
}

function throwRenamed(error, name) {
  throw new InvalidArgument(`invalid_argument: ${name}: ${error.reason}`, { argument: name, reason: error.reason });
}

/**
 * Where a read of process output starts: `cursor` ({stdout, stderr}, a
 * reader's or an error's own) or the wire's `stdout_offset` /
 * `stderr_offset`, not both; `names` maps the core's argument names back
 * to the caller's.
 */
export function startCursor(o) {
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
export function followArgs(client, o, allowed) {
  const f = {};
  if (client.livenessTimeoutMs !== undefined) f.livenessTimeoutMs = client.livenessTimeoutMs;
  if (client.maxFrameBytes !== undefined) f.maxFrameBytes = client.maxFrameBytes;
  for (const name of allowed) if (o[name] !== undefined) f[name] = o[name];
  return f;
}

export function hookArg(value) {
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
export function whenLoaded(make) {
  try {
    return make();
  } catch (error) {
    // The browser build's "call `await init()`" is a plain Error; anything else is about the arguments.
    if (error === null || typeof error !== "object" || error.constructor !== Error) throw error;
    return undefined;
  }
}


export const OFFSETS = ["stdout_offset", "stderr_offset", "cursor"];
export const STREAM_OPTIONS = RESPONSE_OPTIONS;
export const READ_OPTIONS = [...FOLLOW_OPTIONS, "transcript", "onReconnect"];
export const START_OPTIONS = ["timeoutMs", "idempotencyKey", "timeout_seconds", "idempotency_key"];

/** The `transcript` option: a core Transcript, or none. */
export function transcriptArg(value) {
  if (value === undefined || value === null) return undefined;
  if (!(value instanceof Transcript)) throw new TypeError(`transcript must be a Transcript, got ${describe(value)}`);
  return value;
}
