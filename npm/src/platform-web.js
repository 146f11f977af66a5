// What differs in browsers, Deno, Bun's `import` and Cloudflare Workers (the
// `web` build, dist/web/): the wasm-bindgen `--target web` glue, an ES module
// whose `init()` must load the module first. `init()` with no argument
// fetches the .wasm file next to the glue (`new URL(…, import.meta.url)`);
// `init(input)` takes what the platform has instead: a URL, a Response, the
// bytes, or a compiled `WebAssembly.Module` — on Cloudflare Workers, the
// `.wasm` imported as a module (`import wasm from "dory-wire/web.wasm"`).
// The module cannot be called before that, so the core's tables are the
// build's: `dory-wire:core-tables` is the same .wasm file's
// `core_tables_json()`, read by build.mjs. Random bytes come from Web Crypto.
//
// The names exported are those of every platform module (see
// platform-node.js).

import initWasm, * as wasm from "./wasm/dory_wire_wasm.js";
import core from "dory-wire:core-tables";
import { checkLayout } from "./layout.js";

export { wasm, core };

let loading = null;
let loaded = false;

/** Throws until `init()` has loaded the module. */
export function ready() {
  if (!loaded) {
    throw new Error("dory-wire: call `await init()` once before using the library in a browser");
  }
}

/**
 * Loads the WebAssembly module (once; later calls return the same promise).
 * `input` is optional: a URL, Response, BufferSource or WebAssembly.Module;
 * by default the .wasm file next to this module is fetched.
 */
export function init(input) {
  if (loading === null) {
    loading = initWasm(input === undefined ? undefined : { module_or_path: input }).then(() => {
      checkLayout(wasm.event_layout_hash());
      loaded = true;
    });
    loading.catch(() => {
      loading = null;
    });
  }
  return loading;
}

/** `n` random bytes (Web Crypto). */
export function randomBytes(n) {
  return globalThis.crypto.getRandomValues(new Uint8Array(n));
}

/** A Uint8Array holding a copy of `view` (bytes in wasm memory). */
export function copyOut(view) {
  return view.slice();
}
