// The options `keep` and `terminal` of every bounder (docs/preview.md,
// "Kept lines" and "Terminal rendering"): taken by bound, boundAsync,
// StreamingBounder and RunBounder; a refused pattern is the core's
// InvalidArgument naming `keep`, a wrong type a TypeError.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as api from "dory-wire";

let log = "";
for (let i = 1; i <= 300; i++) log += i === 150 ? "error: boom\n" : `ok ${i}\n`;

test("keep and terminal are taken by every bounder", async () => {
  const p = api.bound(log, { maxLines: 12, maxBytes: 400, keep: "defaults" });
  assert.ok(p.text.includes("\n150:error: boom\n"), p.text);
  assert.ok(p.text.includes("[... kept 1 omitted line matching the keep patterns ...]"));
  assert.equal(api.bound(log, { maxLines: 12, maxBytes: 400, keep: ["^error"] }).text, p.text);
  assert.equal((await api.boundAsync(log, { maxLines: 12, maxBytes: 400, keep: ["^error"] })).text, p.text);
  assert.ok(!api.bound(log, { maxLines: 12, maxBytes: 400, keep: null }).text.includes("150:"));
  const s = new api.StreamingBounder({ maxLines: 12, maxBytes: 400, keep: ["^error"] });
  s.push(log);
  assert.equal(s.finish().text, p.text);
  const r = new api.RunBounder({ maxLines: 12, maxBytes: 400, keep: "defaults", terminal: true });
  r.push("stdout", "\x1b[31mred\x1b[0m\n");
  assert.ok(r.finish().render("stdout").text.startsWith("red\n[... terminal: 2 escape sequences removed ...]"));
  const t = api.bound("\r[###   ]\r[######]\n", { maxLines: 10, maxBytes: 400, terminal: true });
  assert.equal(t.text, "[######]\n[... terminal: 1 redraw collapsed ...]\n");
});

test("DEFAULT_KEEP_PATTERNS is the core's list, frozen", () => {
  assert.ok(Object.isFrozen(api.DEFAULT_KEEP_PATTERNS));
  assert.equal(api.DEFAULT_KEEP_PATTERNS[0], "^(FAILED|ERROR) [^ ]+(::| - )");
  assert.equal(api.DEFAULT_KEEP_PATTERNS.length, 50);
  const p = api.bound(log, { maxLines: 12, maxBytes: 400, keep: [...api.DEFAULT_KEEP_PATTERNS] });
  assert.equal(p.text, api.bound(log, { maxLines: 12, maxBytes: 400, keep: "defaults" }).text);
});

test("a refused keep pattern is InvalidArgument naming keep, in every bounder", async () => {
  for (const keep of [["("], [""], "default", ["ok", "\x07"]]) {
    const calls = [
      () => api.bound("x", { maxLines: 1, maxBytes: 40, keep }),
      () => new api.StreamingBounder({ maxLines: 1, maxBytes: 40, keep }),
      () => new api.RunBounder({ maxLines: 1, maxBytes: 40, keep }),
    ];
    for (const call of calls) {
      assert.throws(call, (e) => e instanceof api.InvalidArgument && e.argument === "keep", JSON.stringify(keep));
    }
    await assert.rejects(api.boundAsync("x", { maxLines: 1, maxBytes: 40, keep }), api.InvalidArgument);
  }
});

test("a wrong type of keep or terminal is a TypeError", () => {
  for (const o of [{ keep: 1 }, { keep: [1] }, { keep: {} }, { terminal: 1 }, { terminal: null }, { terminal: "yes" }]) {
    assert.throws(() => api.bound("x", { maxLines: 1, maxBytes: 40, ...o }), TypeError, JSON.stringify(o));
    assert.throws(() => new api.StreamingBounder({ maxLines: 1, maxBytes: 40, ...o }), TypeError);
    assert.throws(() => new api.RunBounder({ maxLines: 1, maxBytes: 40, ...o }), TypeError);
  }
});

test("split: \"tail\" gives the tail the budget in every bounder; another value is InvalidArgument", () => {
  // docs/preview.md, "The split": an eighth of the lines to the head.
  const log = Array.from({ length: 100 }, (_, i) => `line ${i + 1}\n`).join("");
  const even = api.bound(log, { maxLines: 9, maxBytes: 4096 }).text;
  const tail = api.bound(log, { maxLines: 9, maxBytes: 4096, split: "tail" }).text;
  assert.ok(even.startsWith("line 1\nline 2\nline 3\nline 4\n[... "), even);
  assert.ok(tail.startsWith("line 1\n[... "), tail);
  assert.ok(tail.endsWith(Array.from({ length: 7 }, (_, i) => `line ${i + 94}\n`).join("")), tail);
  const s = new api.StreamingBounder({ maxLines: 9, maxBytes: 4096, split: "tail" });
  s.push(log);
  assert.equal(s.finish().text, tail);
  const r = new api.RunBounder({ maxLines: 9, maxBytes: 4096, split: "tail" });
  r.push("stdout", log);
  assert.equal(r.finish().render("stdout").text, tail);
  for (const make of [
    () => api.bound(log, { maxLines: 9, maxBytes: 4096, split: "head" }),
    () => new api.StreamingBounder({ maxLines: 9, maxBytes: 4096, split: "" }),
    () => new api.RunBounder({ maxLines: 9, maxBytes: 4096, split: "TAIL" }),
  ]) {
    assert.throws(make, (e) => e instanceof api.InvalidArgument && e.argument === "split");
  }
  assert.throws(() => api.bound(log, { maxLines: 9, maxBytes: 4096, split: 1 }), TypeError);
});

test("RUN_PRESET is run's shape, read from the core, frozen", () => {
  assert.deepEqual({ ...api.RUN_PRESET }, { keep: "defaults", terminal: true, split: "tail" });
  assert.ok(Object.isFrozen(api.RUN_PRESET));
  const log = Array.from({ length: 1000 }, (_, i) => (i === 299 ? "\x1b[31mFAILED tests/t.py::test_x - assert 1 == 2\x1b[0m\n" : `step ${i + 1}\n`)).join("");
  const preset = api.bound(log, { maxLines: 40, maxBytes: 4096, ...api.RUN_PRESET });
  const explicit = api.bound(log, { maxLines: 40, maxBytes: 4096, keep: "defaults", terminal: true, split: "tail" });
  assert.deepEqual(preset, explicit);
  assert.ok(preset.text.includes("\n300:FAILED tests/t.py::test_x - assert 1 == 2\n"), preset.text);
});
