// run's preview options against the reference server: by default the
// combined preview keeps a failing line from the cut middle, with its line
// number in the raw output, and renders a \r redraw as a terminal shows it;
// with { keep: null, terminal: false } it is the raw text, and the failing
// line is not kept. A run that times out says so in its combined text's last
// line. The same cases, against the same reference server,
// are in tests/e2e/python/test_client_run_previews.py and
// crates/dory-refserver/tests/run_previews.rs.

import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { ROOT, RefServer } from "./refserver.mjs";

const { Client } = await import(join(ROOT, "npm", "dist", "node", "client.mjs"));

// A redrawn progress line (raw line 1), 100 passing tests, one failure (raw
// line 102), 100 more passing tests: cut at 20 lines, the failure is in the
// omitted middle.
const COMMAND =
  "printf 'building 0%%\\rbuilding 100%%\\n'; " +
  'i=1; while [ $i -le 100 ]; do echo "test case_$i ... ok"; i=$((i+1)); done; ' +
  'echo "test case_x ... FAILED"; ' +
  'while [ $i -le 200 ]; do echo "test case_$i ... ok"; i=$((i+1)); done; exit 101';
const LIMITS = { maxLines: 20, maxBytes: 2000 };
const KEPT =
  "[... kept 1 omitted line matching the keep patterns ...]\n" +
  "101-test case_100 ... ok\n102:test case_x ... FAILED\n103-test case_101 ... ok\n";

async function withComputer(body) {
  const server = await new RefServer().start();
  const client = new Client({ baseUrl: server.url });
  try {
    return await body(client.computers.get(server.computer));
  } finally {
    client.close();
    await server.stop();
  }
}

test("run keeps a failing line with its raw line number by default, and renders a redraw", async () => {
  await withComputer(async (computer) => {
    const result = await computer.run(COMMAND, LIMITS);
    const { combined } = result;
    assert.equal(result.exitCode, 101);
    assert.ok(combined.truncated && combined.totalLines === 202, JSON.stringify(combined));
    assert.ok(combined.text.includes(KEPT), combined.text);
    // run's tail split: the head is the first line, the tail the rest.
    assert.ok(combined.text.startsWith("building 100%\n[... "), combined.text);
    assert.ok(!combined.text.includes("\r") && combined.text.includes("[... terminal: "), combined.text);
    // The last line says how the process ended; stdout's own view has none.
    assert.ok(combined.text.endsWith("\n[... exit code 101 ...]\n"), combined.text);
    assert.deepEqual(
      [combined.notices.at(-1).kind, combined.notices.at(-1).text],
      ["end", "[... exit code 101 ...]"],
    );
    assert.ok(!result.stdout.text.includes("exit code"), result.stdout.text);
  });
});

test("run with { keep: null, terminal: false } gives the raw text: the failing line is not kept", async () => {
  await withComputer(async (computer) => {
    const off = (await computer.run(COMMAND, { ...LIMITS, keep: null, terminal: false })).combined.text;
    assert.ok(!off.includes("FAILED") && !off.includes("kept"), off);
    assert.ok(off.startsWith("building 0%\rbuilding 100%\ntest case_1 ... ok\n"), off);
    assert.ok(!off.includes("[... terminal: "), off);
    // The explicit defaults are the defaults.
    const explicit = (await computer.run(COMMAND, { ...LIMITS, keep: "defaults", terminal: true })).combined.text;
    assert.ok(explicit.includes(KEPT) && explicit.startsWith("building 100%\n"), explicit);
  });
});

test("a timed-out run's combined text says it timed out", async () => {
  await withComputer(async (computer) => {
    const result = await computer.run("echo started; sleep 30", { timeoutMs: 1000 });
    assert.deepEqual([result.exitCode, result.timedOut], [null, true]);
    assert.equal(result.combined.text, "started\n[... timed out after 1 s: killed, no exit code ...]\n");
    assert.equal(result.stdout.text, "started\n");
  });
});
