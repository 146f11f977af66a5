// The reader's JavaScript surface: events, ends, cursors, resume, liveness,
// deferred errors, error classes, readEvents over every kind of body.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import * as api from "dory-wire";

const { OutputReader, readEvents, DoryWireError, OutputGap, ApiError, ProtocolError, OutputExpired, OffsetBeyondOutput } = api;
const enc = (s) => new TextEncoder().encode(s);
const line = (o) => JSON.stringify(o) + "\n";
const NDJSON = "application/x-ndjson";

function execBody() {
  return (
    line({ type: "started", proc_id: "p_1" }) +
    line({ type: "stdout", data: "hello", offset: 5 }) +
    line({ type: "stderr", data: "AP8=", encoding: "base64", offset: 2 }) +
    line({ type: "heartbeat" }) +
    line({ type: "progress", pct: 50 }) +
    line({ type: "exit", exit_code: 0, timed_out: false })
  );
}

test("an exec stream decodes to plain camelCase events", () => {
  const r = new OutputReader("exec");
  r.open(200, NDJSON, "p_1");
  const events = r.feed(enc(execBody()));
  assert.deepEqual(events, [
    { type: "started", procId: "p_1" },
    { type: "stdout", data: enc("hello"), start: 0, end: 5 },
    { type: "stderr", data: new Uint8Array([0, 255]), start: 0, end: 2 },
    { type: "heartbeat" },
    { type: "unknown", frameType: "progress" },
    { type: "exit", exitCode: 0, timedOut: false },
  ]);
  assert.ok(events[1].data instanceof Uint8Array);
  const end = r.finish();
  assert.deepEqual(end, { type: "exited", exitCode: 0, timedOut: false, events: [] });
  assert.equal(r.end, end);
  assert.deepEqual(r.cursor, { stdout: 5, stderr: 2 });
  assert.equal(r.processId, "p_1");
  assert.equal(r.state, "done");
});

test("a JSON document's event comes with the End", () => {
  const r = new OutputReader("document");
  r.open(200, "application/json");
  assert.deepEqual(r.feed(enc('{"proc_id":"p_9","status":"running"}')), []);
  const end = r.finish();
  assert.equal(end.type, "document");
  assert.deepEqual(end.events, [{ type: "identity", procId: "p_9", status: "running" }]);
});

test("a result document carries stdout and stderr bytes", () => {
  const r = new OutputReader("document");
  r.open(200, "application/json");
  r.feed(enc(JSON.stringify({ proc_id: "p", stdout: "out", stderr: "/w==", stderr_encoding: "base64", stdout_truncated: false, stderr_truncated: true, exit_code: 3, timed_out: false })));
  const [ev] = r.finish().events;
  assert.deepEqual(ev, { type: "result", procId: "p", stdout: enc("out"), stderr: new Uint8Array([255]), stdoutTruncated: false, stderrTruncated: true, exitCode: 3, timedOut: false });
});

test("an error after events in one feed is thrown by the next call, and stays", () => {
  const r = new OutputReader("process_output");
  r.open(200, NDJSON);
  const body = line({ type: "stdout", data: "ab", offset: 2 }) + "not json\n" + line({ type: "heartbeat" });
  const events = r.feed(enc(body));
  assert.equal(events.length, 1);
  assert.throws(() => r.feed(enc("")), (e) => e instanceof ProtocolError && e.code === "malformed_frame" && e.line === 2);
  assert.throws(() => r.finish(), (e) => e instanceof ProtocolError && e.code === "malformed_frame");
  assert.deepEqual(r.cursor, { stdout: 2, stderr: 0 });
  assert.equal(r.state, "failed");
});

test("an error with no event before it is thrown at once", () => {
  const r = new OutputReader("process_output");
  r.open(200, NDJSON);
  assert.throws(() => r.feed(enc("{}\n")), (e) => e instanceof ProtocolError && e.code === "malformed_frame");
});

test("a hole under fail throws OutputGap with cursors; under skip yields skipped", () => {
  const body = enc(line({ type: "stdout", data: "x", offset: 11 }));
  const r = new OutputReader("process_output", { cursor: { stdout: 3 } });
  r.open(200, NDJSON);
  let err;
  try {
    r.feed(body);
  } catch (e) {
    err = e;
  }
  assert.ok(err instanceof OutputGap && err instanceof DoryWireError && err instanceof Error);
  assert.equal(err.name, "OutputGap");
  assert.equal(err.code, "output_gap");
  assert.equal(err.stream, "stdout");
  assert.deepEqual(err.consumed, { stdout: 3, stderr: 0 });
  assert.deepEqual(err.earliest, { stdout: 10, stderr: 0 });
  assert.match(err.message, /output_gap/);

  const s = new OutputReader("process_output", { cursor: { stdout: 3 }, gapPolicy: "skip" });
  s.open(200, NDJSON);
  assert.deepEqual(s.feed(body), [
    { type: "skipped", stream: "stdout", from: 3, to: 10 },
    { type: "stdout", data: enc("x"), start: 10, end: 11 },
  ]);
  assert.deepEqual(s.finish().type, "disconnected");
});

test("error answers map to their classes", () => {
  const cases = [
    [410, { error: "output_expired", message: "gone" }, OutputExpired, "output_expired"],
    [400, { error: "offset_beyond_output", message: "too far" }, OffsetBeyondOutput, "offset_beyond_output"],
    [404, { error: "not_found", message: "no such process" }, ApiError, "api_error"],
  ];
  for (const [status, body, cls, code] of cases) {
    const r = new OutputReader("process_output");
    r.open(status, "application/json");
    r.feed(enc(JSON.stringify(body)));
    assert.throws(() => r.finish(), (e) => e instanceof cls && e.code === code && !(e instanceof ProtocolError));
  }
  const r = new OutputReader("process_output");
  r.open(404, "application/json");
  r.feed(enc(JSON.stringify({ error: "not_found", message: "no such process" })));
  assert.throws(() => r.finish(), (e) => e.status === 404 && e.apiCode === "not_found" && e.serverMessage === "no such process");
  const h = new OutputReader("exec");
  assert.throws(() => h.open(200, "text/html"), (e) => e instanceof ProtocolError && e.code === "unsupported_content_type" && e.contentType === "text/html");
});

test("an offset above Number.MAX_SAFE_INTEGER is an error, never rounded", () => {
  const r = new OutputReader("process_output", { gapPolicy: "skip" });
  r.open(200, NDJSON);
  assert.throws(
    () => r.feed(enc('{"type":"stdout","data":"a","offset":9007199254740993}\n')),
    (e) => e instanceof DoryWireError && e.code === "integer_out_of_range" && e.value === 9007199254740992n,
  );
  // Sticky.
  assert.throws(() => r.finish(), (e) => e.code === "integer_out_of_range");
  assert.throws(() => new OutputReader("process_output", { cursor: { stdout: 2 ** 53 } }), RangeError);
  // At the limit itself it is exact.
  const ok = new OutputReader("process_output", { cursor: { stdout: Number.MAX_SAFE_INTEGER - 1 } });
  ok.open(200, NDJSON);
  const [ev] = ok.feed(enc(`{"type":"stdout","data":"a","offset":${Number.MAX_SAFE_INTEGER}}\n`));
  assert.equal(ev.end, Number.MAX_SAFE_INTEGER);
});

test("resume state round-trips as an object and as JSON", () => {
  const r = new OutputReader("exec");
  r.open(200, NDJSON);
  r.feed(enc(line({ type: "started", proc_id: "p_2" }) + line({ type: "stdout", data: "abc", offset: 3 })));
  const state = r.resumeState();
  assert.deepEqual(state.cursor, { stdout: 3, stderr: 0 });
  assert.equal(state.process_id, "p_2");
  assert.deepEqual(JSON.parse(r.resumeStateJson()), state);
  for (const saved of [state, JSON.stringify(state), r.resumeStateJson()]) {
    const again = OutputReader.resume("process_output", saved);
    assert.deepEqual(again.cursor, { stdout: 3, stderr: 0 });
    assert.equal(again.processId, "p_2");
    again.open(200, NDJSON);
    assert.deepEqual(again.feed(enc(line({ type: "stdout", data: "abcdef", offset: 6 }))), [
      { type: "stdout", data: enc("def"), start: 3, end: 6 },
    ]);
  }
  assert.throws(() => OutputReader.resume("process_output", "{}"), (e) => e instanceof DoryWireError && e.code === "invalid_state");
  assert.throws(() => OutputReader.resume("process_output", 42), TypeError);
});

test("liveness: pollTimeout and handleTimeout on the caller's clock", () => {
  const r = new OutputReader("process_output", { livenessTimeoutMs: 1000 });
  r.open(200, NDJSON);
  assert.equal(r.pollTimeout(), null);
  assert.equal(r.handleTimeout(0), false);
  assert.equal(r.pollTimeout(), 1000);
  r.feed(enc(line({ type: "heartbeat" })));
  assert.equal(r.handleTimeout(500), false);
  assert.equal(r.pollTimeout(), 1500);
  assert.equal(r.handleTimeout(1499), false);
  assert.equal(r.handleTimeout(1500), true);
  assert.deepEqual(r.finish(), { type: "disconnected", cursor: { stdout: 0, stderr: 0 }, reason: "stalled", events: [] });
});

function chunksOf(text, size) {
  const bytes = enc(text);
  const out = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size));
  return out;
}

test("readEvents over a ReadableStream, an async iterable, an iterable and a Response", async () => {
  const expected = new OutputReader("exec");
  expected.open(200, NDJSON);
  const want = expected.feed(enc(execBody()));
  const bodies = {
    stream: () =>
      new ReadableStream({
        start(c) {
          for (const chunk of chunksOf(execBody(), 7)) c.enqueue(chunk);
          c.close();
        },
      }),
    asyncIterable: () =>
      (async function* () {
        for (const chunk of chunksOf(execBody(), 3)) yield chunk;
      })(),
    iterable: () => chunksOf(execBody(), 11),
  };
  for (const [name, make] of Object.entries(bodies)) {
    const r = new OutputReader("exec");
    r.open(200, NDJSON);
    const got = [];
    for await (const ev of readEvents(r, make())) got.push(ev);
    assert.deepEqual(got, want, name);
    assert.equal(r.end.type, "exited", name);
  }
  const response = new Response(bodies.stream(), { status: 200, headers: { "content-type": NDJSON, "ce-process-id": "p_1" } });
  const r = new OutputReader("exec");
  const gen = readEvents(r, response);
  const got = [];
  let step;
  while (!(step = await gen.next()).done) got.push(step.value);
  assert.deepEqual(got, want);
  assert.equal(step.value.type, "exited");
});

test("readEvents ends a silent body as stalled", async () => {
  let cancelled = false;
  const body = new ReadableStream({
    start(c) {
      c.enqueue(enc(line({ type: "stdout", data: "a", offset: 1 })));
    },
    cancel() {
      cancelled = true;
    },
  });
  const r = new OutputReader("process_output", { livenessTimeoutMs: 30 });
  r.open(200, NDJSON);
  const got = [];
  for await (const ev of readEvents(r, body)) got.push(ev.type);
  assert.deepEqual(got, ["stdout"]);
  assert.equal(r.end.type, "disconnected");
  assert.equal(r.end.reason, "stalled");
  assert.ok(cancelled, "the body was cancelled");
});

test("readEvents throws decoding errors and rejects string chunks", async () => {
  const r = new OutputReader("process_output");
  r.open(200, NDJSON);
  await assert.rejects(async () => {
    for await (const _ of readEvents(r, [enc("garbage\n")]));
  }, ProtocolError);
  const s = new OutputReader("process_output");
  s.open(200, NDJSON);
  await assert.rejects(async () => {
    for await (const _ of readEvents(s, ["text"]));
  }, TypeError);
});

test("errors are the same classes through import and require", () => {
  const cjs = createRequire(import.meta.url)("dory-wire");
  assert.equal(cjs.OutputReader, OutputReader);
  assert.equal(cjs.OutputGap, OutputGap);
  const r = new cjs.OutputReader("process_output");
  r.open(200, NDJSON);
  assert.throws(() => r.feed(enc("x\n")), (e) => e instanceof ProtocolError && e instanceof cjs.DoryWireError);
  // A copy of the package (another version, another bundle) is recognised by brand.
  const foreign = { code: "output_gap" };
  Object.defineProperty(foreign, Symbol.for("dory-wire.error"), { value: true });
  assert.ok(foreign instanceof OutputGap && foreign instanceof DoryWireError && !(foreign instanceof ApiError));
});

test("Utf8Decoder never splits a character", () => {
  const d = new api.Utf8Decoder();
  const bytes = enc("café 😀!");
  let text = "";
  for (let i = 0; i < bytes.length; i++) text += d.push(bytes.subarray(i, i + 1));
  text += d.push(new Uint8Array([0xe2, 0x82]));
  text += d.finish();
  assert.equal(text, "café 😀!\ufffd");
  d.free();
});

test("init() resolves in Node", async () => {
  await api.init();
});
