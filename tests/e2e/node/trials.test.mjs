// Seeded resume trials: random bytes, random connection drops, exact transcripts.
//
// Each trial starts a process that writes 1 MB of random bytes, 500,000 to
// stdout and 500,000 to stderr, interleaved in blocks of seeded random sizes,
// and also appends every byte it writes to a file of its stream (tee). One
// server cuts NDJSON responses at seeded random points (--drop-seed); the
// client reconnects with the reader's consumed offsets until `exit`. The
// transcript of each stream must equal the file byte for byte, every time.
//
// Environment: DORY_E2E_TRIALS (default 200), DORY_E2E_SEED (default 6),
// DORY_E2E_TRIAL_BYTES (bytes per stream, default 500000).

import { test } from "node:test";
import assert from "node:assert/strict";
import { SEED, TRIALS, checkTrialOutput, followOutput, runTrials, trialCommand } from "./refserver.mjs";
import { SplitMix64 } from "../../../npm/test/vector-lib.mjs";

const BYTES_PER_STREAM = Number.parseInt(process.env.DORY_E2E_TRIAL_BYTES ?? "500000", 10);
// Every response is cut after 1..=DROP_MAX body bytes unless it ends first. An
// NDJSON body of a trial is about 1.35 MB (base64), so each trial reconnects
// several times, and always at least once.
const DROP_MAX = 500_000;

/** The tests' seeded generator (SplitMix64 with the draws of the Rust tests). */
function rng(seed) {
  const g = new SplitMix64(seed);
  return { int: (lo, hi) => g.range(lo, hi) };
}

async function runTrial(server, trial, dir) {
  const r = rng(BigInt(SEED) * 1_000_003n + BigInt(trial));
  const procId = await server.startProcess(["sh", "-c", trialCommand(r, dir, BYTES_PER_STREAM)], { timeout: 120 });
  const got = await followOutput(server, procId);
  const context = `trial ${trial} (seed ${SEED}, ${procId}, ${got.connections} connections)`;
  assert.deepEqual(got.end, { type: "exited", exitCode: 0, timedOut: false }, context);
  checkTrialOutput(dir, got, BYTES_PER_STREAM, context);
  return got.reconnects;
}

test(`${TRIALS} seeded trials: drops at random points, resumed transcripts byte-identical`, async () => {
  const reconnects = await runTrials("dory-e2e-trials-", DROP_MAX, (server) => ({ trial: (n, dir) => runTrial(server, n, dir) }));
  // The fault injection really cut every trial's first response.
  assert.ok(Math.min(...reconnects) >= 1, `a trial was never cut: ${reconnects}`);
  const total = reconnects.reduce((a, b) => a + b, 0);
  console.log(`${TRIALS} trials, ${total} reconnects (min ${Math.min(...reconnects)}, max ${Math.max(...reconnects)})`);
});
