#!/usr/bin/env node
// One call for agents (docs/run.md): run a noisy command, hand the model a
// bounded result, keep the rest, and find the line that matters by its line
// number.
//
// The command prints a 20,000-line build log (about 1 MB) on stdout,
// warnings on stderr, one line that matters in the middle of stdout and an
// error on stderr before stdout goes on. `computer.run` follows it through
// whatever the connection does, bounds stdout, stderr and both combined to
// 60 lines / 4 KiB, and saves each view in full as it streams. The failing
// line from the middle is kept (the default keep patterns know `FATAL: `),
// with its line number in the saved output. Against a server that cuts
// responses, the result is the same as against a clean one.
//
// Run from a checkout after building the package (npm run build in npm/):
//   DORY_URL=http://127.0.0.1:41237 node npm/examples/agent-run.mjs [SPILL_DIR]

import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client, SpillDirectory } from "dory-wire/client";

const COMMAND = `awk 'BEGIN {
  for (i = 1; i <= 20000; i++) {
    printf "[%05d] compiling module_%d.c ... ok\\n", i, i
    if (i % 2500 == 0 && i < 15000) printf "warning: module_%d.c: unused variable\\n", i > "/dev/stderr"
    if (i == 12345) print "FATAL: checksum mismatch in shard 7431 (expected 9f2c, got 11e0)"
    if (i == 15000) printf "error: 1 module failed to build\\n" > "/dev/stderr"
  }
}'`;

const spillDir = process.argv[2] ?? mkdtempSync(join(tmpdir(), "dory-spill-"));
const client = new Client(process.env.DORY_URL ?? "http://127.0.0.1:8080");
let reconnects = 0;
let result;
try {
  result = await client.computers.get("demo").run(COMMAND, {
    maxLines: 60,
    maxBytes: 4096,
    spill: new SpillDirectory(spillDir),
    hint: "read the full output with sed",
    onReconnect: () => reconnects++,
  });
} finally {
  client.close();
}
const { combined } = result;
const shown = new TextEncoder().encode(combined.text).length;
console.log(`exit ${result.exitCode}, ${combined.totalBytes} bytes in ${combined.totalLines} lines, followed through ${reconnects} reconnects; the model sees ${shown} bytes:`);
console.log("-".repeat(72));
process.stdout.write(combined.text);
console.log("-".repeat(72));
if (shown > 4096 || !combined.truncated) throw new Error("the combined view is bounded");
if (!combined.text.includes("error: 1 module failed to build")) throw new Error("stderr's end is kept in the combined view");
// The notices are listed apart (combined.notices); the last line says how
// the process ended (kind "end").
const kinds = combined.notices.map((notice) => notice.kind).join(",");
if (kinds !== "omitted,kept,stderr,end") throw new Error(`the notices: ${kinds}`);
if (!combined.text.endsWith(`[... exit code ${result.exitCode} ...]\n`)) throw new Error("the end line is the last");
// The line that matters, from the omitted middle, kept as `N:line` after the
// notice.
const kept = /^(\d+):(FATAL: .*)$/m.exec(combined.text);
if (!kept) throw new Error("the failing line from the middle is kept");
const number = Number(kept[1]);
// N is the line's number in the saved output: sed -n 'Np' finds it there.
const saved = readFileSync(combined.spillPath, "utf8").split("\n")[number - 1];
console.log(`kept from the middle: line ${number}; line ${number} of ${combined.spillPath}:`);
console.log(`  ${saved}`);
if (saved !== kept[2] || saved !== "FATAL: checksum mismatch in shard 7431 (expected 9f2c, got 11e0)") throw new Error("the kept line is that line of the spill");
