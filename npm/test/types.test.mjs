// `tsc --noEmit` on a usage file that exercises the whole API (ESM and CJS
// views) against the hand-written declarations.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { npmDir } from "./helpers.mjs";

test("the declarations type-check the usage files (tsc --noEmit)", () => {
  const tsc = join(npmDir, "node_modules", "typescript", "bin", "tsc");
  const r = spawnSync(process.execPath, [tsc, "-p", join(npmDir, "test", "types", "tsconfig.json")], { encoding: "utf8" });
  assert.equal(r.status, 0, `tsc failed:\n${r.stdout}${r.stderr}`);
});

test("the declarations need no DOM library (a Node project with @types/node only)", () => {
  const tsc = join(npmDir, "node_modules", "typescript", "bin", "tsc");
  const r = spawnSync(process.execPath, [tsc, "-p", join(npmDir, "test", "types", "tsconfig.nodom.json")], { encoding: "utf8" });
  assert.equal(r.status, 0, `tsc failed:\n${r.stdout}${r.stderr}`);
});
