// `tsc --strict --noEmit` on the client's usage files (ESM and CommonJS), with
// and without the DOM library, against the hand-written client.d.ts.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { npmDir } from "./helpers.mjs";

for (const [name, config] of [
  ["a Node project (no DOM library)", "tsconfig.client.json"],
  ["a project with the DOM library", "tsconfig.client-dom.json"],
]) {
  test(`dory-wire/client declarations type-check the usage files: ${name}`, () => {
    const tsc = join(npmDir, "node_modules", "typescript", "bin", "tsc");
    const r = spawnSync(process.execPath, [tsc, "-p", join(npmDir, "test", "types", config)], { encoding: "utf8" });
    assert.equal(r.status, 0, `tsc failed:\n${r.stdout}${r.stderr}`);
  });
}
