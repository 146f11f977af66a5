// The package's public names against tests/api/surface.json (the table of
// docs/api.md): every listed JS name must be exported at runtime (or, for a
// `js_type_only` name, declared as a type only) and declared in index.d.ts,
// and nothing public may be missing from the list.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import * as esm from "dory-wire";
import { npmDir, rootDir } from "./helpers.mjs";

const require = createRequire(import.meta.url);
const cjs = require("dory-wire");
const ts = require(join(npmDir, "node_modules", "typescript"));

const surface = JSON.parse(readFileSync(join(rootDir, "tests", "api", "surface.json"), "utf8"));
const listed = surface.concepts.filter((c) => c.js !== null && c.js !== undefined);
const runtimeListed = new Set(listed.filter((c) => !c.js_type_only).map((c) => c.js));
const typeListed = new Set(listed.filter((c) => c.js_type_only).map((c) => c.js));

/** The exports of npm/src/index.d.ts: name → whether it is a value (class, function, const). */
function declared() {
  const file = join(npmDir, "src", "index.d.ts");
  const program = ts.createProgram([file], { noEmit: true, types: [], lib: ["lib.es2022.d.ts", "lib.dom.d.ts"] });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  const moduleSymbol = checker.getSymbolAtLocation(source);
  assert.ok(moduleSymbol, "index.d.ts is not a module");
  const out = new Map();
  for (const symbol of checker.getExportsOfModule(moduleSymbol)) {
    out.set(symbol.getName(), (symbol.flags & ts.SymbolFlags.Value) !== 0);
  }
  return out;
}

test("surface.json lists each JS name once, with a note for every missing one", () => {
  const seen = new Set();
  for (const c of listed) {
    assert.ok(!seen.has(c.js), `${c.js} is listed twice`);
    seen.add(c.js);
  }
  for (const c of surface.concepts.filter((x) => x.js === null)) {
    assert.ok(typeof c.note === "string" && c.note.length > 0, `"${c.concept}" has no JS name and no note`);
  }
  assert.ok(runtimeListed.size > 0 && typeListed.size > 0);
});

test("the runtime exports are exactly the listed names (ES module and CommonJS)", () => {
  const esmNames = Object.keys(esm).filter((k) => k !== "default").sort();
  const cjsNames = Object.keys(cjs).sort();
  assert.deepEqual(esmNames, cjsNames, "import and require export different names");
  const missing = [...runtimeListed].filter((n) => !cjsNames.includes(n));
  const unlisted = cjsNames.filter((n) => !runtimeListed.has(n));
  assert.deepEqual(missing, [], `listed in tests/api/surface.json but not exported: ${missing.join(", ")}`);
  assert.deepEqual(unlisted, [], `exported but not listed in tests/api/surface.json: ${unlisted.join(", ")}`);
  for (const name of typeListed) {
    assert.ok(!(name in cjs), `${name} is js_type_only in surface.json but exported at runtime`);
  }
});

test("index.d.ts declares exactly the listed names, values as values and types as types", () => {
  const names = declared();
  const missing = [...runtimeListed, ...typeListed].filter((n) => !names.has(n));
  const unlisted = [...names.keys()].filter((n) => !runtimeListed.has(n) && !typeListed.has(n));
  assert.deepEqual(missing, [], `listed in tests/api/surface.json but not declared in index.d.ts: ${missing.join(", ")}`);
  assert.deepEqual(unlisted, [], `declared in index.d.ts but not listed in tests/api/surface.json: ${unlisted.join(", ")}`);
  for (const name of runtimeListed) {
    assert.equal(names.get(name), true, `${name} is exported at runtime but index.d.ts declares it as a type only`);
  }
  for (const name of typeListed) {
    assert.equal(names.get(name), false, `${name} is js_type_only but index.d.ts declares a value`);
  }
});

test("the check can fail: a name off the list is caught", () => {
  const names = declared();
  names.set("OutputReader", true);
  const unlisted = [...names.keys()].filter((n) => !runtimeListed.has(n) && !typeListed.has(n));
  assert.deepEqual(unlisted, ["OutputReader"]);
});
