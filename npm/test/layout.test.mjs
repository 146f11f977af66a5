// The wasm event layout is one definition on both sides of the boundary:
// bindings/wasm/src/layout.rs (its constants and table, written out as
// EVENT_LAYOUT_JSON, whose hash the module exports) and src/layout.js
// (LAYOUT, whose JSON is that document). These tests fail when the two
// disagree, and show that the package refuses a module of another layout.
import { test } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, mkdirSync, appendFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { checkLayout, fnv1a, LAYOUT, LAYOUT_HASH, layoutHash } from "../src/layout.js";

const here = dirname(fileURLToPath(import.meta.url));
const npmDir = join(here, "..");
const require = createRequire(import.meta.url);
const glue = require(join(npmDir, "dist", "node", "wasm", "dory_wire_wasm.js"));

/** The Rust document, as bindings/wasm/src/layout.rs writes it. */
function rustDocument() {
  const source = readFileSync(join(npmDir, "..", "bindings", "wasm", "src", "layout.rs"), "utf8");
  const m = /pub const EVENT_LAYOUT_JSON: &str = r#"(.*)"#;/.exec(source);
  assert.ok(m, "bindings/wasm/src/layout.rs defines EVENT_LAYOUT_JSON");
  return m[1];
}

test("src/layout.js is the document of bindings/wasm/src/layout.rs, field by field", () => {
  assert.deepEqual(JSON.parse(JSON.stringify(LAYOUT)), JSON.parse(rustDocument()));
  assert.equal(JSON.stringify(LAYOUT), rustDocument(), "byte for byte (the key order is the document's)");
});

test("the built module's layout hash is this layout's", () => {
  assert.equal(glue.event_layout_hash(), LAYOUT_HASH);
  assert.equal(fnv1a(rustDocument()), LAYOUT_HASH);
  assert.doesNotThrow(() => checkLayout(glue.event_layout_hash()));
});

test("FNV-1a is the module's: its published vectors", () => {
  assert.equal(fnv1a(""), 0x811c9dc5);
  assert.equal(fnv1a("a"), 0xe40c292c);
  assert.equal(fnv1a("foobar"), 0xbf9cf968);
});

/** LAYOUT as plain JSON, changed by `edit`. */
function changed(edit) {
  const copy = JSON.parse(JSON.stringify(LAYOUT));
  edit(copy);
  return copy;
}

test("a JavaScript layout that differs from the module's in any way is refused", () => {
  const moduleHash = glue.event_layout_hash();
  const variants = {
    "two fields of exec_result swapped": (l) => {
      const f = l.other.exec_result;
      [f[1], f[2]] = [f[2], f[1]];
    },
    "exit's fields in the other order": (l) => l.other.exit.reverse(),
    "a field's kind": (l) => (l.other.skipped[1][1] = "i64?"),
    "the stderr tag": (l) => (l.tags.stderr = 2),
    "the numbers of a record": (l) => (l.record.f64s = 4),
    "the record's field order": (l) => l.record.fields.reverse(),
    "an event more": (l) => (l.other.later = []),
    "the side flag": (l) => (l.result.flagSide = 2),
    "the version": (l) => (l.version += 1),
  };
  for (const [what, edit] of Object.entries(variants)) {
    const other = changed(edit);
    assert.notEqual(layoutHash(other), moduleHash, what);
    assert.throws(() => checkLayout(moduleHash, other), /event layout .* is not this JavaScript's .*binding mismatch/, what);
  }
  assert.doesNotThrow(() => checkLayout(moduleHash, changed(() => {})));
});

test("the Node entry refuses to load over a module of another layout", () => {
  const scratch = mkdtempSync(join(tmpdir(), "dory-wire-layout-"));
  try {
    const node = join(npmDir, "dist", "node");
    mkdirSync(join(scratch, "wasm"));
    copyFileSync(join(node, "index.cjs"), join(scratch, "index.cjs"));
    for (const f of readdirSync(join(node, "wasm"))) copyFileSync(join(node, "wasm", f), join(scratch, "wasm", f));
    // The same module, its layout hash changed: what a .wasm of another layout says.
    appendFileSync(join(scratch, "wasm", "dory_wire_wasm.js"), "\nmodule.exports.event_layout_hash = () => 1;\n");
    assert.throws(() => require(join(scratch, "index.cjs")), /event layout \(0x00000001\) is not this JavaScript's/);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
});
