/** The component, `dory-wire.wasm` (WIT package `dory:wire`). In Node: `fileURLToPath(componentUrl)`. */
export declare const componentUrl: URL;
/** The directory of its WIT files (`types.wit`, `decode.wit`, `preview.wit`, `world.wit`). */
export declare const witUrl: URL;
