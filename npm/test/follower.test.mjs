// The JS binding of the core's Follower and request builders (the
// conversation vectors, in vectors.test.mjs, prove the decisions): the
// defaults are the core's, argument types are TypeErrors naming the argument,
// values are the core's InvalidArgument, calls out of order are a sticky
// InvalidState, and requests, events and decisions are plain objects.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { join } from "node:path";
import * as api from "dory-wire";
import * as client from "dory-wire/client";
import { npmDir } from "./helpers.mjs";

const { Follower, Request, Reader, Transcript, DoryWireError, InvalidArgument, InvalidState, StreamDisconnected } = api;
const require = createRequire(import.meta.url);
const core = JSON.parse(require(join(npmDir, "dist", "node", "wasm", "dory_wire_wasm.js")).core_tables_json());

const enc = (s) => new TextEncoder().encode(s);
const line = (o) => JSON.stringify(o) + "\n";
const NDJSON = "application/x-ndjson";
const OUT = line({ type: "stdout", data: "hi", offset: 2 });
const EXIT = line({ type: "exit", exit_code: 0, timed_out: false });

const invalidState = (e) => e instanceof InvalidState && e instanceof DoryWireError && e.code === "invalid_state" && e.kind === "misuse";
const invalidArgument = (argument) => (e) =>
  e instanceof InvalidArgument && e.code === "invalid_argument" && e.kind === "misuse" && e.argument === argument && e.name === "InvalidArgument";
const typeError = (pattern) => (e) => e instanceof TypeError && pattern.test(e.message);

/** A follower with a request out. */
function sent(options) {
  const f = Follower.processOutput("c1", "p1", options);
  f.request();
  return f;
}

// ------------------------------------------------------------- defaults

test("the defaults are the core's: Follower.defaults, the constants, and a follower's options", () => {
  assert.deepEqual({ ...Follower.defaults }, core.followDefaults);
  assert.deepEqual(Follower.defaults, {
    follow: true,
    gapPolicy: "fail",
    retries: 5,
    backoffMs: 250,
    maxBackoffMs: 5000,
    jitter: true,
    livenessTimeoutMs: api.DEFAULT_LIVENESS_TIMEOUT_MS,
    maxFrameBytes: api.DEFAULT_MAX_FRAME_BYTES,
    strict: false,
  });
  assert.ok(Object.isFrozen(Follower.defaults));
  assert.throws(() => {
    "use strict";
    Follower.defaults = {};
  }, TypeError);
  assert.deepEqual(
    [api.DEFAULT_RETRIES, api.DEFAULT_BACKOFF_MS, api.DEFAULT_MAX_BACKOFF_MS],
    [core.followDefaults.retries, core.followDefaults.backoffMs, core.followDefaults.maxBackoffMs],
  );
  const f = Follower.processOutput("c1", "p1");
  assert.deepEqual(f.options, Follower.defaults);
  const g = Follower.setupLogs("c1", { retries: 0, backoffMs: 12.5, gapPolicy: "skip", jitter: false, maxFrameBytes: 1024 });
  assert.deepEqual(g.options, { ...Follower.defaults, retries: 0, backoffMs: 12.5, gapPolicy: "skip", jitter: false, maxFrameBytes: 1024 });
});

test("the backoff follows the options: the core's default doubling, jitter spread by the caller's value", () => {
  const delays = (options, jitter) => {
    const f = Follower.processOutput("c1", "p1", options);
    const out = [];
    for (let i = 0; i < 7; i++) {
      f.request();
      out.push(f.noResponse("refused", jitter).delayMs);
    }
    return out;
  };
  assert.deepEqual(delays({ jitter: false, retries: 7 }, 0), [250, 500, 1000, 2000, 4000, 5000, 5000]);
  assert.deepEqual(delays({ retries: 7 }, 0), [125, 250, 500, 1000, 2000, 2500, 2500]);
  assert.deepEqual(delays({ retries: 7, backoffMs: 10, maxBackoffMs: 30 }, 1), [10, 20, 30, 30, 30, 30, 30]);
  // Without a jitter value, Math.random() spreads each wait over [base/2, base].
  for (const delay of delays({ retries: 7 })) assert.ok(delay >= 125 && delay <= 5000, String(delay));
  const f = sent({ retries: 1 });
  const first = f.noResponse();
  assert.ok(first.delayMs >= 125 && first.delayMs <= 250, String(first.delayMs));
});

// ------------------------------------------------------- argument types

test("unknown options and wrong option types are TypeErrors naming the option", () => {
  assert.throws(() => Follower.processOutput("c1", "p1", { gap_policy: "skip" }), typeError(/unknown Follower option "gap_policy"/));
  assert.throws(() => Follower.processOutput("c1", "p1", { offset: 3 }), typeError(/"offset"/));
  assert.throws(() => Follower.setupLogs("c1", { cursor: {} }), typeError(/"cursor"/));
  assert.throws(() => Follower.resume("c1", "{}", { cursor: {} }), typeError(/"cursor"/));
  assert.throws(() => Follower.processOutput("c1", "p1", "fast"), TypeError);
  const wrong = { follow: "yes", gapPolicy: 1, retries: "5", backoffMs: "250", maxBackoffMs: true, jitter: 1, livenessTimeoutMs: null, maxFrameBytes: "1", strict: "no" };
  for (const [name, value] of Object.entries(wrong)) {
    if (value === null) continue; // null is "absent" for no option; see livenessTimeoutMs below
    assert.throws(() => Follower.processOutput("c1", "p1", { [name]: value }), typeError(new RegExp(`^${name} must be a`)), name);
  }
  assert.throws(() => Follower.processOutput("c1", "p1", { livenessTimeoutMs: null }), typeError(/^livenessTimeoutMs must be a number/));
  // Every option is checked by the type of its core default.
  assert.deepEqual(Object.keys(wrong).sort(), Object.keys(Follower.defaults).sort());
  // A bigint is a number.
  assert.equal(Follower.processOutput("c1", "p1", { retries: 2n }).options.retries, 2);
});

test("wrong argument types are TypeErrors naming the argument", () => {
  assert.throws(() => Follower.processOutput(1, "p1"), typeError(/^computerId must be a string/));
  assert.throws(() => Follower.processOutput("c1"), typeError(/^procId must be a string/));
  assert.throws(() => Follower.processOutput("c1", "p1", { cursor: 5 }), typeError(/^cursor must be an object/));
  assert.throws(() => Follower.processOutput("c1", "p1", { cursor: { stdout: "1" } }), typeError(/^cursor\.stdout must be a number/));
  assert.throws(() => Follower.setupLogs("c1", { offset: "0" }), typeError(/^offset must be a number/));
  assert.throws(() => Follower.execStream("c1", 5), typeError(/^command must be a string \(a shell line\) or an array of strings/));
  assert.throws(() => Follower.execStream("c1", ["sh", 1]), typeError(/^command/));
  assert.throws(() => Follower.execStream("c1", "true", { timeoutMs: "30" }), typeError(/^timeoutMs must be a number/));
  assert.throws(() => Follower.execStream("c1", "true", { timeoutSeconds: 30 }), typeError(/"timeoutSeconds": use timeoutMs/));
  assert.throws(() => Follower.execStream("c1", "true", { idempotencyKey: 7 }), typeError(/^idempotencyKey must be a string/));
  assert.throws(() => Follower.resume("c1", 42), TypeError);
  assert.throws(() => new Follower(), typeError(/Follower\.processOutput\(\)/));
  const f = sent();
  assert.throws(() => f.open("200", NDJSON), typeError(/^status must be a number/));
  assert.throws(() => f.open(200, 5), typeError(/^contentType must be a string/));
  assert.throws(() => f.open(200, NDJSON, 5), typeError(/^procId must be a string/));
  assert.throws(() => f.open(200, NDJSON, "p1", 5), typeError(/^retryAfter must be a string/));
  f.open(200, NDJSON, null, null);
  assert.throws(() => f.feed("text"), typeError(/TextEncoder/));
  assert.throws(() => f.feedInto(enc(""), {}), typeError(/Transcript/));
  assert.throws(() => f.finish(42), typeError(/^transportError must be a string or an Error/));
  assert.throws(() => f.finish(undefined, "0.5"), typeError(/^jitter must be a number/));
  assert.throws(() => f.waitedMs("now"), typeError(/^elapsedMs must be a number/));
  // None of that changed the follower.
  assert.equal(f.state, "body");
  assert.equal(f.finish(undefined, 0)[1].type, "reconnect");
  assert.throws(() => sent().noResponse(7), typeError(/^detail must be a string or an Error/));
});

// ------------------------------------------------------------- values

test("values no request or follower can be built from are the core's InvalidArgument", () => {
  assert.throws(() => Follower.processOutput("", "p1"), invalidArgument("computerId"));
  assert.throws(() => Follower.processOutput("c1", ""), invalidArgument("procId"));
  assert.throws(() => Follower.execStream("c1", ""), invalidArgument("command"));
  assert.throws(() => Follower.execStream("c1", []), invalidArgument("command"));
  assert.throws(() => Follower.execStream("c1", "true", { timeoutMs: 0 }), invalidArgument("timeoutMs"));
  assert.throws(() => Follower.execStream("c1", "true", { idempotencyKey: "a\nb" }), invalidArgument("idempotencyKey"));
  assert.throws(() => Follower.resume("c1", { version: 1, procId: null, cursor: { stdout: 0, stderr: 0 }, exitSeen: false, exitCode: null, timedOut: false }), invalidArgument("state"));
  assert.throws(() => Follower.resume("c1", "not json"), invalidState);
  for (const stdout of [-1, 0.5, 2 ** 53, Infinity, NaN, 2n ** 60n]) {
    assert.throws(() => Follower.processOutput("c1", "p1", { cursor: { stdout } }), invalidArgument("cursor.stdout"), String(stdout));
  }
  assert.throws(() => Follower.setupLogs("c1", { offset: -3 }), invalidArgument("offset"));
  const bad = [
    ["retries", -1],
    ["retries", 1.5],
    ["retries", 2 ** 32],
    ["backoffMs", -1],
    ["backoffMs", NaN],
    ["maxBackoffMs", Infinity],
    ["livenessTimeoutMs", -0.5],
    ["maxFrameBytes", 0],
    ["maxFrameBytes", api.MAX_FRAME_BYTES_LIMIT + 1],
    ["gapPolicy", "ignore"],
  ];
  for (const [name, value] of bad) {
    assert.throws(() => Follower.processOutput("c1", "p1", { [name]: value }), invalidArgument(name), `${name} ${value}`);
  }
  // A value the binding converts (a status, a time) changes nothing when refused.
  const f = sent();
  assert.throws(() => f.open(70000, NDJSON), invalidArgument("status"));
  assert.throws(() => f.open(99.5, NDJSON), invalidArgument("status"));
  // One range in every language, the core's: 100 to 599 (python/tests/test_misuse.py
  // checks the same edges).
  for (const status of [99, 600, 999, -1, 2 ** 70]) {
    assert.throws(() => f.open(status, NDJSON), invalidArgument("status"), `${status}`);
    assert.throws(() => new api.Reader("exec").open(status, NDJSON), invalidArgument("status"), `reader ${status}`);
  }
  assert.throws(() => f.waitedMs(-1), invalidArgument("elapsedMs"));
  assert.equal(f.state, "sent");
  f.open(200, NDJSON);
  f.feed(enc(OUT + EXIT));
  assert.equal(f.finish(undefined, 0)[1].type, "done");
  // The core's own refusal of a jitter outside [0, 1] is sticky, as every core error.
  const g = sent();
  assert.throws(() => g.noResponse("refused", 2), invalidArgument("jitter"));
  assert.equal(g.state, "failed");
  assert.throws(() => g.request(), invalidArgument("jitter"));
});

// ------------------------------------------------------------- misuse

test("calls out of order are InvalidState, and sticky", () => {
  const cases = [
    ["feed before request", (f) => f.feed(enc(""))],
    ["open before request", (f) => f.open(200, NDJSON)],
    ["finish before request", (f) => f.finish(undefined, 0)],
    ["noResponse before request", (f) => f.noResponse("x", 0)],
    [
      "request twice",
      (f) => {
        f.request();
        f.request();
      },
    ],
    [
      "feed before open",
      (f) => {
        f.request();
        f.feed(enc(""));
      },
    ],
    [
      "open twice",
      (f) => {
        f.request();
        f.open(200, NDJSON);
        f.open(200, NDJSON);
      },
    ],
    [
      "noResponse after open",
      (f) => {
        f.request();
        f.open(200, NDJSON);
        f.noResponse("x", 0);
      },
    ],
    [
      "request after done",
      (f) => {
        f.request();
        f.open(200, NDJSON);
        f.feed(enc(EXIT));
        f.finish(undefined, 0);
        f.request();
      },
    ],
  ];
  for (const [what, misuse] of cases) {
    const f = Follower.processOutput("c1", "p1");
    let first;
    assert.throws(
      () => misuse(f),
      (e) => {
        first = e;
        return invalidState(e) && /^invalid_state: /.test(e.message);
      },
      what,
    );
    assert.equal(f.state, "failed", what);
    // Every later call throws the same error.
    for (const call of [() => f.request(), () => f.feed(enc("")), () => f.finish(undefined, 0), () => f.noResponse("", 0), () => f.open(200, NDJSON)]) {
      assert.throws(call, (e) => invalidState(e) && e.message === first.message, what);
    }
  }
});

test("a freed follower refuses every call", () => {
  const f = Follower.processOutput("c1", "p1");
  f.free();
  f.free();
  assert.equal(f.state, "freed");
  for (const call of [() => f.request(), () => f.cursor, () => f.procId, () => f.attempts, () => f.resumeState(), () => f.waitLimitMs()]) {
    assert.throws(call, (e) => invalidState(e) && /freed/.test(e.message));
  }
  if (typeof Symbol.dispose === "symbol") {
    const g = Follower.setupLogs("c1");
    g[Symbol.dispose]();
    assert.equal(g.state, "freed");
  }
});

// ----------------------------------------------------- a conversation

test("requests are plain frozen objects built by the core", () => {
  const f = Follower.processOutput("c 1", "p/2", { cursor: { stdout: 5 } });
  const r = f.request();
  assert.deepEqual(Object.keys(r), ["method", "path", "query", "headers", "body", "wait", "idempotent", "target"]);
  assert.deepEqual(
    { ...r, query: r.query.map((p) => [...p]), headers: { ...r.headers } },
    {
      method: "GET",
      path: "/computers/c%201/processes/p%2F2/output",
      query: [
        ["stdout_offset", "5"],
        ["stderr_offset", "0"],
        ["follow", "true"],
      ],
      headers: { Accept: NDJSON },
      body: null,
      wait: "stream",
      idempotent: true,
      target: "/computers/c%201/processes/p%2F2/output?stdout_offset=5&stderr_offset=0&follow=true",
    },
  );
  assert.ok(Object.isFrozen(r) && Object.isFrozen(r.query) && Object.isFrozen(r.query[0]) && Object.isFrozen(r.headers));
  const exec = Follower.execStream("c1", ["echo", "hi"], { timeoutMs: 30_000, idempotencyKey: "k1" }).request();
  assert.ok(exec.body instanceof Uint8Array);
  assert.deepEqual(JSON.parse(new TextDecoder().decode(exec.body)), { command: ["echo", "hi"], timeout_seconds: 30 });
  assert.deepEqual({ ...exec.headers }, { Accept: NDJSON, "Idempotency-Key": "k1" });
  assert.deepEqual([exec.method, exec.path, exec.wait, exec.idempotent], ["POST", "/computers/c1/exec", "stream", true]);
  assert.equal(Follower.execStream("c1", "true").request().idempotent, false);
  assert.equal(Follower.setupLogs("c1", { offset: 3, follow: false }).request().target, "/computers/c1/setup/logs?offset=3&follow=false");
});

test("a read across a cut: the same events as a Reader, decisions as plain objects, the cursor carried on", () => {
  const f = Follower.processOutput("c1", "p1", { jitter: false });
  assert.equal(f.state, "ready");
  assert.equal(f.request().target, "/computers/c1/processes/p1/output?stdout_offset=0&stderr_offset=0&follow=true");
  assert.equal(f.state, "sent");
  f.open(200, NDJSON, "p1");
  assert.equal(f.state, "body");
  const body = enc(OUT + line({ type: "stderr", data: "\u00ff", offset: 2 }) + '{"type":"std');
  const reader = new Reader("process_output");
  reader.open(200, NDJSON, "p1");
  assert.deepEqual(f.feed(body), reader.feed(body));
  assert.deepEqual(f.cursor, { stdout: 2, stderr: 2 });
  const [events, decision] = f.finish(new TypeError("terminated"), 0);
  assert.deepEqual(events, []);
  assert.deepEqual(decision, {
    type: "reconnect",
    attempt: 1,
    failures: 0,
    reason: "end_of_body",
    cursor: { stdout: 2, stderr: 2 },
    delayMs: 0,
    procId: "p1",
    detail: "terminated",
  });
  assert.equal(f.attempts, 1);
  assert.equal(f.state, "ready");
  assert.equal(f.request().target, "/computers/c1/processes/p1/output?stdout_offset=2&stderr_offset=2&follow=true");
  f.open(200, NDJSON, "p1");
  const transcript = new Transcript();
  assert.deepEqual(f.feedInto(enc(line({ type: "stdout", data: "hi!", offset: 3 }) + EXIT), transcript), [{ type: "exit", exitCode: 0, timedOut: false }]);
  assert.equal(new TextDecoder().decode(transcript.bytes("stdout")), "!");
  assert.deepEqual(f.finish(), [[], { type: "done", exited: true, exitCode: 0, timedOut: false, cursor: { stdout: 3, stderr: 2 }, procId: "p1" }]);
  assert.equal(f.state, "done");
  assert.deepEqual(f.resumeState(), { version: 1, procId: "p1", cursor: { stdout: 3, stderr: 2 }, exitSeen: true, exitCode: 0, timedOut: false });
  // The saved state resumes the read (here: already complete).
  const again = Follower.resume("c1", f.resumeStateJson());
  assert.deepEqual([again.cursor, again.procId], [{ stdout: 3, stderr: 2 }, "p1"]);
  transcript.free();
});

test("a budget spent is the core's StreamDisconnected, the client's class too", () => {
  const f = Follower.processOutput("c1", "p1", { retries: 1, jitter: false });
  f.request();
  assert.equal(f.noResponse(new Error("connect ECONNREFUSED 127.0.0.1:1")).detail, "connect ECONNREFUSED 127.0.0.1:1");
  f.request();
  f.open(503, "text/plain", null, "1");
  f.feed(enc("busy"));
  let error;
  assert.throws(
    () => f.finish(),
    (e) => {
      error = e;
      return e instanceof StreamDisconnected;
    },
  );
  assert.equal(error.code, "stream_disconnected");
  assert.equal(error.kind, "transport");
  assert.equal(error.name, "StreamDisconnected");
  assert.equal(error.reason, "unavailable");
  assert.deepEqual(error.cursor, { stdout: 0, stderr: 0 });
  assert.equal(error.procId, "p1");
  assert.match(error.message, /^stream_disconnected: the service was unavailable \(HTTP 503\); resume from stdout_offset 0, stderr_offset 0$/);
  assert.deepEqual(Object.keys(error).filter((k) => k !== "code" && k !== "kind").sort(), ["cursor", "detail", "procId", "reason"]);
  // The wire's names, as the HTTP client's documented programs read them.
  assert.deepEqual([error.stdout_offset, error.stderr_offset, error.proc_id], [0, 0, "p1"]);
  // One class for both entry points.
  assert.equal(client.StreamDisconnected, StreamDisconnected);
  assert.ok(error instanceof client.StreamDisconnected && error instanceof DoryWireError);
  const made = new client.StreamDisconnected("stream_disconnected: x", { reason: "gap", cursor: { stdout: 4, stderr: 1 }, procId: null, cause: new Error("x") });
  assert.deepEqual([made.stdout_offset, made.stderr_offset, made.proc_id, made.kind], [4, 1, null, "transport"]);
  assert.deepEqual(Object.keys(made).filter((k) => k !== "code" && k !== "kind").sort(), ["cursor", "procId", "reason"], "cause is not one of the code's fields");
  assert.equal(made.cause.message, "x");
  made.proc_id = "p9";
  assert.equal(made.procId, "p9");
  // Sticky.
  assert.equal(f.state, "failed");
  assert.throws(() => f.request(), (e) => e instanceof StreamDisconnected && e.message === error.message);
});

test("the liveness clock: the headers wait, then complete frames", () => {
  const f = sent({ livenessTimeoutMs: 4000 });
  assert.equal(f.waitLimitMs(), 4000);
  assert.equal(f.waitedMs(3000), false);
  assert.equal(f.waitLimitMs(), 1000);
  assert.equal(f.waitedMs(1000), true);
  const d = f.noResponse(undefined, 0);
  assert.deepEqual([d.type, d.reason, d.detail], ["reconnect", "no_response", "no headers within the liveness timeout"]);
  f.request();
  f.open(200, NDJSON);
  assert.equal(f.waitedMs(0), false);
  f.feed(enc('{"type":"stdout",'));
  assert.equal(f.waitedMs(3999), false);
  assert.equal(f.waitLimitMs(), 1);
  assert.equal(f.waitedMs(1), true, "bytes that complete no frame prove nothing");
  assert.equal(f.finish(undefined, 0)[1].reason, "stalled");
});

test("an error after events in one piece: the events first, the error next (sticky)", () => {
  const f = sent();
  f.open(200, NDJSON);
  const events = f.feed(enc(OUT + line({ type: "gap", earliest_stdout_offset: 9, earliest_stderr_offset: 0 })));
  assert.deepEqual(
    events.map((e) => [e.type, e.end]),
    [["output", 2]],
  );
  assert.throws(() => f.finish(undefined, 0), (e) => e instanceof api.OutputGap && e.stream === "stdout");
  assert.deepEqual(f.cursor, { stdout: 2, stderr: 0 });
});

// ------------------------------------------------------- request builders

test("the request builders: the core's requests for every call", () => {
  const plain = (r) => ({ ...r, query: r.query.map((p) => [...p]), headers: { ...r.headers }, body: r.body && JSON.parse(new TextDecoder().decode(r.body)) });
  assert.deepEqual(plain(Request.start("c1", "echo hi", { timeoutMs: 500, idempotencyKey: "k" })), {
    method: "POST",
    path: "/computers/c1/processes",
    query: [],
    headers: { Accept: "application/json", "Idempotency-Key": "k" },
    body: { command: "echo hi", timeout_seconds: 0.5 },
    wait: "default",
    idempotent: true,
    target: "/computers/c1/processes",
  });
  const exec = plain(Request.exec("c1", ["true"]));
  assert.deepEqual([exec.path, exec.headers, exec.body, exec.wait, exec.idempotent], ["/computers/c1/exec", { Accept: "application/json" }, { command: ["true"] }, "unbounded", false]);
  assert.deepEqual([Request.exec("c1", "true", { stream: true }).wait, Request.exec("c1", "true", { stream: true }).headers.Accept], ["stream", NDJSON]);
  assert.deepEqual(plain(Request.getProcess("c1", "p 1")), {
    method: "GET",
    path: "/computers/c1/processes/p%201",
    query: [],
    headers: { Accept: "application/json" },
    body: null,
    wait: "default",
    idempotent: true,
    target: "/computers/c1/processes/p%201",
  });
  assert.deepEqual([Request.kill("c1", "p1").method, Request.kill("c1", "p1").path, Request.kill("c1", "p1").idempotent], ["POST", "/computers/c1/processes/p1/kill", true]);
  assert.equal(Request.output("c1", "p1").target, "/computers/c1/processes/p1/output?stdout_offset=0&stderr_offset=0&follow=true");
  assert.equal(Request.output("c1", "p1", { stderr: 7 }, false).target, "/computers/c1/processes/p1/output?stdout_offset=0&stderr_offset=7&follow=false");
  assert.equal(Request.setupLogs("c1").target, "/computers/c1/setup/logs?offset=0&follow=true");
  assert.equal(Request.setupLogs("c1", 9, false).target, "/computers/c1/setup/logs?offset=9&follow=false");
  // The follower asks for exactly what the builder builds.
  assert.deepEqual(Follower.processOutput("c1", "p1", { cursor: { stdout: 1, stderr: 2 } }).request(), Request.output("c1", "p1", { stdout: 1, stderr: 2 }));
  assert.ok(Object.isFrozen(Request));
});

test("the request builders: TypeErrors for types, the core's InvalidArgument for values", () => {
  assert.throws(() => Request.start(1, "x"), typeError(/^computerId must be a string/));
  assert.throws(() => Request.start("c1", { argv: [] }), typeError(/^command/));
  assert.throws(() => Request.start("c1", "x", { timeout_seconds: 3 }), typeError(/unknown Request\.start option "timeout_seconds"/));
  assert.throws(() => Request.start("c1", "x", { timeoutMs: "3" }), typeError(/^timeoutMs must be a number/));
  assert.throws(() => Request.start("c1", "x", { timeoutSeconds: 3 }), typeError(/"timeoutSeconds": use timeoutMs/));
  assert.throws(() => Request.exec("c1", "x", { stream: "yes" }), typeError(/^stream must be a boolean/));
  assert.throws(() => Request.getProcess("c1", 5), typeError(/^procId must be a string/));
  assert.throws(() => Request.output("c1", "p1", { stdout: "0" }), typeError(/^cursor\.stdout must be a number/));
  assert.throws(() => Request.output("c1", "p1", undefined, "true"), typeError(/^follow must be a boolean/));
  assert.throws(() => Request.setupLogs("c1", "0"), typeError(/^offset must be a number/));
  assert.throws(() => Request.start("", "x"), invalidArgument("computerId"));
  assert.throws(() => Request.start("c1", ""), invalidArgument("command"));
  assert.throws(() => Request.start("c1", ["", "x"]), invalidArgument("command"));
  assert.throws(() => Request.start("c1", "x", { timeoutMs: -1 }), invalidArgument("timeoutMs"));
  assert.throws(() => Request.exec("c1", "x", { idempotencyKey: "" }), invalidArgument("idempotencyKey"));
  assert.throws(() => Request.exec("c1", "x", { idempotencyKey: "k".repeat(256) }), invalidArgument("idempotencyKey"));
  assert.throws(() => Request.kill("c1", ""), invalidArgument("procId"));
  assert.throws(() => Request.output("c1", "p1", { stdout: -1 }), invalidArgument("cursor.stdout"));
  assert.throws(() => Request.setupLogs("c1", 1.5), invalidArgument("offset"));
  assert.throws(
    () => Request.start("", "x"),
    (e) => e.message === "invalid_argument: computerId: must not be empty" && e.reason === "must not be empty",
  );
});
