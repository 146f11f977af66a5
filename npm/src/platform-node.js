// What differs in Node (the `node` builds, dist/node/): the wasm-bindgen
// `--target nodejs` glue, which reads the .wasm file next to it with `fs` and
// compiles it synchronously when loaded, so `init()` has nothing to do; the
// core's tables come from the module itself; random bytes from node:crypto.
//
// Every platform module exports the same names (build.mjs picks one per
// build for the `#platform` import): `wasm` (the glue's exports), `core` (the
// core's tables: `core_tables_json()`), `ready()` (throws while the module
// cannot be called), `init(input)`, `randomBytes(n)` and `copyOut(view)`.

import * as wasm from "./wasm/dory_wire_wasm.js";
import { randomFillSync } from "node:crypto";
import { checkLayout } from "./layout.js";

export { wasm };

/** The core's error table and constants, from the module itself. */
export const core = JSON.parse(wasm.core_tables_json());

checkLayout(wasm.event_layout_hash());

/** The module is loaded: nothing to wait for. */
export function ready() {}

/** In Node the module is compiled synchronously when loaded: init() has nothing to do. */
export function init() {
  return Promise.resolve();
}

/** `n` random bytes (node:crypto: Node 18 has no global `crypto` in CommonJS). */
export function randomBytes(n) {
  return randomFillSync(new Uint8Array(n));
}

/**
 * A plain Uint8Array holding a copy of `view` (bytes in wasm memory).
 * From 16 KiB on, in memory of its own that is not zero-filled first (every
 * byte is written by the copy: Buffer.allocUnsafeSlow, then a Uint8Array
 * over its buffer), 1.3x as fast at 64 KiB; below, slice() is faster.
 */
export function copyOut(view) {
  if (view.length < 16384) return view.slice();
  const copy = Buffer.allocUnsafeSlow(view.length);
  copy.set(view);
  return new Uint8Array(copy.buffer, copy.byteOffset, view.length);
}
