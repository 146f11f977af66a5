// Node-side test helpers: where things are, and loading every vector file.
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
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

/**
 * The reference server's test harness (tests/e2e/node/refserver.mjs), with
 * its binary built first unless `DORY_REFSERVER_BIN` names one: call it in
 * a `before` hook, it returns the `RefServer` class.
 */
export async function loadRefServer() {
  if (!process.env.DORY_REFSERVER_BIN) {
    const env = { ...process.env };
    delete env.CARGO_TARGET_DIR;
    const built = spawnSync("bash", ["scripts/build.sh", "native"], { cwd: rootDir, env, stdio: "inherit" });
    if (built.status !== 0) throw new Error("bash scripts/build.sh native (the reference server) failed");
    process.env.DORY_REFSERVER_BIN = join(rootDir, "target", "debug", "dory-refserver");
  }
  const { RefServer } = await import(pathToFileURL(join(rootDir, "tests", "e2e", "node", "refserver.mjs")).href);
  return RefServer;
}
