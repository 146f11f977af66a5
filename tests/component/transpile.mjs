// Transpiles the component to an ES module for Node with jco
// (@bytecodealliance/jco-transpile, the library behind `jco transpile`).
//
//   node tests/component/transpile.mjs <component.wasm> <out-dir>
//
// Writes <out-dir>/dory-wire.js (the entry point, with top-level await),
// its core wasm files and TypeScript declarations. Skipped when the output
// is newer than the component.
import { mkdirSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { transpile } from "@bytecodealliance/jco-transpile";

const [component, outDir] = process.argv.slice(2).map((p) => resolve(p));
if (!component || !outDir) {
  console.error("usage: node transpile.mjs <component.wasm> <out-dir>");
  process.exit(2);
}
const entry = join(outDir, "dory-wire.js");
const mtime = (p) => {
  try {
    return statSync(p).mtimeMs;
  } catch {
    return -1;
  }
};
if (mtime(entry) >= mtime(component) && mtime(entry) >= mtime(import.meta.filename ?? "")) {
  console.log(`transpile: ${entry} is up to date`);
} else {
  const { files } = await transpile(component, { name: "dory-wire", outDir });
  for (const [path, bytes] of Object.entries(files)) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, bytes);
  }
  console.log(`transpile: ${Object.keys(files).length} files in ${outDir}`);
}
