// The run bounder's JavaScript API (docs/preview.md, "A run's three views"):
// argument checks, the core's errors and texts, misuse after finish, memory
// bounded by the limits, and the spill writer outcomes rendered with the
// texts bound() gives. The vectors are in vectors.test.mjs.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as api from "dory-wire";

const { RunBounder, RunPending, InvalidLimits, InvalidState, bound, runSpillId } = api;

test("the run constants are the core's", () => {
  assert.equal(api.DEFAULT_RUN_MAX_LINES, 400);
  assert.equal(api.DEFAULT_RUN_MAX_BYTES, 16384);
  assert.equal(api.MIN_RUN_MAX_BYTES, 80);
});

test("checkLimits: the core's InvalidLimits below 2 lines or MIN_RUN_MAX_BYTES bytes; types are checked first (TypeError), then the core's range", () => {
  RunBounder.checkLimits(2, api.MIN_RUN_MAX_BYTES);
  RunBounder.checkLimits(api.DEFAULT_RUN_MAX_LINES, api.DEFAULT_RUN_MAX_BYTES);
  for (const [lines, bytes] of [
    [1, 4096],
    [2, api.MIN_RUN_MAX_BYTES - 1],
    [0, 0],
  ]) {
    assert.throws(
      () => RunBounder.checkLimits(lines, bytes),
      (e) => e instanceof InvalidLimits && e.code === "invalid_limits" && e.message.includes(`got max_lines=${lines} and max_bytes=${bytes}`),
    );
  }
  assert.throws(() => RunBounder.checkLimits("2", 80), TypeError);
  // Numbers out of the core's range are its InvalidLimits too, as in Python.
  assert.throws(() => RunBounder.checkLimits(2.5, 80), InvalidLimits);
  assert.throws(() => RunBounder.checkLimits(-1, 80), InvalidLimits);
});

test("runSpillId: run- and 32 hex digits, the same for the same key", () => {
  const id = runSpillId("my-key");
  assert.match(id, /^run-[0-9a-f]{32}$/);
  assert.equal(runSpillId("my-key"), id);
  assert.notEqual(runSpillId("my-key2"), id);
  assert.throws(() => runSpillId(5), TypeError);
});

test("a run's three views: arrival order, counts, spill ids, a loss said in stderr and combined only", () => {
  const run = new RunBounder({ maxLines: 20, maxBytes: 400, spillId: "run-t" });
  run.push("stdout", "out 1\n");
  run.push("stderr", new TextEncoder().encode("err 1\n"));
  run.push("stdout", "out 2\n");
  run.lose("stderr", 6, 16n);
  assert.deepEqual(["stdout", "stderr", "combined"].map((v) => run.spillId(v)), ["run-t-stdout", "run-t-stderr", "run-t-combined"]);
  assert.deepEqual(["stdout", "stderr", "combined"].map((v) => run.totalBytes(v)), [12, 6, 18]);
  assert.deepEqual(["stdout", "stderr", "combined"].map((v) => run.lostBytes(v)), [0, 10, 10]);
  const pending = run.finish();
  assert.ok(pending instanceof RunPending);
  assert.equal(run.retainedBytes, 0);
  assert.equal(pending.render("stdout").text, "out 1\nout 2\n");
  assert.equal(pending.render("stderr").text, "err 1\n[... 10 bytes lost: stderr offsets 6-16 were not retained ...]\n");
  assert.equal(pending.render("combined").text, "out 1\nerr 1\nout 2\n[... 10 bytes lost: stderr offsets 6-16 were not retained ...]\n");
  assert.deepEqual(pending.lost("combined"), { bytes: 10, ranges: 1 });
  assert.deepEqual(pending.lost("stdout"), { bytes: 0, ranges: 0 });
  assert.equal(pending.needsSpill("combined"), false);
  assert.equal(pending.spillId("stderr"), "run-t-stderr");
  // Without a spill id the ids come from the content, known at finish.
  const anonymous = new RunBounder({ maxLines: 20, maxBytes: 400 });
  assert.equal(anonymous.spillId("stdout"), null);
  anonymous.push("stdout", "x\n");
  assert.match(anonymous.finish().spillId("stdout"), /^[0-9a-f]{32}$/);
});

test("wrong arguments: TypeError or RangeError naming them; misuse after finish or free is InvalidState", () => {
  assert.throws(() => new RunBounder({ maxLines: 10 }), /maxBytes is required/);
  assert.throws(() => new RunBounder({ maxLines: 10, maxBytes: 100, spilId: "x" }), /unknown RunBounder option "spilId"/);
  const run = new RunBounder({ maxLines: 10, maxBytes: 100 });
  assert.throws(() => run.push("stdin", "x"), /unknown stream "stdin"/);
  assert.throws(() => run.push("stdout", 5), TypeError);
  assert.throws(() => run.totalBytes("both"), /unknown view "both"/);
  assert.throws(() => run.lose("stdout", -1, 5), RangeError);
  assert.throws(() => run.lose("stdout", 0, 2 ** 53), RangeError);
  run.lose("stdout", 9, 3); // inverted: nothing recorded
  assert.equal(run.lostBytes("stdout"), 0);
  const pending = run.finish();
  assert.throws(() => run.finish(), (e) => e instanceof InvalidState && /finish\(\) after this RunBounder was finished/.test(e.message));
  assert.throws(() => run.push("stdout", "x"), InvalidState);
  assert.throws(() => new RunPending(Symbol("x"), null), TypeError);
  assert.throws(() => pending.render("stdout", { spillPath: "/a", spillError: "b" }), /not both/);
  pending.free();
  assert.throws(() => pending.render("stdout"), InvalidState);
  const freed = new RunBounder({ maxLines: 10, maxBytes: 100 });
  freed.free();
  freed.free();
  assert.throws(() => freed.push("stdout", "x"), InvalidState);
});

test("finish throws the core's InvalidLimits when a loss cannot be said; with checked limits it never does", () => {
  const tiny = new RunBounder({ maxLines: 10, maxBytes: 20 });
  tiny.push("stdout", "ab");
  tiny.lose("stdout", 2, 99);
  assert.throws(() => tiny.finish(), InvalidLimits);
  assert.throws(() => tiny.push("stdout", "x"), InvalidState, "a failed finish consumes the bounder too");
  const run = new RunBounder({ maxLines: 2, maxBytes: api.MIN_RUN_MAX_BYTES, spillId: "x" });
  run.push("stdout", "a".repeat(5000));
  run.lose("stdout", 5000, Number.MAX_SAFE_INTEGER);
  run.push("stderr", "e\n");
  const pending = run.finish();
  for (const view of ["stdout", "stderr", "combined"]) {
    const text = pending.render(view).text;
    assert.ok(new TextEncoder().encode(text).length <= api.MIN_RUN_MAX_BYTES, text);
  }
});

test("renderWriter: a writer's outcome in the core's words, as bound() reports them", () => {
  const out = "line\n".repeat(500);
  const run = new RunBounder({ maxLines: 10, maxBytes: 300, spillId: "run-w" });
  run.push("stdout", out);
  const pending = run.finish();
  assert.equal(pending.needsSpill("stdout"), true);
  const same = (outcome, writer) => {
    const p = pending.renderWriter("stdout", outcome);
    assert.deepEqual(p, bound(out, { maxLines: 10, maxBytes: 300, spillId: "run-w-stdout", spill: writer }));
    return p;
  };
  const failure = new Error("No space left on device");
  assert.equal(same({ threw: failure }, () => {
    throw failure;
  }).spillError, "spill writer failed: Error: No space left on device");
  assert.equal(same({ returned: 42 }, () => 42).spillError, "spill writer returned number instead of a path string");
  assert.equal(same({ returned: { path: "/x" } }, () => ({ path: "/x" })).spillError, "spill writer returned Object instead of a path string");
  const saved = same({ returned: "/w/run-w-stdout.txt" }, () => "/w/run-w-stdout.txt");
  assert.equal(saved.spillPath, "/w/run-w-stdout.txt");
  assert.equal(same({ returned: null }, () => null).spillPath, null);
  // Thrown undefined is still a failure.
  assert.match(pending.renderWriter("stdout", { threw: undefined }).spillError, /^spill writer failed: /);
  assert.throws(() => pending.renderWriter("stdout", { threw: failure, returned: "/x" }), /not both/);
  // The hint follows the path; render takes the caller's reason as it is.
  assert.match(pending.renderWriter("stdout", { returned: "/w/a.txt", hint: "read it with cat" }).text, /\/w\/a\.txt; read it with cat/);
  assert.equal(pending.render("stdout", { spillError: "quota" }).spillError, "quota");
});

test("memory is bounded by the limits, not the output", () => {
  const bytes = 4096;
  const run = new RunBounder({ maxLines: 200, maxBytes: bytes, spillId: "m" });
  const chunk = new Uint8Array(65536).map((_, i) => (i % 61 === 60 ? 10 : 97 + (i % 26)));
  for (let i = 0; i < 200; i++) {
    run.push(i % 3 === 0 ? "stderr" : "stdout", chunk);
    assert.ok(run.retainedBytes <= 6 * (2 * bytes + 8) + Math.floor(bytes / 4) + 4 + 32 * (Math.floor(bytes / 4) + 5), `${run.retainedBytes}`);
  }
  assert.equal(run.totalBytes("combined"), 200 * 65536);
  assert.ok(run.finish().render("combined").text.length <= bytes);
});
