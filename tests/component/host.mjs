// A Node host of the dory-wire component, transpiled to JavaScript by jco
// (`npx @bytecodealliance/jco transpile dory-wire.wasm -o out/`): follows a
// process's output across a dropped connection with the exported follower,
// shows a loss as an error value, bounds a long output with the spill
// handshake, bounds a run's stdout and stderr combined in arrival order
// with a lost range said, and runs an agent call with the exported `run`
// against the reference server (DORY_URL, else it starts
// target/debug/dory-refserver, or DORY_REFSERVER_BIN, on a free port). It
// prints the same text as host.py; scripts/test-component.sh checks both.
//
//   node host.mjs [path/to/transpiled/dory-wire.js]
import { spawn } from "node:child_process";
import { getRandomValues } from "node:crypto";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const entry = process.argv[2] ? resolve(process.argv[2]) : join(here, "..", "..", "target", "component", "jco", "dory-wire.js");
// jco's module instantiates the component with a top-level await.
const { decode, follow, preview, run, runMachine } = await import(pathToFileURL(entry).href);

const hex = (bytes) => Buffer.from(bytes).toString("hex");
const enc = new TextEncoder();

function show(prefix, event) {
  const e = event.val;
  if (event.tag === "output") console.log(`${prefix}: output ${e.stream} [${e.start}, ${e.end}) ${hex(e.data)}`);
  else if (event.tag === "exit") console.log(`${prefix}: exit ${e.exitCode ?? "None"}`);
  else console.log(`${prefix}: ${event.tag}`);
}

function showError(prefix, err) {
  console.log(`${prefix}: ${err.code} (${err.kind}, ${err.className}): ${err.message}`);
  for (const f of err.fields) {
    const v = f.value.val;
    console.log(`${prefix}:   ${f.name} = ${f.value.tag === "cursor" ? `stdout=${v.stdout} stderr=${v.stderr}` : v}`);
  }
}

/**
 * Whether fetch's error says the connection was never made (refused, the
 * name lookup failed): then the request cannot have reached the service.
 */
function neverConnected(err) {
  return ["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH"].includes(err?.cause?.code);
}

/** The connection broke mid-body (what the HTTP client throws). */
class Dropped extends Error {}

/**
 * Stands in for the HTTP client and the service: the status, the headers and
 * the body as the client yields it. The first connection drops in the middle
 * of a frame; the second re-sends from an earlier chunk boundary (the
 * follower trims the overlap) through exit.
 */
function send(method, target) {
  const frames = [
    '{"type":"stdout","data":"hello\\u0000","offset":6}\n',
    '{"type":"stdout","data":"/w==","encoding":"base64","offset":7}\n',
    '{"type":"stderr","data":"notice","offset":6}\n',
    '{"type":"exit","exit_code":0,"timed_out":false}\n',
  ];
  if (method !== "GET" || !target.startsWith("/computers/c1/processes/p1/output?")) throw new Error(target);
  const broken = target.includes("stdout_offset=0&");
  const body = enc.encode(broken ? `${frames[0]}{"type":"stdo` : frames.join(""));
  const headers = new Map([
    ["content-type", "application/x-ndjson"],
    ["ce-process-id", "p1"],
  ]);
  function* chunks() {
    for (let at = 0; at < body.length; at += 7) yield body.subarray(at, at + 7);
    if (broken) throw new Dropped("connection reset by peer");
  }
  return { status: 200, headers, body: chunks() };
}

// 1. Follow a process's output across a dropped connection with the exported
//    follower: it says which request to send, what each answer means, when to
//    reconnect and after how long. This loop only does the IO, the sleeping
//    and the clock (and draws the jitter).
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));
const follower = follow.Follower.processOutput("c1", "p1", undefined, {}); // throws the error record on error
for (let attempt = 1; ; attempt++) {
  const prefix = `attempt ${attempt}`;
  const request = follower.request();
  const method = request.method.toUpperCase();
  console.log(`${prefix}: ${method} ${request.target}`);
  let decision;
  let response;
  try {
    response = send(method, request.target);
  } catch (err) {
    if (!(err instanceof TypeError)) throw err; // fetch: refused, reset before the headers
    decision = neverConnected(err)
      ? follower.notConnected(String(err.message), Math.random())
      : follower.noResponse(String(err.message), Math.random());
  }
  if (response) {
    const { status, headers, body } = response;
    follower.open(status, headers.get("content-type") ?? "", headers.get("ce-process-id"), headers.get("retry-after"));
    let broken;
    try {
      for (;;) {
        // A socket read would wait at most this long (undefined: no limit),
        // as the run below does; the wait is then reported.
        follower.waitLimitNs();
        const started = process.hrtime.bigint();
        const next = body.next();
        // Stalled: close the connection, then finish (what the wait brought is not fed).
        if (follower.waitedNs(process.hrtime.bigint() - started)) break;
        if (next.done) break;
        const fed = follower.feed(next.value);
        for (const event of fed.events) show(prefix, event);
        if (fed.error) throw new Error(fed.error.message);
      }
    } catch (err) {
      if (!(err instanceof Dropped)) throw err;
      broken = err.message;
    }
    const followed = follower.finish(broken, Math.random());
    for (const event of followed.events) show(prefix, event);
    if (followed.decision.tag === "err") throw new Error(followed.decision.val.message);
    decision = followed.decision.val;
  }
  if (decision.tag === "reconnect") {
    const r = decision.val;
    const c = r.cursor;
    console.log(`${prefix}: reconnect ${r.attempt} (${r.reason}: ${r.detail}), from stdout=${c.stdout} stderr=${c.stderr} in ${r.delayNs / 1_000_000n} ms`);
    await sleep(Number(r.delayNs) / 1e6);
  } else if (decision.tag === "done") {
    console.log(`${prefix}: done (exit code ${decision.val.exitCode ?? "None"})`);
    break;
  }
}
console.log(`saved: ${follower.resumeStateJson()}`);
follower[Symbol.dispose]();

// 2. Lost output is an error value, never joined over silently.
const reader = new decode.Reader("process-output", { cursor: { stdout: 4096n, stderr: 0n } });
reader.open(200, "application/x-ndjson", undefined);
const fed = reader.feed(enc.encode('{"type":"gap","earliest_stdout_offset":1048576,"earliest_stderr_offset":0}\n'));
showError("gap", fed.error);
reader[Symbol.dispose]();

// 3. A long output bounded to 6 lines and 300 bytes. The component asks for a
//    spill; the host saves the output (here it only names the file) and renders.
let text = "";
for (let i = 1; i <= 1000; i++) text += `step ${i}\n`;
// keep: defaults / patterns(list), terminal: true to turn them on, split: "tail" for run's shape;
// maxTokens and tokenizer: "approx" (the component's) for a token budget (absent: none)
const noOptions = { keep: { tag: "none" }, terminal: false, split: "even" };
const bounded = preview.bound(enc.encode(text), 6n, 300n, undefined, noOptions); // throws the error record on error
const pending = bounded.val; // bounded.tag === "needs-spill"
const path = `/tmp/spill/${pending.spillId()}.txt`;
const p = pending.render({ tag: "saved", val: path }, "read it with sed");
pending[Symbol.dispose]();
console.log(`preview: ${p.omittedLines} lines omitted, ${enc.encode(p.text).length} bytes`);
process.stdout.write(p.text);

// 4. A run: stdout and stderr combined in the order they arrived, bounded to
//    16 lines and 600 bytes as they stream (a host pushes each chunk as the
//    follower delivers it, or passes the events to `feed`), with a range
//    skipped under gap policy `skip` said at the end, and stderr's end kept.
run.checkLimits(16n, 600n); // throws the error record for limits a run cannot honour
const bounder = new run.RunBounder(16n, 600n, run.runSpillId("build-42"), noOptions);
let offset = 0n;
for (let i = 1; i <= 300; i++) {
  const line = enc.encode(`compiling unit ${i}\n`);
  bounder.push("stdout", line);
  offset += BigInt(line.length);
  if (i === 150) bounder.push("stderr", enc.encode("error: unit 150 failed\n"));
}
bounder.lose("stdout", offset, offset + 4096n);
const finished = run.RunBounder.finish(bounder);
const [lostBytes, lostRanges] = finished.lost("combined");
const id = finished.spillId("combined");
const combined = finished.render("combined", { tag: "saved", val: `/tmp/spill/${id}.txt` }, undefined);
finished[Symbol.dispose]();
console.log(`run: ${id}, ${lostBytes} bytes lost in ${lostRanges} range, ${enc.encode(combined.text).length} bytes`);
process.stdout.write(combined.text);

// 5. An agent call against the reference server with the exported `run`: the
//    keyed start, the output from offset 0, the spills and the live output
//    hook, and the result. The run decides every request, what each answer
//    means and how long to wait; this loop only does the HTTP (fetch), the
//    sleeping, the clock and the spill "files" (kept in memory here; a
//    commit only names the file, as in 3).
async function server() {
  if (process.env.DORY_URL) return { url: process.env.DORY_URL, stop() {} };
  const bin = process.env.DORY_REFSERVER_BIN ?? join(here, "..", "..", "target", "debug", "dory-refserver");
  const child = spawn(bin, ["--port", "0"], { stdio: ["ignore", "pipe", "inherit"] });
  const url = await new Promise((done, fail) => {
    let out = "";
    child.on("error", fail);
    child.on("exit", (code) => fail(new Error(`${bin} exited (${code}) before listening`)));
    child.stdout.on("data", (data) => {
      out += data;
      const m = /^listening on (\S+)$/m.exec(out);
      if (m) done(m[1]);
    });
  });
  child.removeAllListeners("exit");
  return { url, stop: () => child.kill("SIGTERM") };
}

/** One read of the body within the run's wait limit: `{ done, value }`, or `{ late: true }`. */
async function readWithin(reader, run) {
  const limit = run.waitLimitNs();
  const started = process.hrtime.bigint();
  let timer;
  const late = new Promise((done) => {
    if (limit !== undefined) timer = setTimeout(() => done({ late: true }), Number(limit / 1_000_000n) + 1);
  });
  const got = await Promise.race([reader.read(), late]);
  clearTimeout(timer);
  // Report the wait; when the liveness timeout is spent, what it brought is not fed.
  if (run.waitedNs(process.hrtime.bigint() - started)) return { late: true };
  return got;
}

const shell = 'i=1; while [ $i -le 40 ]; do echo "test $i ok"; i=$((i+1)); done; sleep 0.3; echo "warning: 1 test was slow" >&2; exit 3';
const { url, stop } = await server();
const agent = new runMachine.Run(
  "host",
  { tag: "shell", val: shell },
  { maxLines: 8n, maxBytes: 300n, idempotencyKey: "host-run-1", hint: "read it with sed", spill: true, onOutput: true, follow: {} },
  getRandomValues(new Uint8Array(16)),
); // throws the error record on error
const spills = new Map(); // view -> { id, bytes, end }
const hook = { stdout: 0, stderr: 0 };
function act(actions) {
  for (const { tag, val } of actions) {
    if (tag === "open-spill") spills.set(val.view, { id: val.spillId, bytes: 0, end: "open" });
    else if (tag === "write-spill") spills.get(val.view).bytes += val.data.length;
    else if (tag === "output") hook[val.stream] += val.data.length; // a live hook would show val.text
    else if (tag === "commit-spill") {
      const spill = spills.get(val);
      spill.end = "committed";
      agent.spillCommitted(val, { tag: "saved", val: `/tmp/spill/${spill.id}.txt` });
    } else if (tag === "discard-spill") spills.get(val).end = "discarded";
  }
}
try {
  for (;;) {
    const request = agent.request();
    const method = request.method.toUpperCase();
    const procId = agent.procId();
    console.log(`run: ${method} ${procId ? request.target.replace(procId, "<proc>") : request.target}`);
    let step;
    let response;
    try {
      response = await fetch(url + request.target, { method, headers: request.headers, body: request.body, redirect: "manual" });
    } catch (err) {
      step = neverConnected(err)
        ? agent.notConnected(String(err.message), Math.random())
        : agent.noResponse(String(err.message), Math.random());
    }
    if (response) {
      const h = (name) => response.headers.get(name) ?? undefined;
      agent.open(response.status, h("content-type") ?? "", h("ce-process-id"), h("retry-after"));
      const reader = response.body.getReader();
      let broken;
      try {
        for (;;) {
          const got = await readWithin(reader, agent);
          if (got.late) {
            await reader.cancel(); // stalled: close the connection, then finish
            break;
          }
          if (got.done) break;
          const fed = agent.feed(got.value);
          act(fed.actions);
          if (fed.error) throw new Error(fed.error.message);
        }
      } catch (err) {
        if (err instanceof TypeError) broken = String(err.message);
        else throw err;
      }
      const finished = agent.finish(broken, Math.random());
      act(finished.actions);
      if (finished.step.tag === "err") throw new Error(finished.step.val.message);
      step = finished.step.val;
    }
    console.log(`run: ${step.tag}`);
    if (step.tag === "wait") await sleep(Number(step.val.delayNs) / 1e6);
    if (step.tag === "done" || step.tag === "cancelled") break;
  }
  const r = agent.result(); // throws the error record on error
  console.log(`run: exit code ${r.exitCode ?? "None"}, timed out ${r.timedOut ? "True" : "False"}, state ${agent.state()}, key ${r.idempotencyKey}`);
  console.log(`run: the hook got ${hook.stdout} bytes of stdout and ${hook.stderr} of stderr`);
  for (const view of ["stdout", "stderr", "combined"]) {
    const spill = spills.get(view);
    console.log(`run: spill ${view}: ${spill.bytes} bytes, ${spill.end}`);
  }
  // The combined view's order is the order the two pipes were read in:
  // print its counts, and the text of each stream's own view.
  console.log(`run: combined, ${r.combined.totalLines} lines, ${r.combined.totalBytes} bytes, ${r.combined.truncated ? "cut" : "whole"}`);
  for (const view of ["stdout", "stderr"]) {
    const p = r[view];
    console.log(`run: ${view}, ${p.totalLines} lines, ${p.totalBytes} bytes, ${p.truncated ? "cut" : "whole"}:`);
    process.stdout.write(p.text);
  }
} finally {
  agent[Symbol.dispose]();
  stop();
}
