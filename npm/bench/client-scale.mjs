#!/usr/bin/env node
// Many followers on one Client, the Node row beside the Rust client's
// `client_bench scale` (make bench): starts FOLLOWERS processes (the same
// command as the Rust bench), reads them all at once with `readOutput` while
// the server cuts responses at seeded points, checks every transcript byte
// for byte, and prints one JSON line: peak RSS over the baseline per follower
// and CPU seconds per MB read.
//
//   DORY_URL=... node client-scale.mjs [FOLLOWERS]
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const { Client } = await import(join(here, "..", "dist", "node", "client.mjs"));

const LINES = 6000;
const followers = Number.parseInt(process.argv[2] ?? "256", 10);
const command = (n) => `echo start-${n}; seq 1 ${LINES}; echo end-${n} >&2`;
function expected(n) {
  let out = `start-${n}\n`;
  for (let i = 1; i <= LINES; i++) out += `${i}\n`;
  return [Buffer.from(out), Buffer.from(`end-${n}\n`)];
}

const client = new Client({ baseUrl: process.env.DORY_URL });
const computer = client.computers.get("bench");
const handles = [];
for (let batch = 0; batch < followers; batch += 50) {
  const ns = [];
  for (let n = batch; n < Math.min(batch + 50, followers); n++) ns.push(n);
  const started = await Promise.all(ns.map((n) => computer.processes.start(command(n), { timeout_seconds: 120 })));
  handles.push(...(await Promise.all(started.map((s) => computer.processes.get(s.procId ?? s.proc_id)))));
}
const base = process.memoryUsage().rss;
let peak = base;
const sampler = setInterval(() => {
  peak = Math.max(peak, process.memoryUsage().rss);
}, 5);
const cpu = process.cpuUsage();
const began = performance.now();
const transcripts = await Promise.all(handles.map((h) => h.readOutput({ retries: 20, maxBackoffMs: 500 })));
const wall = (performance.now() - began) / 1000;
const used = process.cpuUsage(cpu);
clearInterval(sampler);
peak = Math.max(peak, process.memoryUsage().rss);
let total = 0;
transcripts.forEach((t, n) => {
  const [out, err] = expected(n);
  if (!Buffer.from(t.bytes("stdout")).equals(out) || !Buffer.from(t.bytes("stderr")).equals(err)) {
    console.error(`follower ${n}: the transcript differs`);
    process.exit(1);
  }
  total += out.length + err.length;
});
await client.close();
const mb = total / 1e6;
console.log(JSON.stringify({
  lang: "node", bench: "scale", followers, exact: transcripts.length, mb, wall_s: wall,
  cpu_s_per_mb: (used.user + used.system) / 1e6 / mb,
  peak_rss_over_base_kib_per_follower: (peak - base) / 1024 / followers,
}));
