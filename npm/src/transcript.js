// The consumer's record of a process's output (`Transcript`) and the core's
// incremental UTF-8 decoder (`Utf8Decoder`): text that never splits a
// character.

import { copyOut, ready, wasm } from "#platform";
import { checkInteger, describe, MAX_SAFE, streamTag, toBytes } from "./args.js";
import { misuse, toError } from "./errors.js";
import { memoryBuffer } from "./memory.js";

/** Module-private access to a Transcript's wasm object (set by its static block). */
export let transcriptInner;

/**
 * A consumer's record of a process's output: each stream's bytes, its text
 * view and its skipped ranges, and the exit. Fill it with
 * `reader.feedInto(chunk, transcript)` (output bytes stay in WebAssembly
 * memory: no object per frame) or `push(event)`.
 */
export class Transcript {
  #inner;
  #freed = false;

  static {
    transcriptInner = (t) => {
      if (t.#freed) throw misuse("this Transcript was freed");
      return t.#inner;
    };
  }

  constructor() {
    ready();
    this.#inner = new wasm.WasmTranscript();
  }

  #live() {
    if (this.#freed) throw misuse("this Transcript was freed");
    return this.#inner;
  }

  /**
   * Records an event: `output`, `skipped` and `exit` change the transcript;
   * the other events are accepted and ignored.
   */
  push(event) {
    const inner = this.#live();
    if (event === null || typeof event !== "object" || typeof event.type !== "string") {
      throw new TypeError(`Transcript.push() takes an event (an object with a type), got ${describe(event)}`);
    }
    switch (event.type) {
      case "output": {
        const tag = streamTag(event.stream, "event.stream");
        const data = toBytes(event.data, "Transcript.push() output data");
        const start = checkInteger(event.start, "event.start", 0, MAX_SAFE);
        const end = checkInteger(event.end, "event.end", 0, MAX_SAFE);
        if (end - start !== data.length) {
          throw new RangeError(`output event: end - start (${end - start}) must be the length of data (${data.length})`);
        }
        inner.push_output(tag, data, start, end);
        return;
      }
      case "skipped": {
        const tag = streamTag(event.stream, "event.stream");
        const start = checkInteger(event.start, "event.start", 0, MAX_SAFE);
        const end = checkInteger(event.end, "event.end", start, MAX_SAFE);
        inner.push_skipped(tag, start, end);
        return;
      }
      case "exit": {
        const code = event.exitCode;
        if (code !== null && code !== undefined) checkInteger(code, "event.exitCode", -MAX_SAFE, MAX_SAFE);
        if (typeof event.timedOut !== "boolean") throw new TypeError(`event.timedOut must be a boolean, got ${describe(event.timedOut)}`);
        inner.push_exit(code ?? undefined, event.timedOut);
        return;
      }
      case "started":
      case "heartbeat":
      case "unknown":
      case "identity":
      case "exec_result":
        return;
      default:
        throw new TypeError(`Transcript.push() takes an event, got type "${event.type}"`);
    }
  }

  /** Ends both text views: an incomplete last character becomes U+FFFD. */
  finish() {
    this.#live().finish();
  }

  /** A copy of the delivered bytes of `stream` (default stdout), in order; skipped ranges are absent. */
  bytes(stream) {
    const inner = this.#live();
    const tag = streamTag(stream, "stream");
    const len = inner.byte_length(tag);
    if (len === 0) return new Uint8Array(0);
    const ptr = inner.bytes_ptr(tag);
    // One copy, straight out of wasm memory (no wasm call in between).
    return copyOut(new Uint8Array(memoryBuffer(), ptr, len));
  }

  /**
   * The text view of `stream` so far: UTF-8 (U+FFFD for invalid bytes),
   * never splitting a character; a skipped range shows as a line
   * `[dory-wire: bytes A..B were lost]`.
   */
  text(stream) {
    return this.#live().text(streamTag(stream, "stream"));
  }

  /** The skipped ranges `[start, end)` of `stream`, in order. */
  skipped(stream) {
    const ranges = JSON.parse(this.#live().skipped_json(streamTag(stream, "stream")));
    if (!Array.isArray(ranges)) throw toError(ranges.error);
    return ranges;
  }

  /** True when nothing of `stream` was skipped: its bytes are the stream, exactly. */
  isComplete(stream) {
    return this.#live().is_complete(streamTag(stream, "stream"));
  }

  /** `{exitCode, timedOut}` once an `exit` was recorded, else null. */
  get exit() {
    const exit = JSON.parse(this.#live().exit_json());
    if (exit !== null && exit.error) throw toError(exit.error);
    return exit;
  }

  /** Releases the WebAssembly memory now (optional; also done on garbage collection). Later calls throw. */
  free() {
    if (!this.#freed) {
      this.#freed = true;
      const inner = this.#inner;
      this.#inner = undefined;
      inner.free();
    }
  }
}
if (typeof Symbol.dispose === "symbol") {
  Transcript.prototype[Symbol.dispose] = Transcript.prototype.free;
}


/**
 * Incremental UTF-8 decoding that never splits a character (the core's
 * decoder: the same text as `TextDecoder` with `fatal: false`).
 */
export class Utf8Decoder {
  #inner;
  constructor() {
    ready();
    this.#inner = new wasm.WasmUtf8Decoder();
  }
  /** Decodes the next piece; returns the text it completes. */
  push(chunk) {
    return this.#inner.push(toBytes(chunk, "Utf8Decoder.push()"));
  }
  /** Flushes an incomplete trailing character as U+FFFD. */
  finish() {
    return this.#inner.finish();
  }
  /** Releases the WebAssembly memory now (optional). */
  free() {
    this.#inner.free();
  }
}
