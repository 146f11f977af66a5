// The module's WebAssembly memory, where events and transcripts are read in
// place.

import { ready, wasm } from "#platform";

/** The module's WebAssembly.Memory (fetched on first use: the web build loads it in init()). */
let memory = null;

/** The memory's current ArrayBuffer: views over it stay valid until the next wasm call (which may grow it). */
export function memoryBuffer() {
  if (memory === null) memory = wasm.wasm_memory();
  return memory.buffer;
}

/**
 * The size of the WebAssembly memory in bytes. For diagnostics: it grows
 * when readers or bounders are neither freed nor garbage-collected.
 */
export function memoryBytes() {
  ready();
  return wasm.memory_bytes();
}
