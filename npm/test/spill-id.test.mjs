// The default spill id is random (32 hex digits) even where no global
// `crypto` exists, as in Node 18's CommonJS: it must come from node:crypto.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { npmDir } from "./helpers.mjs";

const script = (load) => `
delete globalThis.crypto;
${load}
const big = "line\\n".repeat(1000);
const ids = [0, 1].map(() => dory.bound(big, { maxLines: 5, maxBytes: 200, spill: (id) => "/tmp/" + id + ".txt" }).spillId);
console.log(JSON.stringify({ crypto: typeof globalThis.crypto, ids }));
`;

for (const [kind, load, flag] of [
  ["require", 'const dory = require("./dist/node/index.cjs");', "-e"],
  ["import", 'const dory = await import("./dist/node/index.mjs");', "--input-type=module"],
]) {
  test(`bound() gives a random 32-hex spill id with no global crypto (${kind})`, () => {
    const args = kind === "import" ? [flag, "-e", script(load)] : [flag, script(load)];
    const out = JSON.parse(execFileSync(process.execPath, args, { cwd: npmDir, encoding: "utf8" }));
    assert.equal(out.crypto, "undefined");
    for (const id of out.ids) assert.match(id, /^[0-9a-f]{32}$/);
    assert.notEqual(out.ids[0], out.ids[1], "two bounds of the same output get different ids");
  });
}
