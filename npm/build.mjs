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
// Then esbuild (the exact version package.json pins) bundles the ES modules
// of src/ into the entry points: src/index.js once per platform, its
// `#platform` import resolved to src/platform-node.js or src/platform-web.js,
// and src/client/index.js over the core entry of the same build (its
// `dory-wire` import stays an import, so the client shares the core's classes).
//
// Layout of dist/:
//   node/index.cjs   Node `require`: src/index.js over the nodejs glue (CommonJS)
//   node/index.mjs   Node `import`: re-exports index.cjs (one copy of each class)
//   node/wasm/       wasm-bindgen --target nodejs output
//   web/index.js     browsers, Deno, Workers and bundlers: src/web.js, an ES
//                    module over the web glue, `await init()` first
//   web/wasm/        wasm-bindgen --target web output
//   index.d.ts, index.d.cts   the hand-written declarations (src/index.d.ts)
//   node/client.cjs, node/client.mjs, web/client.js, client.d.ts, client.d.cts
//                    `dory-wire/client` (src/client/index.js, src/client.d.ts)

import { execFileSync } from "node:child_process";
import { build as esbuild } from "esbuild";
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

// The core's tables, read from the .wasm file through the Node glue: the web
// build cannot call the module before init(), so it carries them (the
// `dory-wire:core-tables` import of src/platform-web.js).
const nodeGlue = createRequire(import.meta.url)(join(dist, "node", "wasm", "dory_wire_wasm.js"));
const coreTables = nodeGlue.core_tables_json();
JSON.parse(coreTables);

const banner = "// Generated by npm/build.mjs (esbuild) from the modules of npm/src: do not edit.";

/**
 * The esbuild plugin of one build: `#platform` is the platform module of
 * `platform` (null: the client, which must not load the core a second time);
 * `dory-wire:core-tables` the tables above; the wasm-bindgen glue stays a
 * file of its own next to the entry; `dory-wire` (the client's import of the
 * core) is the core entry `coreEntry` of the same build, not bundled.
 */
function entryPlugin(platform, coreEntry) {
  return {
    name: "dory-wire-entry",
    setup(b) {
      b.onResolve({ filter: /^#platform$/ }, (args) => {
        if (platform === null) return { errors: [{ text: `${args.importer} imports the core's platform: the client must import "dory-wire"` }] };
        return { path: join(here, "src", `platform-${platform}.js`) };
      });
      b.onResolve({ filter: /^dory-wire:core-tables$/ }, () => ({ path: "core-tables", namespace: "dory-wire" }));
      b.onLoad({ filter: /.*/, namespace: "dory-wire" }, () => ({ contents: coreTables, loader: "json" }));
      b.onResolve({ filter: /^\.\/wasm\/dory_wire_wasm\.js$/ }, (args) => ({ path: args.path, external: true }));
      b.onResolve({ filter: /^dory-wire$/ }, () => {
        if (coreEntry === null) return { errors: [{ text: 'only the client imports "dory-wire"' }] };
        return { path: coreEntry, external: true };
      });
    },
  };
}

/** Bundles `entry` (under src/) into `outfile` (under dist/). */
async function bundle(entry, outfile, { format, platform, coreEntry = null }) {
  await esbuild({
    entryPoints: [join(here, "src", entry)],
    outfile: join(dist, outfile),
    bundle: true,
    format,
    platform: platform === "node" ? "node" : "neutral",
    target: "es2022",
    charset: "utf8",
    legalComments: "none",
    logLevel: "warning",
    // CommonJS is not strict by itself; the modules are written for strict mode.
    banner: { js: format === "cjs" ? `${banner}\n"use strict";` : banner },
    plugins: [entryPlugin(coreEntry === null ? platform : null, coreEntry)],
  });
}

await bundle("index.js", "node/index.cjs", { format: "cjs", platform: "node" });
await bundle("web.js", "web/index.js", { format: "esm", platform: "web" });
await bundle(join("client", "index.js"), "node/client.cjs", { format: "cjs", platform: "node", coreEntry: "./index.cjs" });
await bundle(join("client", "index.js"), "web/client.js", { format: "esm", platform: "web", coreEntry: "./index.js" });

/**
 * A Node ES module entry: re-exports the CommonJS one, so `import` and
 * `require` share one copy of every class (instanceof works across both) and
 * one wasm instance. Its names are the CommonJS entry's.
 */
function reexport(mjs, cjs) {
  const names = Object.keys(createRequire(import.meta.url)(join(dist, "node", cjs)));
  writeFileSync(
    join(dist, "node", mjs),
    `${banner}\n// Re-exports ${cjs}: one copy of every class for \`import\` and \`require\`.\nimport api from "./${cjs}";\n\nexport const {\n  ${names.join(",\n  ")},\n} = api;\nexport default api;\n`,
  );
  return names;
}
const names = reexport("index.mjs", "index.cjs");
const clientNames = reexport("client.mjs", "client.cjs");

copyFileSync(join(here, "src", "index.d.ts"), join(dist, "index.d.ts"));
copyFileSync(join(here, "src", "index.d.ts"), join(dist, "index.d.cts"));
const clientTypes = readFileSync(join(here, "src", "client.d.ts"), "utf8");
writeFileSync(join(dist, "client.d.ts"), clientTypes);
writeFileSync(join(dist, "client.d.cts"), clientTypes.replaceAll('from "./index.js"', 'from "./index.cjs"'));
console.log(`build: wrote ${dist} (exports: ${names.join(", ")}; client: ${clientNames.join(", ")})`);
