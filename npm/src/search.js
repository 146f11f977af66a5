// Searching a spill (docs/api.md, "Searching a spill"): `Searcher` and
// `searchChunks`. Every decision is the core's (`dory_wire::search`); this
// layer checks argument types, converts the result and maps errors.

import { ready, wasm } from "#platform";
import { checkInteger, checkOptions, checkString, optionalString, toBytes } from "./args.js";
import { rethrow, toError } from "./errors.js";
import { DEFAULT_RUN_MAX_BYTES, DEFAULT_RUN_MAX_LINES } from "./run-bounder.js";

const LIMIT_MAX = 0xffffffff;
const OPTIONS = ["context", "maxLines", "maxBytes", "ignoreCase"];

function toResult(json) {
  const r = JSON.parse(json);
  if (r.error) throw toError(r.error);
  return r;
}

/** A streaming search of one saved output, in memory bounded by the limits. */
export class Searcher {
  #inner;
  #done = false;

  /** @param {string} pattern @param {object} options `{context, maxLines, maxBytes, ignoreCase}` */
  constructor(pattern, options) {
    ready();
    checkString(pattern, "pattern");
    const o = checkOptions(options, OPTIONS, "Searcher option");
    const context = checkInteger(o.context ?? 0, "context", 0, LIMIT_MAX);
    const maxLines = checkInteger(o.maxLines ?? DEFAULT_RUN_MAX_LINES, "maxLines", 0, LIMIT_MAX);
    const maxBytes = checkInteger(o.maxBytes ?? DEFAULT_RUN_MAX_BYTES, "maxBytes", 0, LIMIT_MAX);
    if (o.ignoreCase !== undefined && typeof o.ignoreCase !== "boolean") {
      throw new TypeError(`ignoreCase must be a boolean, got ${typeof o.ignoreCase}`);
    }
    try {
      this.#inner = new wasm.WasmSearcher(pattern, Number(context), Number(maxLines), Number(maxBytes), o.ignoreCase === true);
    } catch (e) {
      rethrow(e);
    }
  }

  #live(what) {
    if (this.#done) {
      throw toError({
        code: "invalid_state",
        message: `invalid_state: ${what} after this Searcher was finished or freed`,
        reason: `${what} after finish`,
      });
    }
    return this.#inner;
  }

  /** Feeds the next bytes of the output. */
  push(chunk) {
    this.#live("push()").push(toBytes(chunk, "Searcher.push()"));
  }

  /** Bytes held: bounded by the options, whatever was pushed. */
  get bufferedBytes() {
    return this.#live("bufferedBytes").buffered_bytes();
  }

  /** Ends the input; `path` is where the output is saved (the notice's grep command reads it). */
  finish(path) {
    const p = optionalString(path, "path");
    const inner = this.#live("finish()");
    this.#done = true;
    try {
      return toResult(inner.finish(p));
    } catch (e) {
      rethrow(e);
    } finally {
      inner.free();
      this.#inner = undefined;
    }
  }

  /** Releases the WebAssembly memory now (optional). */
  free() {
    if (!this.#done) {
      this.#done = true;
      this.#inner.free();
      this.#inner = undefined;
    }
  }
}
if (typeof Symbol.dispose === "symbol") {
  Searcher.prototype[Symbol.dispose] = Searcher.prototype.free;
}

/**
 * Searches a saved output given as an (async) iterable of Uint8Array chunks
 * (a Node `fs.createReadStream(path)`, a fetch body…) for `pattern`.
 * `options.path` is where it is saved, for the notice's grep command.
 */
export async function searchChunks(chunks, pattern, options) {
  const o = checkOptions(options, [...OPTIONS, "path"], "searchChunks option");
  const { path, ...rest } = o;
  const searcher = new Searcher(pattern, rest);
  try {
    for await (const chunk of chunks) searcher.push(chunk);
  } catch (e) {
    searcher.free();
    throw e;
  }
  return searcher.finish(path);
}
