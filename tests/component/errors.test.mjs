// The component's error table is the core's: `error-codes` lists exactly the
// rows of ERROR_CODES in crates/dory-wire/src/error.rs (read from the source,
// as tests/vectors/check_vectors.py does), with the same code, class, kind
// and field names, in the same order. The core's ErrorKind is
// #[non_exhaustive], so the guest maps a kind it does not know to a fallback
// case; this test is what fails when that happens.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import { coreErrorTable, loadComponent, rootDir } from "./lib.mjs";

const mod = await loadComponent();

test("error-codes lists the core's table: codes, classes, kinds, fields, order", () => {
  const core = coreErrorTable(readFileSync(join(rootDir, "crates", "dory-wire", "src", "error.rs"), "utf8"));
  assert.ok(core.length >= 11, `only ${core.length} rows read from error.rs`);
  assert.deepEqual(mod.types.errorCodes(), core);
});

test("an error record carries code, class, kind, the core's message and its fields", () => {
  const reader = new mod.decode.Reader("process-output", { cursor: { stdout: 4096n, stderr: 0n } });
  reader.open(200, "application/x-ndjson", undefined);
  const fed = reader.feed(new TextEncoder().encode('{"type":"gap","earliest_stdout_offset":1048576,"earliest_stderr_offset":0}\n'));
  assert.deepEqual(fed.events, []);
  assert.deepEqual(fed.error, {
    code: "output_gap",
    className: "OutputGap",
    kind: "loss",
    message: "output_gap: stdout output was lost (consumed stdout=4096 stderr=0, earliest available stdout=1048576 stderr=0)",
    fields: [
      { name: "stream", value: { tag: "stream", val: "stdout" } },
      { name: "consumed", value: { tag: "cursor", val: { stdout: 4096n, stderr: 0n } } },
      { name: "earliest", value: { tag: "cursor", val: { stdout: 1048576n, stderr: 0n } } },
    ],
  });
  assert.equal(reader.state(), "failed");
  reader[Symbol.dispose]();
});

test("misuse is an invalid_state error value, and a bad resume state is refused", () => {
  const reader = new mod.decode.Reader("exec", {});
  const fed = reader.feed(new Uint8Array([1, 2, 3]));
  assert.equal(fed.error?.code, "invalid_state");
  assert.equal(fed.error?.kind, "misuse");
  reader[Symbol.dispose]();
  assert.throws(() => mod.decode.Reader.resumeJson("exec", "{}", {}), (err) => err.code === "invalid_state");
  const state = { version: 2, procId: "p", cursor: { stdout: 0n, stderr: 0n }, exitSeen: false, exitCode: undefined, timedOut: false };
  assert.throws(() => mod.decode.Reader.resume("exec", state, {}), (err) => err.code === "invalid_state");
});

test("the resume state goes out as a record and as JSON, and comes back in", () => {
  const reader = new mod.decode.Reader("exec", { cursor: { stdout: 3n, stderr: 0n } });
  reader.open(200, "application/x-ndjson", "p_1");
  const enc = new TextEncoder();
  reader.feed(enc.encode('{"type":"started","proc_id":"p_1"}\n{"type":"stdout","data":"hi","offset":5}\n'));
  const state = reader.resumeState();
  assert.deepEqual(state, { version: 1, procId: "p_1", cursor: { stdout: 5n, stderr: 0n }, exitSeen: false, exitCode: undefined, timedOut: false });
  const json = reader.resumeStateJson();
  assert.deepEqual(JSON.parse(json), { version: 1, proc_id: "p_1", cursor: { stdout: 5, stderr: 0 }, exit_seen: false, exit_code: null, timed_out: false });
  for (const again of [mod.decode.Reader.resume("process-output", state, {}), mod.decode.Reader.resumeJson("process-output", json, {})]) {
    assert.deepEqual(again.cursor(), { stdout: 5n, stderr: 0n });
    assert.equal(again.procId(), "p_1");
    assert.equal(again.state(), "new");
    again[Symbol.dispose]();
  }
  reader[Symbol.dispose]();
});

test("liveness: time comes in as nanoseconds; a silent stream stalls and ends disconnected", () => {
  const reader = new mod.decode.Reader("process-output", { livenessTimeoutNs: 1_000_000_000n });
  reader.open(200, "application/x-ndjson", undefined);
  assert.equal(reader.pollTimeoutNs(), undefined);
  assert.equal(reader.handleTimeoutNs(5_000_000_000n), false); // arms the clock
  assert.equal(reader.pollTimeoutNs(), 6_000_000_000n);
  assert.equal(reader.handleTimeoutNs(5_999_999_999n), false);
  assert.equal(reader.handleTimeoutNs(6_000_000_000n), true);
  const finished = reader.finish();
  assert.equal(finished.end.tag, "ok");
  assert.equal(finished.end.val.tag, "disconnected");
  assert.equal(finished.end.val.val.reason, "stalled");
  reader[Symbol.dispose]();
});
