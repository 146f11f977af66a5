// dory-wire/client against the reference server: a retained-output program
// written on the client (bytes with NUL and a non-UTF-8 byte, replay
// identity, kill), then every way a response can end, each typed: a drop
// mid-frame, between frames and before the first byte, a refused connection,
// a stalled stream, a gap frame, 409, 410, 400, a keyed replay answered as a
// JSON identity, a proxy's non-JSON 502. Expectations come from what the
// process wrote.

import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { randomUUID } from "node:crypto";
import { Buffer } from "node:buffer";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, RefServer, withServer } from "./refserver.mjs";

const client_ = await import(join(ROOT, "npm", "dist", "node", "client.mjs"));
const { Client, StreamDisconnected, Transcript, OutputGap, OutputExpired, OffsetBeyondOutput, ApiError, LossError, AnswerError } = client_;

const COMMAND = ["sh", "-c", "printf 'hello\\000\\377'; printf 'notice' >&2"];
const HELLO = Buffer.from([104, 101, 108, 108, 111, 0, 255]);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Runs `fn(client, computer, server)` against a fresh server started with `args`. */
function withClient(args, fn, clientOptions = {}) {
  return withServer(args, async (server) => {
    const client = new Client({ baseUrl: server.url, ...clientOptions });
    try {
      return await fn(client, client.computers.get(server.computer), server);
    } finally {
      client.close();
    }
  });
}

/** Frames and the ending of one stream. */
async function drain(stream) {
  const frames = [];
  try {
    for await (const frame of stream) frames.push(frame);
    return { frames, error: null };
  } catch (error) {
    return { frames, error };
  } finally {
    await stream.close();
  }
}

function assertDisconnected(error, reason, cursor) {
  assert.ok(error instanceof StreamDisconnected, `expected StreamDisconnected, got ${error?.stack ?? error}`);
  assert.equal(error.reason, reason);
  assert.deepEqual(error.cursor, cursor);
  assert.deepEqual([error.stdout_offset, error.stderr_offset], [cursor.stdout, cursor.stderr]);
}

/**
 * A retained-output program on the client: start with a fresh key, replay
 * the start, follow from per-stream offsets (reconnecting on
 * StreamDisconnected only, at most `attempts` times), verify the bytes, kill.
 */
async function retainedOutputProgram(computer, attempts) {
  const options = { timeout_seconds: 30, idempotency_key: randomUUID() };
  const started = await computer.processes.start(COMMAND, options);
  const connections = [];
  try {
    const replay = await computer.processes.start(COMMAND, options);
    assert.equal(replay.proc_id, started.proc_id, "a keyed replay identifies the same process");
    const handle = await computer.processes.get(started.proc_id);
    let offsets = { stdout_offset: 0, stderr_offset: 0 };
    const out = { stdout: [], stderr: [] };
    let exit = null;
    for (let attempt = 0; attempt < attempts && exit === null; attempt++) {
      connections.push(offsets);
      const stream = handle.iterOutput(offsets);
      try {
        for await (const frame of stream) {
          if (frame.type === "stdout" || frame.type === "stderr") {
            // The wire's form and the decoded bytes agree exactly.
            assert.deepEqual(Buffer.from(frame.data, frame.encoding === "base64" ? "base64" : "utf8"), Buffer.from(frame.bytes));
            out[frame.type].push(Buffer.from(frame.bytes));
          }
          if (frame.type === "exit") exit = frame;
        }
      } catch (error) {
        if (!(error instanceof StreamDisconnected)) throw error;
      } finally {
        offsets = { stdout_offset: stream.stdout_offset, stderr_offset: stream.stderr_offset };
        await stream.close();
      }
    }
    assert.deepEqual(exit, { type: "exit", exit_code: 0, timed_out: false });
    assert.deepEqual(Buffer.concat(out.stdout), HELLO);
    assert.equal(Buffer.concat(out.stderr).toString(), "notice");
    return { procId: started.proc_id, connections };
  } finally {
    const killed = await computer.processes.kill(started.proc_id);
    assert.equal(killed.proc_id, started.proc_id);
  }
}

describe("a retained-output program on the client", () => {
  test("clean: one connection", async () => {
    await withClient([], async (_client, computer) => {
      const { connections } = await retainedOutputProgram(computer, 3);
      assert.equal(connections.length, 1);
    });
  });

  test("every response cut after 80 bytes: reconnects from the consumed offsets, never starts again", async () => {
    await withClient(["--drop-after-bytes", "80"], async (_client, computer, server) => {
      const { procId, connections } = await retainedOutputProgram(computer, 5);
      // Every body (71 + 51 + 47 bytes of frames, in the order the pipes were
      // read) is cut: each connection starts where the last frame delivered ended.
      assert.ok(connections.length >= 2, `${connections.length} connections`);
      assert.deepEqual(connections[0], { stdout_offset: 0, stderr_offset: 0 });
      for (let i = 1; i < connections.length; i++) {
        const [a, b] = [connections[i - 1], connections[i]];
        assert.ok(b.stdout_offset >= a.stdout_offset && b.stderr_offset >= a.stderr_offset, "offsets never go back");
        assert.ok(b.stdout_offset + b.stderr_offset > a.stdout_offset + a.stderr_offset, "each connection delivered a frame");
      }
      assert.equal((await server.json("GET", `/processes/${procId}`)).status, "exited");
    });
  });

  test("the one-call readOutput(), clean and with seeded drops", async () => {
    // Half of the responses cut after 1..100 bytes (a frame is up to 71 bytes).
    for (const args of [[], ["--drop-seed", "11", "--drop-probability", "0.5", "--drop-max-bytes", "100"]]) {
      await withClient(args, async (_client, computer) => {
        const started = await computer.processes.start(COMMAND, { timeout_seconds: 30 });
        const handle = await computer.processes.get(started.proc_id);
        let reconnects = 0;
        const t = await handle.readOutput({ retries: 50, onReconnect: () => reconnects++ });
        assert.ok(t instanceof Transcript);
        assert.deepEqual(Buffer.from(t.bytes("stdout")), HELLO);
        assert.equal(t.text("stderr"), "notice");
        assert.deepEqual(t.exit, { exitCode: 0, timedOut: false });
        if (args.length > 0) assert.ok(reconnects > 0, "the seeded drops cut at least one response");
      });
    }
  });

  test("kill mid-stream: the follower gets exit with exit_code null", async () => {
    await withClient([], async (_client, computer) => {
      const started = await computer.processes.start("printf ready; sleep 30", { timeout_seconds: 60 });
      const handle = await computer.processes.get(started.proc_id);
      const stream = handle.iterOutput();
      const frames = [];
      for await (const frame of stream) {
        frames.push(frame);
        if (frame.type === "stdout") assert.equal((await handle.kill()).proc_id, started.proc_id);
      }
      assert.deepEqual(frames.at(-1), { type: "exit", exit_code: null, timed_out: false });
      assert.equal(stream.stdout_offset, 5);
    });
  });

  test("streaming exec, its keyed replay (a JSON identity), synchronous exec", async () => {
    await withClient(["--sync-limit-bytes", "4"], async (_client, computer) => {
      const key = randomUUID();
      const first = await drain(computer.execStream(COMMAND, { idempotency_key: key, timeout_seconds: 30 }));
      assert.equal(first.error, null);
      assert.equal(first.frames[0].type, "started");
      const procId = first.frames[0].proc_id;
      const bytesOf = (frames, type) => Buffer.concat(frames.filter((f) => f.type === type).map((f) => f.bytes));
      assert.deepEqual(bytesOf(first.frames, "stdout"), HELLO);

      // The replay starts nothing: one identity frame, then the first run's
      // retained output, read from its process (the core's follower).
      const replayStream = computer.execStream(COMMAND, { idempotency_key: key, timeout_seconds: 30 });
      const replay = await drain(replayStream);
      assert.equal(replay.error, null);
      assert.deepEqual(replay.frames[0], { type: "identity", proc_id: procId, status: "exited" });
      assert.deepEqual(bytesOf(replay.frames, "stdout"), HELLO);
      assert.equal(bytesOf(replay.frames, "stderr").toString(), "notice");
      assert.deepEqual(replay.frames.at(-1), { type: "exit", exit_code: 0, timed_out: false });
      assert.deepEqual(replayStream.end, { type: "exited", exitCode: 0, timedOut: false });
      const t = await (await computer.processes.get(procId)).readOutput();
      assert.deepEqual(Buffer.from(t.bytes("stdout")), HELLO);
      assert.equal(t.text("stderr"), "notice");

      const result = await computer.exec(COMMAND, { timeout_seconds: 30 });
      assert.equal(result.type, "exec_result");
      assert.deepEqual(Buffer.from(result.stdout), HELLO.subarray(0, 4));
      assert.equal(Buffer.from(result.stderr).toString(), "noti");
      assert.deepEqual([result.stdout_truncated, result.stderr_truncated, result.exit_code, result.timed_out], [true, true, 0, false]);
      const again = await computer.exec(COMMAND, { idempotency_key: key });
      assert.deepEqual(again, { type: "identity", proc_id: procId, status: "exited" });
    });
  });

  test("setup logs: stream and one call, with drops", async () => {
    const setup = "echo out; echo err >&2; printf 'x\\377'";
    const expected = Buffer.from("out\nerr\nx\xff", "latin1");
    await withClient(["--setup-command", setup, "--drop-seed", "5", "--drop-probability", "0.5", "--drop-max-bytes", "100"], async (_client, computer) => {
      let reconnects = 0;
      const t = await computer.setup.readLogs({ retries: 20, onReconnect: () => reconnects++ });
      assert.deepEqual(Buffer.from(t.bytes("stdout")), expected);
      assert.equal(t.bytes("stderr").length, 0);
      assert.deepEqual(t.exit, { exitCode: 0, timedOut: false });
    });
    await withClient(["--setup-command", setup], async (_client, computer) => {
      await computer.setup.readLogs(); // the setup has finished
      const logs = computer.setup.iterLogs({ offset: 4, follow: false });
      const { frames, error } = await drain(logs);
      assert.equal(error, null);
      assert.deepEqual(Buffer.concat(frames.filter((f) => f.type === "stdout").map((f) => f.bytes)), expected.subarray(4));
      assert.deepEqual(frames.at(-1), { type: "exit", exit_code: 0, timed_out: false });
      assert.equal(logs.stdout_offset, 10);
    });
  });
});

describe("every ending is typed", () => {
  // printf hello, already exited: the output body is
  // {"type":"stdout","data":"hello","offset":5}\n (44 bytes), then exit.
  async function exitedProcess(computer, server) {
    const started = await computer.processes.start("printf hello");
    await server.waitExited(started.proc_id);
    return computer.processes.get(started.proc_id);
  }

  for (const [name, drop, frames, cursor] of [
    ["a drop mid-frame", "30", 0, { stdout: 0, stderr: 0 }],
    ["a drop between frames", "44", 1, { stdout: 5, stderr: 0 }],
    ["a drop before the first byte", "0", 0, { stdout: 0, stderr: 0 }],
  ]) {
    test(`${name}: StreamDisconnected (end_of_body, the transport error as cause) at the last complete frame`, async () => {
      await withClient(["--drop-after-bytes", drop], async (_client, computer, server) => {
        const handle = await exitedProcess(computer, server);
        const got = await drain(handle.iterOutput());
        assert.equal(got.frames.length, frames);
        assertDisconnected(got.error, "end_of_body", cursor);
        assert.equal(got.error.proc_id, handle.proc_id);
        assert.ok(got.error.cause instanceof TypeError, `cause: ${got.error.cause}`);
      });
    });
  }

  test("a drop on an exec stream after started: followed from the process's output to the exit, never exec'd again", async () => {
    // started (47 bytes), then the cut inside the stdout frame; every output response cut after 80 bytes too.
    await withClient(["--drop-after-bytes", "80"], async (_client, computer, server) => {
      const records = [];
      const stream = computer.execStream(COMMAND, { timeout_seconds: 30, onReconnect: (r) => records.push(r) });
      const { frames, error } = await drain(stream);
      assert.equal(error, null, String(error?.stack ?? error));
      assert.equal(frames[0].type, "started");
      const procId = frames[0].proc_id;
      assert.match(procId, /^p_/);
      const bytesOf = (type) => Buffer.concat(frames.filter((f) => f.type === type).map((f) => f.bytes));
      assert.deepEqual(bytesOf("stdout"), HELLO);
      assert.equal(bytesOf("stderr").toString(), "notice");
      assert.deepEqual(frames.at(-1), { type: "exit", exit_code: 0, timed_out: false });
      assert.ok(records.length >= 1, "the cut was reconnected");
      assert.deepEqual([records[0].reason, records[0].procId, records[0].cursor], ["end_of_body", procId, { stdout: 0, stderr: 0 }]);
      assert.equal(stream.proc_id, procId);
      assert.equal((await server.json("GET", `/processes/${procId}`)).status, "exited");
    });
    // Cut before its process was announced, without a key: never sent again.
    await withClient(["--drop-after-bytes", "0"], async (_client, computer) => {
      const { frames, error } = await drain(computer.execStream(COMMAND, { timeout_seconds: 30 }));
      assert.equal(frames.length, 0);
      assertDisconnected(error, "end_of_body", { stdout: 0, stderr: 0 });
    });
  });

  test("a refused connection on reconnect: StreamDisconnected (not_connected); readOutput() spends its budget then throws it", async () => {
    const server = await new RefServer([]).start();
    const client = new Client({ baseUrl: server.url });
    try {
      const computer = client.computers.get("c1");
      const handle = await exitedProcess(computer, server);
      const first = await drain(handle.iterOutput({ follow: false }));
      assert.equal(first.error, null);
      await server.stop();
      const { error } = await drain(handle.iterOutput({ stdout_offset: 5, stderr_offset: 0 }));
      assertDisconnected(error, "not_connected", { stdout: 5, stderr: 0 });
      let reconnects = 0;
      const last = await handle.readOutput({ stdout_offset: 5, retries: 2, backoffMs: 5, onReconnect: () => reconnects++ }).catch((e) => e);
      assertDisconnected(last, "not_connected", { stdout: 5, stderr: 0 });
      assert.equal(reconnects, 2);
    } finally {
      client.close();
      await server.stop();
    }
  });

  test("a stalled stream (no byte, no heartbeat within the liveness timeout): StreamDisconnected (stalled)", async () => {
    await withClient(["--heartbeat-ms", "60000"], async (client, computer) => {
      const started = await computer.processes.start("printf ready; sleep 30", { timeout_seconds: 60 });
      try {
        const handle = await computer.processes.get(started.proc_id);
        const t0 = performance.now();
        const { frames, error } = await drain(handle.iterOutput({ livenessTimeoutMs: 300 }));
        const took = performance.now() - t0;
        assert.deepEqual(frames.map((f) => f.data), ["ready"]);
        assertDisconnected(error, "stalled", { stdout: 5, stderr: 0 });
        assert.ok(took >= 290 && took < 10_000, `stalled after ${took} ms`);
        // Heartbeats keep a quiet stream alive.
        void client;
      } finally {
        await computer.processes.kill(started.proc_id);
      }
    });
    await withClient(["--heartbeat-ms", "100"], async (_client, computer) => {
      const started = await computer.processes.start("sleep 1; printf done", { timeout_seconds: 60 });
      const handle = await computer.processes.get(started.proc_id);
      const { frames, error } = await drain(handle.iterOutput({ livenessTimeoutMs: 400 }));
      assert.equal(error, null);
      assert.ok(frames.filter((f) => f.type === "heartbeat").length >= 3);
      assert.deepEqual(frames.at(-1), { type: "exit", exit_code: 0, timed_out: false });
    });
  });

  test("a server that accepts and never answers: StreamDisconnected (no_response) once no headers came in time", async () => {
    const sockets = [];
    const silent = createServer();
    silent.on("connection", (s) => sockets.push(s));
    await new Promise((r) => silent.listen(0, "127.0.0.1", r));
    const client = new Client({ baseUrl: `http://127.0.0.1:${silent.address().port}`, livenessTimeoutMs: 200 });
    try {
      const computer = client.computers.get("c1");
      const { error } = await drain(computer.setup.iterLogs({ offset: 3 }));
      assertDisconnected(error, "no_response", { stdout: 3, stderr: 0 });
    } finally {
      client.close();
      for (const s of sockets) s.destroy();
      await new Promise((r) => silent.close(r));
    }
  });

  test("a gap frame (a slow consumer): OutputGap under fail; a skipped frame then StreamDisconnected (gap) under skip", async () => {
    const total = 32_000_000;
    const dir = mkdtempSync(join(tmpdir(), "dory-client-slow-"));
    try {
      await withClient(["--retention-bytes", "65536"], async (_client, computer, server) => {
        for (const gapPolicy of ["fail", "skip"]) {
          const go = join(dir, `go-${gapPolicy}`);
          const script = `printf start; while [ ! -e '${go}' ]; do sleep 0.01; done; head -c ${total - 5} /dev/zero | tr '\\0' a`;
          const started = await computer.processes.start(["sh", "-c", script], { timeout_seconds: 120 });
          const handle = await computer.processes.get(started.proc_id);
          const stream = handle.iterOutput({ gapPolicy, livenessTimeoutMs: 600_000 });
          const frames = [];
          let error = null;
          try {
            for await (const frame of stream) {
              frames.push({ type: frame.type, offset: frame.offset, start: frame.start, end: frame.end, stream: frame.stream });
              if (frame.type === "stdout" && frame.offset === 5) {
                // Stop consuming until everything was produced: what this
                // stream needs next is evicted meanwhile.
                writeFileSync(go, "");
                await server.waitExited(started.proc_id);
              }
            }
          } catch (e) {
            error = e;
          } finally {
            await stream.close();
          }
          const consumed = stream.stdout_offset;
          if (gapPolicy === "fail") {
            assert.ok(error instanceof OutputGap && error instanceof LossError, `expected OutputGap, got ${error}`);
            assert.equal(error.consumed.stdout, consumed);
            assert.ok(error.earliest.stdout > consumed && error.earliest.stdout <= total);
          } else {
            const skipped = frames.at(-1);
            assert.equal(skipped.type, "skipped");
            assert.equal(skipped.start, frames.filter((f) => f.type === "stdout").at(-1).offset);
            assertDisconnected(error, "gap", { stdout: skipped.end, stderr: 0 });
            assert.equal(consumed, skipped.end);
            // Resuming from the moved cursor reads the rest; every loss is reported exactly.
            const t = await handle.readOutput({ stdout_offset: consumed, gapPolicy: "skip" });
            const lost = t.skipped("stdout").reduce((n, [a, b]) => n + (b - a), 0);
            const rest = t.bytes("stdout");
            assert.ok(Buffer.from(rest).equals(Buffer.alloc(rest.length, "a")));
            assert.equal(consumed + lost + rest.length, total);
            assert.deepEqual(t.exit, { exitCode: 0, timedOut: false });
          }
        }
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("409 output_gap: OutputGap (fail); under skip, the exact lost range in the transcript", async () => {
    await withClient(["--retention-bytes", "1000", "--max-chunk-bytes", "100"], async (_client, computer, server) => {
      const started = await computer.processes.start(`i=1; while [ $i -le 50 ]; do printf '%099d\\n' $i; i=$((i+1)); done`);
      await server.waitExited(started.proc_id);
      const handle = await computer.processes.get(started.proc_id);
      const { error } = await drain(handle.iterOutput());
      assert.ok(error instanceof OutputGap, `got ${error}`);
      assert.deepEqual(error.earliest, { stdout: 4000, stderr: 0 });
      const fail = await handle.readOutput().catch((e) => e);
      assert.ok(fail instanceof OutputGap);
      const t = await handle.readOutput({ gapPolicy: "skip" });
      assert.deepEqual(t.skipped("stdout"), [[0, 4000]]);
      assert.equal(t.isComplete("stdout"), false);
      assert.equal(t.bytes("stdout").length, 1000);
    });
  });

  test("410 output_expired: OutputExpired, never retried", async () => {
    await withClient(["--expiry-ms", "200"], async (_client, computer, server) => {
      const started = await computer.processes.start("printf abc");
      await server.waitExited(started.proc_id);
      await sleep(400);
      const handle = await computer.processes.get(started.proc_id);
      const { error } = await drain(handle.iterOutput());
      assert.ok(error instanceof OutputExpired && error instanceof LossError, `got ${error}`);
      let reconnects = 0;
      const again = await handle.readOutput({ onReconnect: () => reconnects++ }).catch((e) => e);
      assert.ok(again instanceof OutputExpired);
      assert.equal(reconnects, 0);
    });
  });

  test("400 offset_beyond_output: OffsetBeyondOutput", async () => {
    await withClient([], async (_client, computer, server) => {
      const handle = await exitedProcess(computer, server);
      const { error } = await drain(handle.iterOutput({ stdout_offset: 6 }));
      assert.ok(error instanceof OffsetBeyondOutput && error instanceof AnswerError, `got ${error}`);
      assert.ok((await handle.readOutput({ stderr_offset: 99 }).catch((e) => e)) instanceof OffsetBeyondOutput);
    });
  });

  test("an unknown process: ApiError 404 not_found", async () => {
    await withClient([], async (_client, computer) => {
      const error = await computer.processes.get("p_0000000000000").catch((e) => e);
      assert.ok(error instanceof ApiError);
      assert.deepEqual([error.status, error.apiCode], [404, "not_found"]);
    });
  });

  test("a proxy's non-JSON 502 on the output: ApiError (status 502, no api code), never retried", async () => {
    await withServer([], async (server) => {
      let outputs = 0;
      const proxy = createServer(async (req, res) => {
        if (req.url.includes("/output")) {
          outputs++;
          res.writeHead(502, { "content-type": "text/html" });
          res.end("<html><body>502 Bad Gateway</body></html>");
          return;
        }
        const chunks = [];
        for await (const c of req) chunks.push(c);
        const upstream = await fetch(server.url + req.url, {
          method: req.method,
          headers: { "content-type": "application/json", ...(req.headers["idempotency-key"] ? { "idempotency-key": req.headers["idempotency-key"] } : {}) },
          body: req.method === "POST" ? Buffer.concat(chunks) : undefined,
        });
        res.writeHead(upstream.status, { "content-type": upstream.headers.get("content-type") });
        res.end(Buffer.from(await upstream.arrayBuffer()));
      });
      await new Promise((r) => proxy.listen(0, "127.0.0.1", r));
      const client = new Client({ baseUrl: `http://127.0.0.1:${proxy.address().port}` });
      try {
        const computer = client.computers.get("c1");
        const handle = await exitedProcess(computer, server);
        const { error } = await drain(handle.iterOutput());
        assert.ok(error instanceof ApiError, `got ${error}`);
        assert.deepEqual([error.status, error.apiCode], [502, null]);
        assert.ok((await handle.readOutput().catch((e) => e)) instanceof ApiError);
        assert.equal(outputs, 2, "a 502 is an answer, not a disconnect: not retried");
      } finally {
        client.close();
        await new Promise((r) => proxy.close(r));
      }
    });
  });

  test("client.close() aborts a follower in flight (AbortError); the process keeps running", async () => {
    await withServer([], async (server) => {
      const client = new Client({ baseUrl: server.url });
      const computer = client.computers.get("c1");
      const started = await computer.processes.start("printf go; sleep 30", { timeout_seconds: 60 });
      const handle = await computer.processes.get(started.proc_id);
      const following = handle.readOutput().catch((e) => e);
      await sleep(200);
      client.close();
      assert.equal((await following).name, "AbortError");
      assert.equal((await server.json("GET", `/processes/${started.proc_id}`)).status, "running");
      await server.kill(started.proc_id);
    });
  });
});
