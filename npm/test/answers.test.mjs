// Protocol facts the npm client takes from the core, not re-derives: the
// wire's form of output bytes, the cursor after an event, and what a
// document answer means (the same wrong answer is the same error as in the
// Python and Rust clients: code, frameType, reason).

import { test } from "node:test";
import assert from "node:assert/strict";
import { cursorAfter, execAnswer, identityAnswer, InvalidArgument, UnexpectedFrame, wireForm } from "dory-wire";
import { Client } from "dory-wire/client";
import { scriptedFetch, JSON_TYPE, enc } from "./client-lib.mjs";

const RESULT = {
  proc_id: "p_1",
  stdout: "hi\n",
  stderr: "",
  stdout_truncated: false,
  stderr_truncated: false,
  exit_code: 0,
  timed_out: false,
};

const fields = (e) => [e.code, e.line, e.frameType, e.reason];

test("wireForm is the core's: text when valid UTF-8, else padded standard base64", () => {
  assert.deepEqual(wireForm(enc("h\u00e9llo")), { data: "h\u00e9llo", encoding: "utf-8" });
  assert.deepEqual(wireForm(new Uint8Array([104, 101, 108, 108, 111, 0, 255])), { data: "aGVsbG8A/w==", encoding: "base64" });
  assert.deepEqual(wireForm(new Uint8Array(0)), { data: "", encoding: "utf-8" });
  assert.deepEqual(wireForm(new Uint8Array([0xc0, 0x80])), { data: "wIA=", encoding: "base64" });
  assert.throws(() => wireForm("text"), TypeError);
  for (let n = 0; n < 64; n++) {
    const bytes = new Uint8Array(n).map((_, i) => (i * 37 + n * 11) & 0xff);
    const { data, encoding } = wireForm(bytes);
    const back = encoding === "base64" ? new Uint8Array(Buffer.from(data, "base64")) : enc(data);
    assert.deepEqual(back, bytes);
  }
});

test("cursorAfter is the core's Cursor::after", () => {
  const cursor = { stdout: 3, stderr: 4 };
  assert.deepEqual(cursorAfter(cursor, { type: "output", stream: "stdout", data: enc("ab"), start: 3, end: 5 }), { stdout: 5, stderr: 4 });
  assert.deepEqual(cursorAfter(cursor, { type: "skipped", stream: "stderr", start: 4, end: 90 }), { stdout: 3, stderr: 90 });
  assert.deepEqual(cursorAfter(cursor, { type: "exit", exitCode: 0, timedOut: false }), cursor);
  assert.deepEqual(cursorAfter(cursor, { type: "heartbeat" }), cursor);
  assert.deepEqual(cursor, { stdout: 3, stderr: 4 }, "the cursor given is unchanged");
  assert.throws(() => cursorAfter(cursor, { type: "nope" }), InvalidArgument);
});

test("identityAnswer and execAnswer: the core's rule and its errors", () => {
  const identity = { type: "identity", procId: "p_1", status: "running" };
  const result = { type: "exec_result", procId: "p_1", stdout: enc("hi"), stderr: new Uint8Array(0), stdoutTruncated: false, stderrTruncated: false, exitCode: 0, timedOut: false };
  assert.equal(identityAnswer([identity]), identity);
  assert.equal(execAnswer([result]), result);
  assert.equal(execAnswer([identity]), identity);
  assert.throws(
    () => identityAnswer([result]),
    (e) => e instanceof UnexpectedFrame && assert.deepEqual(fields(e), ["unexpected_frame", 0, "exec_result", "expected a process identity, got exec_result"]) === undefined,
  );
  // An exec answered by no document (over HTTP the reader refuses such an answer first).
  assert.throws(
    () => execAnswer([]),
    (e) => e instanceof UnexpectedFrame && assert.deepEqual(fields(e), ["unexpected_frame", 0, "none", "expected an exec result, got no document"]) === undefined,
  );
});

test("a start answered by an exec result is the core's UnexpectedFrame", async () => {
  const f = scriptedFetch([{ type: JSON_TYPE, chunks: [JSON.stringify(RESULT)] }]);
  const client = new Client({ baseUrl: "http://dory.test", fetch: f.fetch });
  const computer = await client.computers.get("c1");
  await assert.rejects(computer.processes.start("echo hi"), (e) => {
    assert.ok(e instanceof UnexpectedFrame, String(e));
    assert.deepEqual(fields(e), ["unexpected_frame", 0, "exec_result", "expected a process identity, got exec_result"]);
    return true;
  });
});
