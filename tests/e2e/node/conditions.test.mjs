// End-to-end conditions against the reference server, decoded by the npm
// package: the seed program, eviction (fail and skip), expiry, offsets beyond
// the output, a slow consumer's gap frame, setup logs, synchronous truncation
// and a kill mid-stream. Every expectation is computed from what the process wrote.

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { Buffer } from "node:buffer";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { ROOT, RefServer, bodyChunks, followOutput, wire, withServer } from "./refserver.mjs";

const { OffsetBeyondOutput, OutputExpired, OutputGap, Reader, iterEvents } = wire;
const NDJSON = { accept: "application/x-ndjson" };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** `count` lines of exactly 100 bytes (line number padded to 99 digits), one write each. */
function linesCommand(count, redirect = "") {
  return `i=1; while [ $i -le ${count} ]; do printf '%099d\\n' $i${redirect}; i=$((i+1)); done`;
}
function linesBytes(first, last) {
  let s = "";
  for (let i = first; i <= last; i++) s += `${String(i).padStart(99, "0")}\n`;
  return Buffer.from(s);
}
const exited = (exitCode) => ({ type: "exited", exitCode, timedOut: false });

/** Decodes a whole answer already read: the events and the End. */
function decodeWhole(endpoint, r, options) {
  const reader = new Reader(endpoint, options);
  reader.open(r.status, r.contentType, r.procId);
  const events = reader.feed(r.body);
  const [last, end] = reader.finish();
  return { events: [...events, ...last], end, reader };
}

async function rejectsWith(promise, cls) {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof cls, `expected ${cls.name}, got ${error}`);
    return error;
  }
  assert.fail(`expected ${cls.name}, nothing was thrown`);
}

// -- the seed program ------------------------------------------------------------

describe("the seed program (npm/examples/retained-output.mjs)", () => {
  for (const drop of [null, "80"]) {
    test(drop ? `with every response cut after ${drop} bytes` : "clean", async () => {
      await withServer(drop ? ["--drop-after-bytes", drop] : [], async (server) => {
        const { stdout, stderr } = await promisify(execFile)(
          process.execPath,
          [join(ROOT, "npm", "examples", "retained-output.mjs")],
          { env: { ...process.env, DORY_URL: server.url, CE_COMPUTER_ID: "seed" }, timeout: 120_000 },
        );
        assert.equal(stdout, "Retained bytes and replay identity verified\n");
        const connections = Number(/over (\d+) connection/.exec(stderr)?.[1]);
        if (drop) assert.ok(connections >= 2, `the program had to resume: ${stderr}`);
        else assert.equal(connections, 1, stderr);
      });
    });
  }
});

// -- conditions on a default server -------------------------------------------------

describe("default limits", () => {
  const server = new RefServer();
  before(() => server.start());
  after(() => server.stop());

  test("a keyed replay of a streaming exec is a JSON identity", async () => {
    const key = randomUUID();
    const body = { command: "printf once" };
    const response = await fetch(server.path("/exec"), {
      method: "POST",
      headers: { ...NDJSON, "idempotency-key": key },
      body: JSON.stringify(body),
    });
    const reader = new Reader("exec");
    const events = [];
    for await (const e of iterEvents(reader, response)) events.push(e);
    assert.deepEqual(reader.end, exited(0));
    assert.equal(events[0].type, "started");
    assert.equal(response.headers.get("ce-process-id"), reader.procId);
    assert.equal(Buffer.concat(events.filter((e) => e.type === "output" && e.stream === "stdout").map((e) => e.data)).toString(), "once");

    const replay = decodeWhole("exec", await server.request("POST", "/exec", body, { ...NDJSON, "idempotency-key": key }));
    assert.equal(replay.end.type, "document");
    assert.deepEqual(replay.events, [{ type: "identity", procId: reader.procId, status: "exited" }]);
  });

  test("an offset beyond the output is OffsetBeyondOutput", async () => {
    const procId = await server.startProcess("printf abc; printf de >&2");
    await server.waitExited(procId);
    for (const cursor of [{ stdout: 4, stderr: 0 }, { stdout: 0, stderr: 3 }]) {
      await rejectsWith(followOutput(server, procId, { cursor }), OffsetBeyondOutput);
    }
    const atEnd = await followOutput(server, procId, { cursor: { stdout: 3, stderr: 2 } });
    assert.equal(atEnd.stdout.length + atEnd.stderr.length, 0);
    assert.deepEqual(atEnd.end, exited(0));
    const middle = await followOutput(server, procId, { cursor: { stdout: 1, stderr: 1 } });
    assert.deepEqual([middle.stdout.toString(), middle.stderr.toString()], ["bc", "e"]);
  });

  const syncExec = async (command) => {
    const { events, end } = decodeWhole("exec", await server.request("POST", "/exec", { command }, { accept: "application/json" }));
    assert.equal(end.type, "document");
    assert.equal(events[0].type, "exec_result");
    return events[0];
  };

  test("synchronous exec truncation flags", async () => {
    const limit = 1024 * 1024;
    const over = await syncExec(`head -c ${limit + 1} /dev/zero | tr '\\0' a; printf short >&2`);
    assert.ok(Buffer.from(over.stdout).equals(Buffer.alloc(limit, "a")));
    assert.equal(over.stdoutTruncated, true);
    assert.equal(Buffer.from(over.stderr).toString(), "short");
    assert.equal(over.stderrTruncated, false);
    assert.equal(over.exitCode, 0);

    const exact = await syncExec(`head -c ${limit} /dev/zero | tr '\\0' b >&2; exit 7`);
    assert.ok(Buffer.from(exact.stderr).equals(Buffer.alloc(limit, "b")));
    assert.equal(exact.stderrTruncated, false);
    assert.equal(exact.stdout.length, 0);
    assert.equal(exact.exitCode, 7);

    // A cut inside a multi-byte character: the kept bytes are exact (base64 on the wire).
    const cut = await syncExec(`head -c ${limit - 1} /dev/zero | tr '\\0' c; printf '\\303\\251\\303\\251'`);
    assert.ok(Buffer.from(cut.stdout).equals(Buffer.concat([Buffer.alloc(limit - 1, "c"), Buffer.from([0xc3])])));
    assert.equal(cut.stdoutTruncated, true);
  });

  test("a kill mid-stream (exec) ends with exit_code null", async () => {
    const response = await fetch(server.path("/exec"), {
      method: "POST",
      headers: NDJSON,
      body: JSON.stringify({ command: ["sh", "-c", "printf ready; exec sleep 60"] }),
    });
    const reader = new Reader("exec");
    const seen = [];
    for await (const event of iterEvents(reader, response)) {
      seen.push(event);
      if (event.type === "output" && event.stream === "stdout" && Buffer.from(event.data).toString() === "ready") {
        const identity = await server.kill(reader.procId);
        assert.equal(identity.proc_id, reader.procId);
      }
    }
    assert.deepEqual(seen.at(-1), { type: "exit", exitCode: null, timedOut: false });
    assert.deepEqual(reader.end, exited(null));
  });

  test("a kill mid-stream (process output follower) ends with exit_code null", async () => {
    const procId = await server.startProcess(["sh", "-c", "printf ready >&2; exec sleep 60"]);
    const response = await fetch(server.path(`/processes/${procId}/output?stdout_offset=0&stderr_offset=0`));
    const reader = new Reader("process_output");
    for await (const event of iterEvents(reader, response)) {
      if (event.type === "output" && event.stream === "stderr") {
        assert.equal(Buffer.from(event.data).toString(), "ready");
        await server.kill(procId);
      }
    }
    assert.deepEqual(reader.end, exited(null));
    assert.deepEqual(reader.cursor, { stdout: 0, stderr: 5 });
  });
});

// -- eviction -----------------------------------------------------------------------

describe("eviction (1000 bytes retained, 100-byte chunks)", () => {
  // 100-byte pipe reads and 100-byte writes: every chunk is exactly one line,
  // so the 1000 retained bytes are exactly the last 10 chunks.
  const server = new RefServer(["--retention-bytes", "1000", "--max-chunk-bytes", "100"]);
  before(() => server.start());
  after(() => server.stop());

  test("fail policy: OutputGap with the earliest offsets", async () => {
    const procId = await server.startProcess(["sh", "-c", linesCommand(50)]);
    await server.waitExited(procId);
    const raw = await server.request("GET", `/processes/${procId}/output?stdout_offset=0&stderr_offset=0`);
    assert.equal(raw.status, 409);
    const body = JSON.parse(raw.body.toString());
    assert.deepEqual([body.error, body.earliest_stdout_offset, body.earliest_stderr_offset], ["output_gap", 4000, 0]);

    const gap = await rejectsWith(followOutput(server, procId), OutputGap);
    assert.equal(gap.stream, "stdout");
    assert.deepEqual(gap.consumed, { stdout: 0, stderr: 0 });
    assert.deepEqual(gap.earliest, { stdout: 4000, stderr: 0 });

    const inside = await rejectsWith(followOutput(server, procId, { cursor: { stdout: 1234, stderr: 0 } }), OutputGap);
    assert.deepEqual(inside.consumed, { stdout: 1234, stderr: 0 });
    assert.deepEqual(inside.earliest, { stdout: 4000, stderr: 0 });
  });

  test("skip policy: the exact skipped range, then the kept bytes exactly", async () => {
    const procId = await server.startProcess(["sh", "-c", linesCommand(50)]);
    await server.waitExited(procId);
    const got = await followOutput(server, procId, { gapPolicy: "skip" });
    assert.deepEqual(got.events[0], { type: "skipped", stream: "stdout", start: 0, end: 4000 });
    assert.deepEqual(got.events.filter((e) => e.type === "skipped").length, 1);
    assert.ok(got.stdout.equals(linesBytes(41, 50)));
    assert.equal(got.stderr.length, 0);
    assert.deepEqual(got.end, exited(0));
    assert.equal(got.ends[0].type, "disconnected");
    assert.equal(got.ends[0].reason, "gap");
    assert.deepEqual(got.ends[0].cursor, { stdout: 4000, stderr: 0 });
  });

  test("skip policy on both streams: ranges match the 409, kept bytes exact", async () => {
    const script = "i=1; while [ $i -le 30 ]; do printf '%099d\\n' $i; printf '%099d\\n' $i >&2; i=$((i+1)); done";
    const procId = await server.startProcess(["sh", "-c", script]);
    await server.waitExited(procId);
    const raw = await server.request("GET", `/processes/${procId}/output?stdout_offset=0&stderr_offset=0`);
    assert.equal(raw.status, 409);
    const { earliest_stdout_offset: eo, earliest_stderr_offset: ee } = JSON.parse(raw.body.toString());
    assert.equal(eo % 100, 0);
    assert.equal(ee % 100, 0);
    const kept = 3000 - eo + (3000 - ee);
    assert.ok(kept <= 1000 && kept >= 900, `kept ${kept} bytes with 1000 retained`);

    const got = await followOutput(server, procId, { gapPolicy: "skip" });
    const expected = [
      ["stdout", eo],
      ["stderr", ee],
    ]
      .filter(([, e]) => e > 0)
      .map(([stream, end]) => ({ type: "skipped", stream, start: 0, end }));
    assert.deepEqual(
      got.events.filter((e) => e.type === "skipped"),
      expected,
    );
    assert.ok(got.stdout.equals(linesBytes(1, 30).subarray(eo)));
    assert.ok(got.stderr.equals(linesBytes(1, 30).subarray(ee)));
    assert.deepEqual(got.end, exited(0));
  });
});

// -- expiry, slow consumer, setup ------------------------------------------------------

test("expired output is OutputExpired", async () => {
  await withServer(["--expiry-ms", "300"], async (server) => {
    const procId = await server.startProcess("printf abc");
    await server.waitExited(procId);
    const deadline = Date.now() + 30_000; // hang guard
    for (;;) {
      let got;
      try {
        got = await followOutput(server, procId, { follow: false });
      } catch (error) {
        assert.ok(error instanceof OutputExpired, `expected OutputExpired, got ${error}`);
        assert.equal(error.code, "output_expired");
        break;
      }
      // Not expired yet: the read is complete and exact.
      assert.equal(got.stdout.toString(), "abc");
      assert.deepEqual(got.end, exited(0));
      assert.ok(Date.now() < deadline, "output never expired");
      await sleep(50);
    }
    assert.deepEqual(await server.json("GET", `/processes/${procId}`), { proc_id: procId, status: "exited" });
    assert.equal((await server.kill(procId)).proc_id, procId);
  });
});

test("a slow consumer gets a gap frame", async () => {
  const total = 32_000_000;
  const dir = mkdtempSync(join(tmpdir(), "dory-e2e-slow-"));
  const go = join(dir, "go");
  try {
    await withServer(["--retention-bytes", "65536"], async (server) => {
      // The process waits for the follower to be connected before its flood.
      const script = `printf start; while [ ! -e '${go}' ]; do sleep 0.01; done; head -c ${total - 5} /dev/zero | tr '\\0' a`;
      const procId = await server.startProcess(["sh", "-c", script], { timeout: 120 });
      const response = await fetch(server.path(`/processes/${procId}/output?stdout_offset=0&stderr_offset=0`));
      assert.equal(response.status, 200);
      const it = response.body[Symbol.asyncIterator]();
      const parts = [];
      while (!Buffer.concat(parts).includes("\n")) parts.push(Buffer.from((await it.next()).value));
      assert.match(Buffer.concat(parts).toString(), /"data":"start"/);
      // Stop reading until the process has produced everything: the chunks
      // this reader needs next are evicted meanwhile.
      writeFileSync(go, "");
      await server.waitExited(procId);
      for await (const chunk of bodyChunks({ [Symbol.asyncIterator]: () => it })) parts.push(Buffer.from(chunk));
      const body = Buffer.concat(parts);
      const lines = body.toString().split("\n");
      lines.pop();
      const frames = lines.map((l) => JSON.parse(l));
      const gap = frames.at(-1);
      assert.equal(gap.type, "gap");
      assert.ok(!frames.some((f) => f.type === "exit"));
      const consumed = Math.max(...frames.filter((f) => f.type === "stdout").map((f) => f.offset));
      assert.ok(consumed < gap.earliest_stdout_offset && gap.earliest_stdout_offset <= total);
      assert.equal(gap.earliest_stderr_offset, 0);

      const whole = { status: 200, contentType: "application/x-ndjson", procId: null, body };
      const reader = new Reader("process_output");
      reader.open(200, "application/x-ndjson");
      assert.throws(
        () => {
          reader.feed(body);
          reader.finish();
        },
        (e) => e instanceof OutputGap && e.consumed.stdout === consumed && e.earliest.stdout === gap.earliest_stdout_offset,
      );

      const skipped = decodeWhole("process_output", whole, { gapPolicy: "skip" });
      assert.deepEqual(skipped.events.at(-1), { type: "skipped", stream: "stdout", start: consumed, end: gap.earliest_stdout_offset });
      assert.equal(
        skipped.events.filter((e) => e.type === "output" && e.stream === "stdout").reduce((n, e) => n + e.data.length, 0),
        consumed,
      );
      assert.equal(skipped.end.type, "disconnected");
      assert.equal(skipped.end.reason, "gap");
      assert.deepEqual(skipped.end.cursor, { stdout: gap.earliest_stdout_offset, stderr: 0 });

      // Resuming from the moved cursor reads the rest, exactly.
      const rest = await followOutput(server, procId, { cursor: skipped.end.cursor, gapPolicy: "skip" });
      const lost = rest.events.filter((e) => e.type === "skipped").reduce((n, e) => n + (e.end - e.start), 0);
      assert.ok(rest.stdout.equals(Buffer.alloc(rest.stdout.length, "a")));
      assert.equal(skipped.end.cursor.stdout + lost + rest.stdout.length, total);
      assert.deepEqual(rest.end, exited(0));
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("setup logs merge stderr into one stream", async () => {
  const expected = Buffer.from("out\nerr\nx\xff", "latin1");
  await withServer(["--setup-command", "echo out; echo err >&2; printf 'x\\377'; exit 3"], async (server) => {
    for (const [offset, follow] of [
      [0, true],
      [4, true],
      [0, false],
      [expected.length, false],
    ]) {
      const response = await fetch(server.path(`/setup/logs?offset=${offset}&follow=${follow}`));
      const reader = new Reader("setup_logs", { cursor: { stdout: offset } });
      const parts = [];
      for await (const event of iterEvents(reader, response)) {
        if (event.type === "output") {
          assert.equal(event.stream, "stdout");
          parts.push(Buffer.from(event.data));
        }
      }
      assert.ok(Buffer.concat(parts).equals(expected.subarray(offset)), `offset ${offset}, follow ${follow}`);
      if (follow) assert.deepEqual(reader.end, exited(3));
      assert.deepEqual(reader.cursor, { stdout: expected.length, stderr: 0 });
    }
    const beyond = await server.request("GET", `/setup/logs?offset=${expected.length + 1}`);
    assert.throws(() => decodeWhole("setup_logs", beyond, { cursor: { stdout: expected.length + 1 } }), OffsetBeyondOutput);
  });
});
