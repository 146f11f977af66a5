// computer.run (docs/run.md) against the reference server (dory-refserver,
// built with cargo when DORY_REFSERVER_BIN names none, as the Python run
// tests do): both streams in arrival order, drops equal to the clean run, a
// gap under "skip" and "fail", a re-attach with the same key, cancellation
// with and without killOnCancel, 10 MB of output, onOutput, SpillDirectory,
// failing spill writers; and, over a scripted fetch, every bad input
// refused before any request.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join } from "node:path";
import { bound, memoryBytes, runSpillId, DEFAULT_RUN_MAX_BYTES, DEFAULT_RUN_MAX_LINES, InvalidArgument, InvalidLimits, MIN_RUN_MAX_BYTES } from "dory-wire";
import { Client, OutputGap, SpillDirectory } from "dory-wire/client";
import { loadRefServer, rootDir } from "./helpers.mjs";
import { JSON_TYPE, scriptedFetch } from "./client-lib.mjs";

let RefServer;
before(async () => {
  RefServer = await loadRefServer();
});

const LIMITS = { maxLines: 40, maxBytes: 2000 };
// Sleeps between the writes: each arrives alone, in this order.
const INTERLEAVED = "echo out 1; sleep 0.2; echo err 1 >&2; sleep 0.2; echo out 2; sleep 0.2; echo err 2 >&2";
// A euro sign split across two writes, 3,000 lines of stdout, then stderr's
// last line once stdout is done: the same bytes and order every time.
const NOISY = "printf 'euro \\342'; sleep 0.3; printf '\\202\\254\\n'; seq -f 'line %05g of the build' 1 3000; sleep 0.3; echo 'error: the end' >&2";
const enc = new TextEncoder();
const NOISY_STDOUT = Buffer.concat([Buffer.from("euro €\n"), ...Array.from({ length: 3000 }, (_, i) => Buffer.from(`line ${String(i + 1).padStart(5, "0")} of the build\n`))]);
const NOISY_STDERR = Buffer.from("error: the end\n");
const ENOSPC = "spill writer failed: Error: ENOSPC: no space left on device";
const sha256 = (bytes) => createHash("sha256").update(bytes).digest("hex");

/** `bound()` of a view's full bytes with the run's limits, split and spill id, saved at `path` when given. */
function whole(data, spillId, path, limits = LIMITS) {
  return bound(data, { ...limits, split: "tail", spillId, spill: path === undefined ? undefined : () => path });
}

/**
 * A run's combined view: bound() of its full bytes within the limits less
 * the end line (one line, its bytes and two "\n"), then that line.
 */
function wholeEnded(data, spillId, end, path, limits = LIMITS) {
  const less = { maxLines: limits.maxLines - 1, maxBytes: limits.maxBytes - end.length - 2 };
  const p = whole(data, spillId, path, less);
  const sep = p.text !== "" && !p.text.endsWith("\n") ? "\n" : "";
  p.text = `${p.text}${sep}${end}\n`;
  p.notices.push({ kind: "end", line: p.text.split("\n").length - 1, text: end });
  return p;
}

/** An onOutput that records every call. */
function hook() {
  const calls = [];
  const fn = (chunk) => calls.push(chunk);
  fn.calls = calls;
  fn.data = (stream) => Buffer.concat(calls.filter((c) => c.stream === stream).map((c) => c.data));
  fn.text = (stream) => calls.filter((c) => c.stream === stream).map((c) => c.text).join("");
  return fn;
}

function tempDir(t) {
  const dir = mkdtempSync(join(tmpdir(), "dory-wire-run-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** `fn(computer, server)` against a fresh server started with `flags`. */
async function withComputer(flags, fn) {
  const server = await new RefServer(flags).start();
  const client = new Client(server.url);
  try {
    return await fn(client.computers.get("run"), server);
  } finally {
    client.close();
    await server.stop();
  }
}

const runOn = (flags, command, options) => withComputer(flags, (computer) => computer.run(["sh", "-c", command], options));

test("run shows both streams in the order they arrived", async (t) => {
  const dir = tempDir(t);
  const output = hook();
  const result = await runOn([], INTERLEAVED, { onOutput: output, spill: new SpillDirectory(dir) });
  assert.equal(result.combined.text, "out 1\nerr 1\nout 2\nerr 2\n[... exit code 0 ...]\n");
  assert.deepEqual([result.stdout.text, result.stderr.text], ["out 1\nout 2\n", "err 1\nerr 2\n"]);
  assert.deepEqual([result.exitCode, result.timedOut, result.stdoutLostBytes, result.stderrLostBytes], [0, false, 0, 0]);
  assert.match(result.idempotencyKey, /^run-[0-9a-f]{32}$/);
  assert.ok(typeof result.procId === "string" && result.procId.length > 0);
  assert.deepEqual(
    output.calls.map((c) => [c.stream, c.text]),
    [
      ["stdout", "out 1\n"],
      ["stderr", "err 1\n"],
      ["stdout", "out 2\n"],
      ["stderr", "err 2\n"],
    ],
  );
  assert.deepEqual(readdirSync(dir), [], "every view fits: each spill was discarded");
  const id = runSpillId(result.idempotencyKey);
  assert.deepEqual(result.combined, wholeEnded("out 1\nerr 1\nout 2\nerr 2\n", `${id}-combined`, "[... exit code 0 ...]"));
  assert.deepEqual(result.stderr, whole("err 1\nerr 2\n", `${id}-stderr`));
  assert.deepEqual(Object.keys(result).sort(), ["combined", "exitCode", "idempotencyKey", "procId", "stderr", "stderrLostBytes", "stdout", "stdoutLostBytes", "timedOut"]);
});

for (const [name, faults] of [
  ["seeded drops", ["--drop-seed", "11", "--drop-max-bytes", "3000", "--max-chunk-bytes", "1000"]],
  ["a drop after 2500 bytes", ["--drop-after-bytes", "2500", "--max-chunk-bytes", "1000"]],
]) {
  test(`run through dropped connections (${name}) equals the clean run; onOutput sees each byte once, the euro whole`, async (t) => {
    const dir = tempDir(t);
    const options = { idempotencyKey: "noisy-1", spill: new SpillDirectory(dir), ...LIMITS };
    const clean = await runOn([], NOISY, options);
    const finals = () => readdirSync(dir).filter((n) => !n.startsWith(".")).sort();
    const before = finals().map((n) => sha256(readFileSync(join(dir, n))));
    const output = hook();
    const during = [];
    const watch = (chunk) => {
      if (during.length === 0) {
        // The views' spills are being written, under temporary names; the clean run's files stay whole.
        during.push(readdirSync(dir).sort());
        during.push(finals().map((n) => sha256(readFileSync(join(dir, n)))));
      }
      output(chunk);
    };
    const reconnects = [];
    const cut = await runOn(faults, NOISY, { ...options, onOutput: watch, onReconnect: (r) => reconnects.push(r), backoffMs: 0 });
    assert.ok(reconnects.length >= 3, `the server was to cut the responses (${reconnects.length} reconnects)`);
    assert.deepEqual({ ...cut, procId: clean.procId }, clean);
    assert.ok(output.data("stdout").equals(NOISY_STDOUT), "each stdout byte once, in order");
    assert.ok(output.data("stderr").equals(NOISY_STDERR), "each stderr byte once");
    assert.equal(output.text("stdout"), NOISY_STDOUT.toString());
    assert.ok(!output.text("stdout").includes("\uFFFD"), "the euro sign split across frames is decoded whole");
    assert.deepEqual([output.calls[0].stream, [...output.calls[0].data], output.calls[0].text], ["stdout", [...enc.encode("euro "), 0xe2], "euro "]);
    const id = runSpillId("noisy-1");
    const path = (view) => join(dir, `${id}-${view}.txt`);
    assert.deepEqual(cut.stdout, whole(NOISY_STDOUT, `${id}-stdout`, path("stdout")));
    assert.deepEqual(cut.stderr, whole(NOISY_STDERR, `${id}-stderr`));
    const everything = Buffer.concat([NOISY_STDOUT, NOISY_STDERR]);
    assert.deepEqual(cut.combined, wholeEnded(everything, `${id}-combined`, "[... exit code 0 ...]", path("combined")));
    assert.ok(cut.combined.text.includes("error: the end"), "stderr's end is never lost to stdout");
    const temporary = during[0].filter((n) => n.startsWith("."));
    assert.equal(temporary.length, 2);
    for (const n of temporary) assert.match(n, /^\.spill-[0-9a-f]+\.tmp$/);
    assert.equal(before.length, 2);
    assert.deepEqual(during[1], before);
    assert.deepEqual(readdirSync(dir).sort(), [`${id}-combined.txt`, `${id}-stdout.txt`]);
    for (const [view, data] of [
      ["stdout", NOISY_STDOUT],
      ["combined", everything],
    ]) {
      assert.equal(sha256(readFileSync(path(view))), sha256(data), view);
      assert.equal(statSync(path(view)).mode & 0o777, 0o600, view);
    }
  });
}

test("a gap is said under gapPolicy skip (the exact count) and rejects under fail", async (t) => {
  const dir = tempDir(t);
  // The pause lets the server take every "a" before the last lines, which it then retains.
  const command = ["sh", "-c", "head -c 5000 /dev/zero | tr '\\0' a; sleep 0.3; echo; echo e >&2"];
  const { started, lost, skipped, failed } = await withComputer(["--retention-bytes", "1000"], async (computer, server) => {
    // Started and done before run reads: its first bytes are gone.
    const started = await computer.processes.start(command, { idempotency_key: "gap-1" });
    await server.waitExited(started.proc_id);
    const handle = await computer.processes.get(started.proc_id);
    const transcript = await handle.readOutput({ gapPolicy: "skip" });
    assert.deepEqual(transcript.skipped("stderr"), []);
    const lost = transcript.skipped("stdout");
    const skipped = await computer.run(command, { idempotencyKey: "gap-1", gapPolicy: "skip", ...LIMITS });
    const failed = await computer.run(command, { idempotencyKey: "gap-1", spill: new SpillDirectory(dir), ...LIMITS }).catch((e) => e);
    return { started, lost, skipped, failed };
  });
  assert.equal(lost.length, 1);
  assert.equal(lost[0][0], 0);
  const count = lost[0][1];
  assert.equal(skipped.procId, started.proc_id);
  assert.deepEqual([skipped.stdoutLostBytes, skipped.stderrLostBytes], [count, 0]);
  const line = `[... ${count} bytes lost: stdout offsets 0-${count} were not retained ...]\n`;
  assert.ok(skipped.stdout.text.endsWith(line), skipped.stdout.text);
  assert.ok(skipped.combined.text.endsWith(`${line}[... exit code 0 ...]\n`), skipped.combined.text);
  assert.ok(!skipped.stderr.text.includes("lost"));
  assert.equal(skipped.stdout.totalBytes, 5001 - count);
  assert.ok(failed instanceof OutputGap, String(failed));
  assert.deepEqual(readdirSync(dir), [], "the failed call's spills were discarded");
});

test("the same key re-attaches to the same process: the same result, started once", async (t) => {
  const dir = tempDir(t);
  const marks = join(dir, "started");
  const command = ["sh", "-c", `echo started >> ${marks}; seq 1 500; sleep 0.2; echo bye >&2`];
  const spill = new SpillDirectory(join(dir, "spill"));
  const [first, second, fresh] = await withComputer([], async (computer) => [
    await computer.run(command, { idempotencyKey: "again-1", spill, ...LIMITS }),
    await computer.run(command, { idempotencyKey: "again-1", spill, ...LIMITS }),
    [(await computer.run("true")).idempotencyKey, (await computer.run("true")).idempotencyKey],
  ]);
  assert.deepEqual(second, first);
  assert.equal(first.idempotencyKey, "again-1");
  assert.equal(readFileSync(marks, "utf8"), "started\n", "the command ran once");
  assert.ok(first.stdout.spillPath !== null && isAbsolute(first.stdout.spillPath));
  assert.equal(readFileSync(first.stdout.spillPath, "utf8"), Array.from({ length: 500 }, (_, i) => `${i + 1}\n`).join(""));
  assert.notEqual(fresh[0], fresh[1]);
});

for (const kill of [true, false]) {
  test(`an aborted run rejects with the signal's reason and ${kill ? "kills the process (killOnCancel)" : "leaves it running"}`, async (t) => {
    const dir = tempDir(t);
    const command = ["sh", "-c", "echo ready; sleep 30"];
    await withComputer([], async (computer, server) => {
      const controller = new AbortController();
      const reason = new Error("the agent moved on");
      const seen = [];
      const run = computer.run(command, {
        idempotencyKey: "cancel-1",
        killOnCancel: kill,
        spill: new SpillDirectory(dir),
        signal: controller.signal,
        onOutput: (chunk) => {
          seen.push(chunk.text);
          controller.abort(reason);
        },
      });
      await assert.rejects(run, (e) => e === reason);
      assert.deepEqual(seen, ["ready\n"]);
      // The keyed start again starts nothing: it names the process.
      const procId = (await computer.processes.start(command, { idempotency_key: "cancel-1" })).proc_id;
      if (kill) {
        await server.waitExited(procId, 10_000);
      } else {
        assert.equal((await computer.processes.get(procId)).status, "running");
        await computer.processes.kill(procId);
      }
    });
    assert.deepEqual(readdirSync(dir), [], "the spill files were discarded");
  });
}

test("ten megabytes: the spill is the output (sha256), the previews bound() of the full bytes, wasm memory bounded", async (t) => {
  const dir = tempDir(t);
  const size = 10_000_000;
  const line = "the same line of output, again and again\n";
  const data = Buffer.from(line.repeat(Math.ceil(size / line.length)).slice(0, size));
  let peak = 0;
  const memoryBefore = memoryBytes();
  const result = await runOn([], `yes '${line.trim()}' | head -c ${size}`, {
    spill: new SpillDirectory(dir),
    onOutput: () => {
      peak = Math.max(peak, memoryBytes());
    },
  });
  assert.ok(peak - memoryBefore < size / 4, `wasm memory grew by ${peak - memoryBefore} bytes`);
  assert.equal(result.combined.totalBytes, size);
  const path = result.combined.spillPath;
  assert.ok(path !== null);
  assert.equal(sha256(readFileSync(path)), sha256(data));
  assert.equal(sha256(readFileSync(result.stdout.spillPath)), sha256(data));
  const id = runSpillId(result.idempotencyKey);
  const limits = { maxLines: DEFAULT_RUN_MAX_LINES, maxBytes: DEFAULT_RUN_MAX_BYTES };
  assert.deepEqual(result.combined, wholeEnded(data, `${id}-combined`, "[... exit code 0 ...]", path, limits));
  assert.deepEqual(result.stdout, whole(data, `${id}-stdout`, result.stdout.spillPath, limits));
});

test("onOutput: an incomplete last character is flushed once at the end as U+FFFD with empty data", async () => {
  const output = hook();
  const result = await runOn([], "printf 'a\\342\\202'; printf 'b\\342' >&2", { onOutput: output });
  assert.equal(result.exitCode, 0);
  assert.ok(output.data("stdout").equals(Buffer.from([0x61, 0xe2, 0x82])));
  assert.equal(output.text("stdout"), "a\uFFFD");
  assert.equal(output.text("stderr"), "b\uFFFD");
  const flushes = output.calls.filter((c) => c.data.length === 0);
  assert.deepEqual(flushes.map((c) => [c.stream, c.text]).sort(), [
    ["stderr", "\uFFFD"],
    ["stdout", "\uFFFD"],
  ]);
});

test("SpillDirectory: a temporary file of mode 0600 renamed on commit, the absolute path; discard leaves nothing; bad names refused", async (t) => {
  const dir = tempDir(t);
  const spills = new SpillDirectory(join(dir, "made", "on", "demand"), { suffix: ".log" });
  const file = await spills.open("run-1-stdout");
  await file.write(enc.encode("hello "));
  await file.write(enc.encode("world\n"));
  const names = readdirSync(join(dir, "made", "on", "demand"));
  assert.equal(names.length, 1);
  assert.match(names[0], /^\.spill-[0-9a-f]+\.tmp$/);
  assert.equal(statSync(join(dir, "made", "on", "demand", names[0])).mode & 0o777, 0o600);
  const path = await file.commit();
  assert.equal(path, join(dir, "made", "on", "demand", "run-1-stdout.log"));
  assert.equal(readFileSync(path, "utf8"), "hello world\n");
  assert.equal(statSync(path).mode & 0o777, 0o600);
  await assert.rejects(file.write(enc.encode("x")), /committed or discarded/);
  const dropped = await spills.open("run-1-stderr");
  await dropped.write(enc.encode("x"));
  await dropped.discard();
  await dropped.discard();
  assert.deepEqual(readdirSync(join(dir, "made", "on", "demand")), ["run-1-stdout.log"]);
  for (const bad of ["a/b", "..", ".", "", "x y", "../escape", "é"]) {
    await assert.rejects(spills.open(bad), (e) => e.code === "invalid_argument" && e.argument === "spillId" && e.message.includes("is not a plain file name"), JSON.stringify(bad));
  }
  await assert.rejects(spills.open(5), TypeError);
  assert.throws(() => new SpillDirectory(""), TypeError);
  assert.throws(() => new SpillDirectory(dir, { suffix: "/../x" }), (e) => e.code === "invalid_argument" && e.argument === "suffix");
  assert.throws(() => new SpillDirectory(dir, { sufix: ".txt" }), /unknown SpillDirectory option/);
  assert.equal(new SpillDirectory(dir).suffix, ".txt");
  // An existing file of that name is replaced whole.
  writeFileSync(join(dir, "old.txt"), "old");
  const again = await new SpillDirectory(dir).open("old");
  await again.write(enc.encode("new"));
  assert.equal(readFileSync(await again.commit(), "utf8"), "new");
});

/** A run spill writer failing at `where` (its files are a SpillDirectory's until then); `async` methods when asked. */
function brokenSpill(directory, where, asynchronous) {
  const inner = new SpillDirectory(directory);
  const enospc = () => Object.assign(new Error("ENOSPC: no space left on device"), { code: "ENOSPC" });
  const maybe = (f) => (asynchronous ? async (...a) => f(...a) : f);
  return {
    open: maybe((spillId) => {
      if (where === "open") throw enospc();
      const opening = inner.open(spillId);
      const file = {
        write: maybe(async (data) => {
          if (where === "write") throw enospc();
          await (await opening).write(data);
        }),
        commit: async () => {
          if (where === "commit") throw enospc();
          const path = await (await opening).commit();
          return where === "returns" ? 42 : path;
        },
        discard: async () => (await opening).discard(),
      };
      return file;
    }),
  };
}

test("a failing spill writer never loses the preview: the view's spillError in the core's words, as bound() says it", async (t) => {
  const dir = tempDir(t);
  const data = Array.from({ length: 3000 }, (_, i) => `${i + 1}\n`).join("");
  const notAPath = bound(data, { ...LIMITS, spill: () => 42 }).spillError;
  assert.equal(notAPath, "spill writer returned number instead of a path string");
  const thrown = bound(data, { ...LIMITS, spill: () => {
    throw new Error("ENOSPC: no space left on device");
  } }).spillError;
  assert.equal(thrown, ENOSPC);
  await withComputer([], async (computer) => {
    for (const asynchronous of [false, true]) {
      for (const [where, error] of [
        ["open", ENOSPC],
        ["write", ENOSPC],
        ["commit", ENOSPC],
        ["returns", notAPath],
      ]) {
        const directory = join(dir, `${where}-${asynchronous}`);
        const result = await computer.run(["seq", "1", "3000"], { spill: brokenSpill(directory, where, asynchronous), ...LIMITS });
        const id = runSpillId(result.idempotencyKey);
        for (const view of ["stdout", "combined"]) {
          const p = result[view];
          assert.deepEqual([p.spillError, p.spillPath], [error, null], `${where} ${view}`);
          const shown = view === "combined" ? wholeEnded(data, `${id}-${view}`, "[... exit code 0 ...]") : whole(data, `${id}-${view}`);
          assert.equal(p.text, shown.text, `${where} ${view}`);
          assert.ok(!p.text.includes("sed -n"), "the notice names no file");
        }
        assert.equal(result.stderr.text, "");
        if (where === "open" || where === "write") {
          assert.ok(!existsSync(directory) || readdirSync(directory).length === 0, `${where}: nothing left behind`);
        }
      }
    }
  });
});

test("bad input rejects before any request", async () => {
  const { fetch, calls } = scriptedFetch([]);
  const computer = new Client({ baseUrl: "http://dory.test", fetch }).computers.get("c1");
  const refused = async (options, check, command = "ls") => {
    await assert.rejects(computer.run(command, options), check, JSON.stringify(options));
  };
  await refused({ maxLines: 1 }, InvalidLimits);
  await refused({ maxBytes: MIN_RUN_MAX_BYTES - 1 }, InvalidLimits);
  await refused({ maxLines: "40" }, (e) => e instanceof TypeError && /maxLines/.test(e.message));
  await refused({ maxBytes: 1.5 }, InvalidLimits);
  for (const key of ["", "a\nb", "é", "k".repeat(256)]) {
    await refused({ idempotencyKey: key }, (e) => e instanceof InvalidArgument && e.argument === "idempotencyKey");
  }
  await refused({ idempotencyKey: 5 }, (e) => e instanceof TypeError && /idempotencyKey/.test(e.message));
  await refused({}, (e) => e instanceof InvalidArgument && e.argument === "command", []);
  await refused({}, TypeError, 5);
  await refused({}, TypeError, ["ls", 1]);
  await refused({ spill: (spillId, data) => `/tmp/${spillId}${data.length}` }, (e) => e instanceof TypeError && /open\(spillId\)/.test(e.message));
  await refused({ timeoutMs: 0 }, (e) => e instanceof InvalidArgument && e.argument === "timeoutMs");
  await refused({ timeoutMs: -1 }, (e) => e instanceof InvalidArgument && e.argument === "timeoutMs");
  await refused({ timeoutMs: "30" }, (e) => e instanceof TypeError && /timeoutMs/.test(e.message));
  // The retired name fails, naming the new one.
  await refused({ timeoutSeconds: 30 }, (e) => e instanceof TypeError && /"timeoutSeconds": use timeoutMs/.test(e.message));
  await refused({ retries: -1 }, (e) => e instanceof InvalidArgument && e.argument === "retries");
  await refused({ gapPolicy: "ignore" }, (e) => e instanceof InvalidArgument && e.argument === "gapPolicy");
  await refused({ backoffMs: -5 }, (e) => e instanceof InvalidArgument && e.argument === "backoffMs");
  await refused({ onOutput: 5 }, (e) => e instanceof TypeError && /onOutput/.test(e.message));
  await refused({ onReconnect: "x" }, (e) => e instanceof TypeError && /onReconnect/.test(e.message));
  await refused({ hint: 5 }, (e) => e instanceof TypeError && /hint/.test(e.message));
  await refused({ killOnCancel: "yes" }, (e) => e instanceof TypeError && /killOnCancel/.test(e.message));
  await refused({ signal: {} }, (e) => e instanceof TypeError && /AbortSignal/.test(e.message));
  await refused({ follow: false }, (e) => e instanceof TypeError && /unknown run option "follow"/.test(e.message));
  await refused({ idempotency_key: "k" }, (e) => e instanceof TypeError && /unknown run option "idempotency_key"/.test(e.message));
  const reason = new Error("already cancelled");
  await refused({ signal: AbortSignal.abort(reason) }, (e) => e === reason);
  assert.deepEqual(calls, [], "nothing was sent, nothing started");
});

test("aborted while starting: rejects with the reason; with killOnCancel the keyed start again names the process to kill", async () => {
  const identity = { type: JSON_TYPE, chunks: [JSON.stringify({ proc_id: "p_9", status: "running" })] };
  for (const kill of [false, true]) {
    const { fetch, calls } = scriptedFetch(["hang", identity, identity]);
    const computer = new Client({ baseUrl: "http://dory.test", fetch }).computers.get("c1");
    const controller = new AbortController();
    const reason = new Error("stop");
    const run = computer.run("sleep 30", { idempotencyKey: "start-1", signal: controller.signal, killOnCancel: kill });
    while (calls.length === 0) await new Promise((r) => setTimeout(r, 1));
    controller.abort(reason);
    await assert.rejects(run, (e) => e === reason);
    const sent = calls.map((c) => `${c.method} ${new URL(c.url).pathname} ${c.headers["idempotency-key"] ?? ""}`.trim());
    assert.deepEqual(
      sent,
      kill
        ? ["POST /computers/c1/processes start-1", "POST /computers/c1/processes start-1", "POST /computers/c1/processes/p_9/kill"]
        : ["POST /computers/c1/processes start-1"],
    );
  }
});

test("the browser build of the client imports no node: module and has no dynamic import (Workers bundlers and Miniflare refuse both)", () => {
  const web = readFileSync(join(rootDir, "npm", "dist", "web", "client.js"), "utf8");
  assert.doesNotMatch(web, /\bimport\s*\(/);
  assert.doesNotMatch(web, /from\s*["']node:/);
  assert.match(web, /getBuiltinModule/, "SpillDirectory gets node:fs/promises when a file is opened");
});

test("npm/examples/agent-run.mjs through seeded drops: the combined view keeps the failing line from the middle, its number that of the spill", async (t) => {
  const dir = tempDir(t);
  const server = await new RefServer(["--drop-seed", "5", "--drop-max-bytes", "20000", "--max-chunk-bytes", "4096"]).start();
  try {
    const { spawn } = await import("node:child_process");
    const child = spawn(process.execPath, [join(rootDir, "npm", "examples", "agent-run.mjs"), dir], { env: { ...process.env, DORY_URL: server.url }, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    const code = await new Promise((resolve) => child.once("exit", resolve));
    assert.equal(code, 0, `${out}\n${err}`);
    assert.match(out, /followed through [1-9]\d* reconnects/);
    assert.match(out, /error: 1 module failed to build/);
    const kept = /^(\d+):FATAL: checksum mismatch in shard 7431/m.exec(out);
    assert.ok(kept, out);
    assert.match(out, new RegExp(`kept from the middle: line ${kept[1]}; line ${kept[1]} of .*run-[0-9a-f]{32}-combined\\.txt:\\n {2}FATAL: checksum mismatch in shard 7431`));
  } finally {
    await server.stop();
  }
});
