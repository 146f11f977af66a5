// Load: 64 followers at once on one dory-wire/client Client, against a
// server that cuts half of the responses at seeded random points. Each
// process writes random bytes to both streams over a couple of seconds (so
// the followers are live together) and tees them to files; every follower's
// bytes must equal its files exactly: once with the documented loop on
// iterOutput() (bytes hashed, not kept), once with readOutput() (transcripts
// kept). Each round runs in a fresh Node process (client-load-round.mjs), so
// the memory it measures while the followers run (peak over a baseline) is
// its own; it is printed, and bounds catch leaks.
//
// Environment: DORY_E2E_FOLLOWERS (default 64), DORY_E2E_LOAD_BLOCKS (blocks of
// 8 KiB per stream, default 32).

import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const ROUND = join(dirname(fileURLToPath(import.meta.url)), "client-load-round.mjs");
const MiB = 1024 * 1024;

for (const mode of ["iterOutput", "readOutput"]) {
  const what = mode === "readOutput" ? "readOutput() into transcripts" : "the documented loop on iterOutput(), hashing the bytes";
  test(`concurrent followers on one client with drops, ${what}: every stream exact; memory per follower`, async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [ROUND, mode], { timeout: 600_000, maxBuffer: 16 * MiB });
    const r = JSON.parse(stdout.trim().split("\n").at(-1));
    const n = r.followers;
    const per = (v) => `${(v / n / 1024).toFixed(1)} KiB`;
    const d = r.delta;
    const lines = [
      `${mode}: ${n} followers, ${(r.total / MiB).toFixed(1)} MiB of output (${(r.total / n / 1024).toFixed(0)} KiB each), ${r.reconnects} reconnects, ${r.seconds.toFixed(1)} s`,
      `  peak over baseline: rss ${(d.rss / MiB).toFixed(1)} MiB (${per(d.rss)} per follower), JS heap ${(d.heap / MiB).toFixed(1)} MiB (${per(d.heap)}), ` +
        `array buffers ${(d.arrayBuffers / MiB).toFixed(1)} MiB (${per(d.arrayBuffers)}), wasm memory ${(d.wasm / MiB).toFixed(1)} MiB (${per(d.wasm)})`,
    ];
    if (mode === "readOutput") {
      lines.push(`  beyond each follower's own output (kept in its transcript, in wasm memory): rss ${per(Math.max(0, d.rss - r.total))}, wasm ${per(Math.max(0, d.wasm - r.total))}`);
    }
    console.log(lines.join("\n"));
    // A follower holds at most its transcript (its output, when kept) plus a
    // bounded amount: a reader, a connection, the frames in flight.
    const kept = mode === "readOutput" ? r.total : 0;
    assert.ok(d.wasm <= kept * 2 + 64 * MiB, `wasm memory grew ${d.wasm} bytes for ${kept} bytes kept`);
    assert.ok(d.heap / n < 4 * MiB, `JS heap grew ${per(d.heap)} per follower`);
    assert.ok(d.rss <= kept * 2 + n * 4 * MiB, `resident memory grew ${per(d.rss)} per follower`);
  });
}
