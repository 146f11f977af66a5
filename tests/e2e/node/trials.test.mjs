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
import { mkdtempSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { followOutput, withServer } from "./refserver.mjs";
import { SplitMix64 } from "../../../npm/test/vector-lib.mjs";

const TRIALS = Number.parseInt(process.env.DORY_E2E_TRIALS ?? "200", 10);
const SEED = Number.parseInt(process.env.DORY_E2E_SEED ?? "6", 10);
const BYTES_PER_STREAM = Number.parseInt(process.env.DORY_E2E_TRIAL_BYTES ?? "500000", 10);
const PARALLEL = 4;
// Every response is cut after 1..=DROP_MAX body bytes unless it ends first. An
// NDJSON body of a trial is about 1.35 MB (base64), so each trial reconnects
// several times, and always at least once.
const DROP_MAX = 500_000;

/** The tests' seeded generator (SplitMix64 with the draws of the Rust tests). */
function rng(seed) {
  const g = new SplitMix64(seed);
  return { int: (lo, hi) => g.range(lo, hi) };
}

function blockSizes(r, total) {
  const sizes = [];
  for (let left = total; left > 0; ) {
    const size = Math.min(left, r.int(1, Math.floor(total / 4)));
    sizes.push(size);
    left -= size;
  }
  return sizes;
}

const quote = (s) => `'${s.replaceAll("'", "'\\''")}'`;

function trialCommand(r, dir) {
  const out = quote(join(dir, "stdout"));
  const err = quote(join(dir, "stderr"));
  const blocks = [
    ...blockSizes(r, BYTES_PER_STREAM).map((n) => ["out", n]),
    ...blockSizes(r, BYTES_PER_STREAM).map((n) => ["err", n]),
  ];
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

async function runTrial(server, trial, root) {
  const r = rng(BigInt(SEED) * 1_000_003n + BigInt(trial));
  const dir = join(root, `trial-${trial}`);
  mkdirSync(dir);
  const procId = await server.startProcess(["sh", "-c", trialCommand(r, dir)], { timeout: 120 });
  const got = await followOutput(server, procId);
  const context = `trial ${trial} (seed ${SEED}, ${procId}, ${got.connections} connections)`;
  assert.deepEqual(got.end, { type: "exited", exitCode: 0, timedOut: false }, context);
  for (const stream of ["stdout", "stderr"]) {
    const written = readFileSync(join(dir, stream));
    assert.equal(written.length, BYTES_PER_STREAM, `${context}: the process wrote ${written.length} ${stream} bytes`);
    const data = got[stream];
    if (!data.equals(written)) {
      let first = 0;
      while (first < Math.min(data.length, written.length) && data[first] === written[first]) first++;
      assert.fail(`${context}: ${stream} differs: got ${data.length} bytes, wrote ${written.length}, first difference at ${first}`);
    }
  }
  rmSync(dir, { recursive: true });
  return got.reconnects;
}

test(`${TRIALS} seeded trials: drops at random points, resumed transcripts byte-identical`, async () => {
  const drop = ["--drop-seed", String(SEED), "--drop-probability", "1.0", "--drop-max-bytes", String(DROP_MAX)];
  const root = mkdtempSync(join(tmpdir(), "dory-e2e-trials-"));
  try {
    const reconnects = await withServer(drop, async (server) => {
      const results = new Array(TRIALS);
      let nextTrial = 0;
      const worker = async () => {
        while (nextTrial < TRIALS) {
          const trial = nextTrial++;
          results[trial] = await runTrial(server, trial, root);
        }
      };
      await Promise.all(Array.from({ length: PARALLEL }, worker));
      return results;
    });
    assert.equal(reconnects.length, TRIALS);
    // The fault injection really cut every trial's first response.
    assert.ok(Math.min(...reconnects) >= 1, `a trial was never cut: ${reconnects}`);
    const total = reconnects.reduce((a, b) => a + b, 0);
    console.log(`${TRIALS} trials, ${total} reconnects (min ${Math.min(...reconnects)}, max ${Math.max(...reconnects)})`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
