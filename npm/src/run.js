// The agent call's whole conversation, sans IO (`Run`; docs/run.md, "The
// conversation"): the keyed start, the output from offset 0, the views'
// spill and hook actions, a cancel's kill, and the result. Every decision
// is the core's (`dory_wire::Run`); this layer checks the JavaScript types,
// builds the action objects out of wasm memory (bindings/wasm/src/run/
// actions.rs: one record of six numbers per action, the bytes of the call
// in one buffer, the hook's texts in one string) and maps errors.

import { copyOut, ready, wasm } from "#platform";
import {
  checkBoolean,
  checkName,
  checkNumber,
  checkOptions,
  checkString,
  commandJson,
  jitterArg,
  optionalNumber,
  optionalString,
  toBytes,
  transportDetail,
} from "./args.js";
import { FOLLOW_DEFAULTS } from "./constants.js";
import { checkKeepTerminal, checkTokens, spillFileName } from "./preview.js";
import { misuse, rethrow, toError } from "./errors.js";
import { memoryBuffer } from "./memory.js";
import { built } from "./request.js";
// The result's toJSON (the canonical JSON of docs/schema/run-result.schema.json).
import { toRunResult } from "./preview.js";

const FOLLOW_OPTIONS = Object.keys(FOLLOW_DEFAULTS);
/** The options of `new Run(...)`: the run's, then the follow options (those of `Follower`). */
const RUN_MACHINE_OPTIONS = [
  "random",
  "maxLines",
  "maxBytes",
  "maxTokens",
  "tokenizer",
  "idempotencyKey",
  "timeoutMs",
  "hint",
  "killOnCancel",
  "spill",
  "onOutput",
  "answerTimeoutMs",
  "keep",
  "terminal",
  ...FOLLOW_OPTIONS,
];
const VIEWS = ["stdout", "stderr", "combined"];
const KINDS = ["openSpill", "writeSpill", "output", "commitSpill", "discardSpill"];
/** Numbers per action record (`ACTION_F64S` of bindings/wasm/src/run/actions.rs). */
const ACTION_F64S = 6;

/** The tag of a view (0 stdout, 1 stderr, 2 combined). */
function viewTag(view) {
  return VIEWS.indexOf(checkName(view, VIEWS, "view"));
}

/** `wasm` calls that throw an error-object JSON string, as DoryWireErrors. */
function core(call) {
  try {
    return call();
  } catch (e) {
    return rethrow(e);
  }
}

/** The core's follow options for the given ones, converted as a Follower's (the same types, checks and errors). */
function followOptions(o) {
  const options = new wasm.WasmFollowOptions();
  try {
    for (const name of FOLLOW_OPTIONS) {
      const value = o[name];
      if (value === undefined) continue;
      const type = typeof FOLLOW_DEFAULTS[name];
      let error;
      if (type === "boolean") error = options.set_bool(name, checkBoolean(value, name));
      else if (type === "number") error = options.set_number(name, checkNumber(value, name));
      else error = options.set_string(name, checkString(value, name));
      if (error !== "") throw toError(JSON.parse(error));
    }
  } catch (e) {
    options.free();
    throw e;
  }
  return options;
}

function optionalBoolean(value, what) {
  return value === undefined || value === null ? false : checkBoolean(value, what);
}

/** `Name: message` for what a writer threw (`String(err)` for an Error), as `bound()` says it. */
function errorText(err) {
  try {
    return String(err);
  } catch {
    return typeof err;
  }
}

/** The type name of what a writer returned instead of a path. */
function typeName(value) {
  if (Array.isArray(value)) return "array";
  if (typeof value === "object") return value.constructor?.name ?? "object";
  return typeof value;
}

/**
 * The actions of the last call of `inner`, as plain objects: the writes of
 * one chunk to its stream's view and to the combined view, and its output,
 * share one Uint8Array (a copy, out of wasm memory once per call).
 */
function readActions(inner, spillIds) {
  const n = inner.actions_len();
  if (n === 0) return [];
  // Every wasm call first: the views below stay valid until the next one.
  const text = inner.take_text();
  const metaPtr = inner.meta_ptr();
  const dataPtr = inner.data_ptr();
  const dataLen = inner.data_len();
  const buffer = memoryBuffer();
  const meta = new Float64Array(buffer, metaPtr, n * ACTION_F64S);
  const data = dataLen === 0 ? new Uint8Array(0) : copyOut(new Uint8Array(buffer, dataPtr, dataLen));
  const own = data.buffer;
  const base = data.byteOffset;
  const actions = new Array(n);
  let lastStart = -1;
  let lastEnd = -1;
  let last = null;
  const bytes = (start, end) => {
    if (start === end) return new Uint8Array(0);
    if (start !== lastStart || end !== lastEnd) {
      last = new Uint8Array(own, base + start, end - start);
      lastStart = start;
      lastEnd = end;
    }
    return last;
  };
  for (let i = 0, j = 0; i < n; i++, j += ACTION_F64S) {
    const type = KINDS[meta[j]];
    const tag = meta[j + 1];
    const view = VIEWS[tag];
    switch (type) {
      case "openSpill":
        actions[i] = { type, view, spillId: spillIds[tag] };
        break;
      case "writeSpill":
        actions[i] = { type, view, data: bytes(meta[j + 2], meta[j + 3]) };
        break;
      case "output":
        actions[i] = { type, stream: view, data: bytes(meta[j + 2], meta[j + 3]), text: text.slice(meta[j + 4], meta[j + 5]) };
        break;
      case "commitSpill":
      case "discardSpill":
        actions[i] = { type, view };
        break;
      default:
        throw new Error(`dory-wire: unknown run action ${meta[j]} (binding mismatch)`);
    }
  }
  return actions;
}

/** A step (or an error) that crossed as `{step, error}`. */
function stepOf(side, actions) {
  if (side.error !== null) {
    const error = toError(side.error);
    if (actions !== undefined && actions.length > 0) error.actions = actions;
    throw error;
  }
  return stepObject(side.step);
}

function stepObject(step) {
  if (step === null || !["send", "wait", "done", "cancelled"].includes(step.type)) {
    throw new Error(`dory-wire: unknown run step ${JSON.stringify(step)} (binding mismatch)`);
  }
  return step;
}

/**
 * The agent call `run` as one conversation, sans IO (docs/run.md, "The
 * conversation"): the keyed start (sent again safely when its answer is
 * lost), the process's output from offset 0 through reconnects, the views'
 * spills and the live output hook, a cancel's kill, and the result. It
 * does no IO and has no clock or randomness of its own: drive it as a
 * `Follower` — `request()`, send it, `open(...)`, `feed(chunk)` (its
 * actions), `finish()` or `noResponse()` (the step) — and do what it says.
 *
 * Actions: `{type: "openSpill", view, spillId}`, `{type: "writeSpill",
 * view, data}`, `{type: "output", stream, data, text}`, `{type:
 * "commitSpill", view}` (save it, then `spillCommitted`), `{type:
 * "discardSpill", view}`. Steps: `{type: "send"}`, `{type: "wait",
 * delayMs, reconnect}` (`reconnect`: the output read's record, or null
 * when the start or the kill is sent again), `{type: "done"}` (do the
 * commits, then `result()`), `{type: "cancelled"}`.
 */
export class Run {
  #inner;
  #spillIds;
  #freed = false;

  /**
   * The file name a spill writer saves `spillId`'s output under: the core's
   * one rule for every client (`<spillId><suffix>`, both plain file-name
   * parts: the id 1 to 128 of `[A-Za-z0-9._-]`, not `.` or `..`). The
   * client's `SpillDirectory` names its files with it.
   * @throws {InvalidArgument} an id (argument `spillId`) or suffix (`suffix`) that is not
   */
  static spillFileName(spillId, suffix) {
    return spillFileName(spillId, suffix);
  }

  /**
   * A run of `command` on `computerId`, checked whole before any request:
   * the limits, the command, the key, the timeout, the follow options (a
   * `Follower`'s; `follow` must be true), `answerTimeoutMs` and the
   * previews' `keep` and `terminal` (a bounder's options, but by default the
   * default patterns and on: a model reads the previews, the spill keeps
   * the raw bytes; `{keep: null, terminal: false}` gives the raw text), the
   * previews' token limit (`maxTokens`, `tokenizer`: read by the core's
   * rule, as a bounder's; none by default). `random`
   * is 16 bytes from a secure source (`crypto.getRandomValues(new
   * Uint8Array(16))`): the fresh `run-` key when no `idempotencyKey` is
   * given. A wrong type is a TypeError; a wrong value the core's
   * InvalidArgument or InvalidLimits.
   */
  constructor(computerId, command, options) {
    ready();
    checkString(computerId, "computerId");
    const cmd = commandJson(command);
    const o = checkOptions(options, RUN_MACHINE_OPTIONS, "Run option");
    if (o.random === undefined || o.random === null) {
      throw new TypeError("Run needs random: 16 bytes from a secure source (crypto.getRandomValues(new Uint8Array(16)))");
    }
    const random = toBytes(o.random, "random");
    const maxLines = optionalNumber(o.maxLines, "maxLines");
    const maxBytes = optionalNumber(o.maxBytes, "maxBytes");
    const [maxTokens, tokenizer] = checkTokens(o);
    const key = optionalString(o.idempotencyKey, "idempotencyKey");
    const timeout = optionalNumber(o.timeoutMs, "timeoutMs");
    const hint = optionalString(o.hint, "hint");
    const kill = optionalBoolean(o.killOnCancel, "killOnCancel");
    const spill = optionalBoolean(o.spill, "spill");
    const onOutput = optionalBoolean(o.onOutput, "onOutput");
    const answer = optionalNumber(o.answerTimeoutMs, "answerTimeoutMs");
    // keep and terminal as a bounder's, except that undefined is the run's
    // default, the core's (the default patterns, terminal on); null keep is off.
    const keepGiven = o.keep !== undefined;
    const [keepWord, keepPatterns] = checkKeepTerminal({ keep: o.keep });
    const terminal = o.terminal === undefined ? undefined : checkBoolean(o.terminal, "terminal");
    const follow = followOptions(o);
    this.#inner = core(
      () =>
        new wasm.WasmRun(computerId, cmd, random, follow, maxLines, maxBytes, key, timeout, hint, kill, spill, onOutput, answer, keepGiven, keepWord, keepPatterns, terminal, maxTokens, tokenizer),
    );
    this.#spillIds = VIEWS.map((_, tag) => this.#inner.spill_id(tag));
  }

  #live() {
    if (this.#freed) throw misuse("this Run was freed");
    return this.#inner;
  }

  /** The next request to send: first, and after a `send` or `wait` step (once its delay passed). */
  request() {
    const inner = this.#live();
    return built(() => inner.request());
  }

  /** The answer's status, Content-Type, `CE-Process-Id` and `Retry-After` headers, as `Follower.open` takes them. */
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
   * Feeds the next piece of the body (split anywhere) and returns the
   * actions it brought, in order. When actions came before an error in the
   * same piece, they are returned and the (sticky) error is thrown by the
   * next call.
   */
  feed(chunk) {
    const inner = this.#live();
    const error = inner.feed(toBytes(chunk, "feed()"));
    const actions = readActions(inner, this.#spillIds);
    if (error !== "" && actions.length === 0) throw toError(JSON.parse(error));
    return actions;
  }

  /**
   * The body ended: cleanly (no `transportError`) or broken (what the
   * transport said: a string or its Error). `jitter` is a random value in
   * [0, 1] for a delay (default `Math.random()`). Returns `{actions,
   * step}`; the run's error is thrown with the actions given before it as
   * its `actions`.
   */
  finish(transportError, jitter) {
    const inner = this.#live();
    const detail = transportDetail(transportError, "transportError");
    const side = JSON.parse(inner.finish(detail, jitterArg(jitter)));
    const actions = readActions(inner, this.#spillIds);
    return { actions, step: stepOf(side, actions) };
  }

  /** No response came (reset, closed, or no headers within `waitLimitMs()`); returns the step. */
  noResponse(detail, jitter) {
    const inner = this.#live();
    const text = transportDetail(detail, "detail") ?? "";
    return stepOf(JSON.parse(inner.no_response(text, jitterArg(jitter))));
  }

  /**
   * The connection was never made (refused, the name lookup failed, the
   * connect timed out): it cannot have taken effect and is sent again
   * within the budget; returns the step.
   */
  notConnected(detail, jitter) {
    const inner = this.#live();
    const text = transportDetail(detail, "detail") ?? "";
    return stepOf(JSON.parse(inner.not_connected(text, jitterArg(jitter))));
  }

  /**
   * The caller cancelled: `{actions, step}` — the open spills' discards,
   * then `send` for the kill's conversation (with `killOnCancel`; first
   * the keyed start again when the start was sent but not answered) or
   * `cancelled`. A failed kill is not an error: the run ends cancelled.
   */
  cancel() {
    const inner = this.#live();
    const step = JSON.parse(inner.cancel());
    return { actions: readActions(inner, this.#spillIds), step: stepObject(step) };
  }

  /** The longest the next wait for the service may last, in ms; null: no limit (as `Follower.waitLimitMs`). */
  waitLimitMs() {
    return this.#live().wait_limit_ms() ?? null;
  }

  /** One wait for the service took `elapsedMs`; true when the liveness timeout is spent (as `Follower.waitedMs`). */
  waited(elapsedMs) {
    const inner = this.#live();
    const elapsed = checkNumber(elapsedMs, "elapsedMs");
    return core(() => inner.waited(elapsed));
  }

  /**
   * `view`'s spill writer threw `error` (opening or writing): nothing more
   * is written to it, and its preview's `spillError` says `spill writer
   * failed: <String(error)>`. Report it after the call that gave the
   * action returned.
   */
  spillFailed(view, error) {
    const tag = viewTag(view);
    this.#live().spill_failed(tag, errorText(error));
  }

  /**
   * What a `commitSpill` of `view` gave: `{ returned }` what the writer's
   * commit returned (a path string: saved there; null or undefined:
   * nothing saved; anything else is `spill writer returned X instead of a
   * path string`), or `{ threw }` what it threw or rejected with.
   */
  spillCommitted(view, outcome) {
    const tag = viewTag(view);
    const o = checkOptions(outcome, ["returned", "threw"], "spillCommitted outcome");
    const inner = this.#live();
    if (Object.prototype.hasOwnProperty.call(o, "threw")) {
      if (o.returned !== undefined) throw new TypeError("give returned or threw, not both");
      inner.spill_commit_failed(tag, errorText(o.threw));
      return;
    }
    const path = o.returned;
    if (path === null || path === undefined) inner.spill_not_saved(tag);
    else if (typeof path === "string") inner.spill_saved(tag, path);
    else inner.spill_not_a_path(tag, typeName(path));
  }

  /**
   * The result, once the `done` step was given and the commits reported:
   * `{procId, idempotencyKey, exitCode, timedOut, stdout, stderr,
   * combined, stdoutLostBytes, stderrLostBytes}` (the previews are
   * `Preview`s). Taken once.
   */
  result() {
    const inner = this.#live();
    const r = JSON.parse(core(() => inner.result()));
    for (const view of VIEWS) if (r[view].error) throw toError(r[view].error);
    // `JSON.stringify(result)` gives the core's canonical RunResult JSON.
    return toRunResult(r);
  }

  /** The name `view`'s spill is saved under (`<run spill id>-<view>`). */
  spillId(view) {
    const tag = viewTag(view);
    this.#live();
    return this.#spillIds[tag];
  }

  /** The key the start is sent with: the caller's, or the fresh `run-` key made of `random`. */
  get idempotencyKey() {
    return this.#live().idempotency_key();
  }

  /** The process, once the start answered; else null. */
  get procId() {
    return this.#live().proc_id() ?? null;
  }

  /** The offsets of the output consumed so far. */
  get cursor() {
    const c = JSON.parse(this.#live().cursor_json());
    if (c.error) throw toError(c.error);
    return c;
  }

  /** `"starting"`, `"following"`, `"cancelling"`, `"done"`, `"finished"`, `"cancelled"`, `"failed"` or `"freed"`. */
  get state() {
    return this.#freed ? "freed" : this.#inner.state();
  }

  /** Releases the run's WebAssembly memory now (optional; also done on garbage collection). Later calls throw. */
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
  Run.prototype[Symbol.dispose] = Run.prototype.free;
}
