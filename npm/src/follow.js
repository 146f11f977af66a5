// A whole read of retained output across responses, sans IO (`Follower`):
// the core decides every request, reconnect, delay and the end.

import { ready, wasm } from "#platform";
import {
  checkBoolean,
  checkNumber,
  checkOptions,
  checkString,
  commandJson,
  cursorArgs,
  describe,
  jitterArg,
  optionalString,
  resumeJson,
  timeoutMsArg,
  toBytes,
  transportDetail,
} from "./args.js";
import { FOLLOW_DEFAULTS } from "./constants.js";
import { InvalidArgument, misuse, rethrow, toError } from "./errors.js";
import { buildEvents } from "./events.js";
import { built, callOf } from "./request.js";
import { Transcript, transcriptInner } from "./transcript.js";

/** A decision that crossed as JSON (its keys already the JS ones). */
function decisionObject(d) {
  if (d === null || (d.type !== "done" && d.type !== "reconnect" && d.type !== "continue")) {
    throw new Error(`dory-wire: unknown decision ${JSON.stringify(d)} (binding mismatch)`);
  }
  return d;
}

/** Module-private token: lets the static constructors build a follower around an inner one. */
const ADOPT = Symbol("adopt");

// The follower's option names, and the type of each, are those of the
// core's defaults (`core.followDefaults`): nothing about them is typed
// again here. Their values are converted by the core's binding, which
// refuses a value with no conversion as `invalid_argument`.
const FOLLOW_OPTIONS = Object.keys(FOLLOW_DEFAULTS);


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
export class Follower {
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
    ready();
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
    ready();
    checkString(computerId, "computerId");
    const json = resumeJson(state);
    const o = checkOptions(options, FOLLOW_OPTIONS, "Follower option");
    return Follower.#build((opts) => wasm.WasmFollower.resume(computerId, json, opts), o);
  }

  /** Follows the setup command's logs of `computerId` from `options.offset` (default 0). */
  static setupLogs(computerId, options) {
    ready();
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
    ready();
    checkString(computerId, "computerId");
    const cmd = commandJson(command);
    const o = checkOptions(options, ["timeoutMs", "idempotencyKey", ...FOLLOW_OPTIONS], "Follower option");
    const timeout = timeoutMsArg(o.timeoutMs, InvalidArgument);
    const key = optionalString(o.idempotencyKey, "idempotencyKey");
    return Follower.#build((opts) => wasm.WasmFollower.exec_stream(computerId, cmd, timeout, key, opts), o);
  }

  /**
   * Drives a one-answer call — a request of `Request.start`,
   * `Request.exec` (without `stream`), `Request.getProcess` or
   * `Request.kill` — to its answer: its one event, then `done`. No
   * response, a cut answer, no answer within the liveness timeout, a 503
   * or 429: sent again within the budget only when the request is
   * idempotent (a get, a kill, a keyed start or exec); otherwise, and once
   * the budget is spent, `NoAnswer`.
   */
  static call(request, options) {
    ready();
    const how = callOf(request);
    if (how === undefined) {
      throw new TypeError(`Follower.call() takes a request of Request.start(), Request.exec() (without stream), Request.getProcess() or Request.kill(), got ${describe(request)}`);
    }
    const o = checkOptions(options, FOLLOW_OPTIONS, "Follower option");
    const [name, ...args] = how;
    return Follower.#build((opts) => wasm.WasmFollower[name](...args, opts), o);
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
   * No response came: the request was sent (or may have been) and the
   * connection was reset or closed, or no headers came within `waitLimitMs()`
   * (`waitedMs()` returned true); a connection never made is `notConnected()`. `detail` is
   * what the transport said (a string or its Error). Returns the decision.
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
   * The connection was never made: refused, the name lookup failed, the
   * connect timed out. The request never left the machine, so it is sent
   * again whatever it is (an unkeyed start or exec too), within the budget
   * and backoff of any reconnect (reason `not_connected`). `detail` is what
   * the transport said (a string or its Error). Returns the decision.
   */
  notConnected(detail, jitter) {
    const inner = this.#live();
    const text = transportDetail(detail, "detail") ?? "";
    const j = jitterArg(jitter);
    let json;
    try {
      json = inner.not_connected(text, j);
    } catch (e) {
      rethrow(e);
    }
    return decisionObject(JSON.parse(json));
  }

  /**
   * The longest the next wait for the service (for the headers, then for
   * more of the body) may last, in ms; null: no limit. Wait at most this
   * long, then report the wait with `waitedMs`. The follower keeps its own
   * wait clock, so time spent between reads (the consumer's) never counts
   * as a stall.
   */
  waitLimitMs() {
    return this.#live().wait_limit_ms() ?? null;
  }

  /**
   * One wait for the service took `elapsedMs`, whether or not anything
   * came. True when the liveness timeout is spent: abort, then
   * `noResponse()` (no headers yet) or `finish()` without a transport
   * error (a body).
   */
  waitedMs(elapsedMs) {
    const inner = this.#live();
    const elapsed = checkNumber(elapsedMs, "elapsedMs");
    try {
      return inner.waited(elapsed);
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
