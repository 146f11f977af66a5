// Seeded resume trials through dory-wire/client: random bytes, random
// mid-body drops, exact transcripts.
//
// Each trial starts a process that writes random bytes to stdout and stderr,
// interleaved in blocks of seeded random sizes, and appends every byte it
// writes to a file per stream (tee). The server cuts every NDJSON response at
// a seeded random point (--drop-seed). Even trials read with the one-call
// `readOutput()`; odd trials with the documented loop on `iterOutput()`
// (reconnect on StreamDisconnected from the stream's offsets, decode each
// frame from its wire form `data`/`encoding`). Both must equal the files byte
// for byte, every time, and the command is never started again.
//
// Environment: DORY_E2E_TRIALS (default 200), DORY_E2E_SEED (default 6),
// DORY_E2E_TRIAL_BYTES (bytes per stream, default 500000).

import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { ROOT, SEED, TRIALS, checkTrialOutput, runTrials, trialCommand } from "./refserver.mjs";
import { SplitMix64 } from "../../../npm/test/vector-lib.mjs";

const { Client, StreamDisconnected } = await import(join(ROOT, "npm", "dist", "node", "client.mjs"));

const BYTES_PER_STREAM = Number.parseInt(process.env.DORY_E2E_TRIAL_BYTES ?? "500000", 10);
// Every response is cut after 1..=DROP_MAX body bytes unless it ends first:
// each trial reconnects several times, always at least once.
const DROP_MAX = 500_000;
const MAX_CONNECTIONS = 10_000; // hang guard of the documented loop

/** SplitMix64, each draw taken modulo the range. */
function rng(seed) {
  const g = new SplitMix64(seed);
  return { int: (lo, hi) => lo + Number(g.nextU64() % BigInt(hi - lo + 1)) };
}

/** The documented loop on iterOutput: the bytes of each stream and how many connections it took. */
async function documentedLoop(handle) {
  let offsets = { stdout_offset: 0, stderr_offset: 0 };
  const out = { stdout: [], stderr: [] };
  for (let connection = 1; connection <= MAX_CONNECTIONS; connection++) {
    const stream = handle.iterOutput(offsets);
    try {
      for await (const frame of stream) {
        if (frame.type === "stdout" || frame.type === "stderr") {
          out[frame.type].push(Buffer.from(frame.data, frame.encoding === "base64" ? "base64" : "utf8"));
        }
        offsets = { stdout_offset: stream.stdout_offset, stderr_offset: stream.stderr_offset };
        if (frame.type === "exit") {
          assert.deepEqual(frame, { type: "exit", exit_code: 0, timed_out: false });
          return { stdout: Buffer.concat(out.stdout), stderr: Buffer.concat(out.stderr), connections: connection };
        }
      }
      assert.fail("the stream ended without exit and without an error");
    } catch (error) {
      if (!(error instanceof StreamDisconnected)) throw error;
      offsets = { stdout_offset: stream.stdout_offset, stderr_offset: stream.stderr_offset };
    } finally {
      await stream.close();
    }
  }
  throw new Error(`no exit after ${MAX_CONNECTIONS} connections`);
}

async function runTrial(computer, trial, dir) {
  const r = rng(BigInt(SEED) * 1_000_003n + BigInt(trial));
  const started = await computer.processes.start(["sh", "-c", trialCommand(r, dir, BYTES_PER_STREAM)], { timeout_seconds: 120 });
  const handle = await computer.processes.get(started.proc_id);
  let got;
  if (trial % 2 === 0) {
    let reconnects = 0;
    const t = await handle.readOutput({ retries: 20, backoffMs: 10, onReconnect: () => reconnects++ });
    assert.deepEqual(t.exit, { exitCode: 0, timedOut: false });
    assert.ok(t.isComplete("stdout") && t.isComplete("stderr"));
    got = { stdout: Buffer.from(t.bytes("stdout")), stderr: Buffer.from(t.bytes("stderr")), connections: reconnects + 1 };
    t.free();
  } else {
    got = await documentedLoop(handle);
  }
  const context = `trial ${trial} (seed ${SEED}, ${started.proc_id}, ${trial % 2 === 0 ? "readOutput" : "iterOutput loop"}, ${got.connections} connections)`;
  checkTrialOutput(dir, got, BYTES_PER_STREAM, context);
  return got.connections - 1;
}

test(`${TRIALS} seeded trials through the client: random drops, byte-identical transcripts (readOutput and the documented loop)`, async () => {
  const reconnects = await runTrials("dory-client-trials-", DROP_MAX, async (server) => {
    const client = new Client({ baseUrl: server.url });
    const computer = client.computers.get(server.computer);
    return { trial: (n, dir) => runTrial(computer, n, dir), close: () => client.close() };
  });
  assert.ok(Math.min(...reconnects) >= 1, `a trial was never cut: ${reconnects}`);
  const total = reconnects.reduce((a, b) => a + b, 0);
  console.log(`${TRIALS} client trials, ${total} reconnects (min ${Math.min(...reconnects)}, max ${Math.max(...reconnects)})`);
});
