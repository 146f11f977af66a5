// Misuse is an error with a clear message (TypeError, RangeError or
// DoryWireError), never a crash, a hang or a silent wrong answer.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as api from "dory-wire";

const { Reader, DoryWireError, bound, boundAsync, StreamingBounder } = api;
const enc = (s) => new TextEncoder().encode(s);
const NDJSON = "application/x-ndjson";

function opened() {
  const r = new Reader("process_output");
  r.open(200, NDJSON);
  return r;
}

const invalidState = (e) => e instanceof api.InvalidState && e instanceof DoryWireError && e.kind === "misuse" && e.code === "invalid_state" && /invalid_state/.test(e.message);

test("feeding a string is a TypeError that says what to do", () => {
  assert.throws(() => opened().feed("{}\n"), (e) => e instanceof TypeError && /not a string/.test(e.message) && /TextEncoder/.test(e.message));
  for (const bad of [null, undefined, 42, {}, [1, 2], true]) {
    assert.throws(() => opened().feed(bad), TypeError);
  }
});

test("other byte views are accepted", () => {
  const bytes = enc('{"type":"stdout","data":"ab","offset":2}\n');
  for (const view of [bytes.buffer.slice(0), new DataView(bytes.buffer.slice(0)), Buffer.from(bytes)]) {
    assert.equal(opened().feed(view).length, 1);
  }
});

test("feed before open, after finish, and finish twice are invalid_state", () => {
  const fresh = new Reader("process_output");
  assert.throws(() => fresh.feed(enc("")), invalidState);
  const r = opened();
  r.finish();
  assert.throws(() => r.feed(enc("")), invalidState);
  assert.throws(() => r.finish(), invalidState);
  const o = opened();
  assert.throws(() => o.open(200, NDJSON), invalidState);
});

test("a freed reader refuses every call", () => {
  const r = opened();
  r.free();
  r.free();
  assert.equal(r.state, "freed");
  assert.throws(() => r.feed(enc("")), invalidState);
  assert.throws(() => r.cursor, invalidState);
});

test("bad endpoint and policy names", () => {
  assert.throws(() => new Reader("stdout"), (e) => e instanceof RangeError && /unknown endpoint "stdout"/.test(e.message));
  assert.throws(() => new Reader(), TypeError);
  assert.throws(() => new Reader(7), TypeError);
  assert.throws(() => new Reader("exec", { gapPolicy: "ignore" }), (e) => e instanceof RangeError && /gapPolicy/.test(e.message));
  assert.throws(() => Reader.resume("nope", "{}"), RangeError);
  assert.throws(() => new Reader("exec", { gap_policy: "skip" }), (e) => e instanceof TypeError && /gap_policy/.test(e.message));
  assert.throws(() => new Reader("exec", "skip"), TypeError);
});

test("negative, fractional and absurd limits and offsets", () => {
  for (const maxFrameBytes of [0, -1, 1.5, 2 ** 31, Infinity, NaN]) {
    assert.throws(() => new Reader("exec", { maxFrameBytes }), RangeError, String(maxFrameBytes));
  }
  assert.throws(() => new Reader("exec", { maxFrameBytes: "16" }), TypeError);
  for (const livenessTimeoutMs of [-1, Infinity, NaN]) {
    assert.throws(() => new Reader("exec", { livenessTimeoutMs }), RangeError);
  }
  for (const stdout of [-1, 0.5, 2 ** 53, Infinity]) {
    assert.throws(() => new Reader("exec", { cursor: { stdout } }), RangeError);
  }
  assert.throws(() => new Reader("exec", { cursor: { stdout: "1" } }), TypeError);
  assert.equal(new Reader("exec", { cursor: { stdout: 5n } }).cursor.stdout, 5);
  const r = new Reader("exec");
  assert.throws(() => r.open(70000, NDJSON), (e) => e instanceof api.InvalidArgument && e.code === "invalid_argument" && e.argument === "status");
  assert.throws(() => r.open("200", NDJSON), TypeError);
  assert.throws(() => r.open(200, 5), TypeError);
  assert.throws(() => r.open(200, NDJSON, 5), TypeError);
  assert.throws(() => r.handleTimeoutMs(-5), RangeError);
  assert.throws(() => r.handleTimeoutMs("now"), TypeError);
});

test("bound: bad limits and options", () => {
  assert.throws(() => bound("x", { maxLines: 0, maxBytes: 4096 }), (e) => e instanceof DoryWireError && e.code === "invalid_limits");
  assert.throws(() => bound("x".repeat(40), { maxLines: 10, maxBytes: 31 }), (e) => e instanceof DoryWireError && e.code === "invalid_limits");
  assert.equal(bound("x", { maxLines: 10, maxBytes: 10 }).text, "x");
  // One range in every language, the core's (0 to 2^32 - 1), and one error: InvalidLimits
  // (python/tests/test_misuse.py checks the same edges).
  const invalidLimits = (e) => e instanceof DoryWireError && e.code === "invalid_limits";
  for (const [maxLines, maxBytes] of [[-1, 4096], [10, -5], [10, 2 ** 40], [10, 2 ** 63], [10, 1e20], [10, Number.MAX_SAFE_INTEGER], [1.5, 4096], [10, NaN]]) {
    assert.throws(() => bound("x", { maxLines, maxBytes }), invalidLimits, `${maxLines} ${maxBytes}`);
    assert.throws(() => new StreamingBounder({ maxLines, maxBytes }), invalidLimits, `streaming ${maxLines} ${maxBytes}`);
  }
  assert.equal(bound("x", { maxLines: 2 ** 32 - 1, maxBytes: 2 ** 32 - 1 }).text, "x");
  assert.throws(() => bound("x", { maxLines: 10 }), TypeError);
  assert.throws(() => bound("x"), TypeError);
  assert.throws(() => bound(42, { maxLines: 10, maxBytes: 4096 }), TypeError);
  assert.throws(() => bound("x", { maxLines: 10, maxBytes: 4096, spill: "/tmp/x" }), TypeError);
  assert.throws(() => bound("x", { maxLines: 10, maxBytes: 4096, max_lines: 3 }), TypeError);
  const tiny = new StreamingBounder({ maxLines: 1, maxBytes: 1 });
  tiny.push("too long");
  assert.throws(() => tiny.finish(), (e) => e.code === "invalid_limits");
});

const big = Array.from({ length: 500 }, (_, i) => `line ${i}\n`).join("");
const limits = { maxLines: 10, maxBytes: 1024 };

test("a spill writer that throws, returns a non-string or a promise never escapes bound", () => {
  const cases = [
    [() => {
      throw new Error("disk full");
    }, /disk full/],
    [() => {
      throw "a string";
    }, /a string/],
    [() => 42, /number/],
    [() => ({ path: "/x" }), /Object/],
    [() => Promise.resolve("/tmp/x"), /boundAsync/],
    [() => Promise.reject(new Error("late")), /boundAsync/],
  ];
  for (const [spill, why] of cases) {
    const p = bound(big, { ...limits, spill });
    assert.equal(p.truncated, true);
    assert.equal(p.spillPath, null);
    assert.match(p.spillError, why);
    assert.doesNotMatch(p.text, /sed -n/);
  }
  const none = bound(big, { ...limits, spill: () => null });
  assert.equal(none.spillError, null);
  assert.doesNotMatch(none.text, /sed -n/);
});

test("boundAsync reports a rejected writer", async () => {
  const p = await boundAsync(big, { ...limits, spill: async () => {
    throw new Error("EACCES");
  } });
  assert.match(p.spillError, /EACCES/);
  const ok = await boundAsync(big, { ...limits, spill: async (id) => `/tmp/${id}.txt`, hint: "read it with cat" });
  assert.equal(ok.spillPath, `/tmp/${ok.spillId}.txt`);
  assert.match(ok.text, /read it with cat/);
});

test("a path with a line break is refused (plain notice)", () => {
  const p = bound(big, { ...limits, spill: () => "/tmp/a\nb" });
  assert.equal(p.spillPath, null);
  assert.ok(p.spillError);
  assert.equal(p.text.split("\n").filter((l) => l.startsWith("[... ")).length, 1);
});

test("StreamingBounder: push after finish and finish twice are invalid_state", async () => {
  const sb = new StreamingBounder(limits);
  sb.push(big);
  assert.equal(sb.totalBytes, enc(big).length);
  sb.finish();
  assert.throws(() => sb.push("x"), invalidState);
  assert.throws(() => sb.finish(), invalidState);
  await assert.rejects(() => sb.finishAsync(), invalidState);
  assert.throws(() => sb.push(5), (e) => e instanceof TypeError || invalidState(e));
  const fresh = new StreamingBounder(limits);
  assert.throws(() => fresh.push(5), TypeError);
});

test("the default spill id with a writer is random (docs/preview.md)", () => {
  const text = "z\n".repeat(5000);
  const ids = [];
  for (let i = 0; i < 2; i++) {
    const p = bound(text, { maxLines: 20, maxBytes: 1000, spill: (id) => `/tmp/${id}.txt` });
    assert.match(p.spillId, /^[0-9a-f]{32}$/);
    ids.push(p.spillId);
  }
  assert.notEqual(ids[0], ids[1]);
});
