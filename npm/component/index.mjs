// dory-wire/component: where the WebAssembly component (WIT package
// dory:wire) and its WIT files are. Bundlers that understand
// `new URL(..., import.meta.url)` ship the .wasm file as an asset.

/** The component, `dory-wire.wasm`. In Node: `fileURLToPath(componentUrl)`. */
export const componentUrl = new URL("./dory-wire.wasm", import.meta.url);

/** The directory of its WIT files (`types.wit`, `decode.wit`, `preview.wit`, `world.wit`). */
export const witUrl = new URL("./wit/", import.meta.url);
