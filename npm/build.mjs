#!/usr/bin/env node
// Builds the npm package `dory-wire` from the Rust crate bindings/wasm.
//
//   node build.mjs            compile the crate to wasm and write dist/
//   node build.mjs --no-cargo only regenerate the JavaScript from the last wasm
//
// The wasm build uses the `cargo` on PATH when its toolchain has the
// wasm32-unknown-unknown target installed, else Debian's rustc-web with
// -Z build-std (wasmCargo(); run scripts/setup-wasm.sh first), in its own
// target dir, then the wasm-bindgen CLI of the version
// bindings/wasm/Cargo.toml pins, twice: `--target nodejs`
// (CommonJS, synchronous load) and `--target web` (ES module with an async
// init()).
//
// Layout of dist/:
//   node/index.cjs   Node `require`: the API over the nodejs glue
//   node/index.mjs   Node `import`: re-exports index.cjs (one copy of each class)
//   node/wasm/       wasm-bindgen --target nodejs output
//   web/index.js     browsers and bundlers: ES module, `await init()` first
//   web/wasm/        wasm-bindgen --target web output
//   index.d.ts, index.d.cts   the hand-written declarations (src/index.d.ts)
//   node/client.cjs, node/client.mjs, web/client.js, client.d.ts, client.d.cts
//                    `dory-wire/client` (src/client.js, src/client.d.ts)

import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..");
const dist = join(here, "dist");
const crate = "dory-wire-wasm";
const wasmFile = join(root, "target", "wasm", "wasm32-unknown-unknown", "release", "dory_wire_wasm.wasm");
const WASM_BINDGEN_VERSION = wasmBindgenVersion();

/**
 * The wasm-bindgen version, read from its one pin: the `wasm-bindgen = "=X"`
 * dependency of bindings/wasm/Cargo.toml (the CLI must be the same version,
 * or the generated glue does not match the module).
 */
function wasmBindgenVersion() {
  const manifest = readFileSync(join(root, "bindings", "wasm", "Cargo.toml"), "utf8");
  const m = /^wasm-bindgen\s*=\s*"=([0-9][^"]*)"/m.exec(manifest);
  if (!m) throw new Error('bindings/wasm/Cargo.toml must pin wasm-bindgen exactly (wasm-bindgen = "=X.Y.Z")');
  return m[1];
}

function run(cmd, args, env) {
  console.log(`build: ${cmd} ${args.join(" ")}`);
  execFileSync(cmd, args, { stdio: "inherit", cwd: root, env: { ...process.env, ...env } });
}

function findWasmBindgen() {
  const candidates = ["wasm-bindgen", join(process.env.HOME ?? "/root", ".cargo", "bin", "wasm-bindgen")];
  for (const c of candidates) {
    try {
      const v = execFileSync(c, ["--version"], { encoding: "utf8" });
      if (v.trim().split(/\s+/).includes(WASM_BINDGEN_VERSION)) return c;
    } catch {
      // try the next one
    }
  }
  throw new Error(`wasm-bindgen ${WASM_BINDGEN_VERSION} not found: run scripts/setup-wasm.sh`);
}

/**
 * The cargo that builds for wasm32-unknown-unknown (docs/wasm-toolchain.md):
 * the `cargo` on PATH when its rustc (RUSTC, else `rustc` on PATH) has the
 * target's std installed (`rustup target add wasm32-unknown-unknown`: its
 * `--print target-libdir` holds libstd-*.rlib); else Debian's, /usr/bin/cargo
 * with /usr/bin/rustc compiling std from rust-web-src (-Z build-std, which
 * RUSTC_BOOTSTRAP=1 lets a stable compiler take). scripts/wasm-cargo.sh
 * chooses the same way for the shell scripts.
 * @returns {{cargo: string, flags: string[], env: object, route: string}}
 */
function wasmCargo() {
  const rustc = process.env.RUSTC || "rustc";
  try {
    const args = ["--print", "target-libdir", "--target", "wasm32-unknown-unknown"];
    const libdir = execFileSync(rustc, args, { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
    if (readdirSync(libdir).some((f) => /^libstd-.*\.rlib$/.test(f))) {
      return { cargo: "cargo", flags: [], env: {}, route: `the cargo on PATH (${rustc} has the target: ${libdir})` };
    }
  } catch {
    // no such rustc, or the target is not installed: the Debian route
  }
  const env = { RUSTC: "/usr/bin/rustc", RUSTC_BOOTSTRAP: "1" };
  return { cargo: "/usr/bin/cargo", flags: ["-Z", "build-std=std,panic_abort"], env, route: "Debian's rustc-web, std built from rust-web-src" };
}

const noCargo = process.argv.includes("--no-cargo");
if (!noCargo) {
  const wasm = wasmCargo();
  console.log(`build: wasm32-unknown-unknown with ${wasm.route}`);
  run(
    wasm.cargo,
    ["build", "--release", "--target", "wasm32-unknown-unknown", ...wasm.flags, "--target-dir", "target/wasm", "-p", crate],
    {
      ...wasm.env,
      CARGO_TARGET_DIR: join(root, "target", "wasm"),
      // 128-bit SIMD (every browser since 2021, Node >= 16.4): memchr's
      // vector search and the decoder's byte-range pass use it.
      RUSTFLAGS: "-C target-feature=+simd128",
    },
  );
}
if (!existsSync(wasmFile)) throw new Error(`${wasmFile} is missing: build without --no-cargo`);

const wasmBindgen = findWasmBindgen();
rmSync(dist, { recursive: true, force: true });
for (const [target, dir] of [
  ["nodejs", join(dist, "node", "wasm")],
  ["web", join(dist, "web", "wasm")],
]) {
  mkdirSync(dir, { recursive: true });
  // --weak-refs: the generated classes register with a FinalizationRegistry,
  // so a reader or bounder that is garbage-collected frees its wasm memory.
  run(wasmBindgen, ["--target", target, "--weak-refs", "--out-dir", dir, wasmFile]);
  // The package is "type": "module"; the nodejs glue is CommonJS.
  if (target === "nodejs") writeFileSync(join(dir, "package.json"), '{ "type": "commonjs" }\n');
}

const api = readFileSync(join(here, "src", "api.js"), "utf8");
const preview = readFileSync(join(here, "src", "preview.js"), "utf8");
const banner = "// Generated by npm/build.mjs from npm/src/api.js and npm/src/preview.js: do not edit.\n";

writeFileSync(
  join(dist, "node", "index.cjs"),
  `${banner}"use strict";
const wasm = require("./wasm/dory_wire_wasm.js");
const { randomFillSync } = require("node:crypto");

${api}
${preview}
/** In Node the module is compiled synchronously when loaded: init() has nothing to do. */
const platform = {
  ready() {},
  init() {
    return Promise.resolve();
  },
  /** \`n\` random bytes (node:crypto: Node 18 has no global \`crypto\` in CommonJS). */
  randomBytes(n) {
    return randomFillSync(new Uint8Array(n));
  },
  /**
   * A plain Uint8Array holding a copy of \`view\` (bytes in wasm memory).
   * From 16 KiB on, in memory of its own that is not zero-filled first (every
   * byte is written by the copy: Buffer.allocUnsafeSlow, then a Uint8Array
   * over its buffer), 1.3x as fast at 64 KiB; below, slice() is faster.
   */
  copyOut(view) {
    if (view.length < 16384) return view.slice();
    const copy = Buffer.allocUnsafeSlow(view.length);
    copy.set(view);
    return new Uint8Array(copy.buffer, copy.byteOffset, view.length);
  },
};

// The core's error table and constants, from the module itself.
module.exports = createApi(wasm, platform, JSON.parse(wasm.core_tables_json()));
`,
);

// The browser build cannot call the module before init(): it carries the
// same tables, read here from the same .wasm file through the Node glue.
const coreTables = createRequire(import.meta.url)(join(dist, "node", "wasm", "dory_wire_wasm.js")).core_tables_json();
JSON.parse(coreTables);

// The export list is whatever createApi returns, so the ES module entries can
// never fall out of step with the CommonJS one.
const names = Object.keys(createRequire(import.meta.url)(join(dist, "node", "index.cjs")));
const list = names.join(",\n  ");

writeFileSync(
  join(dist, "node", "index.mjs"),
  `${banner}// Re-exports the CommonJS entry, so \`import\` and \`require\` share one copy of
// every class (instanceof works across both) and one wasm instance.
import api from "./index.cjs";

export const {
  ${list},
} = api;
export default api;
`,
);

writeFileSync(
  join(dist, "web", "index.js"),
  `${banner}import initWasm, * as wasm from "./wasm/dory_wire_wasm.js";

${api}
${preview}
let loading = null;
let loaded = false;
const platform = {
  ready() {
    if (!loaded) {
      throw new Error("dory-wire: call \`await init()\` once before using the library in a browser");
    }
  },
  /**
   * Loads the WebAssembly module (once; later calls return the same promise).
   * \`input\` is optional: a URL, Response, BufferSource or WebAssembly.Module;
   * by default the .wasm file next to this module is fetched.
   */
  init(input) {
    if (loading === null) {
      loading = initWasm(input === undefined ? undefined : { module_or_path: input }).then(() => {
        loaded = true;
      });
      loading.catch(() => {
        loading = null;
      });
    }
    return loading;
  },
  /** \`n\` random bytes (Web Crypto). */
  randomBytes(n) {
    return globalThis.crypto.getRandomValues(new Uint8Array(n));
  },
  /** A Uint8Array holding a copy of \`view\` (bytes in wasm memory). */
  copyOut(view) {
    return view.slice();
  },
};

// The core's error table and constants, written by npm/build.mjs from the
// module's core_tables_json() (the module cannot be called before init()).
const core = ${coreTables};
const api = createApi(wasm, platform, core);
export const {
  ${list},
} = api;
export default api;
`,
);

copyFileSync(join(here, "src", "index.d.ts"), join(dist, "index.d.ts"));
copyFileSync(join(here, "src", "index.d.ts"), join(dist, "index.d.cts"));

// `dory-wire/client`: src/client.js is one function, createClientApi(core),
// wrapped over the core entry of each build (one copy of every core class).
const client = readFileSync(join(here, "src", "client.js"), "utf8");
const clientBanner = "// Generated by npm/build.mjs from npm/src/client.js: do not edit.\n";
writeFileSync(
  join(dist, "node", "client.cjs"),
  `${clientBanner}"use strict";\nconst core = require("./index.cjs");\n\n${client}\nmodule.exports = createClientApi(core);\n`,
);
const clientNames = Object.keys(createRequire(import.meta.url)(join(dist, "node", "client.cjs")));
const clientList = clientNames.join(",\n  ");
writeFileSync(
  join(dist, "node", "client.mjs"),
  `${clientBanner}import api from "./client.cjs";\n\nexport const {\n  ${clientList},\n} = api;\nexport default api;\n`,
);
writeFileSync(
  join(dist, "web", "client.js"),
  `${clientBanner}import * as core from "./index.js";\n\n${client}\nconst api = createClientApi(core);\nexport const {\n  ${clientList},\n} = api;\nexport default api;\n`,
);
const clientTypes = readFileSync(join(here, "src", "client.d.ts"), "utf8");
writeFileSync(join(dist, "client.d.ts"), clientTypes);
writeFileSync(join(dist, "client.d.cts"), clientTypes.replaceAll('from "./index.js"', 'from "./index.cjs"'));
console.log(`build: wrote ${dist} (exports: ${names.join(", ")}; client: ${clientNames.join(", ")})`);
