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
import { mkdtempSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, withServer } from "./refserver.mjs";

const { Client, StreamDisconnected } = await import(join(ROOT, "npm", "dist", "node", "client.mjs"));

const TRIALS = Number.parseInt(process.env.DORY_E2E_TRIALS ?? "200", 10);
const SEED = Number.parseInt(process.env.DORY_E2E_SEED ?? "6", 10);
const BYTES_PER_STREAM = Number.parseInt(process.env.DORY_E2E_TRIAL_BYTES ?? "500000", 10);
const PARALLEL = 4;
// Every response is cut after 1..=DROP_MAX body bytes unless it ends first:
// each trial reconnects several times, always at least once.
const DROP_MAX = 500_000;
const MAX_CONNECTIONS = 10_000; // hang guard of the documented loop

/** SplitMix64 over BigInt: a small seeded generator. */
function rng(seed) {
  let state = BigInt.asUintN(64, BigInt(seed));
  const next = () => {
    state = BigInt.asUintN(64, state + 0x9e3779b97f4a7c15n);
    let z = state;
    z = BigInt.asUintN(64, (z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n);
    z = BigInt.asUintN(64, (z ^ (z >> 27n)) * 0x94d049bb133111ebn);
    return z ^ (z >> 31n);
  };
  return { int: (lo, hi) => lo + Number(next() % BigInt(hi - lo + 1)) };
}

const quote = (s) => `'${s.replaceAll("'", "'\\''")}'`;

function trialCommand(r, dir) {
  const out = quote(join(dir, "stdout"));
  const err = quote(join(dir, "stderr"));
  const blocks = [];
  for (const stream of ["out", "err"]) {
    for (let left = BYTES_PER_STREAM; left > 0; ) {
      const size = Math.min(left, r.int(1, Math.max(1, Math.floor(BYTES_PER_STREAM / 4))));
      blocks.push([stream, size]);
      left -= size;
    }
  }
  for (let i = blocks.length - 1; i > 0; i--) {
    const j = r.int(0, i);
    [blocks[i], blocks[j]] = [blocks[j], blocks[i]];
  }
  const lines = ["set -e", `: > ${out}`, `: > ${err}`];
  for (const [stream, size] of blocks) {
    lines.push(stream === "out" ? `head -c ${size} /dev/urandom | tee -a ${out}` : `head -c ${size} /dev/urandom | tee -a ${err} >&2`);
  }
  return lines.join("\n");
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

async function runTrial(client, computer, trial, root) {
  const r = rng(BigInt(SEED) * 1_000_003n + BigInt(trial));
  const dir = join(root, `trial-${trial}`);
  mkdirSync(dir);
  const started = await computer.processes.start(["sh", "-c", trialCommand(r, dir)], { timeout_seconds: 120 });
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
  for (const stream of ["stdout", "stderr"]) {
    const written = readFileSync(join(dir, stream));
    assert.equal(written.length, BYTES_PER_STREAM, `${context}: the process wrote ${written.length} bytes to ${stream}`);
    if (!got[stream].equals(written)) {
      let first = 0;
      while (first < Math.min(got[stream].length, written.length) && got[stream][first] === written[first]) first++;
      assert.fail(`${context}: ${stream} differs: got ${got[stream].length} bytes, wrote ${written.length}, first difference at ${first}`);
    }
  }
  rmSync(dir, { recursive: true });
  return got.connections - 1;
}

test(`${TRIALS} seeded trials through the client: random drops, byte-identical transcripts (readOutput and the documented loop)`, async () => {
  const drop = ["--drop-seed", String(SEED), "--drop-probability", "1.0", "--drop-max-bytes", String(DROP_MAX)];
  const root = mkdtempSync(join(tmpdir(), "dory-client-trials-"));
  try {
    const reconnects = await withServer(drop, async (server) => {
      const client = new Client({ baseUrl: server.url });
      try {
        const computer = await client.computers.get(server.computer);
        const results = new Array(TRIALS);
        let nextTrial = 0;
        const worker = async () => {
          while (nextTrial < TRIALS) {
            const trial = nextTrial++;
            results[trial] = await runTrial(client, computer, trial, root);
          }
        };
        await Promise.all(Array.from({ length: PARALLEL }, worker));
        return results;
      } finally {
        client.close();
      }
    });
    assert.equal(reconnects.length, TRIALS);
    assert.ok(Math.min(...reconnects) >= 1, `a trial was never cut: ${reconnects}`);
    const total = reconnects.reduce((a, b) => a + b, 0);
    console.log(`${TRIALS} client trials, ${total} reconnects (min ${Math.min(...reconnects)}, max ${Math.max(...reconnects)})`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
