// The reader's JavaScript surface: events, ends, cursors, resume, liveness,
// deferred errors, error classes, transcripts, iterEvents over every kind of body.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import * as api from "dory-wire";

const { Reader, Transcript, iterEvents, DoryWireError, OutputGap, ApiError, ProtocolError, OutputExpired, OffsetBeyondOutput } = api;
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
  const r = new Reader("exec");
  r.open(200, NDJSON, "p_1");
  const events = r.feed(enc(execBody()));
  assert.deepEqual(events, [
    { type: "started", procId: "p_1" },
    { type: "output", stream: "stdout", data: enc("hello"), start: 0, end: 5 },
    { type: "output", stream: "stderr", data: new Uint8Array([0, 255]), start: 0, end: 2 },
    { type: "heartbeat" },
    { type: "unknown", frameType: "progress" },
    { type: "exit", exitCode: 0, timedOut: false },
  ]);
  assert.ok(events[1].data instanceof Uint8Array);
  const [last, end] = r.finish();
  assert.deepEqual(last, []);
  assert.deepEqual(end, { type: "exited", exitCode: 0, timedOut: false });
  assert.equal(r.end, end);
  assert.deepEqual(r.cursor, { stdout: 5, stderr: 2 });
  assert.equal(r.procId, "p_1");
  assert.equal(r.state, "done");
});

test("a JSON document's event comes first from finish(), the End never carries events", () => {
  const r = new Reader("document");
  r.open(200, "application/json");
  assert.deepEqual(r.feed(enc('{"proc_id":"p_9","status":"running"}')), []);
  const [events, end] = r.finish();
  assert.deepEqual(end, { type: "document" });
  assert.deepEqual(events, [{ type: "identity", procId: "p_9", status: "running" }]);
  assert.equal(r.procId, "p_9");
});

test("a result document is an exec_result event with stdout and stderr bytes", () => {
  const r = new Reader("document");
  r.open(200, "application/json");
  r.feed(enc(JSON.stringify({ proc_id: "p", stdout: "out", stderr: "/w==", stderr_encoding: "base64", stdout_truncated: false, stderr_truncated: true, exit_code: 3, timed_out: false })));
  const [[ev], end] = r.finish();
  assert.equal(end.type, "document");
  assert.deepEqual(ev, { type: "exec_result", procId: "p", stdout: enc("out"), stderr: new Uint8Array([255]), stdoutTruncated: false, stderrTruncated: true, exitCode: 3, timedOut: false });
});

test("an error after events in one feed is thrown by the next call, and stays", () => {
  const r = new Reader("process_output");
  r.open(200, NDJSON);
  const body = line({ type: "stdout", data: "ab", offset: 2 }) + "not json\n" + line({ type: "heartbeat" });
  const events = r.feed(enc(body));
  assert.equal(events.length, 1);
  assert.throws(
    () => r.feed(enc("")),
    (e) => e instanceof ProtocolError && e instanceof api.MalformedFrame && e.code === "malformed_frame" && e.kind === "protocol" && e.line === 2,
  );
  assert.throws(() => r.finish(), (e) => e instanceof ProtocolError && e.code === "malformed_frame");
  assert.deepEqual(r.cursor, { stdout: 2, stderr: 0 });
  assert.equal(r.state, "failed");
});

test("an error with no event before it is thrown at once", () => {
  const r = new Reader("process_output");
  r.open(200, NDJSON);
  assert.throws(() => r.feed(enc("{}\n")), (e) => e instanceof ProtocolError && e.code === "malformed_frame");
});

test("a hole under fail throws OutputGap with cursors; under skip yields skipped", () => {
  const body = enc(line({ type: "stdout", data: "x", offset: 11 }));
  const r = new Reader("process_output", { cursor: { stdout: 3 } });
  r.open(200, NDJSON);
  let err;
  try {
    r.feed(body);
  } catch (e) {
    err = e;
  }
  assert.ok(err instanceof OutputGap && err instanceof api.LossError && err instanceof DoryWireError && err instanceof Error);
  assert.ok(!(err instanceof ProtocolError) && !(err instanceof api.AnswerError));
  assert.equal(err.name, "OutputGap");
  assert.equal(err.code, "output_gap");
  assert.equal(err.kind, "loss");
  assert.equal(err.stream, "stdout");
  assert.deepEqual(err.consumed, { stdout: 3, stderr: 0 });
  assert.deepEqual(err.earliest, { stdout: 10, stderr: 0 });
  assert.match(err.message, /output_gap/);

  const s = new Reader("process_output", { cursor: { stdout: 3 }, gapPolicy: "skip" });
  s.open(200, NDJSON);
  assert.deepEqual(s.feed(body), [
    { type: "skipped", stream: "stdout", start: 3, end: 10 },
    { type: "output", stream: "stdout", data: enc("x"), start: 10, end: 11 },
  ]);
  assert.deepEqual(s.finish()[1].type, "disconnected");
});

test("error answers map to their classes", () => {
  const cases = [
    [410, { error: "output_expired", message: "gone" }, OutputExpired, "output_expired"],
    [400, { error: "offset_beyond_output", message: "too far" }, OffsetBeyondOutput, "offset_beyond_output"],
    [404, { error: "not_found", message: "no such process" }, ApiError, "api_error"],
  ];
  for (const [status, body, cls, code] of cases) {
    const r = new Reader("process_output");
    r.open(status, "application/json");
    r.feed(enc(JSON.stringify(body)));
    assert.throws(() => r.finish(), (e) => e instanceof cls && e.code === code && !(e instanceof ProtocolError) && e.serverMessage === body.message);
  }
  const expired = new Reader("process_output");
  expired.open(410, "application/json");
  expired.feed(enc(JSON.stringify({ error: "output_expired", message: "gone" })));
  assert.throws(() => expired.finish(), (e) => e instanceof api.LossError && !(e instanceof api.AnswerError));
  const r = new Reader("process_output");
  r.open(404, "application/json");
  r.feed(enc(JSON.stringify({ error: "not_found", message: "no such process" })));
  assert.throws(() => r.finish(), (e) => e.status === 404 && e.apiCode === "not_found" && e.serverMessage === "no such process");
  const h = new Reader("exec");
  assert.throws(
    () => h.open(200, "text/html"),
    (e) => e instanceof ProtocolError && e instanceof api.UnsupportedContentType && e.code === "unsupported_content_type" && e.contentType === "text/html",
  );
});

test("an offset above Number.MAX_SAFE_INTEGER is an error, never rounded", () => {
  const r = new Reader("process_output", { gapPolicy: "skip" });
  r.open(200, NDJSON);
  assert.throws(
    () => r.feed(enc('{"type":"stdout","data":"a","offset":9007199254740993}\n')),
    (e) => e instanceof api.IntegerOutOfRange && e instanceof DoryWireError && e.code === "integer_out_of_range" && e.kind === "limits" && e.value === 9007199254740992n,
  );
  // Sticky.
  assert.throws(() => r.finish(), (e) => e.code === "integer_out_of_range");
  assert.throws(() => new Reader("process_output", { cursor: { stdout: 2 ** 53 } }), RangeError);
  // At the limit itself it is exact.
  const ok = new Reader("process_output", { cursor: { stdout: Number.MAX_SAFE_INTEGER - 1 } });
  ok.open(200, NDJSON);
  const [ev] = ok.feed(enc(`{"type":"stdout","data":"a","offset":${Number.MAX_SAFE_INTEGER}}\n`));
  assert.equal(ev.end, Number.MAX_SAFE_INTEGER);
});

test("resume state round-trips as a camelCase object and as the neutral JSON", () => {
  const r = new Reader("exec");
  r.open(200, NDJSON);
  r.feed(enc(line({ type: "started", proc_id: "p_2" }) + line({ type: "stdout", data: "abc", offset: 3 })));
  const state = r.resumeState();
  assert.deepEqual(state, { version: 1, procId: "p_2", cursor: { stdout: 3, stderr: 0 }, exitSeen: false, exitCode: null, timedOut: false });
  assert.deepEqual(JSON.parse(r.resumeStateJson()), {
    version: 1,
    proc_id: "p_2",
    cursor: { stdout: 3, stderr: 0 },
    exit_seen: false,
    exit_code: null,
    timed_out: false,
  });
  // The older key of version 1 states is still read.
  const older = r.resumeStateJson().replace('"proc_id"', '"process_id"');
  for (const saved of [state, r.resumeStateJson(), older]) {
    const again = Reader.resume("process_output", saved);
    assert.deepEqual(again.cursor, { stdout: 3, stderr: 0 });
    assert.equal(again.procId, "p_2");
    assert.deepEqual(again.resumeState(), state);
    again.open(200, NDJSON);
    assert.deepEqual(again.feed(enc(line({ type: "stdout", data: "abcdef", offset: 6 }))), [
      { type: "output", stream: "stdout", data: enc("def"), start: 3, end: 6 },
    ]);
  }
  assert.throws(() => Reader.resume("process_output", "{}"), (e) => e instanceof api.InvalidState && e.code === "invalid_state");
  assert.throws(() => Reader.resume("process_output", 42), TypeError);
  // The snake_case form is the string; as an object it is refused, not half read.
  assert.throws(() => Reader.resume("process_output", JSON.parse(r.resumeStateJson())), (e) => e instanceof TypeError && /proc_id/.test(e.message));
  // Offsets a Number cannot hold: the object form refuses, the JSON form is exact.
  const far = r.resumeStateJson().replace('"stdout":3', '"stdout":9007199254740993');
  const big = Reader.resume("process_output", far);
  assert.equal(big.resumeStateJson(), far);
  assert.throws(() => big.resumeState(), (e) => e instanceof api.IntegerOutOfRange && e.value === 9007199254740993n);
  assert.throws(() => big.cursor, (e) => e instanceof api.IntegerOutOfRange);
});

test("liveness: pollTimeoutMs and handleTimeoutMs on the caller's clock", () => {
  const r = new Reader("process_output", { livenessTimeoutMs: 1000 });
  r.open(200, NDJSON);
  assert.equal(r.pollTimeoutMs(), null);
  assert.equal(r.handleTimeoutMs(0), false);
  assert.equal(r.pollTimeoutMs(), 1000);
  r.feed(enc(line({ type: "heartbeat" })));
  assert.equal(r.handleTimeoutMs(500), false);
  assert.equal(r.pollTimeoutMs(), 1500);
  assert.equal(r.handleTimeoutMs(1499), false);
  assert.equal(r.handleTimeoutMs(1500), true);
  assert.deepEqual(r.finish(), [[], { type: "disconnected", cursor: { stdout: 0, stderr: 0 }, reason: "stalled" }]);
});

test("the defaults are the core's constants", () => {
  assert.equal(api.DEFAULT_MAX_FRAME_BYTES, 16 * 1024 * 1024);
  assert.equal(api.DEFAULT_LIVENESS_TIMEOUT_MS, 30_000);
  assert.equal(api.MAX_FRAME_BYTES_LIMIT, 2 ** 30);
  assert.ok(Number.isSafeInteger(api.MIN_MAX_BYTES) && api.MIN_MAX_BYTES > 0);
  const r = new Reader("process_output");
  r.open(200, NDJSON);
  r.handleTimeoutMs(0);
  assert.equal(r.pollTimeoutMs(), api.DEFAULT_LIVENESS_TIMEOUT_MS);
  const big = new Reader("process_output");
  big.open(200, NDJSON);
  assert.throws(() => big.feed(new Uint8Array(api.DEFAULT_MAX_FRAME_BYTES + 1).fill(0x61)), (e) => e instanceof api.FrameTooLarge && e.limit === api.DEFAULT_MAX_FRAME_BYTES);
});

function chunksOf(text, size) {
  const bytes = enc(text);
  const out = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size));
  return out;
}

test("iterEvents over a ReadableStream, an async iterable, an iterable and a Response", async () => {
  const expected = new Reader("exec");
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
    const r = new Reader("exec");
    r.open(200, NDJSON);
    const got = [];
    for await (const ev of iterEvents(r, make())) got.push(ev);
    assert.deepEqual(got, want, name);
    assert.equal(r.end.type, "exited", name);
  }
  const response = new Response(bodies.stream(), { status: 200, headers: { "content-type": NDJSON, "ce-process-id": "p_1" } });
  const r = new Reader("exec");
  const gen = iterEvents(r, response);
  const got = [];
  let step;
  while (!(step = await gen.next()).done) got.push(step.value);
  assert.deepEqual(got, want);
  assert.equal(step.value.type, "exited");
});

test("iterEvents ends a silent body as stalled", async () => {
  let cancelled = false;
  const body = new ReadableStream({
    start(c) {
      c.enqueue(enc(line({ type: "stdout", data: "a", offset: 1 })));
    },
    cancel() {
      cancelled = true;
    },
  });
  const r = new Reader("process_output", { livenessTimeoutMs: 30 });
  r.open(200, NDJSON);
  const got = [];
  for await (const ev of iterEvents(r, body)) got.push(ev.type);
  assert.deepEqual(got, ["output"]);
  assert.equal(r.end.type, "disconnected");
  assert.equal(r.end.reason, "stalled");
  assert.ok(cancelled, "the body was cancelled");
});

test("iterEvents throws decoding errors and rejects string chunks", async () => {
  const r = new Reader("process_output");
  r.open(200, NDJSON);
  await assert.rejects(async () => {
    for await (const _ of iterEvents(r, [enc("garbage\n")]));
  }, ProtocolError);
  const s = new Reader("process_output");
  s.open(200, NDJSON);
  await assert.rejects(async () => {
    for await (const _ of iterEvents(s, ["text"]));
  }, TypeError);
});

test("errors are the same classes through import and require", () => {
  const cjs = createRequire(import.meta.url)("dory-wire");
  assert.equal(cjs.Reader, Reader);
  assert.equal(cjs.OutputGap, OutputGap);
  const r = new cjs.Reader("process_output");
  r.open(200, NDJSON);
  assert.throws(() => r.feed(enc("x\n")), (e) => e instanceof ProtocolError && e instanceof cjs.DoryWireError);
  // A copy of the package (another version, another bundle) is recognised by brand.
  const foreign = { code: "output_gap" };
  Object.defineProperty(foreign, Symbol.for("dory-wire.error"), { value: true });
  assert.ok(foreign instanceof OutputGap && foreign instanceof api.LossError && foreign instanceof DoryWireError);
  assert.ok(!(foreign instanceof ApiError) && !(foreign instanceof ProtocolError) && !(foreign instanceof api.AnswerError));
  const unbranded = { code: "output_gap" };
  assert.ok(!(unbranded instanceof OutputGap) && !(unbranded instanceof DoryWireError));
});

test("output bytes are plain Uint8Arrays of their own, untouched by later feeds", () => {
  const r = new Reader("exec");
  r.open(200, NDJSON, "p_1");
  const first = r
    .feed(enc(line({ type: "started", proc_id: "p_1" }) + line({ type: "stdout", data: "abc", offset: 3 }) + line({ type: "stderr", data: "xy", offset: 2 })))
    .slice(1);
  const big = "Z".repeat(20000); // large outputs are copied out another way
  const second = r.feed(enc(line({ type: "stdout", data: "ZZZZZZ", offset: 9 }) + line({ type: "stdout", data: big, offset: 20009 })));
  for (const e of [...first, ...second]) {
    assert.equal(Object.getPrototypeOf(e.data), Uint8Array.prototype);
  }
  assert.deepEqual(first.map((e) => e.data), [enc("abc"), enc("xy")]);
  assert.deepEqual(second.map((e) => e.data), [enc("ZZZZZZ"), enc(big)]);
  first[0].data.fill(0);
  assert.deepEqual(first[1].data, enc("xy"), "the views of one feed do not overlap");
  const t = new Transcript();
  t.push({ type: "output", stream: "stdout", data: enc("abc"), start: 0, end: 3 });
  for (const e of second) t.push(e);
  const bytes = t.bytes("stdout");
  assert.equal(Object.getPrototypeOf(bytes), Uint8Array.prototype);
  assert.deepEqual(bytes, enc("abcZZZZZZ" + big));
  t.free();
  r.free();
});

test("feedInto collects output in a Transcript and returns the other events", () => {
  const body =
    line({ type: "started", proc_id: "p_1" }) +
    line({ type: "stdout", data: "caf\u00e9", offset: 5 }) +
    line({ type: "stderr", data: "AP8=", encoding: "base64", offset: 2 }) +
    line({ type: "heartbeat" }) +
    line({ type: "stdout", data: "!", offset: 6 }) +
    line({ type: "exit", exit_code: 7, timed_out: false });
  const bytes = enc(body);
  // Whole and byte by byte: the same transcript and the same events.
  for (const size of [bytes.length, 1]) {
    const t = new Transcript();
    const r = new Reader("exec");
    r.open(200, NDJSON, "p_1");
    const events = [];
    for (let i = 0; i < bytes.length; i += size) events.push(...r.feedInto(bytes.subarray(i, i + size), t));
    assert.deepEqual(events, [{ type: "started", procId: "p_1" }, { type: "heartbeat" }, { type: "exit", exitCode: 7, timedOut: false }]);
    assert.deepEqual(r.finish(), [[], { type: "exited", exitCode: 7, timedOut: false }]);
    assert.deepEqual(t.bytes(), enc("café!"));
    assert.deepEqual(t.bytes("stderr"), new Uint8Array([0, 255]));
    assert.equal(t.text("stdout"), "café!");
    assert.equal(t.text("stderr"), "\0\ufffd");
    assert.deepEqual(t.skipped("stdout"), []);
    assert.equal(t.isComplete(), true);
    assert.deepEqual(t.exit, { exitCode: 7, timedOut: false });
    assert.deepEqual(r.cursor, { stdout: 6, stderr: 2 });
    t.free();
  }
});

test("a Transcript keeps skipped ranges visible and holds back a split character", () => {
  const t = new Transcript();
  const r = new Reader("process_output", { cursor: { stderr: 1 }, gapPolicy: "skip" });
  r.open(200, NDJSON);
  const events = r.feedInto(enc(line({ type: "stderr", data: "ww==", encoding: "base64", offset: 2 }) + line({ type: "stderr", data: "4oI=", encoding: "base64", offset: 10 })), t);
  assert.deepEqual(events, [
    { type: "skipped", stream: "stderr", start: 2, end: 8 },
  ]);
  assert.equal(t.exit, null);
  assert.deepEqual(t.skipped("stderr"), [[2, 8]]);
  assert.equal(t.isComplete("stderr"), false);
  assert.equal(t.isComplete("stdout"), true);
  // "\xc3", a loss, then "\xe2\x82": never joined across the loss, and
  // an incomplete last character is held back until finish().
  assert.equal(t.text("stderr"), "\ufffd\n[dory-wire: bytes 2..8 were lost]\n");
  t.finish();
  assert.equal(t.text("stderr"), "\ufffd\n[dory-wire: bytes 2..8 were lost]\n\ufffd");
  // push() records what feed() returned the same way.
  const u = new Transcript();
  const s = new Reader("process_output", { cursor: { stderr: 1 }, gapPolicy: "skip" });
  s.open(200, NDJSON);
  for (const e of s.feed(enc(line({ type: "stderr", data: "ww==", encoding: "base64", offset: 2 }) + line({ type: "stderr", data: "4oI=", encoding: "base64", offset: 10 })))) u.push(e);
  u.push({ type: "exit", exitCode: null, timedOut: true });
  u.push({ type: "heartbeat" });
  u.finish();
  assert.equal(u.text("stderr"), t.text("stderr"));
  assert.deepEqual(u.bytes("stderr"), t.bytes("stderr"));
  assert.deepEqual(u.exit, { exitCode: null, timedOut: true });
});

test("Transcript misuse is a TypeError, a RangeError or InvalidState", () => {
  const t = new Transcript();
  assert.throws(() => t.bytes("stdin"), RangeError);
  assert.throws(() => t.text(1), TypeError);
  assert.throws(() => t.push("output"), TypeError);
  assert.throws(() => t.push({ type: "stdout", data: enc("x"), start: 0, end: 1 }), TypeError);
  assert.throws(() => t.push({ type: "output", stream: "stdout", data: enc("xy"), start: 0, end: 1 }), RangeError);
  assert.throws(() => t.push({ type: "output", stream: "stdout", data: "x", start: 0, end: 1 }), TypeError);
  const r = new Reader("process_output");
  r.open(200, NDJSON);
  assert.throws(() => r.feedInto(enc(""), {}), TypeError);
  t.free();
  t.free();
  assert.throws(() => t.bytes(), (e) => e instanceof api.InvalidState);
  assert.throws(() => r.feedInto(enc(""), t), (e) => e instanceof api.InvalidState);
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
