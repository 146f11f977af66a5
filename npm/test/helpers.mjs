// Node-side test helpers: where things are, and loading every vector file.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { parseJsonExact } from "./vector-lib.mjs";

export const npmDir = join(dirname(fileURLToPath(import.meta.url)), "..");
export const rootDir = join(npmDir, "..");
export const vectorsDir = join(rootDir, "tests", "vectors");

/** Every `.json` file below tests/vectors, recursively, sorted. */
export function vectorFiles(dir = vectorsDir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...vectorFiles(path));
    else if (name.endsWith(".json")) out.push(path);
  }
  return out;
}

/** Every vector of every file, with `file` (relative to tests/vectors) added. */
export function loadVectors() {
  const all = [];
  for (const file of vectorFiles()) {
    const doc = parseJsonExact(readFileSync(file, "utf8"));
    if (!doc || !Array.isArray(doc.vectors)) throw new Error(`${file}: not a {"vectors": [...]} file`);
    for (const v of doc.vectors) all.push({ ...v, file: relative(vectorsDir, file) });
  }
  return all;
}
