// dory-wire/client over a scripted fetch: the frames and their wire form,
// every way a response can end (typed), the one-call follow loop (retry
// budget, backoff, skip), close(), the requests it makes, its options.
// The same client against the reference server: tests/e2e/node/client*.test.mjs.
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import * as clientApi from "dory-wire/client";
import * as core from "dory-wire";
import { scriptedFetch, drain, line, enc, sleep, NDJSON, JSON_TYPE, PROGRAM_FRAMES } from "./client-lib.mjs";

const {
  Client,
  StreamDisconnected,
  NoAnswer,
  Transcript,
  DoryWireError,
  AnswerError,
  LossError,
  ProtocolError,
  ApiError,
  OutputGap,
  OutputExpired,
  OffsetBeyondOutput,
} = clientApi;

const BASE = "http://dory.test";
const P = "p_1";

function clientWith(script, options = {}) {
  const f = scriptedFetch(script);
  const client = new Client({ baseUrl: BASE, fetch: f.fetch, ...options });
  return { client, calls: f.calls };
}

async function handleOf(script, options) {
  const { client, calls } = clientWith([{ type: JSON_TYPE, chunks: [JSON.stringify({ proc_id: P, status: "running" })] }, ...script], options);
  const computer = client.computers.get("c1");
  const handle = await computer.processes.get(P);
  return { client, calls, computer, handle };
}

const concat = (parts) => Buffer.concat(parts.map((p) => Buffer.from(p)));

// ------------------------------------------------------------------ surface

test("the module exports the client, SpillDirectory, StreamDisconnected, NoAnswer and the core's classes (one copy)", () => {
  assert.deepEqual(Object.keys(clientApi).filter((k) => k !== "default").sort(), [
    "AnswerError",
    "ApiError",
    "Client",
    "DoryWireError",
    "LossError",
    "NoAnswer",
    "OffsetBeyondOutput",
    "OutputExpired",
    "OutputGap",
    "ProtocolError",
    "SpillDirectory",
    "StreamDisconnected",
    "Transcript",
  ]);
  for (const name of ["Transcript", "DoryWireError", "AnswerError", "LossError", "ProtocolError", "ApiError", "OutputGap", "OutputExpired", "OffsetBeyondOutput"]) {
    assert.equal(clientApi[name], core[name], name);
  }
  const cjs = createRequire(import.meta.url)("dory-wire/client");
  assert.equal(cjs.Client, Client, "import and require share one copy");
  assert.equal(cjs.StreamDisconnected, StreamDisconnected);
});

// ------------------------------------------------------------------- frames

describe("frames", () => {
  test("carry the wire's names, its data/encoding form of exactly the bytes, and the offsets after each", async () => {
    const { handle, calls } = await handleOf([{ chunks: [PROGRAM_FRAMES.join("")] }]);
    const stream = handle.iterOutput({ stdout_offset: 0, stderr_offset: 0 });
    const seen = [];
    for await (const frame of stream) seen.push([frame, stream.stdout_offset, stream.stderr_offset]);
    await stream.close();
    assert.equal(calls[1].url, `${BASE}/computers/c1/processes/p_1/output?stdout_offset=0&stderr_offset=0&follow=true`);
    assert.equal(calls[1].headers.accept, NDJSON);
    assert.deepEqual(seen, [
      [
        { type: "stdout", data: "aGVsbG8A/w==", encoding: "base64", offset: 7, stream: "stdout", start: 0, end: 7, bytes: new Uint8Array([104, 101, 108, 108, 111, 0, 255]) },
        7,
        0,
      ],
      [{ type: "stderr", data: "notice", encoding: "utf-8", offset: 6, stream: "stderr", start: 0, end: 6, bytes: enc("notice") }, 7, 6],
      [{ type: "exit", exit_code: 0, timed_out: false }, 7, 6],
    ]);
    // The documentation's decoding of a frame gives back exactly its bytes.
    for (const [frame] of seen.slice(0, 2)) {
      assert.deepEqual(new Uint8Array(Buffer.from(frame.data, frame.encoding === "base64" ? "base64" : "utf8")), frame.bytes);
    }
  });

  test("after a reconnect the overlap is trimmed by the core, and data/encoding describe the trimmed bytes", async () => {
    const euro = Buffer.from("ab€", "utf8"); // 61 62 e2 82 ac
    const { handle } = await handleOf([
      {
        chunks: [
          // The server resends whole chunks containing the offsets asked for.
          line({ type: "stdout", data: "hello", offset: 5 }),
          line({ type: "stderr", data: euro.toString("utf8"), offset: 5 }),
          line({ type: "stdout", data: "\ufffd ok", offset: 11 }), // a real U+FFFD is text
          line({ type: "exit", exit_code: 0, timed_out: false }),
        ],
      },
    ]);
    const { frames, error } = await drain(handle.iterOutput({ stdout_offset: 3, stderr_offset: 3 }));
    assert.equal(error, null);
    assert.deepEqual(frames.slice(0, 3), [
      { type: "stdout", data: "lo", encoding: "utf-8", offset: 5, stream: "stdout", start: 3, end: 5, bytes: enc("lo") },
      // 3 of the 5 bytes of "ab€" were consumed: the rest is not UTF-8 on its own.
      { type: "stderr", data: "gqw=", encoding: "base64", offset: 5, stream: "stderr", start: 3, end: 5, bytes: new Uint8Array([0x82, 0xac]) },
      { type: "stdout", data: "\ufffd ok", encoding: "utf-8", offset: 11, stream: "stdout", start: 5, end: 11, bytes: enc("\ufffd ok") },
    ]);
  });

  test("a duplicate chunk yields no frame; heartbeats, unknown types and exit pass through", async () => {
    const { handle } = await handleOf([
      {
        chunks: [
          line({ type: "stdout", data: "abc", offset: 3 }) +
            line({ type: "heartbeat" }) +
            line({ type: "progress", pct: 5 }) +
            line({ type: "stdout", data: "def", offset: 6 }) +
            line({ type: "exit", exit_code: null, timed_out: true }),
        ],
      },
    ]);
    const { frames } = await drain(handle.iterOutput({ stdout_offset: 3 }));
    assert.deepEqual(
      frames.map((f) => (f.type === "stdout" ? f.data : f)),
      [{ type: "heartbeat" }, { type: "unknown", frame_type: "progress" }, "def", { type: "exit", exit_code: null, timed_out: true }],
    );
  });

  test("an exec stream: started (the process id), output, exit; setup logs: one stream with `offset`", async () => {
    const { client, calls } = clientWith([
      { pid: P, chunks: [line({ type: "started", proc_id: P }), PROGRAM_FRAMES.join("")] },
      { chunks: [line({ type: "stdout", data: "setup: ok\n", offset: 10 }) + line({ type: "exit", exit_code: 0, timed_out: false })] },
    ]);
    const computer = client.computers.get("c 1");
    const stream = computer.execStream(["sh", "-c", "x"], { timeout_seconds: 30, idempotency_key: "k1" });
    assert.equal(stream.proc_id, null);
    const { frames } = await drain(stream);
    assert.equal(stream.proc_id, P);
    assert.deepEqual(frames[0], { type: "started", proc_id: P });
    assert.deepEqual(frames.map((f) => f.type), ["started", "stdout", "stderr", "exit"]);
    assert.equal(calls[0].url, `${BASE}/computers/c%201/exec`);
    assert.equal(calls[0].method, "POST");
    assert.equal(calls[0].headers.accept, NDJSON);
    assert.equal(calls[0].headers["idempotency-key"], "k1");
    assert.deepEqual(JSON.parse(calls[0].body), { command: ["sh", "-c", "x"], timeout_seconds: 30 });

    const logs = computer.setup.iterLogs({ offset: 0 });
    const got = await drain(logs);
    assert.equal(calls[1].url, `${BASE}/computers/c%201/setup/logs?offset=0&follow=true`);
    assert.equal(got.frames[0].data, "setup: ok\n");
    assert.equal(logs.stdout_offset, 10);
    assert.deepEqual(logs.end, { type: "exited", exitCode: 0, timedOut: false });
  });

  test("a keyed replay of a streaming exec (a JSON identity): one identity frame, then the first run's output from its process", async () => {
    const { client, calls } = clientWith([{ type: JSON_TYPE, chunks: [JSON.stringify({ proc_id: P, status: "exited" })] }, { chunks: [PROGRAM_FRAMES.join("")] }]);
    const computer = client.computers.get("c1");
    const stream = computer.execStream("printf x", { idempotency_key: "k1" });
    const { frames, error } = await drain(stream);
    assert.equal(error, null);
    assert.deepEqual(frames[0], { type: "identity", proc_id: P, status: "exited" });
    assert.deepEqual(frames.slice(1).map((f) => f.type), ["stdout", "stderr", "exit"]);
    assert.deepEqual(stream.end, { type: "exited", exitCode: 0, timedOut: false });
    assert.deepEqual(calls.map((c) => `${c.method} ${new URL(c.url).pathname}${new URL(c.url).search}`), [
      "POST /computers/c1/exec",
      "GET /computers/c1/processes/p_1/output?stdout_offset=0&stderr_offset=0&follow=true",
    ]);
    assert.equal(stream.proc_id, P);
  });

  test("an exec stream cut after its process was announced goes on from the process's output (never exec'd again)", async () => {
    const [out, err, exit] = PROGRAM_FRAMES;
    const { client, calls } = clientWith([
      { pid: P, chunks: [line({ type: "started", proc_id: P }), out, err.slice(0, 9)], end: "error" },
      { chunks: [out, err, exit] }, // the retained output, overlap and all
    ]);
    const records = [];
    const stream = client.computers.get("c1").execStream(["sh", "-c", "x"], { onReconnect: (r) => records.push(r) });
    const { frames, error } = await drain(stream);
    assert.equal(error, null);
    assert.deepEqual(frames.map((f) => f.type), ["started", "stdout", "stderr", "exit"]);
    assert.equal(Buffer.from(frames[2].bytes).toString(), "notice");
    assert.deepEqual(calls.map((c) => c.method), ["POST", "GET"]);
    assert.equal(new URL(calls[1].url).search, "?stdout_offset=7&stderr_offset=0&follow=true");
    assert.deepEqual(records.map((r) => [r.reason, r.procId, r.cursor, r.delayMs]), [["end_of_body", P, { stdout: 7, stderr: 0 }, 0]]);
    assert.deepEqual([stream.stdout_offset, stream.stderr_offset, stream.proc_id], [7, 6, P]);

    // Cut before its process was announced, without a key: it may not be sent again.
    const { client: c2, calls: calls2 } = clientWith([{ chunks: [], end: "error" }]);
    const cut = await drain(c2.computers.get("c1").execStream("x"));
    assert.ok(cut.error instanceof StreamDisconnected, String(cut.error));
    assert.deepEqual([cut.error.reason, cut.error.proc_id], ["end_of_body", null]);
    assert.ok(cut.error.cause instanceof TypeError);
    assert.equal(calls2.length, 1);
  });

  test("an output stream is read once", async () => {
    const { handle } = await handleOf([{ chunks: [PROGRAM_FRAMES.join("")] }]);
    const stream = handle.iterOutput();
    for await (const _ of stream) break;
    assert.throws(() => stream[Symbol.asyncIterator](), TypeError);
  });
});

// ----------------------------------------------------------- typed endings

describe("every ending is typed", () => {
  async function ending(script, options, streamOptions) {
    const { handle, calls } = await handleOf(script, options);
    const stream = handle.iterOutput({ stdout_offset: 0, stderr_offset: 0, ...streamOptions });
    const got = await drain(stream);
    return { ...got, stream, calls };
  }

  function assertDisconnected(error, reason, cursor) {
    assert.ok(error instanceof StreamDisconnected, `expected StreamDisconnected, got ${error}`);
    assert.ok(error instanceof Error);
    assert.ok(error instanceof DoryWireError);
    assert.ok(!(error instanceof LossError) && !(error instanceof AnswerError) && !(error instanceof ProtocolError));
    assert.equal(error.name, "StreamDisconnected");
    assert.equal(error.code, "stream_disconnected");
    assert.equal(error.kind, "transport");
    assert.equal(error.reason, reason);
    assert.deepEqual(error.cursor, cursor);
    assert.equal(error.stdout_offset, cursor.stdout);
    assert.equal(error.stderr_offset, cursor.stderr);
  }

  test("the server ends the body without exit: end_of_body at the last complete frame", async () => {
    const { frames, error, stream } = await ending([{ chunks: [PROGRAM_FRAMES[0], PROGRAM_FRAMES[1].slice(0, 10)] }]);
    assert.equal(frames.length, 1);
    assertDisconnected(error, "end_of_body", { stdout: 7, stderr: 0 });
    assert.equal(error.cause, undefined);
    assert.equal(error.proc_id, P);
    assert.deepEqual([stream.stdout_offset, stream.stderr_offset], [7, 0]);
  });

  test("the connection fails mid-frame (TypeError: terminated): end_of_body with the cause, the partial line discarded", async () => {
    const { frames, error } = await ending([{ chunks: [PROGRAM_FRAMES[0] + PROGRAM_FRAMES[1].slice(0, 12)], end: "error" }]);
    assert.equal(frames.length, 1);
    assertDisconnected(error, "end_of_body", { stdout: 7, stderr: 0 });
    assert.ok(error.cause instanceof TypeError);
    assert.equal(error.cause.message, "terminated");
  });

  test("the connection fails between frames", async () => {
    const { frames, error } = await ending([{ chunks: [PROGRAM_FRAMES[0], PROGRAM_FRAMES[1]], end: "error" }]);
    assert.equal(frames.length, 2);
    assertDisconnected(error, "end_of_body", { stdout: 7, stderr: 6 });
  });

  test("the connection fails before the first byte", async () => {
    const { frames, error } = await ending([{ chunks: [], end: "error" }], undefined, { stdout_offset: 4 });
    assert.equal(frames.length, 0);
    assertDisconnected(error, "end_of_body", { stdout: 4, stderr: 0 });
  });

  test("never connected (refused): not_connected, with the offsets asked", async () => {
    const refused = new TypeError("fetch failed", { cause: Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }) });
    const { error } = await ending([refused], undefined, { stdout_offset: 2, stderr_offset: 1 });
    assertDisconnected(error, "not_connected", { stdout: 2, stderr: 1 });
    assert.equal(error.cause, refused);
  });

  test("a reset, or an error without a connect-phase code: no_response", async () => {
    const reset = new TypeError("fetch failed", { cause: Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" }) });
    const { error } = await ending([reset], undefined, { stdout_offset: 2 });
    assertDisconnected(error, "no_response", { stdout: 2, stderr: 0 });
    const { error: bare } = await ending([new TypeError("fetch failed")], undefined, {});
    assertDisconnected(bare, "no_response", { stdout: 0, stderr: 0 });
  });

  test("an unkeyed start to a closed port on 127.0.0.1 is sent again, then NoAnswer that never reached the service", async () => {
    // Nothing listens (bound, then freed): every connect is refused, so the
    // start cannot have taken effect and the core sends it again within its budget.
    const { createServer } = await import("node:net");
    const server = createServer();
    await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address();
    await new Promise((resolve) => server.close(resolve));
    const client = new Client({ baseUrl: `http://127.0.0.1:${port}` });
    try {
      const started = client.computers.get("c1").processes.start("true");
      const err = await started.catch((e) => e);
      assert.ok(err instanceof NoAnswer, `${err}`);
      assert.deepEqual([err.reason, err.attempts, err.reached], ["not_connected", 6, false]);
      assert.match(err.message, /; tried 6 times; it never reached the service$/);
      assert.equal(err.cause?.cause?.code, "ECONNREFUSED");
    } finally {
      client.close();
    }
  });

  test("no byte within the liveness timeout: stalled (and the body is cancelled)", async () => {
    const started = performance.now();
    const { frames, error } = await ending([{ chunks: [PROGRAM_FRAMES[0]], end: "hang" }], { livenessTimeoutMs: 80 });
    assert.equal(frames.length, 1);
    assertDisconnected(error, "stalled", { stdout: 7, stderr: 0 });
    const took = performance.now() - started;
    assert.ok(took >= 70 && took < 2000, `stalled after ${took} ms`);
  });

  test("no response headers within the liveness timeout: no_response", async () => {
    const { error } = await ending(["hang"], { livenessTimeoutMs: 50 });
    assertDisconnected(error, "no_response", { stdout: 0, stderr: 0 });
  });

  test("a consumer slower than the liveness timeout is not a stall (the clock runs only while waiting for bytes)", async () => {
    const { handle } = await handleOf([{ chunks: PROGRAM_FRAMES }], { livenessTimeoutMs: 30 });
    const stream = handle.iterOutput();
    const types = [];
    for await (const frame of stream) {
      types.push(frame.type);
      await sleep(80);
    }
    assert.deepEqual(types, ["stdout", "stderr", "exit"]);
  });

  test("a gap frame that loses nothing: gap; one that loses bytes: OutputGap (fail) or a skipped frame then gap (skip)", async () => {
    const harmless = await ending([{ chunks: [PROGRAM_FRAMES[0], line({ type: "gap", earliest_stdout_offset: 7, earliest_stderr_offset: 0 })] }]);
    assertDisconnected(harmless.error, "gap", { stdout: 7, stderr: 0 });

    const gapFrame = line({ type: "gap", earliest_stdout_offset: 100, earliest_stderr_offset: 0 });
    const lost = await ending([{ chunks: [PROGRAM_FRAMES[0], gapFrame] }]);
    assert.ok(lost.error instanceof OutputGap && lost.error instanceof LossError);
    assert.deepEqual([lost.error.consumed, lost.error.earliest], [{ stdout: 7, stderr: 0 }, { stdout: 100, stderr: 0 }]);
    assert.deepEqual([lost.stream.stdout_offset, lost.stream.stderr_offset], [7, 0]);

    const skipped = await ending([{ chunks: [PROGRAM_FRAMES[0], gapFrame] }], undefined, { gapPolicy: "skip" });
    assert.deepEqual(skipped.frames.at(-1), { type: "skipped", stream: "stdout", start: 7, end: 100 });
    assertDisconnected(skipped.error, "gap", { stdout: 100, stderr: 0 });
    assert.equal(skipped.stream.stdout_offset, 100);
  });

  const errorBody = (o) => ({ type: JSON_TYPE, chunks: [JSON.stringify(o)] });

  test("409 output_gap: OutputGap, never a disconnect", async () => {
    const { error, calls } = await ending([{ status: 409, ...errorBody({ error: "output_gap", message: "gone", earliest_stdout_offset: 50, earliest_stderr_offset: 0 }) }]);
    assert.ok(error instanceof OutputGap);
    assert.ok(error instanceof LossError);
    assert.equal(error.stream, "stdout");
    assert.deepEqual(error.earliest, { stdout: 50, stderr: 0 });
    assert.equal(calls.length, 2);
  });

  test("410 output_expired: OutputExpired; 400 offset_beyond_output: OffsetBeyondOutput", async () => {
    const expired = await ending([{ status: 410, ...errorBody({ error: "output_expired", message: "expired" }) }]);
    assert.ok(expired.error instanceof OutputExpired && expired.error instanceof LossError);
    const beyond = await ending([{ status: 400, ...errorBody({ error: "offset_beyond_output", message: "beyond", stdout_offset: 9, stderr_offset: 0 }) }]);
    assert.ok(beyond.error instanceof OffsetBeyondOutput && beyond.error instanceof AnswerError);
    assert.equal(beyond.error.serverMessage, "beyond");
  });

  test("a proxy's non-JSON 502: ApiError with the status and no api code", async () => {
    const { error } = await ending([{ status: 502, type: "text/html", chunks: ["<html>Bad Gateway</html>"] }]);
    assert.ok(error instanceof ApiError && error instanceof AnswerError);
    assert.equal(error.status, 502);
    assert.equal(error.apiCode, null);
  });

  test("an error answer cut mid-body is a disconnect, not a misread answer", async () => {
    const { error } = await ending([{ status: 409, type: JSON_TYPE, chunks: ['{"error":"output_gap","earliest_std'], end: "error" }]);
    assertDisconnected(error, "end_of_body", { stdout: 0, stderr: 0 });
  });

  test("a 2xx that is neither NDJSON nor JSON: UnsupportedContentType (a ProtocolError)", async () => {
    const { error } = await ending([{ type: "text/plain", chunks: ["hi"] }]);
    assert.ok(error instanceof ProtocolError);
    assert.equal(error.code, "unsupported_content_type");
  });

  test("a malformed frame: MalformedFrame, after the frames before it", async () => {
    const { frames, error } = await ending([{ chunks: [PROGRAM_FRAMES[0] + "{nope}\n"] }]);
    assert.equal(frames.length, 1);
    assert.ok(error instanceof ProtocolError);
    assert.equal(error.code, "malformed_frame");
  });
});

// ------------------------------------------------------------ documents

describe("documents", () => {
  test("start, its keyed replay, get and kill are decoded identities; the requests carry the key and timeout", async () => {
    const identity = (status) => ({ type: JSON_TYPE, chunks: [JSON.stringify({ proc_id: P, status })] });
    const { client, calls } = clientWith([identity("running"), identity("running"), identity("running"), identity("exited")], {
      headers: { Authorization: "Bearer t" },
    });
    const computer = client.computers.get("c1");
    const options = { timeout_seconds: 30, idempotency_key: "key-1" };
    const started = await computer.processes.start(["sh", "-c", "printf x"], options);
    assert.deepEqual(started, { type: "identity", proc_id: P, status: "running" });
    assert.equal((await computer.processes.start(["sh", "-c", "printf x"], options)).proc_id, started.proc_id);
    const handle = await computer.processes.get(P);
    assert.deepEqual([handle.proc_id, handle.status], [P, "running"]);
    assert.deepEqual(await handle.kill(), { type: "identity", proc_id: P, status: "exited" });
    assert.deepEqual(calls.map((c) => `${c.method} ${c.url}`), [
      `POST ${BASE}/computers/c1/processes`,
      `POST ${BASE}/computers/c1/processes`,
      `GET ${BASE}/computers/c1/processes/p_1`,
      `POST ${BASE}/computers/c1/processes/p_1/kill`,
    ]);
    assert.deepEqual(JSON.parse(calls[0].body), { command: ["sh", "-c", "printf x"], timeout_seconds: 30 });
    assert.equal(calls[0].headers["idempotency-key"], "key-1");
    assert.equal(calls[0].headers["content-type"], JSON_TYPE);
    assert.equal(calls[0].headers.accept, JSON_TYPE);
    for (const c of calls) assert.equal(c.headers.authorization, "Bearer t");
  });

  test("the JS names: timeoutMs (timeoutMs / 1000 seconds on the wire, as Python and Rust send timeout_seconds) and idempotencyKey; the wire's spellings are aliases; timeoutSeconds names timeoutMs", async () => {
    const typeError = (re) => (e) => e instanceof TypeError && re.test(e.message);
    const invalid = (argument) => (e) => e instanceof core.InvalidArgument && e.argument === argument;
    const identity = { type: JSON_TYPE, chunks: [JSON.stringify({ proc_id: P, status: "running" })] };
    const { client, calls } = clientWith([identity, identity, identity, identity]);
    const computer = client.computers.get("c1");
    await computer.processes.start("x", { timeoutMs: 1500, idempotencyKey: "k-ms" });
    await computer.processes.start("x", { timeoutMs: 30_000 });
    await computer.processes.start("x", { timeout_seconds: 2.5, idempotency_key: "k-wire" });
    assert.deepEqual(calls.map((c) => JSON.parse(c.body).timeout_seconds), [1.5, 30, 2.5]);
    assert.deepEqual(calls.map((c) => c.headers["idempotency-key"]), ["k-ms", undefined, "k-wire"]);
    await assert.rejects(computer.processes.start("x", { timeoutSeconds: 30 }), typeError(/"timeoutSeconds": use timeoutMs/));
    await assert.rejects(computer.exec("x", { timeoutSeconds: 30 }), typeError(/"timeoutSeconds": use timeoutMs/));
    await assert.rejects(computer.processes.start("x", { timeoutMs: 0 }), invalid("timeoutMs"));
    await assert.rejects(computer.processes.start("x", { timeoutMs: 1, timeout_seconds: 1 }), TypeError);
    assert.throws(() => computer.execStream("x", { timeoutSeconds: 30 }), typeError(/"timeoutSeconds": use timeoutMs/));
    const handle = await computer.processes.get(P);
    assert.deepEqual([handle.procId, handle.proc_id], [P, P]);
    const stream = handle.iterOutput({ cursor: { stdout: 3, stderr: 4 } });
    assert.deepEqual([stream.stdoutOffset, stream.stderrOffset, stream.procId], [3, 4, P]);
    assert.deepEqual([stream.stdout_offset, stream.stderr_offset, stream.proc_id], [3, 4, P]);
  });

  test("synchronous exec: the result's exact bytes; a keyed replay answers the identity", async () => {
    const result = {
      proc_id: P,
      stdout: "aGk=",
      stdout_encoding: "base64",
      stderr: "\u00ff",
      stdout_truncated: false,
      stderr_truncated: true,
      exit_code: 3,
      timed_out: false,
    };
    const { client, calls } = clientWith([
      { type: JSON_TYPE, chunks: [JSON.stringify(result).slice(0, 20), JSON.stringify(result).slice(20)] },
      { type: JSON_TYPE, chunks: [JSON.stringify({ proc_id: P, status: "exited" })] },
    ]);
    const computer = client.computers.get("c1");
    assert.deepEqual(await computer.exec("printf hi", { idempotency_key: "k" }), {
      type: "exec_result",
      proc_id: P,
      stdout: enc("hi"),
      stderr: enc("\u00ff"),
      stdout_truncated: false,
      stderr_truncated: true,
      exit_code: 3,
      timed_out: false,
    });
    assert.equal(calls[0].headers.accept, JSON_TYPE);
    assert.deepEqual(await computer.exec("printf hi", { idempotency_key: "k" }), { type: "identity", proc_id: P, status: "exited" });
  });

  test("error answers throw the core's errors; a transport failure is NoAnswer, fetch's error its cause", async () => {
    const refused = new TypeError("fetch failed");
    const { client } = clientWith([
      { status: 404, type: JSON_TYPE, chunks: [JSON.stringify({ error: "not_found", message: "no such process" })] },
      { status: 502, type: "text/html", chunks: ["<h1>bad gateway</h1>"] },
      refused,
      { type: "text/html", chunks: ["<h1>ok?</h1>"] },
    ]);
    const computer = client.computers.get("c1");
    const notFound = await computer.processes.get("p_nope").catch((e) => e);
    assert.ok(notFound instanceof ApiError);
    assert.deepEqual([notFound.status, notFound.apiCode, notFound.serverMessage], [404, "not_found", "no such process"]);
    const gateway = await computer.processes.kill(P).catch((e) => e);
    assert.ok(gateway instanceof ApiError);
    assert.deepEqual([gateway.status, gateway.apiCode], [502, null]);
    const lost = await computer.processes.start("true").catch((e) => e);
    assert.ok(lost instanceof NoAnswer, `${lost}`);
    assert.deepEqual([lost.reason, lost.method, lost.target, lost.attempts], ["no_response", "POST", "/computers/c1/processes", 1]);
    assert.equal(lost.cause, refused);
    const html = await computer.processes.start("true").catch((e) => e);
    assert.ok(html instanceof ProtocolError && html.code === "unsupported_content_type");
  });
});

// ----------------------------------------------------- the one-call follow

describe("readOutput()", () => {
  test("reconnects from the consumed offsets until exit and returns the core's Transcript", async () => {
    const [out, err, exit] = PROGRAM_FRAMES;
    const { handle, calls } = await handleOf([
      { chunks: [out.slice(0, 30)], end: "error" }, // mid-frame, nothing consumed
      { chunks: [out], end: "error" }, // between frames
      { chunks: [], end: "error" }, // before the first byte
      new TypeError("fetch failed"), // refused
      { chunks: [out, err, exit] }, // overlap resent: trimmed by the core
    ]);
    const reconnects = [];
    const transcript = await handle.readOutput({ backoffMs: 1, onReconnect: (r) => reconnects.push([r.reason, r.cursor.stdout, r.cursor.stderr]) });
    assert.ok(transcript instanceof Transcript);
    assert.deepEqual(Buffer.from(transcript.bytes("stdout")), Buffer.from([104, 101, 108, 108, 111, 0, 255]));
    assert.equal(Buffer.from(transcript.bytes("stderr")).toString(), "notice");
    assert.deepEqual(transcript.exit, { exitCode: 0, timedOut: false });
    assert.ok(transcript.isComplete("stdout") && transcript.isComplete("stderr"));
    assert.deepEqual(reconnects, [
      ["end_of_body", 0, 0],
      ["end_of_body", 7, 0],
      ["end_of_body", 7, 0],
      ["no_response", 7, 0],
    ]);
    assert.deepEqual(
      calls.slice(1).map((c) => new URL(c.url).search),
      [...Array(2).fill("?stdout_offset=0&stderr_offset=0&follow=true"), ...Array(3).fill("?stdout_offset=7&stderr_offset=0&follow=true")],
    );
  });

  test("the retry budget counts reconnects without progress, with a growing backoff; then the last StreamDisconnected", async () => {
    const refused = () => new TypeError("fetch failed");
    const { handle, calls } = await handleOf([{ chunks: [PROGRAM_FRAMES[0]], end: "error" }, refused(), refused(), refused(), refused()]);
    const times = [];
    const error = await handle.readOutput({ retries: 3, backoffMs: 40, maxBackoffMs: 100, onReconnect: () => times.push(performance.now()) }).catch((e) => e);
    assert.ok(error instanceof StreamDisconnected);
    assert.equal(error.reason, "no_response");
    assert.deepEqual(error.cursor, { stdout: 7, stderr: 0 });
    assert.equal(calls.length, 1 + 5, "one connection with progress, then 1 + 3 retries without");
    // After progress: at once; then 40, 80, 100 (capped) ms, each with up to half as jitter.
    const gaps = times.slice(1).map((t, i) => t - times[i]);
    assert.equal(gaps.length, 3);
    assert.ok(gaps[0] < 30, `first reconnect after progress waited ${gaps[0]} ms`);
    assert.ok(gaps[1] >= 18 && gaps[2] >= 38, `backoffs ${gaps}`);
  });

  test("loss and error answers are thrown as they are, never retried; a given transcript keeps what was read", async () => {
    for (const [answer, cls] of [
      [{ status: 409, type: JSON_TYPE, chunks: [JSON.stringify({ error: "output_gap", message: "", earliest_stdout_offset: 9, earliest_stderr_offset: 0 })] }, OutputGap],
      [{ status: 410, type: JSON_TYPE, chunks: [JSON.stringify({ error: "output_expired", message: "" })] }, OutputExpired],
      [{ status: 400, type: JSON_TYPE, chunks: [JSON.stringify({ error: "offset_beyond_output", message: "" })] }, OffsetBeyondOutput],
      [{ status: 502, type: "text/html", chunks: ["bad gateway"] }, ApiError],
    ]) {
      const { handle, calls } = await handleOf([{ chunks: [PROGRAM_FRAMES[0]], end: "error" }, answer]);
      const transcript = new Transcript();
      const error = await handle.readOutput({ transcript }).catch((e) => e);
      assert.ok(error instanceof cls, `${cls.name}: got ${error}`);
      assert.equal(calls.length, 3, `${cls.name}: not retried`);
      assert.deepEqual(Buffer.from(transcript.bytes("stdout")), Buffer.from("hello\0\xff", "latin1"));
    }
  });

  test("skip policy: exact lost ranges in the transcript, never joined silently", async () => {
    const { handle } = await handleOf([
      { chunks: [line({ type: "stdout", data: "ab", offset: 2 }), line({ type: "gap", earliest_stdout_offset: 10, earliest_stderr_offset: 4 })] },
      { status: 409, type: JSON_TYPE, chunks: [JSON.stringify({ error: "output_gap", message: "", earliest_stdout_offset: 12, earliest_stderr_offset: 4 })] },
      { chunks: [line({ type: "stdout", data: "xyz", offset: 15 }), line({ type: "stderr", data: "e", offset: 5 }), PROGRAM_FRAMES[2]] },
    ]);
    const reasons = [];
    const t = await handle.readOutput({ gapPolicy: "skip", onReconnect: (r) => reasons.push(r.reason) });
    assert.deepEqual(reasons, ["gap", "gap"]);
    assert.deepEqual(t.skipped("stdout"), [
      [2, 10],
      [10, 12],
    ]);
    assert.deepEqual(t.skipped("stderr"), [[0, 4]]);
    assert.equal(Buffer.from(t.bytes("stdout")).toString(), "abxyz");
    assert.equal(Buffer.from(t.bytes("stderr")).toString(), "e");
    assert.equal(t.isComplete("stdout"), false);
    assert.match(t.text("stdout"), /\[dory-wire: bytes 2\.\.10 were lost\]/);
  });

  test("setup logs in one call", async () => {
    const { client, calls } = clientWith([
      { chunks: [line({ type: "stdout", data: "one\n", offset: 4 })], end: "error" },
      { chunks: [line({ type: "stdout", data: "one\ntwo\n", offset: 8 }), PROGRAM_FRAMES[2]] },
    ]);
    const computer = client.computers.get("c1");
    const t = await computer.setup.readLogs();
    assert.equal(t.text("stdout"), "one\ntwo\n");
    assert.equal(new URL(calls[1].url).search, "?offset=4&follow=true");
  });
});

// ------------------------------------------------- what the core decides

describe("the core's follower decides, the client does the IO", () => {
  const refused = () => new TypeError("fetch failed", { cause: Object.assign(new Error("connect ECONNREFUSED 10.0.0.9:80"), { code: "ECONNREFUSED" }) });

  test("the hook sees each reconnect's record, in order: the core's object", async () => {
    const [out, err, exit] = PROGRAM_FRAMES;
    const { handle } = await handleOf([
      { chunks: [out.slice(0, 30)], end: "error" }, // nothing new
      { chunks: [out], end: "error" }, // progress
      refused(), // nothing new
      { chunks: [out, err.slice(0, 5)] }, // nothing new, a clean end
      { chunks: [out, err, exit] },
    ]);
    const records = [];
    const t = await handle.readOutput({ jitter: false, backoffMs: 4, maxBackoffMs: 10, onReconnect: (r) => records.push(r) });
    assert.equal(t.text("stderr"), "notice");
    assert.deepEqual(records, [
      { type: "reconnect", attempt: 1, failures: 1, reason: "end_of_body", cursor: { stdout: 0, stderr: 0 }, delayMs: 4, procId: P, detail: "terminated" },
      { type: "reconnect", attempt: 2, failures: 0, reason: "end_of_body", cursor: { stdout: 7, stderr: 0 }, delayMs: 0, procId: P, detail: "terminated" },
      {
        type: "reconnect",
        attempt: 3,
        failures: 1,
        reason: "not_connected",
        cursor: { stdout: 7, stderr: 0 },
        delayMs: 4,
        procId: P,
        detail: `GET ${BASE}/computers/c1/processes/p_1/output?stdout_offset=7&stderr_offset=0&follow=true: fetch failed: connect ECONNREFUSED 10.0.0.9:80`,
      },
      { type: "reconnect", attempt: 4, failures: 2, reason: "end_of_body", cursor: { stdout: 7, stderr: 0 }, delayMs: 8, procId: P, detail: "" },
    ]);
  });

  test("jitter off: the exact delays the core decides, slept before each request; then the core's StreamDisconnected with the transport's error", async () => {
    const { handle, calls } = await handleOf([refused(), refused(), refused(), refused(), refused()]);
    const delays = [];
    const error = await handle
      .readOutput({ retries: 4, jitter: false, backoffMs: 20, maxBackoffMs: 50, onReconnect: (r) => delays.push(r.delayMs) })
      .catch((e) => e);
    assert.deepEqual(delays, [20, 40, 50, 50]);
    assert.ok(error instanceof StreamDisconnected, String(error));
    assert.equal(error.reason, "not_connected");
    assert.match(error.message, /^stream_disconnected: could not connect \(GET http:\/\/dory\.test\/.*ECONNREFUSED 10\.0\.0\.9:80\); resume from stdout_offset 0, stderr_offset 0$/);
    assert.ok(error.cause instanceof TypeError && error.cause.cause.code === "ECONNREFUSED", "cause: the transport's error");
    const reads = calls.slice(1);
    assert.equal(reads.length, 5);
    reads.slice(1).forEach((c, i) => {
      const slept = c.at - reads[i].at;
      assert.ok(slept >= delays[i] - 1 && slept < delays[i] + 60, `request ${i + 2} came ${slept.toFixed(1)} ms after the one before, the core said ${delays[i]}`);
    });
    // With jitter (the default), each wait is spread over [base/2, base] by Math.random().
    const { handle: h2 } = await handleOf([refused(), refused(), refused()]);
    const spread = [];
    await h2.readOutput({ retries: 2, backoffMs: 20, maxBackoffMs: 50, onReconnect: (r) => spread.push(r.delayMs) }).catch(() => {});
    assert.ok(spread[0] >= 10 && spread[0] <= 20 && spread[1] >= 20 && spread[1] <= 40, String(spread));
  });

  test("a 503 before any body is retried, honouring Retry-After up to maxBackoffMs; a one-response iterator throws it (unavailable)", async () => {
    const busy = { status: 503, type: "text/plain", headers: { "retry-after": "1" }, chunks: ["busy"] };
    const { handle, calls } = await handleOf([busy, { status: 429, type: "text/plain", chunks: [] }, { chunks: PROGRAM_FRAMES }]);
    const records = [];
    const t = await handle.readOutput({ jitter: false, backoffMs: 10, maxBackoffMs: 200, onReconnect: (r) => records.push(r) });
    assert.equal(t.text("stderr"), "notice");
    assert.deepEqual(
      records.map((r) => [r.reason, r.detail, r.delayMs, r.failures]),
      [
        ["unavailable", "HTTP 503", 200, 1], // Retry-After: 1 s, capped at maxBackoffMs
        ["unavailable", "HTTP 429", 20, 2],
      ],
    );
    assert.ok(calls[2].at - calls[1].at >= 199, `the retry came ${calls[2].at - calls[1].at} ms later`);
    const one = await handleOf([busy]);
    const { error } = await drain(one.handle.iterOutput());
    assert.ok(error instanceof StreamDisconnected);
    assert.deepEqual([error.reason, error.cursor, error.proc_id], ["unavailable", { stdout: 0, stderr: 0 }, P]);
    assert.equal(error.message, "stream_disconnected: the service was unavailable (HTTP 503); resume from stdout_offset 0, stderr_offset 0");
  });

  test("a trickle that never completes a frame: StreamDisconnected (stalled) within the liveness timeout, the body cancelled; never hangs", async () => {
    let cancelled = 0;
    const trickle = { chunks: [PROGRAM_FRAMES[0], '{"type":"stdout",'], end: "trickle", every: 5, onEnd: () => cancelled++ };
    const { handle } = await handleOf([trickle, trickle]);
    const t0 = performance.now();
    const { frames, error } = await drain(handle.iterOutput({ livenessTimeoutMs: 150 }));
    const took = performance.now() - t0;
    assert.deepEqual(frames.map((f) => f.type), ["stdout"]);
    assert.ok(error instanceof StreamDisconnected, String(error));
    assert.deepEqual([error.reason, error.cursor], ["stalled", { stdout: 7, stderr: 0 }]);
    assert.ok(took >= 140 && took < 1000, `stalled after ${took.toFixed(0)} ms`);
    // The one-call read: the core gives up once the budget is spent.
    const t1 = performance.now();
    const last = await handle.readOutput({ stdout_offset: 7, retries: 0, livenessTimeoutMs: 100 }).catch((e) => e);
    assert.ok(last instanceof StreamDisconnected, String(last));
    assert.equal(last.reason, "stalled");
    assert.ok(performance.now() - t1 < 1000);
    await sleep(20);
    assert.equal(cancelled, 2, "both bodies were cancelled");
  });

  test("a one-response iterator's StreamDisconnected has the core's own message for every reason", async () => {
    const { Follower } = core;
    /** The core's StreamDisconnected for one connection without progress (retries: 0). */
    const coreError = (drive) => {
      const f = Follower.processOutput("c1", P, { retries: 0, livenessTimeoutMs: 40 });
      f.request();
      try {
        drive(f);
      } catch (e) {
        return e;
      } finally {
        f.free();
      }
      assert.fail("the core did not give up");
    };
    const cases = [
      ["end_of_body", { chunks: [] }, (f) => (f.open(200, NDJSON, P), f.finish(undefined, 0))],
      ["gap", { chunks: [line({ type: "gap", earliest_stdout_offset: 0, earliest_stderr_offset: 0 })] }, (f) => {
        f.open(200, NDJSON, P);
        f.feed(enc(line({ type: "gap", earliest_stdout_offset: 0, earliest_stderr_offset: 0 })));
        f.finish(undefined, 0);
      }],
      ["stalled", { chunks: [], end: "hang" }, (f) => {
        f.open(200, NDJSON, P);
        assert.ok(f.waitedMs(40));
        f.finish(undefined, 0);
      }],
      ["no_response", "hang", (f) => {
        assert.ok(f.waitedMs(40));
        f.noResponse("", 0);
      }],
      ["unavailable", { status: 503, type: "text/plain", chunks: [] }, (f) => (f.open(503, "text/plain", P), f.finish(undefined, 0))],
    ];
    for (const [reason, answer, drive] of cases) {
      const { handle } = await handleOf([{ pid: P, ...(typeof answer === "string" ? {} : answer) }].map((a) => (typeof answer === "string" ? answer : a)), { livenessTimeoutMs: 40 });
      const { error } = await drain(handle.iterOutput());
      assert.ok(error instanceof StreamDisconnected, `${reason}: ${error}`);
      assert.equal(error.reason, reason);
      const expected = coreError(drive);
      assert.equal(expected.reason, reason);
      assert.equal(error.message, expected.message, reason);
    }
  });

  test("a refused connection (a real one): the detail names the URL, the reason and the address", async () => {
    const { createServer } = await import("node:net");
    const server = createServer();
    await new Promise((r) => server.listen(0, "127.0.0.1", r));
    const { port } = server.address();
    await new Promise((r) => server.close(r));
    const client = new Client(`http://127.0.0.1:${port}`);
    try {
      const { error } = await drain(client.computers.get("c1").setup.iterLogs());
      assert.ok(error instanceof StreamDisconnected, String(error));
      assert.equal(error.reason, "not_connected");
      assert.ok(error.cause instanceof TypeError);
      assert.match(error.message, new RegExp(`^stream_disconnected: could not connect \\(GET http://127\\.0\\.0\\.1:${port}/computers/c1/setup/logs\\?offset=0&follow=true: fetch failed: .*ECONNREFUSED.*127\\.0\\.0\\.1:${port}`));
    } finally {
      client.close();
    }
  });

  test("reads start from a cursor ({stdout, stderr}: a reader's, an error's) as well as from the wire's offsets", async () => {
    const { handle, calls } = await handleOf([{ chunks: [PROGRAM_FRAMES[2]] }, { chunks: [PROGRAM_FRAMES[2]] }]);
    const stream = handle.iterOutput({ cursor: { stdout: 7, stderr: 6 } });
    await drain(stream);
    assert.deepEqual(stream.cursor, { stdout: 7, stderr: 6 });
    await handle.readOutput({ cursor: stream.cursor });
    assert.deepEqual(calls.slice(1).map((c) => new URL(c.url).search), Array(2).fill("?stdout_offset=7&stderr_offset=6&follow=true"));
  });

  test("the requests are the core's: method, target, its headers, the client's where it sets none, a JSON body", async () => {
    const { client, calls } = clientWith([{ type: JSON_TYPE, chunks: [JSON.stringify({ proc_id: P, status: "running" })] }, { chunks: PROGRAM_FRAMES }], {
      headers: { Authorization: "Bearer t", Accept: "text/html", "Idempotency-Key": "not mine" },
    });
    const computer = client.computers.get("c/1");
    await computer.processes.start(["true"], { idempotency_key: "k 1", timeout_seconds: 2.5 });
    await (await drain(computer.execStream("x"))).error;
    const start = core.Request.start("c/1", ["true"], { idempotencyKey: "k 1", timeoutMs: 2500 });
    assert.equal(calls[0].url, BASE + start.target);
    assert.equal(calls[0].method, start.method);
    assert.deepEqual(calls[0].headers, { accept: "application/json", "idempotency-key": "k 1", "content-type": "application/json", authorization: "Bearer t" });
    assert.equal(calls[0].body, new TextDecoder().decode(start.body));
    const exec = core.Request.exec("c/1", "x", { stream: true });
    assert.deepEqual([calls[1].url, calls[1].method], [BASE + exec.target, "POST"]);
    assert.deepEqual(calls[1].headers, { accept: NDJSON, "content-type": "application/json", authorization: "Bearer t", "idempotency-key": "not mine" });
  });
});

// -------------------------------------------------------- connection bound

describe("connections", () => {
  /** A fetch that counts the requests in flight at the server: from the call until the body ended or was cancelled. */
  function countingFetch(answer) {
    const state = { inFlight: 0, max: 0, calls: 0 };
    const f = scriptedFetch(
      Array.from({ length: 1000 }, () => () => {
        state.calls++;
        state.inFlight++;
        state.max = Math.max(state.max, state.inFlight);
        return { ...answer(), onEnd: () => state.inFlight-- };
      }),
    );
    return { ...f, state };
  }

  test("at most maxConnections requests in flight (FIFO): 40 reads through a bound of 5 all complete", async () => {
    const identity = { type: JSON_TYPE, chunks: [JSON.stringify({ proc_id: P, status: "running" })] };
    let n = 0;
    const f = countingFetch(() => (n++ === 0 ? identity : { chunks: PROGRAM_FRAMES, every: 2 }));
    const client = new Client({ baseUrl: BASE, fetch: f.fetch, maxConnections: 5 });
    assert.equal(client.maxConnections, 5);
    const handle = await client.computers.get("c1").processes.get(P);
    const results = await Promise.all(Array.from({ length: 40 }, () => handle.readOutput()));
    for (const t of results) assert.equal(t.text("stderr"), "notice");
    assert.equal(f.state.calls, 41);
    assert.equal(f.state.max, 5, "the bound was reached and never passed");
    assert.equal(f.state.inFlight, 0);
    // Iterators hold their connection until they end or close; a closed one gives it back.
    const streams = Array.from({ length: 6 }, () => handle.iterOutput());
    const firsts = streams.slice(0, 5).map((s) => s[Symbol.asyncIterator]().next());
    await Promise.all(firsts);
    assert.equal(f.state.inFlight, 5);
    const sixth = streams[5][Symbol.asyncIterator]().next();
    await sleep(30);
    assert.equal(f.state.calls, 46, "the sixth waits for a connection");
    await streams[0].close();
    assert.equal((await sixth).value.type, "stdout");
    for (const s of streams) await s.close();
    await sleep(10);
    assert.equal(f.state.inFlight, 0);
    assert.equal(new Client(BASE).maxConnections, 100, "the default");
  });

  test("client.close() rejects the requests waiting for a connection (AbortError)", async () => {
    const f = countingFetch(() => ({ chunks: [], end: "hang" }));
    const client = new Client({ baseUrl: BASE, fetch: f.fetch, maxConnections: 1 });
    const computer = client.computers.get("c1");
    const reading = computer.setup.readLogs().catch((e) => e);
    const waiting = [computer.setup.readLogs().catch((e) => e), computer.processes.start("x").catch((e) => e), drain(computer.setup.iterLogs())];
    await sleep(30);
    assert.equal(f.state.calls, 1);
    client.close();
    assert.equal((await reading).name, "AbortError");
    const [read, start, iterated] = await Promise.all(waiting);
    assert.deepEqual([read.name, start.name, iterated.error?.name], ["AbortError", "AbortError", "AbortError"]);
    assert.equal(f.state.calls, 1);
  });
});

// -------------------------------------------------------------------- close

describe("close", () => {
  test("stream.close() during a pending read ends the loop quietly and cancels the request", async () => {
    const { handle } = await handleOf([{ chunks: [PROGRAM_FRAMES[0]], end: "hang" }]);
    const stream = handle.iterOutput();
    const types = [];
    const loop = (async () => {
      for await (const frame of stream) types.push(frame.type);
    })();
    await sleep(30);
    await stream.close();
    await loop;
    assert.deepEqual(types, ["stdout"]);
    assert.deepEqual(stream.cursor, { stdout: 7, stderr: 0 });
  });

  test("breaking out of the loop releases the stream; the offsets are those of the frames delivered", async () => {
    const { handle } = await handleOf([{ chunks: [PROGRAM_FRAMES.join("")] }]);
    const stream = handle.iterOutput();
    for await (const frame of stream) if (frame.type === "stdout") break;
    assert.deepEqual([stream.stdout_offset, stream.stderr_offset], [7, 0]);
    await stream.close();
  });

  test("client.close() aborts streams, follows and requests in flight (AbortError) and rejects later calls", async () => {
    const { client, handle } = await handleOf([{ chunks: [], end: "hang" }, "hang", { type: JSON_TYPE, chunks: [], end: "hang" }]);
    const computer = client.computers.get("c1");
    const stream = handle.iterOutput();
    const iterating = drain(stream);
    const following = handle.readOutput().catch((e) => e);
    const starting = computer.processes.start("sleep 1").catch((e) => e);
    await sleep(30);
    client.close();
    client.close();
    const { error } = await iterating;
    assert.equal(error?.name, "AbortError");
    assert.equal((await following).name, "AbortError");
    assert.equal((await starting).name, "AbortError");
    assert.equal((await computer.processes.kill(P).catch((e) => e)).name, "AbortError");
    assert.equal((await drain(handle.iterOutput())).error?.name, "AbortError");
  });
});

// ------------------------------------------------------------------ options

describe("options", () => {
  test("the base URL comes from baseUrl or DORY_URL; without either the constructor throws", () => {
    const saved = process.env.DORY_URL;
    try {
      delete process.env.DORY_URL;
      assert.throws(() => new Client(), (e) => e instanceof core.InvalidArgument && e.argument === "baseUrl");
      process.env.DORY_URL = "http://127.0.0.1:9/api/";
      assert.equal(new Client().baseUrl, "http://127.0.0.1:9/api");
      assert.equal(new Client({ baseUrl: "https://x.test" }).baseUrl, "https://x.test");
    } finally {
      if (saved === undefined) delete process.env.DORY_URL;
      else process.env.DORY_URL = saved;
    }
  });

  test("argument errors name the argument (TypeError for a type, the core's InvalidArgument for a value), before any request", async () => {
    const invalid = (argument) => (e) => e instanceof core.InvalidArgument && e.code === "invalid_argument" && e.argument === argument && e.message.startsWith(`invalid_argument: ${argument}: `);
    const typeError = (pattern) => (e) => e instanceof TypeError && pattern.test(e.message);
    // The core's rule, the same inputs as Python's and Rust's tests.
    for (const bad of ["ftp://x", "not a url", "localhost:8080", "http://", "http://h/?q=1", ""]) {
      assert.throws(() => new Client({ baseUrl: bad }), invalid("baseUrl"), bad);
    }
    assert.equal(new Client("http://h:9/api/").baseUrl, "http://h:9/api");
    assert.throws(() => new Client({ baseUrl: BASE, fetch: 1 }), TypeError);
    assert.throws(() => new Client({ baseUrl: BASE, bogus: 1 }), typeError(/unknown Client option "bogus"/));
    assert.throws(() => new Client({ baseUrl: BASE, headers: { a: 1 } }), typeError(/^header a must be a string/));
    assert.throws(() => new Client({ baseUrl: BASE, maxFrameBytes: 0 }), invalid("maxFrameBytes"));
    assert.throws(() => new Client({ baseUrl: BASE, livenessTimeoutMs: "30" }), typeError(/^livenessTimeoutMs must be a number/));
    assert.throws(() => new Client({ baseUrl: BASE, maxConnections: 0 }), (e) => e instanceof RangeError && /^maxConnections/.test(e.message));
    assert.throws(() => new Client({ baseUrl: BASE, maxConnections: "9" }), typeError(/^maxConnections must be a number/));
    assert.throws(() => new Client(BASE, { baseUrl: BASE }), typeError(/unknown Client option "baseUrl"/));
    const { client, calls, handle } = await handleOf([]);
    assert.throws(() => client.computers.get(""), invalid("computerId"));
    assert.throws(() => client.computers.get(7), typeError(/^computerId must be a string/));
    const computer = client.computers.get("c1");
    await assert.rejects(computer.processes.start(42), typeError(/^command must be a string/));
    await assert.rejects(computer.processes.start(""), invalid("command"));
    await assert.rejects(computer.processes.start("x", { timeout_seconds: -1 }), invalid("timeoutMs"));
    await assert.rejects(computer.processes.start("x", { timeout_seconds: "30" }), typeError(/^timeout_seconds must be a number/));
    await assert.rejects(computer.processes.start("x", { idempotency_key: "" }), invalid("idempotencyKey"));
    await assert.rejects(computer.processes.start("x", { idempotency_key: 7 }), typeError(/^idempotency_key must be a string/));
    await assert.rejects(computer.processes.start("x", { timeoutSeconds: 3 }), typeError(/unknown start option "timeoutSeconds": use timeoutMs/));
    await assert.rejects(computer.exec("x", { timeout_seconds: 0 }), invalid("timeoutMs"));
    await assert.rejects(computer.processes.get(""), invalid("procId"));
    await assert.rejects(computer.processes.kill(5), typeError(/^procId must be a string/));
    assert.throws(() => handle.iterOutput({ stdout_offset: -1 }), invalid("stdout_offset"));
    assert.throws(() => handle.iterOutput({ stderr_offset: 1.5 }), invalid("stderr_offset"));
    assert.throws(() => handle.iterOutput({ stdout_offset: "0" }), typeError(/^stdout_offset must be a number/));
    assert.throws(() => handle.iterOutput({ cursor: { stdout: -1 } }), invalid("cursor.stdout"));
    assert.throws(() => handle.iterOutput({ cursor: 3 }), typeError(/^cursor must be an object/));
    assert.throws(() => handle.iterOutput({ cursor: { stdout: 1, stderr: 0 }, stdout_offset: 1 }), typeError(/cursor or as stdout_offset/));
    assert.throws(() => handle.iterOutput({ stdoutOffset: 1 }), typeError(/unknown iterOutput option "stdoutOffset"/));
    assert.throws(() => handle.iterOutput({ retries: 2 }), typeError(/unknown iterOutput option "retries"/));
    assert.throws(() => handle.iterOutput({ gapPolicy: "ignore" }), invalid("gapPolicy"));
    assert.throws(() => handle.iterOutput({ follow: "yes" }), typeError(/^follow must be a boolean/));
    assert.throws(() => handle.iterOutput({ livenessTimeoutMs: 0 }), invalid("livenessTimeoutMs"));
    assert.throws(() => computer.execStream("x", { gapPolicy: "ignore" }), invalid("gapPolicy"));
    assert.throws(() => computer.execStream("x", { follow: false }), typeError(/unknown execStream option "follow"/));
    assert.throws(() => computer.execStream("", {}), invalid("command"));
    assert.throws(() => computer.setup.iterLogs({ offset: -2 }), invalid("offset"));
    await assert.rejects(handle.readOutput({ retries: -1 }), invalid("retries"));
    await assert.rejects(handle.readOutput({ retries: 1.5 }), invalid("retries"));
    await assert.rejects(handle.readOutput({ backoffMs: 10_000 }), invalid("backoffMs"));
    await assert.rejects(handle.readOutput({ jitter: "no" }), typeError(/^jitter must be a boolean/));
    await assert.rejects(handle.readOutput({ transcript: {} }), typeError(/^transcript must be a Transcript/));
    await assert.rejects(handle.readOutput({ onReconnect: 1 }), typeError(/^onReconnect must be a function/));
    await assert.rejects(computer.setup.readLogs({ maxBackoffMs: -1 }), invalid("maxBackoffMs"));
    assert.equal(calls.length, 1, "no request was made for bad arguments");
  });

  test("a base URL string, like Python's Client(url); computers.get() is synchronous and sends nothing", async () => {
    const f = scriptedFetch([{ type: JSON_TYPE, chunks: [JSON.stringify({ proc_id: P, status: "running" })] }]);
    const client = new Client(`${BASE}/`, { fetch: f.fetch });
    assert.equal(client.baseUrl, BASE);
    assert.equal(client.maxConnections, 100);
    const computer = client.computers.get("c 1");
    assert.equal(computer.id, "c 1");
    assert.equal(typeof computer.then, "undefined", "a Computer, not a promise");
    assert.equal((client.computers.get("c1")).id, "c1", "await still works");
    assert.equal(f.calls.length, 0, "no request");
    assert.equal((await computer.processes.get(P)).proc_id, P);
    assert.equal(f.calls[0].url, `${BASE}/computers/c%201/processes/p_1`);
  });

  test("fetch is called with no receiver (Cloudflare Workers: \"Illegal invocation\" otherwise), the default globalThis.fetch too", async () => {
    const saved = globalThis.fetch;
    const f = scriptedFetch([{ type: JSON_TYPE, chunks: [JSON.stringify({ proc_id: P, status: "running" })] }, { chunks: [PROGRAM_FRAMES.join("")] }]);
    const receivers = [];
    globalThis.fetch = function workersFetch(url, init) {
      "use strict";
      receivers.push(this);
      if (this !== undefined && this !== globalThis) throw new TypeError("Illegal invocation");
      const inner = f.fetch; // itself a Workers-like fetch
      return inner(url, init);
    };
    try {
      const client = new Client(BASE);
      const handle = await client.computers.get("c1").processes.get(P);
      const t = await handle.readOutput();
      assert.equal(t.text("stderr"), "notice");
      assert.deepEqual(receivers, [undefined, undefined]);
    } finally {
      globalThis.fetch = saved;
    }
  });
});

// ------------------------------------------------------------------ browser

test("the browser build: dory-wire/client over the web core after init(), with an injected fetch", async () => {
  const { readFileSync } = await import("node:fs");
  const { join } = await import("node:path");
  const { npmDir } = await import("./helpers.mjs");
  const web = await import(join(npmDir, "dist", "web", "client.js"));
  const webCore = await import(join(npmDir, "dist", "web", "index.js"));
  assert.equal(web.Transcript, webCore.Transcript);
  await webCore.init(readFileSync(join(npmDir, "dist", "web", "wasm", "dory_wire_wasm_bg.wasm")));
  const f = scriptedFetch([
    { type: JSON_TYPE, chunks: [JSON.stringify({ proc_id: P, status: "running" })] },
    { chunks: [PROGRAM_FRAMES[0]], end: "error" },
    { chunks: [PROGRAM_FRAMES.join("")] },
  ]);
  const client = new web.Client({ baseUrl: BASE, fetch: f.fetch });
  const handle = await (client.computers.get("c1")).processes.get(P);
  const t = await handle.readOutput();
  assert.deepEqual(Buffer.from(t.bytes("stdout")), Buffer.from("hello\0\xff", "latin1"));
  assert.equal(concat([t.bytes("stderr")]).toString(), "notice");
});

test("the browser build before init(): a client, a computer and a stream are made at once; the first read loads the core", async () => {
  const { execFile } = await import("node:child_process");
  const { promisify } = await import("node:util");
  const { join } = await import("node:path");
  const { npmDir } = await import("./helpers.mjs");
  // A fresh process, so nothing has loaded the web build's WebAssembly yet; its
  // init() fetches the .wasm next to the module (a file: URL, served here).
  const script = `
    import { readFileSync } from "node:fs";
    globalThis.fetch = async (url) => new Response(readFileSync(new URL(String(url))), { headers: { "content-type": "application/wasm" } });
    const web = await import(${JSON.stringify(join(npmDir, "dist", "web", "client.js"))});
    const body = process.env.BODY;
    const fetch = async () => ({ status: 200, headers: new Headers({ "content-type": "application/x-ndjson" }), body: new Response(body).body });
    const client = new web.Client({ baseUrl: "http://dory.test", fetch, livenessTimeoutMs: 1000 });
    const computer = client.computers.get("c1");
    const stream = computer.setup.iterLogs({ offset: 0 });
    const types = [];
    for await (const frame of stream) types.push(frame.type);
    const t = await computer.setup.readLogs();
    console.log(JSON.stringify({ types, text: t.text("stdout") }));
  `;
  const BODY = line({ type: "stdout", data: "setup ok\n", offset: 9 }) + PROGRAM_FRAMES[2];
  const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", script], { timeout: 60_000, env: { ...process.env, BODY } });
  assert.deepEqual(JSON.parse(stdout), { types: ["stdout", "exit"], text: "setup ok\n" });
});

test("follow: false: a clean end without exit is the end of what exists now; a cut is still a disconnect", async () => {
  const { handle, calls } = await handleOf([{ chunks: [PROGRAM_FRAMES[0]] }, { chunks: [PROGRAM_FRAMES[0]], end: "error" }]);
  const now = await drain(handle.iterOutput({ follow: false }));
  assert.equal(now.error, null);
  assert.deepEqual(now.frames.map((f) => f.type), ["stdout"]);
  assert.match(calls[1].url, /follow=false$/);
  const cut = await drain(handle.iterOutput({ follow: false }));
  assert.ok(cut.error instanceof StreamDisconnected);
  assert.equal(cut.error.reason, "end_of_body");
  assert.ok(cut.error.cause instanceof TypeError);
});

test("an output frame's data/encoding are computed on first access, yet behave as plain properties", async () => {
  const { handle } = await handleOf([{ chunks: [PROGRAM_FRAMES.join("")] }]);
  const { frames } = await drain(handle.iterOutput());
  const [out, err] = frames;
  assert.deepEqual(Object.keys(out), ["type", "data", "encoding", "offset", "stream", "start", "end", "bytes"]);
  assert.equal({ ...out }.data, "aGVsbG8A/w==");
  assert.equal(JSON.parse(JSON.stringify(err)).data, "notice");
  assert.equal(JSON.parse(JSON.stringify(err)).encoding, "utf-8");
  out.data = "replaced";
  assert.equal(out.data, "replaced");
  assert.equal(out.encoding, "base64");
  // Text that is valid UTF-8 stays text, whatever characters it holds.
  const { handle: h2 } = await handleOf([{ chunks: [line({ type: "stdout", data: "é€😀\u0000", offset: 10 }), PROGRAM_FRAMES[2]] }]);
  const [text] = (await drain(h2.iterOutput())).frames;
  assert.deepEqual([text.data, text.encoding], ["é€😀\u0000", "utf-8"]);
});
