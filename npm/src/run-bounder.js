// A run's three views (docs/preview.md, "A run's three views"; docs/run.md):
// `RunBounder`, the `RunPending` it finishes into, `runSpillId`, and the
// run constants, from the core's tables. Streams are "stdout" / "stderr",
// views those and "combined". Every decision — what each view shows, the
// loss line, the stderr section, the spill error texts — is the core's;
// this layer checks the JavaScript types and renders a spill writer's
// outcome through the same path as `bound()` (`settle`).

import { core as tables, ready, wasm } from "#platform";
import { checkInteger, checkName, checkOptions, checkString, MAX_SAFE, optionalString } from "./args.js";
import { misuse, rethrow } from "./errors.js";
import { BOUNDER_OPTIONS, checkKeepTerminal, checkLimits, checkTokens, inputBytes, settle, toPreview } from "./preview.js";

export const { DEFAULT_RUN_MAX_LINES, DEFAULT_RUN_MAX_BYTES, MIN_RUN_MAX_BYTES } = tables.constants;

const STREAMS = ["stdout", "stderr"];
const VIEWS = ["stdout", "stderr", "combined"];

/** The tag of a stream (0 stdout, 1 stderr). */
function streamTag(stream) {
  return STREAMS.indexOf(checkName(stream, STREAMS, "stream"));
}

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

/**
 * The spill id a run keyed by `idempotencyKey` uses: `run-` and 32 hex
 * digits derived from the key, so calling again with the same key names the
 * same files and renders the same previews. Each view's spill is
 * `<id>-stdout`, `<id>-stderr`, `<id>-combined`.
 */
export function runSpillId(idempotencyKey) {
  ready();
  return wasm.run_spill_id(checkString(idempotencyKey, "idempotencyKey"));
}

/** Module-private token: only `RunBounder.finish` makes a RunPending. */
const ADOPT = Symbol("adopt");

/**
 * Bounds a run's output as it arrives: a preview of stdout, of stderr and
 * of both combined in arrival order, each within `maxLines` and `maxBytes`
 * (and `maxTokens` tokens under `tokenizer`, when given), in memory
 * proportional to the limits whatever the output's size. Without
 * losses each view's preview is exactly `bound()` of that view's bytes with
 * the same limits and spill id; a range given to `lose` is said in a loss
 * line; when the combined cut would hide stderr's end, a section shows it.
 */
export class RunBounder {
  #inner;
  #done = false;

  /** @param {object} options `{maxLines, maxBytes, maxTokens, tokenizer, spillId, keep, terminal, split}` (any integer limits: see `RunBounder.checkLimits`) */
  constructor(options) {
    ready();
    const o = checkOptions(options, BOUNDER_OPTIONS, "RunBounder option");
    const [maxLines, maxBytes] = checkLimits(o);
    const [maxTokens, tokenizer] = checkTokens(o);
    const spillId = optionalString(o.spillId, "spillId");
    const [keepWord, keepPatterns, terminal, split] = checkKeepTerminal(o);
    this.#inner = core(() => new wasm.WasmRunBounder(maxLines, maxBytes, maxTokens, tokenizer, spillId, keepWord, keepPatterns, terminal, split));
  }

  /**
   * Whether these limits can be honoured for any output of a run (a cut
   * needs a line for its notice and one for a loss line, and
   * `MIN_RUN_MAX_BYTES` bytes): throws the core's `InvalidLimits` when
   * `maxLines < 2` or `maxBytes < MIN_RUN_MAX_BYTES`. With `tokens`
   * (`{maxTokens, tokenizer}`, a bounder's options), the token limit too:
   * `InvalidLimits` when `maxTokens < MIN_RUN_MAX_BYTES`, the core's
   * `InvalidArgument` (argument `tokenizer`) for a name this build lacks.
   */
  static checkLimits(maxLines, maxBytes, tokens) {
    ready();
    const [lines, bytes] = checkLimits({ maxLines, maxBytes });
    const [maxTokens, tokenizer] = checkTokens(checkOptions(tokens, ["maxTokens", "tokenizer"], "RunBounder.checkLimits token option"));
    core(() => wasm.WasmRunBounder.check_limits(lines, bytes));
    core(() => wasm.WasmRunBounder.check_tokens(maxTokens, tokenizer));
  }

  #live(what) {
    if (this.#done) throw misuse(`${what} after this RunBounder was finished or freed`);
    return this.#inner;
  }

  /** Feeds the next bytes of `stream` (bytes, or text as its UTF-8 bytes), in arrival order. */
  push(stream, data) {
    const tag = streamTag(stream);
    const bytes = inputBytes(data, "RunBounder.push()");
    core(() => this.#live("push()").push(tag, bytes));
  }

  /** Records that `stream` lost offsets `[start, end)` (a `skipped` event); an empty or inverted range records nothing. */
  lose(stream, start, end) {
    const tag = streamTag(stream);
    const from = checkInteger(start, "start", 0, MAX_SAFE);
    const to = checkInteger(end, "end", 0, MAX_SAFE);
    core(() => this.#live("lose()").lose(tag, from, to));
  }

  /** The id `view`'s spill is saved under (`<spillId>-<view>`), or null when no `spillId` was given. */
  spillId(view) {
    const tag = viewTag(view);
    return core(() => this.#live("spillId()").spill_id(tag)) ?? null;
  }

  /** Bytes of `view` pushed so far. */
  totalBytes(view) {
    const tag = viewTag(view);
    return core(() => this.#live("totalBytes()").total_bytes(tag));
  }

  /** Bytes of `view` recorded as lost so far. */
  lostBytes(view) {
    const tag = viewTag(view);
    return core(() => this.#live("lostBytes()").lost_bytes(tag));
  }

  /** Bytes of buffer held: bounded by the limits, whatever was pushed; 0 once finished. */
  get retainedBytes() {
    return this.#done ? 0 : this.#inner.retained_bytes();
  }

  /**
   * Ends the output: a RunPending to render each view from. The bounder
   * cannot be used afterwards. Throws `InvalidLimits` when a view must be
   * cut, or a loss said, and the limits leave no room for it.
   */
  finish() {
    const inner = this.#live("finish()");
    this.#done = true;
    this.#inner = undefined;
    try {
      return new RunPending(ADOPT, core(() => inner.finish()));
    } finally {
      inner.free();
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
  RunBounder.prototype[Symbol.dispose] = RunBounder.prototype.free;
}

/** One view of a pending run with the `render_*` methods `settle` calls. */
function viewOf(inner, tag) {
  return {
    render_saved: (path, hint) => inner.render_saved(tag, path, hint),
    render_writer_failed: (error, hint) => inner.render_writer_failed(tag, error, hint),
    render_not_a_path: (returned, hint) => inner.render_not_a_path(tag, returned, hint),
    render_asynchronous: (useInstead, hint) => inner.render_asynchronous(tag, useInstead, hint),
    render_not_saved: (hint) => inner.render_not_saved(tag, hint),
  };
}

/**
 * A finished run, waiting for each view's spill outcome: render each view
 * once you know whether its spill was saved (any number of times). A view
 * whose `needsSpill` is false shows every byte it has, so its spill (if one
 * was written) can be discarded.
 */
export class RunPending {
  #inner;
  #freed = false;

  /** @private Made by `RunBounder.finish()`. */
  constructor(token, inner) {
    if (token !== ADOPT) throw new TypeError("a RunPending comes from RunBounder.finish()");
    this.#inner = inner;
  }

  #live(what) {
    if (this.#freed) throw misuse(`${what} after this RunPending was freed`);
    return this.#inner;
  }

  /** The id to save `view`'s full bytes under. */
  spillId(view) {
    const tag = viewTag(view);
    return this.#live("spillId()").spill_id(tag);
  }

  /** Whether `view` is cut, so that its preview points at a spill. */
  needsSpill(view) {
    const tag = viewTag(view);
    return this.#live("needsSpill()").needs_spill(tag);
  }

  /** Bytes of `view` (lost bytes not included). */
  totalBytes(view) {
    const tag = viewTag(view);
    return this.#live("totalBytes()").total_bytes(tag);
  }

  /** `{bytes, ranges}` of `view` that were lost. */
  lost(view) {
    const tag = viewTag(view);
    const inner = this.#live("lost()");
    return { bytes: inner.lost_bytes(tag), ranges: inner.lost_ranges(tag) };
  }

  /**
   * Renders `view` for its spill outcome (ignored when the view is not
   * cut): `spillPath` when its bytes were saved there (the notice points at
   * it, then `hint`), `spillError` when saving failed (the reason, in your
   * words: `Preview.spillError`), neither when nothing was saved.
   */
  render(view, options) {
    const tag = viewTag(view);
    const o = checkOptions(options, ["spillPath", "spillError", "hint"], "RunPending.render option");
    const path = optionalString(o.spillPath, "spillPath");
    const reason = optionalString(o.spillError, "spillError");
    const hint = optionalString(o.hint, "hint");
    if (path !== undefined && reason !== undefined) throw new TypeError("give spillPath (saved) or spillError (failed), not both");
    const inner = this.#live("render()");
    if (path !== undefined) return toPreview(inner.render_saved(tag, path, hint));
    if (reason !== undefined) return toPreview(inner.render_failed(tag, reason, hint));
    return toPreview(inner.render_not_saved(tag, hint));
  }

  /**
   * Renders `view` for what a spill writer did, in the core's words as
   * `bound()` reports them: `{ returned }` what its commit returned (a path
   * string; null or undefined: nothing saved; anything else is reported as
   * `spill writer returned X instead of a path string`), or `{ threw }` what
   * it threw or rejected with (`spill writer failed: Error: …`). The
   * client's `run` renders each view through it.
   */
  renderWriter(view, outcome) {
    const tag = viewTag(view);
    const o = checkOptions(outcome, ["returned", "threw", "hint"], "RunPending.renderWriter option");
    const hint = optionalString(o.hint, "hint");
    const threw = Object.prototype.hasOwnProperty.call(o, "threw");
    if (threw && o.returned !== undefined) throw new TypeError("give returned or threw, not both");
    const inner = this.#live("renderWriter()");
    return settle(viewOf(inner, tag), threw ? { threw: { error: o.threw } } : { value: o.returned }, hint);
  }

  /** Releases the WebAssembly memory now (optional; also done on garbage collection). */
  free() {
    if (!this.#freed) {
      this.#freed = true;
      this.#inner.free();
      this.#inner = undefined;
    }
  }
}
if (typeof Symbol.dispose === "symbol") {
  RunPending.prototype[Symbol.dispose] = RunPending.prototype.free;
}
