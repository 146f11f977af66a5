// The preview bounder's JavaScript API (docs/preview.md): `bound`,
// `boundAsync` and `StreamingBounder`, and the token counter of their token
// limit (`countTokens`, `TOKENIZERS`).
//
// The spill handshake stays sans-IO: the core says whether a spill is needed
// and under which id, this layer runs the caller's writer, and the core renders
// the preview from the outcome. A writer that throws, rejects or returns
// something other than a path string never escapes: the notice names no file
// and `spillError` says why, in the core's words (the same texts as Python).

import { core as tables, randomBytes, ready, wasm } from "#platform";
import { checkBoolean, checkOptions, describe, optionalString, toBytes } from "./args.js";
import { rethrow, toError } from "./errors.js";

const encoder = new TextEncoder();

export function inputBytes(data, what) {
  return typeof data === "string" ? encoder.encode(data) : toBytes(data, what);
}

export function checkLimits(o) {
  if (o.maxLines === undefined) throw new TypeError("maxLines is required");
  if (o.maxBytes === undefined) throw new TypeError("maxBytes is required");
  // The range is the core's (preview::checked_limit): an InvalidLimits error from the binding.
  return [limitNumber(o.maxLines, "maxLines"), limitNumber(o.maxBytes, "maxBytes")];
}

/**
 * The `maxTokens` and `tokenizer` options as the binding takes them:
 * `[maxTokens, tokenizer]`, each undefined when absent (or null). Only the
 * JavaScript types are checked here: the number's range, the one rule
 * (neither: no token limit; a tokenizer alone only counts; `maxTokens`
 * alone: the core's default tokenizer) and the names are the core's
 * (`preview::checked_limit`, `preview::token_limit`).
 */
export function checkTokens(o) {
  const maxTokens = o.maxTokens === undefined || o.maxTokens === null ? undefined : limitNumber(o.maxTokens, "maxTokens");
  return [maxTokens, optionalString(o.tokenizer, "tokenizer")];
}

function limitNumber(value, what) {
  if (typeof value === "bigint") return Number(value);
  if (typeof value !== "number") throw new TypeError(`${what} must be a number, got ${describe(value)}`);
  return value;
}

/**
 * The names of the tokenizers this build counts with (the core's
 * `preview::tokenizers()`): `["approx"]` in this package, whose `.wasm`
 * leaves out the exact encodings' vocabularies.
 */
export const TOKENIZERS = Object.freeze([...tables.constants.TOKENIZERS]);

/**
 * How many tokens `text` encodes to under the tokenizer named `tokenizer`
 * (the core's counter, the one a token limit uses; by default the core's
 * default tokenizer, `"o200k_base"`, which this build lacks: name one of
 * `TOKENIZERS`). Throws the core's `InvalidArgument` (argument
 * `tokenizer`) for a name this build lacks.
 */
export function countTokens(text, tokenizer) {
  ready();
  if (typeof text !== "string") throw new TypeError(`countTokens() takes a string, got ${describe(text)}`);
  const name = optionalString(tokenizer, "tokenizer");
  return core(() => wasm.count_tokens(text, name));
}

/**
 * The file name a spill directory saves `spillId`'s output under: the
 * core's one rule for every client (`<spillId><suffix>`, both plain
 * file-name parts). Throws the core's `InvalidArgument` (argument
 * `spillId` or `suffix`). Not part of the package's entry: the client's
 * `SpillDirectory` uses it.
 */
export function spillFileName(spillId, suffix) {
  ready();
  return core(() => wasm.spill_file_name(spillId, suffix));
}

/** The default keep patterns (the core's `Keep::DEFAULT_PATTERNS`). */
export const DEFAULT_KEEP_PATTERNS = Object.freeze([...tables.constants.DEFAULT_KEEP_PATTERNS]);

/**
 * `run`'s preview shape for any tool output, as `bound()`'s options (read
 * from the core's `Bounder::run_preset`): `bound(data, { maxLines, maxBytes,
 * ...RUN_PRESET })`.
 */
export const RUN_PRESET = Object.freeze({ ...tables.constants.RUN_PRESET });

/**
 * The `keep`, `terminal` and `split` options as the core takes them:
 * `[keepWord, keepPatterns, terminal, split]`. `keep` is undefined/null
 * (off), a string (only `"defaults"` is one: the core refuses another) or an
 * array of strings; `terminal` a boolean (default false); `split` a string
 * (`"even"`, the default, or `"tail"`: the core refuses another). Another
 * type is a TypeError.
 */
export function checkKeepTerminal(o) {
  const keep = o.keep;
  let word;
  let patterns;
  if (typeof keep === "string") {
    word = keep;
  } else if (Array.isArray(keep)) {
    patterns = keep.map((p) => {
      if (typeof p !== "string") throw new TypeError(`each keep pattern must be a string, got ${describe(p)}`);
      return p;
    });
  } else if (keep !== undefined && keep !== null) {
    throw new TypeError(`keep must be null, "defaults" or an array of strings, got ${describe(keep)}`);
  }
  const terminal = o.terminal === undefined ? false : checkBoolean(o.terminal, "terminal");
  let split;
  if (o.split !== undefined && o.split !== null) {
    if (typeof o.split !== "string") throw new TypeError(`split must be "even" or "tail", got ${describe(o.split)}`);
    split = o.split;
  }
  return [word, patterns, terminal, split];
}

function checkWriter(spill) {
  if (spill === undefined || spill === null) return undefined;
  if (typeof spill !== "function") {
    throw new TypeError(`spill must be a function (spillId, data) => path | null, got ${describe(spill)}`);
  }
  return spill;
}

export function toPreview(json) {
  const p = JSON.parse(json);
  if (p.error) throw toError(p.error);
  return withToJSON(p);
}

/**
 * The canonical JSON object of a preview (docs/schema/preview.schema.json):
 * the core's `Preview::to_json` parsed, its fields in snake_case and in the
 * core's order, so `JSON.stringify(preview)` gives the core's bytes.
 */
function previewToJSON(p) {
  const range = p.omittedRange;
  return {
    text: p.text,
    truncated: p.truncated,
    total_lines: p.totalLines,
    total_bytes: p.totalBytes,
    head_bytes: p.headBytes,
    tail_bytes: p.tailBytes,
    omitted_lines: p.omittedLines,
    omitted_bytes: p.omittedBytes,
    omitted_range: range === null ? null : { first: range[0], last: range[1] },
    spill_id: p.spillId,
    spill_path: p.spillPath,
    spill_error: p.spillError,
    notices: p.notices.map((n) => ({ kind: n.kind, line: n.line, text: n.text })),
    tokens: p.tokens,
  };
}

/** Gives a preview object from the core its `toJSON` (not enumerable: the fields stay the preview's own). */
export function withToJSON(p) {
  Object.defineProperty(p, "toJSON", {
    value() {
      return previewToJSON(this);
    },
    enumerable: false,
    writable: true,
    configurable: true,
  });
  return p;
}

/**
 * Gives a run's result object (`{procId, …, stdout, stderr, combined, …}`
 * from the core) and its previews their `toJSON`: the core's
 * `RunResult::to_json` parsed (docs/schema/run-result.schema.json).
 */
export function toRunResult(r) {
  for (const view of ["stdout", "stderr", "combined"]) withToJSON(r[view]);
  Object.defineProperty(r, "toJSON", {
    value() {
      return {
        proc_id: this.procId,
        idempotency_key: this.idempotencyKey,
        exit_code: this.exitCode,
        timed_out: this.timedOut,
        stdout: previewToJSON(this.stdout),
        stderr: previewToJSON(this.stderr),
        combined: previewToJSON(this.combined),
        stdout_lost_bytes: this.stdoutLostBytes,
        stderr_lost_bytes: this.stderrLostBytes,
      };
    },
    enumerable: false,
    writable: true,
    configurable: true,
  });
  return r;
}

/** `Name: message` for what a writer threw (`String(err)` for an Error). */
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
 * Renders a pending spill from what the writer returned (or threw):
 * `pending` has the `render_*` methods of a WasmBounded (a run's view has
 * them too, see run-bounder.js).
 */
export function settle(pending, outcome, hint) {
  if (outcome.threw !== undefined) return toPreview(pending.render_writer_failed(errorText(outcome.threw.error), hint));
  if (outcome.useInstead !== undefined) return toPreview(pending.render_asynchronous(outcome.useInstead, hint));
  const path = outcome.value;
  if (path === null || path === undefined) return toPreview(pending.render_not_saved(hint));
  if (typeof path !== "string") return toPreview(pending.render_not_a_path(typeName(path), hint));
  return toPreview(pending.render_saved(path, hint));
}

const BOUND_OPTIONS = ["maxLines", "maxBytes", "maxTokens", "tokenizer", "spill", "spillId", "hint", "keep", "terminal", "split"];
/** The options of `new StreamingBounder` and `new RunBounder`. */
export const BOUNDER_OPTIONS = ["maxLines", "maxBytes", "maxTokens", "tokenizer", "spillId", "keep", "terminal", "split"];

function prepare(data, options, what) {
  ready();
  const o = checkOptions(options, BOUND_OPTIONS, `${what} option`);
  const [maxLines, maxBytes] = checkLimits(o);
  const [maxTokens, tokenizer] = checkTokens(o);
  const spill = checkWriter(o.spill);
  const spillId = optionalString(o.spillId, "spillId");
  const hint = optionalString(o.hint, "hint");
  const [keepWord, keepPatterns, terminal, split] = checkKeepTerminal(o);
  const bytes = inputBytes(data, `${what}()`);
  let bounder;
  try {
    bounder = new wasm.WasmBounder(maxLines, maxBytes, maxTokens, tokenizer, keepWord, keepPatterns, terminal, split);
  } catch (e) {
    rethrow(e);
  }
  // docs/preview.md: a binding's default spill id is random (a content-derived
  // id, the core's default, could be forced to collide by crafted output).
  const id = spillId === undefined && spill != null ? randomSpillId() : spillId;
  return { bounder, bytes, spill, spillId: id, hint };
}

/**
 * Calls a synchronous spill writer; what it throws, or a promise it
 * returned by mistake, becomes the outcome and never escapes.
 */
function callSyncWriter(call, asyncName) {
  try {
    const value = call();
    if (value !== null && typeof value === "object" && typeof value.then === "function") {
      // A promise from a sync call: never leave it unhandled, never await it.
      Promise.resolve(value).catch(() => {});
      return { useInstead: asyncName };
    }
    return { value };
  } catch (error) {
    return { threw: { error } };
  }
}

/** Awaits a spill writer; a rejection becomes the outcome. */
export async function callAsyncWriter(call) {
  try {
    return { value: await call() };
  } catch (error) {
    return { threw: { error } };
  }
}

/** `wasm` calls that throw an error-object JSON string, as DoryWireErrors. */
function core(call) {
  try {
    return call();
  } catch (e) {
    return rethrow(e);
  }
}

/** A random 32-hex spill id (node:crypto in Node, Web Crypto in browsers: never a global Node 18 lacks). */
function randomSpillId() {
  const bytes = randomBytes(16);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Bounds `data` (bytes, or text as its UTF-8 bytes) to a head + tail
 * preview of at most `maxLines` lines and `maxBytes` bytes (and, with
 * `maxTokens`, that many tokens under `tokenizer`), notice included.
 * When the data must be cut and `spill` is given, `spill(spillId, data)` is
 * called to save the full output and returns its path (or null to save
 * nothing); the notice then points at that path. Synchronous writer only:
 * see `boundAsync`.
 */
export function bound(data, options) {
  const { bounder, bytes, spill, spillId, hint } = prepare(data, options, "bound");
  try {
    if (spill === undefined) {
      if (spillId === undefined) return toPreview(core(() => bounder.bound_not_saved(bytes, hint)));
    }
    const pending = core(() => bounder.bound(bytes, spillId));
    try {
      const id = pending.spill_id();
      if (id === undefined || spill === undefined) return toPreview(pending.render_not_saved(hint));
      const outcome = callSyncWriter(() => spill(id, bytes), "boundAsync()");
      return settle(pending, outcome, hint);
    } finally {
      pending.free();
    }
  } finally {
    bounder.free();
  }
}

/**
 * `bound` with a writer that may return a promise of the path (or of null);
 * a rejected promise is reported in `spillError`, never thrown.
 */
export async function boundAsync(data, options) {
  const { bounder, bytes, spill, spillId, hint } = prepare(data, options, "boundAsync");
  let pending;
  try {
    pending = core(() => bounder.bound(bytes, spillId));
  } finally {
    bounder.free();
  }
  try {
    const id = pending.spill_id();
    if (id === undefined || spill === undefined) return toPreview(pending.render_not_saved(hint));
    return settle(pending, await callAsyncWriter(() => spill(id, bytes)), hint);
  } finally {
    pending.free();
  }
}

/**
 * Bounds data given in chunks, in memory proportional to the limits, with
 * exactly the same result as `bound` over the concatenated chunks. To spill,
 * write each chunk yourself as you push it, and give the path to `finish`.
 */
export class StreamingBounder {
  #inner;
  #done = false;

  /** @param {object} options `{maxLines, maxBytes, maxTokens, tokenizer, spillId, keep, terminal, split}` */
  constructor(options) {
    ready();
    const o = checkOptions(options, BOUNDER_OPTIONS, "StreamingBounder option");
    const [maxLines, maxBytes] = checkLimits(o);
    const [maxTokens, tokenizer] = checkTokens(o);
    const spillId = optionalString(o.spillId, "spillId");
    const [keepWord, keepPatterns, terminal, split] = checkKeepTerminal(o);
    try {
      this.#inner = new wasm.WasmStreamingBounder(maxLines, maxBytes, maxTokens, tokenizer, spillId, keepWord, keepPatterns, terminal, split);
    } catch (e) {
      rethrow(e);
    }
  }

  #live(what) {
    if (this.#done) {
      throw toError({
        code: "invalid_state",
        message: `invalid_state: ${what} after this StreamingBounder was finished or freed`,
        reason: `${what} after finish`,
      });
    }
    return this.#inner;
  }

  /** Feeds the next chunk (bytes, or text as its UTF-8 bytes). */
  push(chunk) {
    this.#live("push()").push(inputBytes(chunk, "StreamingBounder.push()"));
  }

  /** Bytes pushed so far. */
  get totalBytes() {
    return this.#live("totalBytes").total_bytes();
  }

  /** Bytes of buffer held: bounded by the limits, whatever was pushed. */
  get retainedBytes() {
    return this.#live("retainedBytes").retained_bytes();
  }

  #pending(options, what) {
    const o = checkOptions(options, ["spill", "hint"], `${what} option`);
    const spill = checkWriter(o.spill);
    const hint = optionalString(o.hint, "hint");
    const inner = this.#live(what);
    this.#done = true;
    let pending;
    try {
      pending = inner.finish();
    } catch (e) {
      rethrow(e);
    } finally {
      inner.free();
      this.#inner = undefined;
    }
    return { pending, spill, hint };
  }

  /**
   * Ends the input and returns the preview. When it must be cut and `spill`
   * is given, `spill(spillId)` returns the path where the caller saved the
   * chunks (or null); the data itself is not passed again.
   */
  finish(options) {
    const { pending, spill, hint } = this.#pending(options, "finish()");
    try {
      const id = pending.spill_id();
      if (id === undefined || spill === undefined) return toPreview(pending.render_not_saved(hint));
      const outcome = callSyncWriter(() => spill(id), "finishAsync()");
      return settle(pending, outcome, hint);
    } finally {
      pending.free();
    }
  }

  /** `finish` with a writer that may return a promise. */
  async finishAsync(options) {
    const { pending, spill, hint } = this.#pending(options, "finishAsync()");
    try {
      const id = pending.spill_id();
      if (id === undefined || spill === undefined) return toPreview(pending.render_not_saved(hint));
      return settle(pending, await callAsyncWriter(() => spill(id)), hint);
    } finally {
      pending.free();
    }
  }

  /** Releases the WebAssembly memory now (optional; also done on garbage collection). */
  free() {
    if (!this.#done) {
      this.#done = true;
      this.#inner.free();
      this.#inner = undefined;
    }
  }
}
if (typeof Symbol.dispose === "symbol") {
  StreamingBounder.prototype[Symbol.dispose] = StreamingBounder.prototype.free;
}
