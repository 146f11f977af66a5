// One round of the client load test (client-load.test.mjs runs each round in
// a fresh Node process, so the memory it measures is the round's own):
//   node client-load-round.mjs iterOutput|readOutput
// 64 followers at once on one Client against a server that cuts half of the
// responses at seeded random points; every follower's bytes are checked
// against the files its process teed them to; the memory the followers take
// is measured while they run (peak over a baseline). Prints one JSON line.
//
// Environment: DORY_E2E_FOLLOWERS (default 64), DORY_E2E_LOAD_BLOCKS (blocks of
// 8 KiB per stream, default 32).

import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setFlagsFromString } from "node:v8";
import { createHash } from "node:crypto";
import { runInNewContext } from "node:vm";
import { ROOT, withServer, wire } from "./refserver.mjs";

const { Client, StreamDisconnected } = await import(join(ROOT, "npm", "dist", "node", "client.mjs"));

const FOLLOWERS = Number.parseInt(process.env.DORY_E2E_FOLLOWERS ?? "64", 10);
const BLOCKS = Number.parseInt(process.env.DORY_E2E_LOAD_BLOCKS ?? "32", 10);
const BLOCK = 8192;
const PER_STREAM = BLOCKS * BLOCK;

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc");
const MiB = 1024 * 1024;

function sample() {
  const m = process.memoryUsage();
  return { rss: m.rss, heap: m.heapUsed, external: m.external, arrayBuffers: m.arrayBuffers, wasm: wire.memoryBytes() };
}

const quote = (s) => `'${s.replaceAll("'", "'\\''")}'`;

function loadCommand(dir, i) {
  const out = quote(join(dir, `${i}.stdout`));
  const err = quote(join(dir, `${i}.stderr`));
  return [
    "set -e",
    `: > ${out}`,
    `: > ${err}`,
    `for b in $(seq ${BLOCKS}); do`,
    `  head -c ${BLOCK} /dev/urandom | tee -a ${out}`,
    `  head -c ${BLOCK} /dev/urandom | tee -a ${err} >&2`,
    "  sleep 0.05",
    "done",
  ].join("\n");
}

/**
 * The documented loop on iterOutput, keeping only a SHA-256 of each stream
 * (so what is measured is the stream itself: a connection, a reader, the
 * frames in flight).
 */
async function hashedLoop(handle, onReconnect) {
  let offsets = { stdout_offset: 0, stderr_offset: 0 };
  const hashes = { stdout: createHash("sha256"), stderr: createHash("sha256") };
  const lengths = { stdout: 0, stderr: 0 };
  for (let connection = 0; connection < 1000; connection++) {
    const stream = handle.iterOutput(offsets);
    try {
      for await (const frame of stream) {
        if (frame.type === "stdout" || frame.type === "stderr") {
          hashes[frame.type].update(frame.bytes);
          lengths[frame.type] += frame.bytes.length;
        }
        if (frame.type === "exit") {
          assert.deepEqual(frame, { type: "exit", exit_code: 0, timed_out: false });
          return { stdout: hashes.stdout.digest("hex"), stderr: hashes.stderr.digest("hex"), lengths };
        }
      }
    } catch (error) {
      if (!(error instanceof StreamDisconnected)) throw error;
      onReconnect();
    } finally {
      offsets = { stdout_offset: stream.stdout_offset, stderr_offset: stream.stderr_offset };
      await stream.close();
    }
  }
  throw new Error("no exit after 1000 connections");
}

const mode = process.argv[2];
if (mode !== "iterOutput" && mode !== "readOutput") throw new Error("usage: client-load-round.mjs iterOutput|readOutput");
const dir = mkdtempSync(join(tmpdir(), "dory-client-load-"));
const drop = ["--drop-seed", "17", "--drop-probability", "0.5", "--drop-max-bytes", "200000"];
try {
  await withServer(drop, async (server) => {
    const client = new Client({ baseUrl: server.url });
    try {
      const computer = client.computers.get(server.computer);
      // Warm up (module, wasm, connection pool), then the baseline.
      await (await computer.processes.get((await computer.processes.start("printf warm")).proc_id)).readOutput();
      gc();
      const base = sample();
      const peak = { ...base };
      const sampler = setInterval(() => {
        const now = sample();
        for (const k of Object.keys(peak)) peak[k] = Math.max(peak[k], now[k]);
      }, 20);

      const started = performance.now();
      const handles = await Promise.all(
        Array.from({ length: FOLLOWERS }, async (_, i) => {
          const s = await computer.processes.start(["sh", "-c", loadCommand(dir, i)], { timeout_seconds: 120 });
          return computer.processes.get(s.proc_id);
        }),
      );
      let reconnects = 0;
      const onReconnect = () => reconnects++;
      const results = await Promise.all(
        handles.map((h) => (mode === "readOutput" ? h.readOutput({ retries: 20, backoffMs: 10, onReconnect }) : hashedLoop(h, onReconnect))),
      );
      const took = performance.now() - started;
      clearInterval(sampler);
      const during = sample();
      for (const k of Object.keys(peak)) peak[k] = Math.max(peak[k], during[k]);

      let total = 0;
      results.forEach((r, i) => {
        for (const stream of ["stdout", "stderr"]) {
          const written = readFileSync(join(dir, `${i}.${stream}`));
          assert.equal(written.length, PER_STREAM, `follower ${i}: the process wrote ${written.length} bytes to ${stream}`);
          total += written.length;
          if (mode === "readOutput") {
            assert.deepEqual(r.exit, { exitCode: 0, timedOut: false }, `follower ${i}`);
            assert.ok(Buffer.from(r.bytes(stream)).equals(written), `follower ${i}: ${stream} differs`);
          } else {
            assert.equal(r.lengths[stream], PER_STREAM, `follower ${i}: ${stream} length`);
            assert.equal(r[stream], createHash("sha256").update(written).digest("hex"), `follower ${i}: ${stream} differs`);
          }
        }
      });
      assert.ok(reconnects > 0, "the seeded drops cut some responses");

      const delta = Object.fromEntries(Object.keys(peak).map((k) => [k, peak[k] - base[k]]));
      if (mode === "readOutput") for (const t of results) t.free();
      console.log(JSON.stringify({ mode, followers: FOLLOWERS, total, reconnects, seconds: took / 1000, delta }));
    } finally {
      client.close();
    }
  });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
